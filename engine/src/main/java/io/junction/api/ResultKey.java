package io.junction.api;

/**
 * Which declared unique keys key the results of a regular join with upsert output (SEMANTICS 4.5-4.7): the
 * result key of an output row is the named side's unique-key fields of its row, or both sides' (a
 * padded side's part is null).
 */
public enum ResultKey
{
    /** The left unique key: inner and left joins whose right unique key lies in the right join key, semi and anti joins. */
    LEFT,
    /** The right unique key: the mirror, for right joins whose left unique key lies in the left join key. */
    RIGHT,
    /** Both unique keys together (full joins, and any join where neither side matches at most one row). */
    BOTH;

    /**
     * @param side an input.
     * @return true when the side's unique key is part of the result key.
     */
    public boolean includes(final Side side)
    {
        return this == BOTH || (side == Side.LEFT ? this == LEFT : this == RIGHT);
    }
}
