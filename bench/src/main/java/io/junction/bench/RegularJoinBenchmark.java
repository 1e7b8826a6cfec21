package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.JoinType;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
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
 * The regular join's per-event path, operator and off-heap state only (no ring): a left row of a
 * key that has {@code rightRowsPerKey} right rows arrives (probe, emit each pair, store) and is then
 * retracted (probe, emit each retraction, remove), so state stays the same size across iterations.
 * One operation = those two events. Run with {@code -prof gc}: {@code gc.alloc.rate.norm} should be
 * ~0 B/op once warm.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class RegularJoinBenchmark
{
    @Param({"INNER", "LEFT"})
    public JoinType type;

    @Param({"100000"})
    public int keys;

    @Param({"5"})
    public int rightRowsPerKey;

    private JoinOperator join;
    private final BenchRows rows = new BenchRows();
    private long next;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        join = BenchRows.regularJoin(type, keys * 2L, blackhole);
        long step = 0;
        for (int k = 0; k < keys; k++)
        {
            for (int r = 0; r < rightRowsPerKey; r++)
            {
                join.onRow(Side.RIGHT, ChangeKind.INSERT, rows.set(k, step, step, 1), step, step);
                step++;
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        join.close();
    }

    @Benchmark
    public void insertAndRetractLeftRow()
    {
        rows.insertAndRetractLeftRow(join, next++, keys);
    }
}
