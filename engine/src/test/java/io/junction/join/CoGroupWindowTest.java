package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.CoGroupCollector;
import io.junction.api.CoGroupFunction;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.RowCursor;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.metrics.JoinCounters;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import com.sun.management.ThreadMXBean;
import io.junction.api.IntervalBounds;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import org.agrona.ErrorHandler;

/** The window coGroup operator (SEMANTICS 6.4), event by event: which groups are called, with what, when, and what a failing function does. */
class CoGroupWindowTest
{
    private static final WindowSpec TUMBLING_10 = WindowSpec.tumbling(10, 0);

    @Test
    void countFiresOncePerKeyWhenTheWatermarkReachesTheWindowsLastInstant()
    {
        try (CoGroupTestHarness h = CoGroupTestHarness.of(JoinType.FULL, TUMBLING_10, CoGroupBuiltin.COUNT))
        {
            h.left(1, 1L, "L1");
            h.right(2, 1L, "R1");
            h.left(3, 1L, "L2");
            h.left(4, 2L, "L3");
            h.right(5, 3L, "R2");
            h.right(12, 1L, "R3");
            assertEquals(List.of(), h.all(), "nothing before the window fires");
            final long w8 = h.watermark(8);
            assertEquals(List.of(), h.at(w8), "the window [0,10) fires at 9");
            final long w9 = h.watermark(9);
            assertEquals(List.of(
                "null null {k=1, leftCount=2, rightCount=1} [0,10)",
                "null null {k=2, leftCount=1, rightCount=0} [0,10)",
                "null null {k=3, leftCount=0, rightCount=1} [0,10)"), h.at(w9));
            final long end = h.end();
            assertEquals(List.of("null null {k=1, leftCount=0, rightCount=1} [10,20)"), h.at(end));
            final OperatorCounters c = h.counters();
            assertEquals(4, c.rowsOut());
            assertEquals(0, c.liveLeft() + c.liveRight());
            assertEquals(0, c.pendingTimers());
        }
    }

    @Test
    void theJoinTypeSaysWhichGroupsAreCalled()
    {
        final String[] expected = {
            // inner: both sides; left: a left row; right: a right row; full: any
            "null null {k=1, leftCount=1, rightCount=1} [0,10)",
            "null null {k=1, leftCount=1, rightCount=1} [0,10)|null null {k=2, leftCount=1, rightCount=0} [0,10)",
            "null null {k=1, leftCount=1, rightCount=1} [0,10)|null null {k=3, leftCount=0, rightCount=1} [0,10)",
            "null null {k=1, leftCount=1, rightCount=1} [0,10)|null null {k=2, leftCount=1, rightCount=0} [0,10)|" +
                "null null {k=3, leftCount=0, rightCount=1} [0,10)"};
        final JoinType[] types = {JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL};
        for (int t = 0; t < types.length; t++)
        {
            try (CoGroupTestHarness h = CoGroupTestHarness.of(types[t], TUMBLING_10, CoGroupBuiltin.COUNT))
            {
                h.left(1, 1L, "L1");
                h.right(2, 1L, "R1");
                h.left(3, 2L, "L2");
                h.right(4, 3L, "R2");
                final long end = h.end();
                assertEquals(List.of(expected[t].split("\\|")), h.at(end), types[t].toString());
                assertEquals(0, h.counters().liveLeft() + h.counters().liveRight(), "rows of uncalled groups leave state too");
            }
        }
    }

    @Test
    void firstAndLastAreByArrivalNotByTimestamp()
    {
        try (CoGroupTestHarness first = CoGroupTestHarness.of(JoinType.FULL, TUMBLING_10, CoGroupBuiltin.FIRST);
             CoGroupTestHarness last = CoGroupTestHarness.of(JoinType.FULL, TUMBLING_10, CoGroupBuiltin.LAST))
        {
            for (final CoGroupTestHarness h : List.of(first, last))
            {
                h.left(7, 1L, "L1");
                h.left(2, 1L, "L2");
                h.right(5, 1L, "R1");
                h.left(1, 1L, "L3");
                h.right(0, 1L, "R2");
                h.left(3, 2L, "L4");
            }
            assertEquals(List.of("L1 R1 [0,10)", "L4 null [0,10)"), first.at(first.end()));
            assertEquals(List.of("L3 R2 [0,10)", "L4 null [0,10)"), last.at(last.end()));
        }
    }

