package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.ResultKey;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.testing.CollectingResultHandler;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The upsert fold's pass-through (docs/SEMANTICS.md "Upsert output"): a step's only line leaves as
 * it came, over the caller's bytes, uncopied, at the end of the step; a second line of the step copies it and
 * folds as before; a line held over a stored record that the operator frees in the middle of the step is
 * copied first. Edge cases one by one, on the fold and through the regular join: one line, two lines of one
 * key, two keys, a delete after an upsert of one key, lines of watermark steps, an eviction in a step.
 * {@link UpsertFoldDifferentialTest} checks random streams against the brute-force model.
 */
class UpsertPassThroughTest
{
    static final Schema LEFT = Schema.of("lid", "k", "v");
    static final Schema RIGHT = Schema.of("rid", "k", "w");

    /** Left join, result keyed by the left unique key (the right unique key is the right join key). */
    static JoinSpec.Builder leftKeyed()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .leftUniqueKey("lid").rightUniqueKey("k").output(OutputMode.UPSERT);
    }

    /** Records each line as the downstream handler sees it: decoded, and where its left row's bytes lie. */
    static final class Downstream implements ResultHandler
    {
        final CollectingResultHandler lines = new CollectingResultHandler(LEFT, RIGHT);
        final List<Long> leftAddresses = new ArrayList<>();

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
        {
            lines.onResult(kind, left, right, ts, step);
            leftAddresses.add(left == null ? 0L : left.buffer().addressOffset() + left.offset());
        }
    }

    private static UpsertFold fold(final JoinSpec spec, final ResultHandler downstream)
    {
        final CompiledJoin compiled = CompiledJoin.of(spec);
        return new UpsertFold(spec.resultKey(), compiled.uniqueKey(Side.LEFT), compiled.uniqueKey(Side.RIGHT), downstream, new JoinCounters());
    }

    private static long address(final RowView row)
    {
        return row.buffer().addressOffset() + row.offset();
    }

    private static String text(final Output o)
    {
        return o.kind().shortString() + " " + Rows.format(o.left()) + " " + Rows.format(o.right()) + " @" + o.step();
    }

    @Test
    void singleLineStepLeavesUncopiedAtTheEndOfTheStep()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        fold.onResult(ChangeKind.INSERT, l, null, 10, 3);
        assertTrue(fold.holding(), "the only line is held, not copied");
        assertEquals(1, fold.pending());
        assertEquals(0, out.lines.size(), "nothing leaves before the step ends");
        fold.flush();
        assertFalse(fold.holding());
        assertEquals(0, fold.pending());
        assertEquals(List.of("+U {k=7, lid=1, v=0} null @3"), out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
        assertEquals(address(l), out.leftAddresses.get(0), "the line's view lies over the caller's bytes");
        fold.flush();
        assertEquals(1, out.lines.size(), "a second flush emits nothing");
    }

    @Test
    void twoLinesOfOneKeyFoldIntoOneUpsert()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView r = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L);
        fold.onResult(ChangeKind.DELETE, l, null, 10, 4);
        fold.onResult(ChangeKind.INSERT, l, r, 12, 4);
        assertTrue(fold.holding(), "a second line of the held line's key is held in its place, uncopied");
        assertEquals(1, fold.pending());
        fold.flush();
        assertEquals(List.of("+U {k=7, lid=1, v=0} {k=7, rid=5, w=1} @4"),
            out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
        assertEquals(address(l), out.leftAddresses.get(0), "the upsert's view lies over the caller's bytes");
    }

    @Test
    void sameKeyOverOtherBytesIsComparedAndFolds()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final JoinCounters counters = new JoinCounters();
        final CompiledJoin compiled = CompiledJoin.of(spec);
        final UpsertFold fold = new UpsertFold(spec.resultKey(), compiled.uniqueKey(Side.LEFT), compiled.uniqueKey(Side.RIGHT), out, counters);
        // two copies of one show's key (lid 1), other bytes (v differs): the key is extracted and compared
        final RowView first = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView second = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 3L);
        final RowView r = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L);
        counters.rowsOut += 3;
        fold.onResult(ChangeKind.INSERT, first, null, 10, 4);
        fold.onResult(ChangeKind.DELETE, second, r, 11, 4);
        assertTrue(fold.holding());
        // another show's key (lid 2) over the same k: not the held key, so both are kept as lines
        final RowView other = Rows.row(LEFT, "lid", 2L, "k", 7L, "v", 0L);
        fold.onResult(ChangeKind.INSERT, other, null, 12, 4);
        assertFalse(fold.holding(), "a line of another key copies the held one");
        fold.flush();
        assertEquals(List.of("+U {k=7, lid=2, v=0} null @4", "-D {k=7, lid=1, v=3} {k=7, rid=5, w=1} @4"),
            out.lines.outputs().stream().map(UpsertPassThroughTest::text).sorted().toList());
        assertEquals(2, counters.rowsOut, "one line folded away");
    }

    @Test
    void heldLineReplacedThenOtherKeyThenFirstKeyAgain()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l1 = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView l2 = Rows.row(LEFT, "lid", 2L, "k", 7L, "v", 1L);
        final RowView r = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L);
        fold.onResult(ChangeKind.DELETE, l1, null, 10, 4);
        fold.onResult(ChangeKind.INSERT, l1, r, 11, 4);
        fold.onResult(ChangeKind.INSERT, l2, r, 12, 4);
        fold.onResult(ChangeKind.DELETE, l1, r, 13, 4);
        fold.flush();
        assertEquals(List.of("+U {k=7, lid=2, v=1} {k=7, rid=5, w=1} @4", "-D {k=7, lid=1, v=0} {k=7, rid=5, w=1} @4"),
            out.lines.outputs().stream().map(UpsertPassThroughTest::text).sorted().toList());
        assertEquals(13, out.lines.outputs().stream().filter(o -> o.kind() == ChangeKind.DELETE).findFirst().orElseThrow().timestamp());
    }

    @Test
    void bothSidesKeyedPaddedAndJoinedLinesAreTwoKeys()
    {
        // the result keyed by both unique keys: -(l, null) and +(l, r) differ in the right part
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .leftUniqueKey("lid").rightUniqueKey("rid").output(OutputMode.UPSERT).build();
        assertEquals(ResultKey.BOTH, spec.resultKey());
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView r = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L);
        final RowView r2 = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 2L);
        fold.onResult(ChangeKind.DELETE, l, null, 10, 4);
        fold.onResult(ChangeKind.INSERT, l, r, 11, 4);
        assertFalse(fold.holding());
        fold.flush();
        assertEquals(List.of("+U {k=7, lid=1, v=0} {k=7, rid=5, w=1} @4", "-D {k=7, lid=1, v=0} null @4"),
            out.lines.outputs().stream().map(UpsertPassThroughTest::text).sorted().toList());
        // both parts equal (the right one over other bytes): one line
        fold.onResult(ChangeKind.DELETE, l, r, 12, 5);
        fold.onResult(ChangeKind.INSERT, l, r2, 13, 5);
        assertTrue(fold.holding());
        fold.flush();
        assertEquals("+U {k=7, lid=1, v=0} {k=7, rid=5, w=2} @5", text(out.lines.outputs().get(2)));
        assertEquals(3, out.lines.size());
    }

    @Test
    void twoKeysInOneStepLeaveAsTwoLines()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l1 = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView l2 = Rows.row(LEFT, "lid", 2L, "k", 7L, "v", 1L);
        final RowView r = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L);
        fold.onResult(ChangeKind.DELETE, l1, null, 10, 4);
        fold.onResult(ChangeKind.INSERT, l1, r, 12, 4);
        fold.onResult(ChangeKind.DELETE, l2, null, 10, 4);
        fold.onResult(ChangeKind.INSERT, l2, r, 12, 4);
        fold.flush();
        assertEquals(List.of("+U {k=7, lid=1, v=0} {k=7, rid=5, w=1} @4", "+U {k=7, lid=2, v=1} {k=7, rid=5, w=1} @4"),
            out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
    }

    @Test
    void deleteAfterUpsertOfOneKeyLeavesAsTheDelete()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView r = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L);
        fold.onResult(ChangeKind.INSERT, l, r, 12, 6);
        fold.onResult(ChangeKind.DELETE, l, r, 12, 6);
        fold.flush();
        assertEquals(List.of("-D {k=7, lid=1, v=0} {k=7, rid=5, w=1} @6"),
            out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
    }

    @Test
    void heldLineIsCopiedBeforeItsBytesGo()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final byte[] bytes = Rows.bytes(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes.clone());
        final RowView l = new RowView().wrap(buffer, 0, bytes.length);
        fold.onResult(ChangeKind.INSERT, l, null, 10, 8);
        fold.copyHeld();
        assertFalse(fold.holding());
        // the caller's bytes now hold another row (a freed record reused)
        buffer.putBytes(0, Rows.bytes(LEFT, "lid", 9L, "k", 9L, "v", 1L));
        fold.flush();
        assertEquals(List.of("+U {k=7, lid=1, v=0} null @8"), out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
    }

    @Test
    void copiedFirstLineStillFoldsWithTheNextLineOfItsKey()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView r = Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L);
        fold.onResult(ChangeKind.DELETE, l, null, 10, 9);
        fold.copyHeld();
        fold.onResult(ChangeKind.INSERT, l, r, 12, 9);
        fold.copyHeld();
        fold.flush();
        assertEquals(List.of("+U {k=7, lid=1, v=0} {k=7, rid=5, w=1} @9"),
            out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
    }

    @Test
    void aLineOfAnotherStepEndsTheHeldStep()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        final UpsertFold fold = fold(spec, out);
        final RowView l1 = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
        final RowView l2 = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 1L);
        fold.onResult(ChangeKind.INSERT, l1, null, 10, 1);
        fold.onResult(ChangeKind.INSERT, l2, null, 11, 2);
        assertEquals(List.of("+U {k=7, lid=1, v=0} null @1"), out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
        fold.flush();
        assertEquals("+U {k=7, lid=1, v=1} null @2", text(out.lines.outputs().get(1)));
    }

    @Test
    void operatorHandsAnEventsOnlyLineDownstreamOverItsInputRow()
    {
        final JoinSpec spec = leftKeyed().build();
        final Downstream out = new Downstream();
        try (JoinOperator join = JoinOperators.create(spec, UpsertOutputDifferentialTest.CONFIG, out, DeadLetterHandler.NONE))
        {
            final RowView show = Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L);
            join.onRow(Side.LEFT, ChangeKind.INSERT, show, 100, 0);
            assertEquals(List.of("+U {k=7, lid=1, v=0} null @0"), out.lines.outputs().stream().map(UpsertPassThroughTest::text).toList());
            assertEquals(address(show), out.leftAddresses.get(0), "a show's padded line leaves over the input row, uncopied");
            // a click: -(show, null) and +(show, click) of one key fold into one upsert
            join.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L), 120, 1);
            assertEquals("+U {k=7, lid=1, v=0} {k=7, rid=5, w=1} @1", text(out.lines.outputs().get(1)));
            // the click's retraction: -(show, click) and +(show, null) fold into one upsert of the padded row
            join.onRow(Side.RIGHT, ChangeKind.DELETE, Rows.row(RIGHT, "rid", 5L, "k", 7L, "w", 1L), 130, 2);
            assertEquals("+U {k=7, lid=1, v=0} null @2", text(out.lines.outputs().get(2)));
            // the show's retraction: one delete of its padded row
            join.onRow(Side.LEFT, ChangeKind.DELETE, Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L), 140, 3);
            assertEquals("-D {k=7, lid=1, v=0} null @3", text(out.lines.outputs().get(3)));
            assertEquals(4, out.lines.size());
            assertEquals(4, join.counters().rowsOut(), "rows out counts the folded lines");
        }
    }

    @Test
    void watermarkStepPadsThroughTheFold()
    {
        final JoinSpec spec = leftKeyed().paddedDelay(50).build();
        try (JoinHarness h = new JoinHarness(spec, UpsertOutputDifferentialTest.CONFIG))
        {
            assertEquals(List.of(), h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L), 100));
            assertEquals(List.of(), h.watermark(150), "inside the delay: nothing");
            // one padded row in a watermark step: the held line over the stored record
            assertEquals(List.of("+U {k=7, lid=1, v=0} null @2"), h.watermark(151).stream().map(UpsertPassThroughTest::text).toList());
            h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 2L, "k", 8L, "v", 0L), 200);
            h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 3L, "k", 9L, "v", 1L), 201);
            // two padded rows (two keys) in one watermark step
            assertEquals(List.of("+U {k=8, lid=2, v=0} null @5", "+U {k=9, lid=3, v=1} null @5"),
                h.watermark(300).stream().map(UpsertPassThroughTest::text).sorted().toList());
            // end of input: a pending row padded
            h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 4L, "k", 10L, "v", 0L), 400);
            assertEquals(List.of("+U {k=10, lid=4, v=0} null @7"), h.endOfInput().stream().map(UpsertPassThroughTest::text).toList());
        }
    }

    @Test
    void rowPaddedAndExpiredInOneWatermarkStepKeepsItsBytes()
    {
        // the watermark passes ts + D and ts + ttl at once: padded (held over the record), then the record expires
        final JoinSpec spec = leftKeyed().paddedDelay(10).stateTtl(20).build();
        try (JoinHarness h = new JoinHarness(spec, UpsertOutputDifferentialTest.CONFIG))
        {
            h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L), 100);
            h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 2L, "k", 8L, "v", 1L), 100);
            assertEquals(List.of("+U {k=7, lid=1, v=0} null @2", "+U {k=8, lid=2, v=1} null @2"),
                h.watermark(1000).stream().map(UpsertPassThroughTest::text).sorted().toList());
            assertEquals(2, h.counters().expiredRows(Side.LEFT));
            h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 3L, "k", 9L, "v", 0L), 2000);
            assertEquals(List.of("+U {k=9, lid=3, v=0} null @4"), h.watermark(3000).stream().map(UpsertPassThroughTest::text).toList());
        }
    }

    @Test
    void evictedRowsPaddingKeepsItsBytesWhenItsRecordIsReused()
    {
        // EXPIRE_OLDEST: the third show evicts the first (pending, unmatched: padded at its eviction) and takes
        // its record's memory; the third is pending, so the evicted row's padding is the step's only line
        final JoinSpec spec = leftKeyed().paddedDelay(100).stateTtl(1000).build();
        final StateConfig config = UpsertOutputDifferentialTest.CONFIG.withMaxLiveRows(2).withFullPolicy(FullPolicy.EXPIRE_OLDEST);
        try (JoinHarness h = new JoinHarness(spec, config))
        {
            assertEquals(List.of(), h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L), 10));
            assertEquals(List.of(), h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 2L, "k", 8L, "v", 0L), 20));
            assertEquals(List.of("+U {k=7, lid=1, v=0} null @2"),
                h.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 3L, "k", 9L, "v", 1L), 30).stream()
                    .map(UpsertPassThroughTest::text).toList());
            assertEquals(1, h.counters().evictedRows());
            // and an eviction before the row's own line: the evicted row's padding and the row's, two keys
            final JoinSpec plain = leftKeyed().stateTtl(1000).build();
            try (JoinHarness p = new JoinHarness(plain, config))
            {
                p.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 1L, "k", 7L, "v", 0L), 10);
                p.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 2L, "k", 8L, "v", 0L), 20);
                assertEquals(List.of("+U {k=9, lid=3, v=1} null @2"),
                    p.row(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "lid", 3L, "k", 9L, "v", 1L), 30).stream()
                        .map(UpsertPassThroughTest::text).toList(),
                    "without a delay the evicted row was padded at its arrival: its eviction is silent");
            }
        }
    }

    @Test
    void resultKeyOfTheSpecIsTheLeftUniqueKey()
    {
        assertEquals(ResultKey.LEFT, leftKeyed().build().resultKey());
    }
}
