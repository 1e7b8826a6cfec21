package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.row.KeyHash;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
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
 * The cost of a session-window row as its session grows: each invocation sends
 * {@value #ROWS} left rows of one key as {@code ROWS / sessionRows} successive sessions of
 * {@code sessionRows} rows each (ts one apart, sessions separated by more than the 10 ms gap), with one
 * right row per session, then fires them all with a watermark (an inner join: each session emits its
 * rows' pairs). JMH reports the time per row ({@code @OperationsPerInvocation}). A per-row cost that grows
 * with {@code sessionRows} would show a placement that depends on the session's size; it used to re-sort
 * the key's pending rows on every row (quadratic per session). Flat across 1,000 to 100,000 rows per
 * session is the claim. Run with {@code -prof gc} for the allocation per row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@OperationsPerInvocation(SessionWindowBenchmark.ROWS)
public class SessionWindowBenchmark
{
    static final int ROWS = 100_000;
    private static final long GAP = 10;

    @Param({"1000", "10000", "100000"})
    public int sessionRows;

    private JoinOperator join;
    private final BenchRows rows = new BenchRows();
    private final long key = KeyHash.mix(1);
    private long base;
    private long step;
    private Blackhole blackhole;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        this.blackhole = blackhole;
        final JoinSpec spec = JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER)
            .schemas(BenchRows.SCHEMA, BenchRows.SCHEMA).leftKey("key").rightKey("key")
            .window(WindowSpec.session(GAP)).build();
        final ResultHandler results = (kind, left, right, ts, step) -> this.blackhole.consume(ts);
        join = JoinOperators.create(spec, StateConfig.defaults().withMaxKeys(1 << 10).withMaxLiveRows(4L * ROWS), results,
            DeadLetterHandler.NONE);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        join.close();
    }

    @Benchmark
    public void sessionsOfGrowingRows()
    {
        final int sessions = ROWS / sessionRows;
        for (int s = 0; s < sessions; s++)
        {
            join.onRow(Side.RIGHT, ChangeKind.INSERT, rows.set(key, base, s, 1), base, step++);
            for (int i = 0; i < sessionRows; i++)
            {
                final long ts = base + i;
                join.onRow(Side.LEFT, ChangeKind.INSERT, rows.set(key, ts, i, 0), ts, step++);
            }
            base += sessionRows + 10 * GAP;
        }
        // every session of this invocation has ended by base - 10 * GAP + GAP
        join.onWatermark(base, step++);
    }
}
