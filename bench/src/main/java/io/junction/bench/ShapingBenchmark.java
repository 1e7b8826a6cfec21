package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.tools.perf.ShapingJoin;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
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
 * Changelog shaping (SEMANTICS 4.5-4.7) per input row, operator-direct (as {@code junction shaping --direct}):
 * W1-seed's events (W1's shows and clicks, 20% clicked within 30 s, watermarks 5 s behind every 1,000 events:
 * docs/WORKLOADS.md "W1-seed"), pre-encoded, through the regular left join in each {@link #config}:
 * <ul>
 *   <li>{@code retraction}: the plain join (the baseline of the 10% goal);</li>
 *   <li>{@code retraction-unique}: the plain changelog with the upsert configurations' unique keys declared (the
 *       unique-key check's share of upsert's cost, without the fold);</li>
 *   <li>{@code padded-delay}, {@code upsert}, {@code padded-upsert}: {@link ShapingJoin}'s configurations.</li>
 * </ul>
 * One operation is one input row: an invocation feeds the next {@value #BATCH} rows of the tape (with the
 * watermarks between them); when the tape is used up (its last batch includes the end of input) a fresh join
 * takes it from the start, outside the timed code. Results go to a blackhole that reads each line's kind,
 * timestamp and row lengths, as a sink would start to. Run with {@code -prof gc}: {@code gc.alloc.rate.norm}
 * is B per row (the join's heap objects, made once per pass over the tape, are a few bytes per thousand rows).
 * Score: ns per row; the ratio of a configuration to {@code retraction} is the figure of the goal.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class ShapingBenchmark
{
    /** Input rows per invocation. */
    public static final int BATCH = 10_000;

    @Param({"retraction", "retraction-unique", "padded-delay", "upsert", "padded-upsert"})
    public String config;

    /** W1's shows (W1 has 2,000,000; 1,000,000 covers 1,000 s of event time, the delay 6% of it). */
    @Param({"1000000"})
    public int shows;

    private JoinSpec spec;
    private StateConfig stateConfig;
    private EventTape tape;
    private EncodedRows rows;
    private final RowView row = new RowView();
    private JoinOperator join;
    /** The next tape index to feed. */
    private int next;
    private Blackhole blackhole;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        this.blackhole = blackhole;
        tape = new EventTape((int)(shows * 1.25) + 16);
        Workloads.w1(shows, tape);
        rows = EncodedRows.encode(tape);
        spec = spec(config);
        stateConfig = StateConfig.defaults()
            .withMaxKeys(ShapingJoin.maxKeysPerPartition(Workload.W1, ShapingJoin.Config.RETRACTION, tape, 1))
            .withPreallocate(tape.rows() * 160 + (16L << 20));
        next = tape.size();
    }

    /** @return the spec of a configuration: {@link ShapingJoin#spec} or the plain join with unique keys */
    static JoinSpec spec(final String config)
    {
        if (config.equals("retraction-unique"))
        {
            return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(EncodedRows.schema(), EncodedRows.schema())
                .leftKey("key").rightKey("key").leftUniqueKey("key").rightUniqueKey("key").output(OutputMode.RETRACT).build();
        }
        return ShapingJoin.spec(Workload.W1, ShapingJoin.Config.parse(config), 0);
    }

    /** A fresh join once the tape is used up (not timed). */
    @Setup(Level.Invocation)
    public void nextPass()
    {
        if (next < tape.size())
        {
            return;
        }
        if (join != null)
        {
            join.close();
        }
        final Blackhole bh = blackhole;
        join = JoinOperators.create(spec, stateConfig, (kind, left, right, ts, step) ->
        {
            bh.consume(kind);
            bh.consume(ts);
            bh.consume((left == null ? 0 : left.length()) + (right == null ? 0 : right.length()));
        }, (side, kind, dead, ts, step, reason) ->
        {
            throw new IllegalStateException("dead letter " + reason + " at step " + step);
        });
        next = 0;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        if (join != null)
        {
            join.close();
        }
    }

    /** Feeds the next {@value #BATCH} rows (fewer in a tape's last batch, which ends the input). */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void rows()
    {
        final EventTape t = tape;
        final int size = t.size();
        int i = next;
        int fed = 0;
        while (i < size && fed < BATCH)
        {
            final byte type = t.type(i);
            if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
            {
                row.wrap(rows.buffer(i), rows.offset(i), rows.rowLength());
                join.onRow(type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.fromOrdinal(t.kind(i)), row, t.ts(i), i);
                fed++;
            }
            else if (type == EventTape.TYPE_WATERMARK)
            {
                join.onWatermark(t.ts(i), i);
            }
            else
            {
                join.onEndOfInput(i);
            }
            i++;
        }
        if (i < size && t.type(i) == EventTape.TYPE_END)
        {
            join.onEndOfInput(i);
            i++;
        }
        next = i;
    }
}
