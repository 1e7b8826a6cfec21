package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.metrics.HotKey;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The hot-key report through a running engine: {@link JoinEngine#hotKeys(int)} and the partition beans' HotKeys attribute. */
class HotKeysEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final int PARTITIONS = 2;
    private static final int HOT_LEFT_ROWS = 50;
    private static final int HOT_PROBES = 5;
    private static final int COLD_KEYS = 40;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();

    private RowView row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    private JoinEngine start(final String name, final StateConfig state, final CountDownLatch results)
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").build();
        return JoinEngine.builder(spec).name(name)
            .config(EngineConfig.defaults().withPartitions(PARTITIONS).withRingSize(1024).withState(state)
                .withWaitStrategy(WaitStrategyKind.BLOCKING))
            .resultHandler((kind, left, right, ts, step) -> results.countDown())
            .start();
    }

    /** Publishes a hot key 7 (50 left rows, probed by 5 right rows) among 40 cold keys; returns the next step. */
    private long publish(final Publisher publisher)
    {
        long step = 0;
        for (int v = 0; v < HOT_LEFT_ROWS; v++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(7, v), 0, step++));
        }
        for (int k = 100; k < 100 + COLD_KEYS; k++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, 0), 0, step++));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(k, 0), 0, step++));
        }
        for (int v = 0; v < HOT_PROBES; v++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(7, v), 0, step++));
        }
        return step;
    }

    private static HotKey hottest(final JoinEngine engine)
    {
        HotKey hottest = null;
        for (int p = 0; p < PARTITIONS; p++)
        {
            final List<HotKey> keys = engine.hotKeys(p);
            if (!keys.isEmpty() && (hottest == null || keys.get(0).visitedRows > hottest.visitedRows))
            {
                hottest = keys.get(0);
            }
        }
        return hottest;
    }

    @Test
    void theEndOfInputPublishesTheReportReadThroughTheEngineAndJmx() throws Exception
    {
        final CountDownLatch results = new CountDownLatch(HOT_LEFT_ROWS * HOT_PROBES + COLD_KEYS);
        final String name = "hot-keys-engine";
        final JoinEngine engine = start(name, StateConfig.defaults().withMaxKeys(4096), results);
        try
        {
            final Publisher publisher = engine.publisher();
            final long step = publish(publisher);
            assertTrue(results.await(30, TimeUnit.SECONDS), "every result arrived");
            assertEquals(Publisher.PUBLISHED, publisher.endOfInput(step));
            // The batch holding the end of input publishes a report whatever the interval.
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String top = null;
            while (top == null)
            {
                for (int p = 0; p < PARTITIONS; p++)
                {
                    final String[] lines = (String[])server.getAttribute(
                        new ObjectName("io.junction:type=JoinPartition,name=" + name + ",partition=" + p), "HotKeys");
                    if (lines.length > 0 && lines[0].startsWith("key=7 visited=" + HOT_LEFT_ROWS * HOT_PROBES + " "))
                    {
                        top = lines[0];
                    }
                }
                if (System.nanoTime() > deadline)
                {
                    fail("no partition reported key 7 as its hottest");
                }
                LockSupport.parkNanos(100_000);
            }
            assertTrue(top.contains(" stored=" + (HOT_LEFT_ROWS + HOT_PROBES) + " live=" + (HOT_LEFT_ROWS + HOT_PROBES) + " error=0 "), top);
            final HotKey hot = hottest(engine);
            assertEquals("7", hot.keyText());
            assertEquals((long)HOT_LEFT_ROWS * HOT_PROBES, hot.visitedRows);
            assertEquals(HOT_LEFT_ROWS + HOT_PROBES, hot.storedRows);
            assertEquals(HOT_LEFT_ROWS + HOT_PROBES, hot.liveRows);
        }
        finally
        {
            engine.close();
        }
        // Published once more as the partitions stop: final after close.
        assertEquals(HOT_LEFT_ROWS + HOT_PROBES, hottest(engine).storedRows);
    }

    @Test
    void closingPublishesAFinalReportAndZeroCountersKeepNone() throws Exception
    {
        final CountDownLatch results = new CountDownLatch(HOT_LEFT_ROWS * HOT_PROBES + COLD_KEYS);
        final JoinEngine engine = start("hot-keys-close", StateConfig.defaults().withMaxKeys(4096), results);
        publish(engine.publisher());
        assertTrue(results.await(30, TimeUnit.SECONDS));
        engine.close();
        assertEquals("7", hottest(engine).keyText());
        int reported = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            reported += engine.hotKeys(p).size();
        }
        // 41 keys over 2 partitions: one partition holds at least 21, so its sketch is full.
        assertTrue(reported >= StateConfig.HOT_KEYS_DEFAULT && reported <= 2 * StateConfig.HOT_KEYS_DEFAULT, "reported " + reported);

        final CountDownLatch offResults = new CountDownLatch(HOT_LEFT_ROWS * HOT_PROBES + COLD_KEYS);
        final JoinEngine off = start("hot-keys-off", StateConfig.defaults().withMaxKeys(4096).withHotKeys(0), offResults);
        publish(off.publisher());
        assertTrue(offResults.await(30, TimeUnit.SECONDS));
        off.close();
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(List.of(), off.hotKeys(p));
        }
    }
}
