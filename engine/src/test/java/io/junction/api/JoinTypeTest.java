package io.junction.api;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The padding rule every operator takes from {@link JoinType}. */
class JoinTypeTest
{
    @Test
    void padsTheOuterSidesOnly()
    {
        assertPads(JoinType.INNER, false, false);
        assertPads(JoinType.LEFT, true, false);
        assertPads(JoinType.RIGHT, false, true);
        assertPads(JoinType.FULL, true, true);
        assertPads(JoinType.SEMI, false, false);
        assertPads(JoinType.ANTI, false, false);
    }

    @Test
    void emitsUnmatchedRowsOfThePaddedSidesAndAntiLeftRows()
    {
        assertEmits(JoinType.INNER, false, false);
        assertEmits(JoinType.LEFT, true, false);
        assertEmits(JoinType.RIGHT, false, true);
        assertEmits(JoinType.FULL, true, true);
        assertEmits(JoinType.SEMI, false, false);
        assertEmits(JoinType.ANTI, true, false);
    }

    private static void assertPads(final JoinType type, final boolean left, final boolean right)
    {
        assertEquals(left, type.padsUnmatched(Side.LEFT), type + " pads left");
        assertEquals(right, type.padsUnmatched(Side.RIGHT), type + " pads right");
        assertEquals(left, type.isOuter(Side.LEFT), type + " outer left");
        assertEquals(right, type.isOuter(Side.RIGHT), type + " outer right");
    }

    private static void assertEmits(final JoinType type, final boolean left, final boolean right)
    {
        assertEquals(left, type.emitsUnmatched(Side.LEFT), type + " emits unmatched left");
        assertEquals(right, type.emitsUnmatched(Side.RIGHT), type + " emits unmatched right");
    }
}
