package io.junction.examples;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The embedding service, run as the build runs it: two producers, two partitions, exact counts. */
class EmbeddedJoinServiceTest
{
    @Test
    void shouldJoinEveryPaymentInItsWindowAndPadEveryOtherOrderWithoutLosingARow()
    {
        final EmbeddedJoinService.Summary summary = EmbeddedJoinService.run(10_000);
        System.out.println(summary);

        // by construction (see EmbeddedJoinService): 9,000 orders are paid (i % 10 != 0); of those,
        // 1,285 pay 6 s late (i % 7 == 6, i % 10 != 0), so 7,715 pairs and 2,285 padded orders
        assertEquals(19_000, summary.published(), summary.toString());
        assertEquals(19_000, summary.rowsIn(), "metrics rowsIn: every published row reached a partition");
        assertEquals(7_715, summary.pairs(), summary.toString());
        assertEquals(2_285, summary.padded(), summary.toString());
        assertEquals(10_000, summary.rowsOut(), "one result per order: a left join emits each order once");
        assertEquals(393_471, summary.paidCents(), "the amounts read from the joined payment rows");
        assertEquals(0, summary.wrongPairs(), "every pair joins an order to its own payment inside the interval");
        assertEquals(0, summary.lateRows(), summary.toString());
        assertEquals(0, summary.deadLetters(), summary.toString());
        assertEquals(0, summary.refused(), summary.toString());
        assertTrue(summary.ok(), summary.toString());
        assertTrue(summary.toString().startsWith("OK: published 19000 "), summary.toString());
    }

    @Test
    void shouldComputeTheExpectedCountsByConstruction()
    {
        assertEquals(9_000, EmbeddedJoinService.expectedPayments(10_000));
        assertEquals(7_715, EmbeddedJoinService.expectedPairs(10_000));
        assertEquals(393_471, EmbeddedJoinService.expectedPaidCents(10_000));
        // orders 0..13: paid unless 0 or 10; order 6 and 13 pay 6 s late
        assertEquals(12, EmbeddedJoinService.expectedPayments(14));
        assertEquals(10, EmbeddedJoinService.expectedPairs(14));
    }

    @Test
    void shouldFailTheCheckWhenARowIsLostOrDuplicated()
    {
        final EmbeddedJoinService.Summary good = new EmbeddedJoinService.Summary(
            10_000, 19_000, 7_715, 2_285, 393_471, 0, 9_000, 7_715, 393_471, 19_000, 10_000, 0, 0, 0, 3);
        assertTrue(good.ok(), good.toString());
        final EmbeddedJoinService.Summary lostPair = new EmbeddedJoinService.Summary(
            10_000, 19_000, 7_714, 2_285, 393_471, 0, 9_000, 7_715, 393_471, 19_000, 9_999, 0, 0, 0, 3);
        assertFalse(lostPair.ok(), lostPair.toString());
        assertTrue(lostPair.toString().startsWith("FAILED: "), lostPair.toString());
        final EmbeddedJoinService.Summary lostInput = new EmbeddedJoinService.Summary(
            10_000, 19_000, 7_715, 2_285, 393_471, 0, 9_000, 7_715, 393_471, 18_999, 10_000, 0, 0, 0, 3);
        assertFalse(lostInput.ok(), lostInput.toString());
        final EmbeddedJoinService.Summary late = new EmbeddedJoinService.Summary(
            10_000, 19_000, 7_715, 2_285, 393_471, 0, 9_000, 7_715, 393_471, 19_000, 10_000, 1, 1, 0, 3);
        assertFalse(late.ok(), late.toString());
    }
}
