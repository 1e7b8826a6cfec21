package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.metrics.EngineBeans;
import io.junction.metrics.PartitionSnapshot;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * User code that throws inside the join (a filter, a coGroup function) is counted where an operator
 * sees it, published with the partition's metrics and summed in the engine's JMX bean.
 */
class UserCodeFailuresEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");

    private static long published(final JoinEngine engine)
    {
        long failures = 0;
        for (final PartitionSnapshot snapshot : engine.metrics())
        {
            failures += snapshot.userCodeFailures;
        }
        return failures;
    }

    @Test
    void aThrowingFilterIsCountedPerPartitionAndInJmx() throws Exception
    {
        final int v = SCHEMA.indexOf("v");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .leftFilter(row ->
            {
                if (row.getLong(v) % 3 == 0)
                {
                    throw new IllegalStateException("filter fails on purpose");
                }
                return true;
            })
            .build();
        final AtomicLong errors = new AtomicLong();
        final JoinEngine engine = JoinEngine.builder(spec).name("user-code-failures").config(EngineConfig.defaults().withPartitions(2))
            .resultHandlers(p -> (kind, left, right, ts, step) -> { })
            .deadLetterHandler((side, kind, row, ts, step, reason) -> { })
            .errorHandler(t -> errors.incrementAndGet())
            .start();
        try
        {
            for (int i = 0; i < 10; i++)
            {
                engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", (long)i, "v", (long)i), 0, i);
            }
            engine.publisher().endOfInput(10);
            engine.close();
            // v = 0, 3, 6, 9 throw
            assertEquals(4, published(engine));
            assertEquals(4, errors.get(), "each failure is also reported to the error handler");
        }
        finally
        {
            engine.close();
        }
    }

    @Test
    void aThrowingCoGroupFunctionIsCounted()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.WINDOW, JoinType.FULL).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .window(WindowSpec.tumbling(10, 0))
            .coGroup((left, right, start, end, out) ->
            {
                throw new IllegalStateException("coGroup fails on purpose");
            })
            .build();
        final JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandlers(p -> (kind, left, right, ts, step) -> { })
            .deadLetterHandler((side, kind, row, ts, step, reason) -> { })
            .errorHandler(t -> { })
            .start();
        try
        {
            // two keys in one window, one key in the next: three calls, three failures
            engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", 1L, "v", 1L), 1, 0);
            engine.publisher().publish(Side.RIGHT, ChangeKind.INSERT, Row.of("k", 2L, "v", 2L), 2, 1);
            engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", 1L, "v", 3L), 12, 2);
            engine.publisher().endOfInput(3);
        }
        finally
        {
            engine.close();
        }
        assertEquals(3, published(engine));
    }

    @Test
    void theEngineBeanSumsThePartitions() throws Exception
    {
        final int v = SCHEMA.indexOf("v");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .rightFilter(row ->
            {
                throw new IllegalStateException("always");
            })
            .build();
        final JoinEngine engine = JoinEngine.builder(spec).name("user-code-failures-jmx").config(EngineConfig.defaults().withPartitions(2))
            .resultHandlers(p -> (kind, left, right, ts, step) -> { })
            .deadLetterHandler((side, kind, row, ts, step, reason) -> { })
            .errorHandler(t -> { })
            .start();
        try
        {
            for (int i = 0; i < 6; i++)
            {
                engine.publisher().publish(Side.RIGHT, ChangeKind.INSERT, Row.of("k", (long)i, "v", (long)i), 0, i);
            }
            engine.publisher().endOfInput(6);
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            final ObjectName bean = EngineBeans.engineName("user-code-failures-jmx");
            // metrics are published at the end of each batch: wait (bounded) until all 6 rows and the two
            // partitions' end of input are in
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((Long)server.getAttribute(bean, "Events") < 8 && System.nanoTime() < deadline)
            {
                LockSupport.parkNanos(100_000);
            }
            assertEquals(6L, server.getAttribute(bean, "UserCodeFailures"));
        }
        finally
        {
            engine.close();
        }
    }
}
