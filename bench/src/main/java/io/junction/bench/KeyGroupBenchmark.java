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
 * What a probe costs per stored row it visits: a key holds {@code rowsPerKey} right rows (k = 1, 5,
 * 50, 500), with the total state held near {@link #STORED_ROWS} rows whatever k is, so the cache
 * behaves alike; a left row of a random key arrives (visits and emits k pairs) and is retracted
 * (visits and retracts k pairs). Time per operation divided by 2k is the cost per visited row: flat
 * in k when a key's rows are scanned sequentially, rising towards a cache miss per row when every
 * row is a pointer chase to a cold record. The baseline for the state-layout work.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class KeyGroupBenchmark
{
    /** Right rows stored in all, whatever the rows per key. */
    static final int STORED_ROWS = 500_000;

    @Param({"1", "5", "50", "500"})
    public int rowsPerKey;

    private JoinOperator join;
    private final BenchRows rows = new BenchRows();
    private int keys;
    private long next;

    @Setup(Level.Trial)
    public void setUp(final Blackhole blackhole)
    {
        keys = STORED_ROWS / rowsPerKey;
        join = BenchRows.regularJoin(JoinType.INNER, keys * 2L, blackhole);
        long step = 0;
        // Rows are inserted round-robin over the keys, as a stream would deliver them, so one key's
        // records are spread over the arena rather than allocated side by side.
        for (int r = 0; r < rowsPerKey; r++)
        {
            for (int k = 0; k < keys; k++)
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
    public void probeKeyGroup()
    {
        rows.insertAndRetractLeftRow(join, next++, keys);
    }
}
