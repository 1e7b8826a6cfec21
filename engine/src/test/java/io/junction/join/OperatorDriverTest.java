package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowFilter;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.RowStore;
import org.agrona.ErrorHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@link OperatorDriver}'s lifecycle, with an algorithm that records what it is called with: the driver
 * counts rows in, calls the algorithm's watermark only when the join watermark moves (a side, both, an idle
 * mark), moves both watermarks to +infinity before the end of input, adds the algorithm's timers to the
 * counters, and carries the algorithm's heap part across a close and reopen under its layout name. And the
 * ported kinds report a user predicate's exception to the error handler handed in, not to the result handler.
 */
class OperatorDriverTest
{
    private static final JoinSpec SPEC = VersionedTestHarness.spec(JoinKind.LOOKUP, JoinType.LEFT).build();
    private static final ResultHandler NO_RESULTS = (kind, left, right, ts, step) -> { };

    /** Records every call; saves one long ({@link #saved}) as its heap part. */
    private static final class RecordingAlgorithm implements JoinAlgorithm
    {
        final List<String> calls = new ArrayList<>();
        long saved;
        long loaded = -1;

        @Override
        public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            calls.add("row " + side + ' ' + kind.shortString() + " ts=" + ts + " step=" + step);
        }

        @Override
        public void onWatermark(final long watermark, final long step)
        {
            calls.add("watermark " + watermark + " step=" + step);
        }

        @Override
        public void onEndOfInput(final long step)
        {
            calls.add("end step=" + step);
        }

        @Override
        public void save(final ByteBuffer out)
        {
            out.putLong(saved);
        }

        @Override
        public void load(final ByteBuffer in)
        {
            loaded = in.getLong();
        }

