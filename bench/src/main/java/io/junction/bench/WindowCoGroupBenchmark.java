package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.CoGroupFunction;
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
 * A window coGroup that counts (SEMANTICS 6.4), per row: each invocation fills one window with
 * {@value #ROWS} rows of {@value #KEYS} keys, both sides alternating, and fires it with a watermark, so
 * the function is called once per key with both sides' rows through the cursors. JMH reports per row
 * ({@code @OperationsPerInvocation}). Run with {@code -prof gc}: ~0 B/op once warm (the cursors, the
 * collector and its buffers are reused; nothing is boxed or iterated through {@code Iterable}s).
 *
 * <p>{@code function}: {@code COUNT} is the built-in, one computed row per group (the key copied, both
 * counts) through {@code ResultHandler.onCoGroupResult}; {@code WALK} is a user function that walks
 * both cursors, reads each row's ts and emits nothing. {@code window}: tumbling windows of 100 s, or
 * sessions with a 10 s gap (the rows of a window form one session per key; the operator clusters them
 * by ts when it fires).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@OperationsPerInvocation(WindowCoGroupBenchmark.ROWS)
public class WindowCoGroupBenchmark
{
    static final int ROWS = 1024;
    static final int KEYS = 64;
    private static final long WINDOW = 100_000;

    @Param({"COUNT", "WALK"})
    public String function;

    @Param({"TUMBLING", "SESSION"})
    public WindowSpec.Kind window;

    private JoinOperator join;
    private final BenchRows rows = new BenchRows();
    private final long[] keys = new long[KEYS];
    private long w;
    private long step;
    private Blackhole blackhole;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        this.blackhole = blackhole;
        for (int k = 0; k < KEYS; k++)
        {
            keys[k] = KeyHash.mix(k + 1);
        }
        final JoinSpec.Builder builder = JoinSpec.builder(JoinKind.WINDOW, JoinType.FULL)
            .schemas(BenchRows.SCHEMA, BenchRows.SCHEMA).leftKey("key").rightKey("key")
            .window(window == WindowSpec.Kind.SESSION ? WindowSpec.session(10_000) : WindowSpec.tumbling(WINDOW, 0));
        if ("COUNT".equals(function))
        {
            builder.coGroup(CoGroupBuiltin.COUNT);
        }
        else
        {
            final CoGroupFunction walk = (left, right, start, end, out) ->
            {
                long sum = 0;
                while (left.next())
                {
                    sum += left.ts();
                }
                while (right.next())
                {
                    sum -= right.ts();
                }
                this.blackhole.consume(sum);
            };
            builder.coGroup(walk);
        }
        final ResultHandler results = new ResultHandler()
        {
            @Override
            public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
            {
                WindowCoGroupBenchmark.this.blackhole.consume(ts);
            }

            @Override
            public void onCoGroupResult(
                final RowView left, final RowView right, final RowView row, final long windowStart, final long windowEnd,
                final long step)
            {
                WindowCoGroupBenchmark.this.blackhole.consume(row.getLong(KEYS_FIELD_COUNT));
            }
        };
        join = JoinOperators.create(builder.build(), StateConfig.defaults().withMaxKeys(1 << 14), results, DeadLetterHandler.NONE);
    }

    /** The count built-in's leftCount field: after the one key field. */
    private static final int KEYS_FIELD_COUNT = 1;

    @TearDown(Level.Trial)
    public void tearDown()
    {
        join.close();
    }

    @Benchmark
    public void fillAndFireOneWindow()
    {
        final long base = w++ * WINDOW;
        for (int i = 0; i < ROWS; i++)
        {
            final long ts = base + i;
            join.onRow((i & 1) == 0 ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT, rows.set(keys[i % KEYS], ts, i, i & 1), ts, step++);
        }
        // Fires the tumbling window [base, base + WINDOW) at its last instant, and every session (they end by base + 11 s).
        join.onWatermark(base + WINDOW - 1, step++);
    }
}
