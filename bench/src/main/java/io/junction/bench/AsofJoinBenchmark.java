package io.junction.bench;

import io.junction.api.AsofSpec;
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
 * The ASOF join's per-event path in the shape of trades and quotes (the ASOF work's W6): every operation is
 * one quote (right, 5,000 symbols, the low ones hot, up to 50 ms out of order), every fifth a trade (left,
 * a symbol drawn the same way), ten events per ms of event time, and a watermark trailing the newest ts by
 * 100 ms every 1,000 events, which makes the trades it passes final (emitted in final mode, corrected
 * eagerly before that in eager mode) and frees the quotes no trade can select any more. ASOF backward with
 * a tolerance of 1 s, left join. Run with {@code -prof gc}: ~0 B/op once warm.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class AsofJoinBenchmark
{
    private static final int SYMBOLS = 5000;

    @Param({"FINAL", "EAGER"})
    public AsofSpec.Emit emit;

    @Param({"BACKWARD", "NEAREST"})
    public AsofSpec.Direction direction;

    private JoinOperator join;
    private final BenchRows rows = new BenchRows();
    private long n;
    private Blackhole blackhole;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        this.blackhole = blackhole;
        final JoinSpec spec = JoinSpec.builder(JoinKind.ASOF, JoinType.LEFT)
            .schemas(BenchRows.SCHEMA, BenchRows.SCHEMA).leftKey("key").rightKey("key")
            .asof(AsofSpec.of(direction).withTolerance(1000).withEmit(emit)).build();
        join = JoinOperators.create(spec, StateConfig.defaults().withMaxKeys(1 << 14),
            (k, left, right, ts, step) -> this.blackhole.consume(ts), DeadLetterHandler.NONE);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        join.close();
    }

    @Benchmark
    public void quoteWithOccasionalTrade()
    {
        final long i = ++n;
        final long now = i / 10;
        // A cheap skew: the symbol is the smaller of two uniform draws, so low symbols are hot.
        final long mix = i * 0x9E3779B97F4A7C15L;
        final long symbol = Math.min((mix >>> 40) % SYMBOLS, (mix >>> 20 & 0xFFFFF) % SYMBOLS);
        final long quoteTs = Math.max(0, now - (mix >>> 7) % 50);
        join.onRow(Side.RIGHT, ChangeKind.INSERT, rows.set(symbol, quoteTs, i, 1), quoteTs, i);
        if (i % 5 == 0)
        {
            final long trade = Math.min((mix >>> 11) % SYMBOLS, (mix >>> 31 & 0xFFFFF) % SYMBOLS);
            join.onRow(Side.LEFT, ChangeKind.INSERT, rows.set(trade, now, i, 0), now, i);
        }
        if (i % 1000 == 0)
        {
            join.onWatermark(now - 100, i);
        }
    }
}
