package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.UpsertHandler;
import io.junction.testing.CollectingDeadLetterHandler;
import io.junction.testing.CollectingResultHandler;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.IntervalBounds;
import io.junction.api.ResultHandler;
import org.junit.jupiter.api.function.Executable;

/**
 * SEMANTICS 4.5-4.7 event by event: the padded-row delay's rules one at a time, W1-seed's show/click case,
 * upsert output through the Java API, visible expiry (callback, reasons, per-side counters, padOnExpiry),
 * pending rows across a durable reopen, and the spec's validation.
 */
class ShapingTest
{
    static final Schema SCHEMA = Schema.of("log_id", "show", "click");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(64).withChunkSize(4096);

    static JoinSpec.Builder regular(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("log_id").rightKey("log_id");
    }

    static List<String> signed(final List<Output> outputs)
    {
        final List<String> lines = new ArrayList<>();
        for (final Output o : outputs)
        {
            lines.add(o.signed());
        }
        return lines;
    }

    static String show(final long id, final String show)
    {
        return "{log_id=" + id + ", show=\"" + show + "\"}";
    }

    @Test
    void theSeedArticlesShowClickLeftJoinEventByEvent()
    {
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).paddedDelay(50).build(), CONFIG))
        {
            assertEquals(List.of(), h.leftAt(100, "+I", "log_id", 1L, "show", "s1"));
            assertEquals(List.of(), h.leftAt(110, "+I", "log_id", 2L, "show", "s2"));
            assertEquals(List.of(), h.leftAt(120, "+I", "log_id", 3L, "show", "s3"));
            // a match inside the delay: the joined row directly
            assertEquals(1, h.rightAt(130, "+I", "log_id", 1L, "click", "c1").size());
            // watermark 160 is not above 110 + 50; 161 is
            assertEquals(List.of(), h.watermark(160));
            final List<Output> padded = h.watermark(161);
            assertEquals(1, padded.size());
            assertEquals('+', padded.get(0).sign());
            assertEquals(2L, padded.get(0).left().get("log_id"));
            assertEquals(null, padded.get(0).right());
            // after the delay, 2.1: the late match retracts the padded row
            final List<Output> late = h.rightAt(165, "+I", "log_id", 2L, "click", "c2");
            assertEquals(2, late.size());
            assertEquals('-', late.get(0).sign());
            assertEquals(null, late.get(0).right());
            assertEquals('+', late.get(1).sign());
            assertEquals(1, h.rightAt(166, "+I", "log_id", 3L, "click", "c3").size());
            assertEquals(1, h.rightAt(167, "+I", "log_id", 3L, "click", "c4").size());
            assertEquals(List.of(), h.leftAt(200, "+I", "log_id", 4L, "show", "s4"));
            assertEquals(List.of(), h.watermark(Side.LEFT, 300));
            assertEquals(List.of(), h.leftAt(210, "+I", "log_id", 5L, "show", "s5"));
            final List<Output> s4 = h.watermark(Side.RIGHT, 255);
            assertEquals(1, s4.size());
            assertEquals(4L, s4.get(0).left().get("log_id"));
            assertEquals(1, h.rightAt(260, "-D", "log_id", 3L, "click", "c3").size());
            // the last match goes after the delay: retracted pair, then padded
            assertEquals(2, h.rightAt(260, "-D", "log_id", 3L, "click", "c4").size());
            final List<Output> end = h.endOfInput();
            assertEquals(1, end.size());
            assertEquals(5L, end.get(0).left().get("log_id"));
        }
    }

    @Test
    void aRowThatLosesItsMatchInsideItsDelayIsPaddedWhenTheDelayEnds()
    {
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).paddedDelay(10).build(), CONFIG))
        {
            h.leftAt(100, "+I", "log_id", 1L, "show", "a");
            assertEquals(1, h.rightAt(101, "+I", "log_id", 1L, "click", "x").size());
            final List<Output> lost = h.rightAt(102, "-D", "log_id", 1L, "click", "x");
            assertEquals(1, lost.size(), "only the pair's retraction");
            assertEquals('-', lost.get(0).sign());
            assertEquals(List.of(), h.watermark(110));
            assertEquals(1, h.watermark(111).size());
        }
    }

    @Test
    void aRetractedPendingRowEmitsNothingAndRowsThatCannotWaitArePaddedAtOnce()
    {
        try (JoinHarness h = new JoinHarness(regular(JoinType.FULL).paddedDelay(10).build(), CONFIG))
        {
            assertEquals(List.of(), h.leftAt(100, "+I", "log_id", 1L, "show", "a"));
            assertEquals(List.of(), h.leftAt(100, "-D", "log_id", 1L, "show", "a"));
            // a null key can never match: padded at once, and its retraction retracts the padded row
            assertEquals(1, h.rightAt(100, "+I", "log_id", null, "click", "n").size());
            assertEquals(1, h.rightAt(100, "-D", "log_id", null, "click", "n").size());
            h.watermark(200);
            // already due on arrival (200 > 150 + 10)
            assertEquals(1, h.leftAt(150, "+I", "log_id", 2L, "show", "b").size());
            assertEquals(List.of(), h.leftAt(195, "+I", "log_id", 3L, "show", "c"));
            assertEquals(1, h.endOfInput().size(), "the row still pending");
        }
    }

    @Test
    void theEndOfInputPadsEveryPendingRowOnce()
    {
        try (JoinHarness h = new JoinHarness(regular(JoinType.FULL).paddedDelay(1000).build(), CONFIG))
        {
            h.leftAt(1, "+I", "log_id", 1L, "show", "a");
            h.rightAt(2, "+I", "log_id", 2L, "click", "x");
            h.leftAt(3, "+I", "log_id", 3L, "show", "b");
            h.rightAt(4, "+I", "log_id", 3L, "click", "y");
            assertEquals(2, h.endOfInput().size());
            assertEquals(List.of(), h.watermark(5000), "padded once only");
        }
    }

    /** A result handler that also takes expiry. */
    static final class Expiring implements ResultHandler, ExpiryHandler
    {
        final CollectingResultHandler results = new CollectingResultHandler(SCHEMA, SCHEMA);
        final List<String> expired = new ArrayList<>();

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            results.onResult(kind, left, right, timestamp, step);
        }

        @Override
        public void onExpired(final Side side, final RowView row, final long timestamp, final ExpiryReason reason, final long step)
        {
            expired.add(step + " " + side + " " + reason + " " + timestamp + " " + Rows.format(SCHEMA, row));
        }
    }

    @Test
    void expiryIsReportedWithItsReasonAndCountedPerSide()
    {
        final Expiring handler = new Expiring();
        try (JoinOperator op = JoinOperators.create(regular(JoinType.INNER).stateTtl(10).build(),
            CONFIG.withMaxLiveRows(2).withFullPolicy(FullPolicy.EXPIRE_OLDEST), handler, new CollectingDeadLetterHandler(SCHEMA, SCHEMA)))
        {
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 1L), 100, 0);
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 2L), 105, 1);
            // full: the oldest deadline (the left row's) is evicted for the third row
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 3L), 106, 2);
            op.onWatermark(116, 3);
            assertEquals(List.of(
                "2 LEFT EVICTED 100 {log_id=1}",
                "3 RIGHT STATE_TTL 105 {log_id=2}"), handler.expired);
            assertEquals(1, op.counters().expiredRows(Side.LEFT));
            assertEquals(1, op.counters().expiredRows(Side.RIGHT));
            assertEquals(1, op.counters().evictedRows());
            assertEquals(2, op.counters().expiredRows());
        }
    }

    @Test
    void padOnExpiryPadsAnUnmatchedRowWhenItExpiresAndNotBefore()
    {
        final Expiring handler = new Expiring();
        try (JoinOperator op = JoinOperators.create(regular(JoinType.LEFT).stateTtl(10).padOnExpiry(true).build(), CONFIG,
            handler, new CollectingDeadLetterHandler(SCHEMA, SCHEMA)))
        {
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 1L, "show", "a"), 100, 0);
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 2L, "show", "b"), 100, 1);
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 2L, "click", "x"), 105, 2);
            op.onWatermark(110, 3);
            assertEquals(1, handler.results.size(), "only the joined row so far");
            op.onWatermark(111, 4);
            assertEquals(2, handler.results.size());
            final Output padded = handler.results.outputs().get(1);
            assertEquals(4, padded.step());
            assertEquals(1L, padded.left().get("log_id"));
            assertEquals(null, padded.right());
            assertEquals(2, handler.expired.size());
        }
    }

    @Test
    void aPendingRowThatExpiresBeforeItsDelayEndsIsPaddedWhenTheDelayEnds()
    {
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).stateTtl(5).paddedDelay(50).build(), CONFIG))
        {
            h.leftAt(100, "+I", "log_id", 1L, "show", "a");
            h.leftAt(100, "+I", "log_id", 2L, "show", "b");
            assertEquals(List.of(), h.watermark(106), "expiry is silent");
            // expired: it matches nothing now, and its retraction is a dead letter
            assertEquals(List.of(), h.rightAt(107, "+I", "log_id", 1L, "click", "x"));
            assertEquals(List.of(), h.leftAt(100, "-D", "log_id", 2L, "show", "b"));
            assertEquals(1, h.deadLetters().size());
            assertEquals(List.of(), h.watermark(150));
            assertEquals(2, h.watermark(151).size(), "both padded when their delay ends");
            assertEquals(List.of(), h.endOfInput());
            assertEquals(0, h.counters().liveLeft());
        }
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).stateTtl(5).paddedDelay(50).build(), CONFIG))
        {
            h.leftAt(100, "+I", "log_id", 1L, "show", "a");
            h.watermark(106);
            assertEquals(1, h.endOfInput().size(), "the end of input pads it");
        }
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).stateTtl(5).paddedDelay(50).padOnExpiry(true).build(), CONFIG))
        {
            h.leftAt(100, "+I", "log_id", 1L, "show", "a");
            assertEquals(List.of(), h.watermark(105));
            assertEquals(1, h.watermark(106).size(), "padOnExpiry: padded at its expiry");
            assertEquals(List.of(), h.watermark(200));
            assertEquals(List.of(), h.endOfInput());
        }
    }

    @Test
    void pendingRowsAndTheirTimersSurviveADurableReopen(@TempDir final Path dir)
    {
        final JoinSpec spec = regular(JoinType.LEFT).paddedDelay(50).stateTtl(500).build();
        final CollectingResultHandler results = new CollectingResultHandler(SCHEMA, SCHEMA);
        final CollectingDeadLetterHandler dead = new CollectingDeadLetterHandler(SCHEMA, SCHEMA);
        try (JoinOperator op = JoinOperators.create(spec, CONFIG.withStateDirectory(dir), results, dead))
        {
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 1L, "show", "a"), 100, 0);
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 2L, "show", "b"), 120, 1);
            op.onWatermark(140, 2);
        }
        assertEquals(0, results.size());
        try (JoinOperator op = JoinOperators.create(spec, CONFIG.withStateDirectory(dir), results, dead))
        {
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 2L, "click", "x"), 141, 3);
            assertEquals(1, results.size(), "a match inside the delay, after the reopen");
            op.onWatermark(151, 4);
            assertEquals(2, results.size());
            assertEquals(1L, results.outputs().get(1).left().get("log_id"));
            op.onWatermark(1000, 5);
            assertEquals(2, results.size());
            assertEquals(2, op.counters().expiredRows(Side.LEFT));
        }
    }

    /** Upserts by result key through the Java API. */
    static final class Upserts implements UpsertHandler
    {
        final List<String> lines = new ArrayList<>();

        @Override
        public void onUpsert(final RowView left, final RowView right, final long timestamp, final long step)
        {
            lines.add(step + " upsert " + (left == null ? "null" : Rows.format(SCHEMA, left)) + " " +
                (right == null ? "null" : Rows.format(SCHEMA, right)));
        }

        @Override
        public void onDelete(final RowView left, final RowView right, final long timestamp, final long step)
        {
            lines.add(step + " delete " + (left == null ? "null" : Rows.format(SCHEMA, left)) + " " +
                (right == null ? "null" : Rows.format(SCHEMA, right)));
        }
    }

    @Test
    void upsertOutputFoldsEachStepByResultKey()
    {
        final Upserts upserts = new Upserts();
        final JoinSpec spec = regular(JoinType.LEFT).leftUniqueKey("log_id").rightUniqueKey("log_id").output(OutputMode.UPSERT).build();
        try (JoinOperator op = JoinOperators.create(spec, CONFIG, upserts, new CollectingDeadLetterHandler(SCHEMA, SCHEMA)))
        {
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 1L, "show", "s1"), 0, 0);
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(SCHEMA, "log_id", 1L, "click", "c1"), 0, 1);
            op.onRow(Side.RIGHT, ChangeKind.UPDATE_BEFORE, Rows.row(SCHEMA, "log_id", 1L, "click", "c1"), 0, 2);
            op.onRow(Side.LEFT, ChangeKind.DELETE, Rows.row(SCHEMA, "log_id", 1L, "show", "s1"), 0, 3);
            assertEquals(List.of(
                "0 upsert {log_id=1, show=\"s1\"} null",
                "1 upsert {log_id=1, show=\"s1\"} {click=\"c1\", log_id=1}",
                "2 upsert {log_id=1, show=\"s1\"} null",
                "3 delete {log_id=1, show=\"s1\"} null"), upserts.lines);
            assertEquals(4, op.counters().rowsOut(), "lines out after the fold");
        }
    }

    @Test
    void specsThatCannotBeShapedAreRejectedNamingTheField()
    {
        assertMessage("paddedDelay: only for left, right or full", () -> regular(JoinType.INNER).paddedDelay(5).build());
        assertMessage("paddedDelay must be >= 0", () -> regular(JoinType.LEFT).paddedDelay(-1).build());
        assertMessage("paddedDelay: only for regular joins", () -> JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT)
            .schemas(SCHEMA, SCHEMA).leftKey("log_id").rightKey("log_id")
            .interval(IntervalBounds.inclusive(0, 1)).paddedDelay(5).build());
        assertMessage("output: upsert output needs a keyed result: declare leftUniqueKey and rightUniqueKey",
            () -> regular(JoinType.LEFT).output(OutputMode.UPSERT).build());
        assertMessage("output: upsert output needs a keyed result: declare rightUniqueKey",
            () -> regular(JoinType.FULL).leftUniqueKey("log_id").output(OutputMode.UPSERT).build());
        assertMessage("output: upsert output of a anti join is keyed by the left row",
            () -> regular(JoinType.ANTI).rightUniqueKey("log_id").output(OutputMode.UPSERT).build());
        assertMessage("padOnExpiry: needs a stateTtl on an outer side",
            () -> regular(JoinType.LEFT).stateTtl(Side.RIGHT, 10).padOnExpiry(true).build());
        assertMessage("padOnExpiry: only for regular left, right or full joins",
            () -> regular(JoinType.INNER).stateTtl(10).padOnExpiry(true).build());
    }

    static void assertMessage(final String prefix, final Executable build)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build);
        assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
    }
}