    @Test
    void leftWithMatchCountEmitsEachLeftRowWithTheRightCount()
    {
        try (CoGroupTestHarness h = CoGroupTestHarness.of(JoinType.LEFT, TUMBLING_10, CoGroupBuiltin.LEFT_WITH_MATCH_COUNT))
        {
            h.left(1, 1L, "L1");
            h.right(2, 1L, "R1");
            h.right(3, 1L, "R2");
            h.left(4, 1L, "L2");
            h.left(5, 2L, "L3");
            h.right(6, 3L, "R3");
            final long w = h.watermark(9);
            assertEquals(List.of("L1 null {matches=2} [0,10)", "L2 null {matches=2} [0,10)", "L3 null {matches=0} [0,10)"), h.at(w));
            // arrival order within the call: L1 before L2
            final List<String> inOrder = h.out.stream().map(CoGroupTestHarness.Out::left).collect(Collectors.toList());
            assertTrue(inOrder.indexOf("L1") < inOrder.indexOf("L2"), inOrder.toString());
        }
    }

    @Test
    void aNullKeyOrFilteredRowIsAGroupOfItsOwnInTumblingWindows()
    {
        final JoinSpec spec = CoGroupTestHarness.spec(JoinType.FULL, TUMBLING_10)
            .leftFilter("v", CompareOp.GT, Literal.of(0L))
            .coGroup(CoGroupBuiltin.COUNT).build();
        try (CoGroupTestHarness h = new CoGroupTestHarness(spec))
        {
            h.left(1, 1L, "L1", 5L);
            h.left(2, 1L, "L2", 0L);
            h.right(3, 1L, "R1");
            h.left(4, null, "L3", 5L);
            h.right(5, IntervalTestRows.ABSENT, "R2");
            final long end = h.end();
            assertEquals(List.of(
                "null null {k=1, leftCount=1, rightCount=0} [0,10)",
                "null null {k=1, leftCount=1, rightCount=1} [0,10)",
                "null null {k=null, leftCount=1, rightCount=0} [0,10)",
                "null null {leftCount=0, rightCount=1} [0,10)"), h.at(end));
        }
        // inner calls no group of one side: the lone rows are not even stored
        final JoinSpec inner = CoGroupTestHarness.spec(JoinType.INNER, TUMBLING_10).coGroup(CoGroupBuiltin.COUNT).build();
        try (CoGroupTestHarness h = new CoGroupTestHarness(inner))
        {
            h.left(1, null, "L1");
            h.right(2, null, "R1");
            assertEquals(0, h.counters().liveLeft() + h.counters().liveRight());
            assertEquals(List.of(), h.at(h.end()));
        }
    }

    @Test
    void slidingWindowsCallOncePerWindow()
    {
        try (CoGroupTestHarness h = CoGroupTestHarness.of(JoinType.FULL, WindowSpec.sliding(10, 5, 0), CoGroupBuiltin.FIRST))
        {
            h.left(6, 1L, "L1");
            h.right(8, 1L, "R1");
            h.right(12, 1L, "R2");
            final long w = h.watermark(9);
            assertEquals(List.of("L1 R1 [0,10)"), h.at(w));
            final long end = h.end();
            assertEquals(List.of("L1 R1 [5,15)", "null R2 [10,20)"), h.at(end));
        }
    }

    @Test
    void sessionsCallPerMergedSessionAndAFilteredRowBridgesButIsCalledAlone()
    {
        final JoinSpec spec = CoGroupTestHarness.spec(JoinType.FULL, WindowSpec.session(5))
            .rightFilter("v", CompareOp.GT, Literal.of(0L))
            .coGroup(CoGroupBuiltin.COUNT).build();
        try (CoGroupTestHarness h = new CoGroupTestHarness(spec))
        {
            h.left(10, 1L, "L1");
            h.right(20, 1L, "R1", 1L);
            h.right(15, 1L, "R2", 0L); // fails the filter, bridges [10,15) and [20,25)
            h.left(40, 1L, "L2");
            h.left(11, null, "L3");
            final long w = h.watermark(24);
            assertEquals(List.of(
                "null null {k=1, leftCount=0, rightCount=1} [10,25)",
                "null null {k=1, leftCount=1, rightCount=1} [10,25)",
                "null null {k=null, leftCount=1, rightCount=0} [11,16)"), h.at(w));
            final long late = h.left(19, 1L, "L4");
            assertEquals(1, h.dead.size());
            assertEquals(new OperatorTestHarness.Dead(late, Side.LEFT, ChangeKind.INSERT, "L4", 19, DeadLetterReason.LATE_WINDOW),
                h.dead.get(0), "a row whose session already fired is late");
            final long end = h.end();
            assertEquals(List.of("null null {k=1, leftCount=1, rightCount=0} [40,45)"), h.at(end));
            assertEquals(0, h.counters().liveLeft() + h.counters().liveRight());
        }
    }

