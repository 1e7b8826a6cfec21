package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.metrics.KeyState;
import io.junction.metrics.PartitionSnapshot;
import io.junction.metrics.RowExplanation;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Asking a running engine (docs/SEMANTICS.md 14): {@code JoinEngine.inspection()}'s {@code inspect} and {@code explain} of a key with
 * {@code rows} stored rows on each side of a regular left join, from the benchmark thread, the partition thread
 * idle in its wait (sleeping strategy, 2 partitions). One operation is one whole answer: the request through the
 * control mailbox, the partitions' reads between two events, the rows decoded and merged (all of them listed,
 * the cap at {@code rows}). The goal: under 1 ms for 1,000 rows.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class InspectBenchmark
{
    private static final Schema SHOWS = Schema.of("id", "ts", "show");
    private static final Schema CLICKS = Schema.of("id", "ts", "click");

    /** Stored rows of the key, each side. */
    @Param({"10", "1000"})
    public int rows;

    private JoinEngine engine;
    private final Row key = Row.of("id", 7L);
    private final Row probe = Row.of("id", 7L, "ts", 1L, "show", "probe");

    @Setup(Level.Trial)
    public void setUp()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SHOWS, CLICKS)
            .leftKey("id").rightKey("id").build();
        engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2).withWaitStrategy(WaitStrategyKind.SLEEPING))
            .resultHandler((kind, left, right, ts, step) -> { }).start();
        final Publisher publisher = engine.publisher();
        long step = 0;
        for (int i = 0; i < rows; i++)
        {
            publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 7L, "ts", (long) i, "show", "s" + i), i, step++);
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 7L, "ts", (long) i, "click", "c" + i), i, step++);
        }
        // every row processed before the first measurement
        while (processed() < step)
        {
            Thread.onSpinWait();
        }
    }

    private long processed()
    {
        long events = 0;
        for (final PartitionSnapshot p : engine.metrics())
        {
            events += p.events;
        }
        return events;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    @Benchmark
    public KeyState inspect()
    {
        return engine.inspection().inspect(Side.LEFT, key, rows);
    }

    @Benchmark
    public RowExplanation explain()
    {
        return engine.inspection().explain(Side.LEFT, probe, 1);
    }
}
