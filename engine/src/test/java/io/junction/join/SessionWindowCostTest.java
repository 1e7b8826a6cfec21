package io.junction.join;

import io.junction.api.JoinType;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.WindowSpec;

/**
 * The cost of a session row: a row of a key's latest session, after it, or of a key with
 * one session is placed from the bucket's summary in O(1); before, every row gathered and sorted all of
 * its key's pending rows, quadratic in the rows of a session that has not fired. Counted, not timed: the
 * number of rows that took the gathering path. Output is checked as well (the differential test checks
 * the semantics on random streams).
 */
class SessionWindowCostTest
{
    private static final int ROWS = 5_000;

    @Test
    void rowsOfOneGrowingSessionAreNeverGathered()
    {
        final StateConfig config = OperatorTestHarness.SMALL_STATE.withMaxKeys(1024).withMaxLiveRows(4 * ROWS);
        try (WindowTestHarness h = new WindowTestHarness(WindowTestHarness.spec(JoinType.INNER,
            WindowSpec.session(10)).build(), config))
        {
            h.watermark(0);
            for (int i = 0; i < ROWS; i++)
            {
                h.left(1 + i, 1, "A" + i);                 // in order: each row extends the latest session
                h.left(2L * ROWS - i, 2, "B" + i);         // in reverse order: the key's only session, from before its start
            }
            h.right(5, 1, "RA");
            h.right(2L * ROWS, 2, "RB");
            h.left(10L * ROWS, 1, "C");                     // a second session of key 1, after the first
            assertEquals(0, h.join.sessionGathers(), "no row needed the key's rows gathered");
            final long w = h.watermark(5L * ROWS);
            assertEquals(2 * ROWS, h.at(w).size(), "both sessions of 5,000 rows fired with their right row");
            h.left(10L * ROWS + 5, 1, "D");                 // joins the session left after firing (summary rebuilt)
            h.left(9L * ROWS, 1, "E");                      // before the key's only session: a session of its own
            assertEquals(0, h.join.sessionGathers());
            h.left(9L * ROWS + 3, 1, "F");                  // before the latest of two sessions: gathered
            assertTrue(h.join.sessionGathers() > 0);
        }
    }

    @Test
    void firingASessionLooksOnlyAtItsLeftAndRightPairs()
    {
        final StateConfig config = OperatorTestHarness.SMALL_STATE.withMaxKeys(1024).withMaxLiveRows(4 * ROWS);
        try (WindowTestHarness h = new WindowTestHarness(WindowTestHarness.spec(JoinType.INNER,
            WindowSpec.session(10)).build(), config))
        {
            h.watermark(0);
            h.right(1, 1, "R");
            for (int i = 0; i < ROWS; i++)
            {
                h.left(1 + i, 1, "A" + i);
            }
            final long w = h.watermark(5L * ROWS);
            assertEquals(ROWS, h.at(w).size(), "every left row of the session paired with the right row");
            // one right row: one pair check per left row; looking at every row of the session for each left row
            // (as firing used to) would be ROWS x (ROWS + 1)
            assertEquals(ROWS, h.join.pairChecks(), "pair checks of a session of " + ROWS + " left rows and 1 right row");
        }
    }
}