    @Test
    void sessionRowsReachTheFunctionInArrivalOrder()
    {
        try (CoGroupTestHarness h = CoGroupTestHarness.of(JoinType.FULL, WindowSpec.session(10), CoGroupBuiltin.FIRST))
        {
            h.left(30, 1L, "L1");
            h.left(21, 1L, "L2");
            h.right(25, 1L, "R1");
            h.right(22, 1L, "R2");
            h.left(100, 1L, "L3");
            final long w = h.watermark(50);
            assertEquals(List.of("L1 R1 [21,40)"), h.at(w));
            assertEquals(List.of("L3 null [100,110)"), h.at(h.end()));
        }
    }

    @Test
    void aLateRowIsDeadLetteredAsInTheWindowJoin()
    {
        try (CoGroupTestHarness h = CoGroupTestHarness.of(JoinType.FULL, TUMBLING_10, CoGroupBuiltin.COUNT))
        {
            h.left(1, 1L, "L1");
            h.watermark(15);
            final long late = h.right(3, 1L, "R1");
            final long notLate = h.right(10, 1L, "R2");
            assertEquals(List.of(new OperatorTestHarness.Dead(late, Side.RIGHT, ChangeKind.INSERT, "R1", 3, DeadLetterReason.LATE_WINDOW)),
                h.dead);
            assertEquals(List.of("null null {k=1, leftCount=0, rightCount=1} [10,20)"), h.at(h.end()));
            assertTrue(notLate > late);
            assertEquals(1, h.counters().lateRows());
        }
    }

    @Test
    void aThrowingFunctionEmitsNothingOfItsCallAndDeadLettersItsRows()
    {
        final Schema out = Schema.of("n");
        final CoGroupFunction function = (left, right, start, end, collector) ->
        {
            while (left.next())
            {
                collector.emit(left, null);
            }
            collector.row().putLong(0, right.count());
            collector.emitRow();
            left.reset();
            left.next();
            if (left.row().getLong(IntervalTestRows.K) == 2)
            {
                throw new IllegalStateException("boom");
            }
        };
        final JoinSpec spec = CoGroupTestHarness.spec(JoinType.LEFT, TUMBLING_10).coGroup(function, out).build();
        try (CoGroupTestHarness h = new CoGroupTestHarness(spec))
        {
            h.left(1, 1L, "L1");
            h.left(2, 2L, "L2");
            h.right(3, 2L, "R1");
            h.left(4, 2L, "L3");
            h.left(5, 3L, "L4");
            final long w = h.watermark(9);
            assertEquals(List.of("L1 null [0,10)", "L4 null [0,10)", "null null {n=0} [0,10)", "null null {n=0} [0,10)"), h.at(w));
            assertEquals(List.of("L2", "L3", "R1"), h.dead.stream().map(OperatorTestHarness.Dead::id).sorted().collect(Collectors.toList()));
            assertTrue(h.dead.stream().allMatch(d -> d.step() == w && d.reason() == DeadLetterReason.COGROUP_FAILED), h.dead.toString());
            final JoinCounters c = (JoinCounters)h.counters();
            assertEquals(1, c.coGroupFailures);
            assertEquals(4, c.rowsOut);
            assertEquals(3, c.badInputs);
            assertEquals(0, c.liveLeft + c.liveRight, "the failed group's rows leave state with their window");
            // the partition goes on: the next window is called as usual
            h.left(11, 4L, "L5");
            final long end = h.end();
            assertEquals(List.of("L5 null [10,20)", "null null {n=0} [10,20)"), h.at(end));
        }
    }