        @Override
        public long pendingTimers()
        {
            return 3;
        }
    }

    private static OperatorDriver driver(final StateConfig config, final String layout, final RecordingAlgorithm algorithm)
    {
        return new OperatorDriver(SPEC, config, NO_RESULTS, DeadLetterHandler.NONE, null, layout, false, parts -> algorithm);
    }

    @Test
    void callsTheAlgorithmInLifecycleOrder()
    {
        final RecordingAlgorithm algorithm = new RecordingAlgorithm();
        try (OperatorDriver driver = driver(OperatorTestHarness.SMALL_STATE, "driver-test", algorithm))
        {
            final RowView row = IntervalTestRows.row("a", "l1");
            driver.onRow(Side.LEFT, ChangeKind.INSERT, row, 5, 0);
            driver.onWatermark(Side.LEFT, 10, 1);
            driver.onWatermark(Side.RIGHT, 7, 2);
            driver.onWatermark(Side.RIGHT, 6, 3);
            driver.onIdle(Side.RIGHT, 4);
            driver.onRow(Side.RIGHT, ChangeKind.DELETE, row, 1, 5);
            driver.onWatermark(Side.RIGHT, 8, 6);
            driver.onWatermark(20, 7);
            driver.onEndOfInput(8);
            assertEquals(List.of(
                "row LEFT +I ts=5 step=0",
                // step 1: the right side holds the join watermark at -infinity; step 3 is below the right's 7.
                "watermark 7 step=2",
                "watermark 10 step=4",
                "row RIGHT -D ts=1 step=5",
                // step 6: the right side is active again, below the join watermark, which does not go back.
                "watermark 20 step=7",
                "end step=8"), algorithm.calls);
            assertEquals(2, driver.counters().rowsIn());
            assertEquals(Long.MAX_VALUE, driver.counters().watermark());
            assertEquals(3, driver.counters().pendingTimers(), "the algorithm's own timers, beside the state's (none)");
        }
    }

    @Test
    void aKindWhoseEndOfInputClosesNothingKeepsItsWatermarks()
    {
        final RecordingAlgorithm algorithm = new RecordingAlgorithm();
        try (OperatorDriver driver = new OperatorDriver(SPEC, OperatorTestHarness.SMALL_STATE, NO_RESULTS,
            DeadLetterHandler.NONE, null, "driver-test", RowStore.TIMED_NONE, DriverShape.DEFAULT.endKeepsWatermarks(), parts -> algorithm))
        {
            driver.onWatermark(20, 0);
            driver.onEndOfInput(1);
            assertEquals(List.of("watermark 20 step=0", "end step=1"), algorithm.calls);
            assertEquals(20, driver.counters().watermark(), "the regular join's end of input leaves the watermarks");
        }
    }

    @Test
    void carriesTheAlgorithmsHeapPartAcrossACloseAndReopen(@TempDir final Path dir)
    {
        final StateConfig config = OperatorTestHarness.SMALL_STATE.withStateDirectory(dir);
        final RecordingAlgorithm first = new RecordingAlgorithm();
        try (OperatorDriver driver = driver(config, "driver-test", first))
        {
            assertTrue(driver.durable());
            driver.onRow(Side.LEFT, ChangeKind.INSERT, IntervalTestRows.row("a", "l1"), 5, 0);
            driver.onWatermark(12, 1);
            first.saved = 0x1234_5678_9abcL;
        }
        assertEquals(-1, first.loaded, "a fresh state loads nothing");
        final RecordingAlgorithm second = new RecordingAlgorithm();
        try (OperatorDriver driver = driver(config, "driver-test", second))
        {
            assertEquals(0x1234_5678_9abcL, second.loaded, "the algorithm's part, after the driver's");
            assertEquals(1, driver.counters().rowsIn(), "the driver's counters");
            assertEquals(12, driver.counters().watermark(), "the driver's watermarks");
            second.saved = second.loaded;
        }
        assertThrows(DurableStateException.class, () -> driver(config, "another-layout", new RecordingAlgorithm()),
            "the layout name is the kind's: a state of another kind is refused");
    }

    /** A result handler that is also an error handler, as the runtime's partition worker is. */
    private static final class SniffableResults implements ResultHandler, ErrorHandler
    {
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
        {
        }

        @Override
        public void onError(final Throwable t)
        {
            errors.add(t);
        }
    }

    @Test
    void thePortedKindsReportToTheErrorHandlerHandedIn()
    {
        final RowFilter throwing = row ->
        {
            throw new IllegalStateException("user filter");
        };
        for (final JoinKind kind : new JoinKind[] {JoinKind.LOOKUP, JoinKind.TEMPORAL, JoinKind.ASOF, JoinKind.INTERVAL, JoinKind.REGULAR})
        {
            final JoinSpec.Builder builder = VersionedTestHarness.spec(kind, JoinType.LEFT).leftFilter(throwing);
            if (kind == JoinKind.INTERVAL)
            {
                builder.interval(IntervalBounds.inclusive(-1, 1));
            }
            if (kind == JoinKind.ASOF)
            {
                builder.asof(AsofSpec.of(AsofSpec.Direction.BACKWARD));
            }
            final JoinSpec spec = builder.build();
            final SniffableResults results = new SniffableResults();
            final List<Throwable> handedIn = new ArrayList<>();
            try (JoinOperator op = JoinOperators.create(spec, OperatorTestHarness.SMALL_STATE, results,
                DeadLetterHandler.NONE, handedIn::add))
            {
                op.onRow(Side.LEFT, ChangeKind.INSERT, IntervalTestRows.row("a", "l1"), 5, 0);
                assertEquals(1, handedIn.size(), kind + ": reported to the handler handed in");
                assertEquals(0, results.errors.size(), kind + ": not found in the result handler");
                assertEquals(1, op.counters().userCodeFailures(), kind + ": counted");
            }
            try (JoinOperator op = JoinOperators.create(spec, OperatorTestHarness.SMALL_STATE, results, DeadLetterHandler.NONE))
            {
                op.onRow(Side.LEFT, ChangeKind.INSERT, IntervalTestRows.row("a", "l1"), 5, 0);
                assertEquals(1, results.errors.size(), kind + ": the four-argument create takes the result handler's");
            }
        }
    }
}
