package io.junction.join;

import com.sun.management.ThreadMXBean;
import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.testing.CollectingResultHandler;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The upsert fold's bound (docs/SEMANTICS.md 4.6): its buffer and tables are allocated once and never grow; a step
 * with more result keys (or bytes) than they hold spills the lines folded so far and goes on, so the upsert table
 * the output leaves is exactly that of an unbounded fold after every step, nothing dropped, and the step allocates
 * nothing however many keys it has.
 */
class UpsertFoldBoundTest
{
    static final Schema LEFT = Schema.of("lid", "k", "v");
    static final Schema RIGHT = Schema.of("rid", "k", "w");

    /** Left join keyed by the left unique key (the right unique key is the right join key). */
    static JoinSpec spec()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .leftUniqueKey("lid").rightUniqueKey("k").output(OutputMode.UPSERT).build();
    }

    static UpsertFold fold(final ResultHandler downstream, final int maxLines, final int bufferBytes)
    {
        final JoinSpec spec = spec();
        final CompiledJoin compiled = CompiledJoin.of(spec);
        return new UpsertFold(spec.resultKey(), compiled.uniqueKey(Side.LEFT), compiled.uniqueKey(Side.RIGHT), downstream,
            new JoinCounters(), maxLines, bufferBytes);
    }

    /** Applies upserts and deletes to a table keyed by the left row's {@code lid}. */
    static void apply(final List<Output> lines, final Map<Object, String> table)
    {
        for (final Output o : lines)
        {
            if (o.kind() == ChangeKind.UPDATE_AFTER)
            {
                table.put(o.left().get("lid"), Rows.format(o.left()) + " " + Rows.format(o.right()));
            }
            else
            {
                assertEquals(ChangeKind.DELETE, o.kind(), o.toString());
                table.remove(o.left().get("lid"));
            }
        }
    }

    @ParameterizedTest(name = "maxLines={0} bufferBytes={1}")
    @CsvSource({"1, 4096", "3, 4096", "8, 200", "64, 16", "16, 1000"})
    void aBoundedFoldLeavesTheTableOfAnUnboundedOne(final int maxLines, final int bufferBytes)
    {
        final CollectingResultHandler boundedOut = new CollectingResultHandler(LEFT, RIGHT);
        final CollectingResultHandler unboundedOut = new CollectingResultHandler(LEFT, RIGHT);
        final UpsertFold bounded = fold(boundedOut, maxLines, bufferBytes);
        final UpsertFold unbounded = fold(unboundedOut, 1 << 16, 1 << 24);
        final Map<Object, String> boundedTable = new TreeMap<>();
        final Map<Object, String> unboundedTable = new TreeMap<>();
        final Random random = new Random(41L * maxLines + bufferBytes);
        for (int step = 0; step < 300; step++)
        {
            final int lines = random.nextInt(40);
            for (int i = 0; i < lines; i++)
            {
                final long lid = random.nextInt(30);
                final RowView left = Rows.row(LEFT, "lid", lid, "k", (long)random.nextInt(3), "v", (long)random.nextInt(100));
                final RowView right = random.nextBoolean() ? null : Rows.row(RIGHT, "rid", 1L, "k", 2L, "w", (long)random.nextInt(5));
                final ChangeKind kind = random.nextBoolean() ? ChangeKind.INSERT : ChangeKind.DELETE;
                bounded.onResult(kind, left, right, step, step);
                unbounded.onResult(kind, left, right, step, step);
                if (random.nextInt(10) == 0)
                {
                    // as the operator does before it frees a stored record in the middle of a step
                    bounded.copyHeld();
                    unbounded.copyHeld();
                }
            }
            bounded.flush();
            unbounded.flush();
            apply(boundedOut.outputs().subList(0, boundedOut.size()), boundedTable);
            apply(unboundedOut.outputs().subList(0, unboundedOut.size()), unboundedTable);
            boundedOut.clear();
            unboundedOut.clear();
            assertEquals(unboundedTable, boundedTable, "after step " + step);
        }
        assertTrue(bounded.spills() > 0, "the bound was reached");
        assertEquals(0, unbounded.spills());
    }

    @Test
    void aStepWithMoreKeysThanTheBoundAllocatesNothing()
    {
        final long[] lines = new long[1];
        final ResultHandler count = (kind, left, right, ts, step) -> lines[0]++;
        final UpsertFold fold = fold(count, 64, 64 * 64);
        final int keys = 20_000;
        final RowView[] lefts = new RowView[keys];
        for (int i = 0; i < keys; i++)
        {
            lefts[i] = Rows.row(LEFT, "lid", (long)i, "k", 7L, "v", (long)i);
        }
        final RowView right = Rows.row(RIGHT, "rid", 1L, "k", 7L, "w", 0L);
        // a warm-up step of a few keys: classes loaded, nothing of the big step's size seen yet
        for (int i = 0; i < 8; i++)
        {
            fold.onResult(ChangeKind.DELETE, lefts[i], null, 0, 0);
            fold.onResult(ChangeKind.INSERT, lefts[i], right, 0, 0);
        }
        fold.flush();
        lines[0] = 0;
        final ThreadMXBean threads = (ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long before = threads.getCurrentThreadAllocatedBytes();
        // one right row matching 20,000 padded left rows: each one's -(l, null), +(l, r) in one step
        for (int i = 0; i < keys; i++)
        {
            fold.onResult(ChangeKind.DELETE, lefts[i], null, 1, 1);
            fold.onResult(ChangeKind.INSERT, lefts[i], right, 1, 1);
        }
        fold.flush();
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // the unbounded fold grew its tables to 20,000 lines and its buffer to megabytes here
        assertTrue(allocated < 64 * 1024, "the step allocated " + allocated + " bytes");
        assertTrue(lines[0] >= keys, "every key left: " + lines[0] + " lines");
        assertTrue(fold.spills() > 0);
    }

    @Test
    void theJoinLeavesTheExactTableOfAStepWithMoreKeysThanTheFoldHolds()
    {
        final int keys = 3 * UpsertFold.MAX_LINES + 5;
        try (JoinHarness h = new JoinHarness(spec(), StateConfig.defaults().withMaxKeys(1024).withChunkSize(1 << 20)))
        {
            final Map<Object, String> table = new TreeMap<>();
            for (int i = 0; i < keys; i++)
            {
                apply(h.row(Side.LEFT, "+I", 0, "lid", (long)i, "k", 7L, "v", (long)i), table);
            }
            assertEquals(keys, table.size());
            final List<Output> step = h.row(Side.RIGHT, "+I", 0, "rid", 1L, "k", 7L, "w", 0L);
            assertTrue(step.size() >= keys, step.size() + " lines");
            apply(step, table);
            final Map<Object, String> expected = new TreeMap<>();
            for (int i = 0; i < keys; i++)
            {
                expected.put((long)i, "{k=7, lid=" + i + ", v=" + i + "} {k=7, rid=1, w=0}");
            }
            assertEquals(expected, table);
            assertEquals(0, h.deadLetters().size());
        }
    }
}