    @Test
    void aFunctionFailureGoesToTheErrorHandlerWhenTheResultsHandlerIsOne()
    {
        final List<Throwable> errors = new ArrayList<>();
        final JoinSpec spec = CoGroupTestHarness.spec(JoinType.FULL, TUMBLING_10)
            .coGroup((l, r, s, e, out) -> { throw new IllegalArgumentException("bad " + l.count()); }).build();
        final ErrorReportingResults results = new ErrorReportingResults(errors);
        final List<DeadLetterReason> dead = new ArrayList<>();
        try (JoinOperator op = JoinOperators.create(spec, OperatorTestHarness.SMALL_STATE, results,
            (side, kind, row, ts, step, reason) -> dead.add(reason)))
        {
            op.onRow(Side.LEFT, ChangeKind.INSERT, IntervalTestRows.row(1L, "L1"), 1, 0);
            op.onRow(Side.LEFT, ChangeKind.INSERT, IntervalTestRows.row(1L, "L2"), 2, 1);
            op.onEndOfInput(2);
        }
        assertEquals(1, errors.size());
        assertEquals("bad 2", errors.get(0).getMessage());
        assertEquals(List.of(DeadLetterReason.COGROUP_FAILED, DeadLetterReason.COGROUP_FAILED), dead);
        assertEquals(0, results.outputs);
    }

    /** A result handler that is also the runtime's kind of error handler, as the partition worker is. */
    private static final class ErrorReportingResults implements ResultHandler, ErrorHandler
    {
        private final List<Throwable> errors;
        int outputs;

        ErrorReportingResults(final List<Throwable> errors)
        {
            this.errors = errors;
        }

        @Override
        public void onResult(
            final ChangeKind kind, final RowView left, final RowView right, final long timestamp,
            final long step)
        {
            outputs++;
        }

        @Override
        public void onError(final Throwable t)
        {
            errors.add(t);
        }
    }

    @Test
    void theCursorsAndCollectorAreValidOnlyDuringTheCall()
    {
        final RowCursor[] keptCursor = new RowCursor[1];
        final CoGroupCollector[] keptCollector = new CoGroupCollector[1];
        final JoinSpec spec = CoGroupTestHarness.spec(JoinType.FULL, TUMBLING_10)
            .coGroup((l, r, s, e, out) ->
            {
                assertThrows(IllegalStateException.class, l::row, "not on a row before next()");
                assertThrows(IllegalStateException.class, () -> out.emit(l, null), "emit needs a row under the cursor");
                assertThrows(IllegalArgumentException.class, () -> out.emit(null, null));
                assertThrows(IllegalStateException.class, out::row, "no output schema");
                l.next();
                assertThrows(IllegalArgumentException.class, () -> out.emit(null, l), "the left cursor as the right row");
                assertEquals(1, l.count());
                assertTrue(r.isEmpty());
                assertEquals(3, l.ts());
                keptCursor[0] = l;
                keptCollector[0] = out;
                out.emit(l, null);
            }).build();
        try (CoGroupTestHarness h = new CoGroupTestHarness(spec))
        {
            h.left(3, 1L, "L1");
            assertEquals(List.of("L1 null [0,10)"), h.at(h.end()));
            assertEquals(0, ((JoinCounters)h.counters()).coGroupFailures, "the asserts inside the call held");
        }
        assertEquals(0, keptCursor[0].count(), "a kept cursor is empty");
        assertThrows(IllegalStateException.class, keptCursor[0]::row);
        assertThrows(IllegalStateException.class, () -> keptCollector[0].emit(null, null));
    }

    @Test
    void manyComputedRowsInOneCallAreAllEmittedAndATooLargeRowFailsTheCall()
    {
        final Schema out = Schema.of("i", "s");
        final String text = "x".repeat(200);
        final JoinSpec spec = CoGroupTestHarness.spec(JoinType.FULL, TUMBLING_10)
            .coGroup((l, r, s, e, collector) ->
            {
                l.next();
                final int n = (int)l.row().getLong(IntervalTestRows.K);
                for (int i = 0; i < n; i++)
                {
                    // Far more than the collector's first buffer holds: it grows.
                    collector.row().putLong(0, i).putAscii(1, text);
                    collector.emitRow();
                }
                if (n == 1)
                {
                    collector.row().putAscii(1, "y".repeat(70_000));
                    collector.emitRow();
                }
            }, out).build();
        try (CoGroupTestHarness h = new CoGroupTestHarness(spec))
        {
            h.left(1, 5_000L, "L1");
            h.left(2, 1L, "L2");
            final long end = h.end();
            assertEquals(5_000, h.at(end).size());
            final String last = "null null {i=4999, s=\"" + text + "\"} [0,10)";
            assertTrue(h.at(end).contains(last), h.at(end).get(0));
            assertEquals(1, ((JoinCounters)h.counters()).coGroupFailures, "the row over 64 KiB");
            assertEquals(List.of("L2"), h.dead.stream().map(OperatorTestHarness.Dead::id).collect(Collectors.toList()));
        }
    }

