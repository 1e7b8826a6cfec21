package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
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
 * The temporal and lookup joins' per-event path in the shape of W5 (orders and a currency-rate table):
 * every operation is one order (left, ts = n, one of 1,000 currencies, the low ones hot), every tenth
 * operation a rate update (right, up to 999 ms late), and a watermark max_ts - 5000 every 1000 events,
 * which emits the orders it reaches (temporal) and frees the rates no order can select any more. The
 * state stays at ~5 s of orders and one rate per currency plus those inside the watermark's delay. Run
 * with {@code -prof gc}: ~0 B/op once warm.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class TemporalJoinBenchmark
{
    private static final int CURRENCIES = 1000;

    @Param({"TEMPORAL", "LOOKUP"})
    public JoinKind kind;

    @Param({"INNER", "LEFT"})
    public JoinType type;

    private JoinOperator join;
    private final BenchRows rows = new BenchRows();
    private long n;
    private Blackhole blackhole;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        this.blackhole = blackhole;
        final JoinSpec spec = JoinSpec.builder(kind, type)
            .schemas(BenchRows.SCHEMA, BenchRows.SCHEMA).leftKey("key").rightKey("key").build();
        join = JoinOperators.create(spec, StateConfig.defaults().withMaxKeys(1 << 14),
            (k, left, right, ts, step) -> this.blackhole.consume(ts), DeadLetterHandler.NONE);
        for (int c = 0; c < CURRENCIES; c++)
        {
            join.onRow(Side.RIGHT, ChangeKind.INSERT, rows.set(c, 0, c, 1), 0, 0);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        join.close();
    }

    @Benchmark
    public void orderWithOccasionalRateUpdate()
    {
        final long i = ++n;
        // A cheap skew: the currency is the smaller of two uniform draws, so low currencies are hot.
        final long mix = i * 0x9E3779B97F4A7C15L;
        final long currency = Math.min((mix >>> 40) % CURRENCIES, (mix >>> 20 & 0xFFFFF) % CURRENCIES);
        join.onRow(Side.LEFT, ChangeKind.INSERT, rows.set(currency, i, i, 0), i, i);
        if (i % 10 == 0)
        {
            final long rateTs = Math.max(0, i - (mix >>> 7) % 1000);
            join.onRow(Side.RIGHT, ChangeKind.UPDATE_AFTER, rows.set((mix >>> 3) % CURRENCIES, rateTs, i, 1), rateTs, i);
        }
        if (i % 1000 == 0)
        {
            join.onWatermark(i - 5000, i);
        }
    }
}
