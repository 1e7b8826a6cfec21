package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.internal.row.KeyHash;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
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

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Events through the whole runtime: publisher, Disruptor rings, partition threads, operator and
 * off-heap state. For the interval join the events have W1's shape (impressions left-joined to
 * clicks within 30 s, watermarks every 1000 events; one operation = one event). For the regular
 * join, as {@link RegularJoinBenchmark}: 100,000 keys with 5 right rows each, and one operation = a
 * left row inserted then retracted (two events, ten results), so state stays the same size.
 * Throughput is measured at the publisher: once a ring is full, publishing proceeds at the
 * partitions' pace, so the score is the sustained engine rate.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class RuntimeBenchmark
{
    @Param({"1", "2"})
    public int partitions;

    @Param({"INTERVAL", "REGULAR"})
    public JoinKind join;

    @Param({"LEFT"})
    public JoinType type;

    @Param({"SLEEPING"})
    public WaitStrategyKind waitStrategy;

    private JoinEngine engine;
    private Publisher publisher;
    private final BenchRows rows = new BenchRows();
    private final AtomicLong results = new AtomicLong();
    private long n;

    @Setup(Level.Trial)
    public void setUp()
    {
        final JoinSpec.Builder builder = JoinSpec.builder(join, type)
            .schemas(BenchRows.SCHEMA, BenchRows.SCHEMA).leftKey("key").rightKey("key");
        if (join == JoinKind.INTERVAL)
        {
            builder.interval(IntervalBounds.inclusive(-30_000, 30_000));
        }
        final long[] counts = new long[partitions];
        engine = JoinEngine.builder(builder.build())
            .config(EngineConfig.defaults().withPartitions(partitions).withWaitStrategy(waitStrategy)
                .withState(StateConfig.defaults().withMaxKeys(join == JoinKind.INTERVAL ? 1 << 18 : 1 << 20)))
            .resultHandlers(p -> (kind, left, right, ts, step) -> counts[p]++)
            .start();
        publisher = engine.publisher();
        if (join == JoinKind.REGULAR)
        {
            long step = 0;
            for (int k = 0; k < REGULAR_KEYS; k++)
            {
                for (int r = 0; r < 5; r++, step++)
                {
                    publisher.publish(Side.RIGHT, ChangeKind.INSERT, rows.set(k, step, step, 1), step, step);
                }
            }
        }
    }

    private static final int REGULAR_KEYS = 100_000;

    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    @Benchmark
    public void publishEvent()
    {
        final long i = n++;
        if (join == JoinKind.INTERVAL)
        {
            if (i % 6 == 5 && i >= 36_000)
            {
                final long shown = i - (KeyHash.mix(i) >>> 1) % 30_000;
                publisher.publish(Side.RIGHT, ChangeKind.INSERT, rows.set(KeyHash.mix(shown), i, i, 1), i, i);
            }
            else
            {
                publisher.publish(Side.LEFT, ChangeKind.INSERT, rows.set(KeyHash.mix(i), i, i, 0), i, i);
            }
            if (i % 1000 == 999)
            {
                publisher.watermark(i - 5000, i);
            }
        }
        else
        {
            final long key = (KeyHash.mix(i) >>> 1) % REGULAR_KEYS;
            publisher.publish(Side.LEFT, ChangeKind.INSERT, rows.set(key, i, i, 0), i, i);
            publisher.publish(Side.LEFT, ChangeKind.DELETE, rows.view, i, i);
        }
    }
}