    @Test
    void theSpecRefusesWhatACoGroupCannotHave()
    {
        final CoGroupFunction f = (l, r, s, e, out) -> { };
        final IllegalArgumentException semi = assertThrows(IllegalArgumentException.class,
            () -> CoGroupTestHarness.spec(JoinType.SEMI, TUMBLING_10).coGroup(f).build());
        assertTrue(semi.getMessage().startsWith("coGroup:"), semi.getMessage());
        final IllegalArgumentException condition = assertThrows(IllegalArgumentException.class,
            () -> CoGroupTestHarness.spec(JoinType.FULL, TUMBLING_10).condition("v", CompareOp.LT, "v").coGroup(f).build());
        assertTrue(condition.getMessage().startsWith("condition:"), condition.getMessage());
        final IllegalArgumentException interval = assertThrows(IllegalArgumentException.class,
            () -> JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(IntervalTestRows.SCHEMA, IntervalTestRows.SCHEMA)
                .leftKey("k").rightKey("k").interval(new IntervalBounds(0, 1, true, true)).coGroup(f).build());
        assertTrue(interval.getMessage().startsWith("coGroup:"), interval.getMessage());
        final Schema clash = Schema.of("leftCount", "id");
        final IllegalArgumentException names = assertThrows(IllegalArgumentException.class,
            () -> JoinSpec.builder(JoinKind.WINDOW, JoinType.FULL).schemas(clash, clash).leftKey("leftCount").rightKey("leftCount")
                .window(TUMBLING_10).coGroup(CoGroupBuiltin.COUNT).build());
        assertTrue(names.getMessage().startsWith("coGroup:"), names.getMessage());
        assertEquals(CoGroupBuiltin.LEFT_WITH_MATCH_COUNT, CoGroupBuiltin.fromName("leftWithMatchCount"));
        assertEquals(null, CoGroupBuiltin.fromName("Count"));
    }

    @Test
    void countingAFiredWindowAllocatesNothing()
    {
        final ThreadMXBean threads = (ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM does not measure the memory a thread allocates");
        final long[] counted = new long[1];
        final JoinSpec spec = CoGroupTestHarness.spec(JoinType.FULL, TUMBLING_10)
            .coGroup((l, r, s, e, out) ->
            {
                counted[0] += l.count() + r.count();
                out.row().putLong(0, l.count()).putLong(1, r.count());
                out.emitRow();
            }, Schema.of("l", "r")).build();
        final RowView[] rows = new RowView[64];
        for (int i = 0; i < rows.length; i++)
        {
            rows[i] = IntervalTestRows.row((long)(i % 8), "x" + i);
        }
        final long[] outputs = new long[1];
        final ResultHandler results = new ResultHandler()
        {
            @Override
            public void onResult(final ChangeKind kind, final RowView left, final RowView right,
                final long timestamp, final long step)
            {
                outputs[0]++;
            }

            @Override
            public void onCoGroupResult(final RowView left, final RowView right,
                final RowView row, final long windowStart, final long windowEnd, final long step)
            {
                outputs[0] += row.getLong(0) + row.getLong(1);
            }
        };
        try (JoinOperator op = JoinOperators.create(spec, OperatorTestHarness.SMALL_STATE, results, (s, k, r, t, st, re) -> { }))
        {
            long step = 0;
            long before = 0;
            final int windows = 2_000;
            for (int w = 0; w < windows; w++)
            {
                if (w == 200)
                {
                    before = threads.getCurrentThreadAllocatedBytes();
                }
                for (int i = 0; i < rows.length; i++)
                {
                    op.onRow(i % 2 == 0 ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT, rows[i], w * 10L + (i % 10), step++);
                }
                op.onWatermark(w * 10L + 9, step++);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertEquals(windows * 64L, counted[0]);
            assertEquals(windows * 64L, outputs[0]);
            // A byte per row would be 115 KB; what is left is the measurement's own noise.
            assertTrue(allocated < 16 * 1024, "allocated " + allocated + " bytes over " + (windows - 200) * 64 + " rows");
        }
    }
}
