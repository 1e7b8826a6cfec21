package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.internal.row.KeyHash;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
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
import org.openjdk.jmh.infra.Blackhole;

import java.util.concurrent.TimeUnit;

/**
 * The interval join's per-event path in the shape of W1 (show/click): every operation is one
 * impression (left, a new key, ts = n); every fifth impression gets a click (right, same key)
 * 0..30 s later, modelled as a click for impression n - delay; a watermark max_ts - 5000 every 1000
 * events expires what can no longer match (and pads it in a left join). State stays at ~35 s of
 * rows, as in W1. Run with {@code -prof gc}: ~0 B/op once warm.
 *
 * <p>{@code hotKeys}: the counters of the hot-key sketch ({@code junction.metrics.hotKeys}; 0 = off),
 * to show its cost on W1's path, its worst case: nearly every key is new, so nearly every row misses
 * the sketch (a scan of its slots to find the key, one to find the lightest, a copy of the key sample).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class IntervalJoinBenchmark
{
    @Param({"INNER", "LEFT"})
    public JoinType type;

    @Param({"16", "0"})
    public int hotKeys;

    private JoinOperator join;
    private final BenchRows rows = new BenchRows();
    private long n;
    private Blackhole blackhole;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        this.blackhole = blackhole;
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, type)
            .schemas(BenchRows.SCHEMA, BenchRows.SCHEMA).leftKey("key").rightKey("key")
            .interval(IntervalBounds.inclusive(-30_000, 30_000)).build();
        join = JoinOperators.create(spec, StateConfig.defaults().withMaxKeys(1 << 18).withHotKeys(hotKeys),
            (kind, left, right, ts, step) -> this.blackhole.consume(ts), DeadLetterHandler.NONE);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        join.close();
    }

    @Benchmark
    public void impressionWithOccasionalClick()
    {
        final long i = n++;
        join.onRow(Side.LEFT, ChangeKind.INSERT, rows.set(KeyHash.mix(i), i, i, 0), i, i);
        if (i % 5 == 0 && i >= 30_000)
        {
            final long shown = i - (KeyHash.mix(i) >>> 1) % 30_000;
            join.onRow(Side.RIGHT, ChangeKind.INSERT, rows.set(KeyHash.mix(shown), i, i, 1), i, i);
        }
        if (i % 1000 == 999)
        {
            join.onWatermark(i - 5000, i);
        }
    }
}
