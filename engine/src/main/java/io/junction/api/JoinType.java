package io.junction.api;

/** Join types (SEMANTICS 2). Semi and anti joins output the left row only. */
public enum JoinType
{
    /** Pairs of matching rows only. */
    INNER,
    /** Inner, plus every left row without a match, padded with nulls. */
    LEFT,
    /** Inner, plus every right row without a match, padded with nulls. */
    RIGHT,
    /** Inner, plus the rows of either side without a match, padded with nulls. */
    FULL,
    /** The left rows that have at least one match (each once). */
    SEMI,
    /** The left rows that have no match. */
    ANTI;

    /**
     * The padding rule, in one place: which sides' unmatched rows are emitted with nulls for the
     * other side. LEFT pads left rows, RIGHT right rows, FULL both; INNER, SEMI and ANTI pad none
     * (anti emits its unmatched left rows alone, see {@link #emitsUnmatched(Side)}).
     *
     * @param side an input.
     * @return true when unmatched rows of {@code side} are emitted null-padded.
     */
    public boolean padsUnmatched(final Side side)
    {
        switch (this)
        {
            case LEFT:
                return side == Side.LEFT;
            case RIGHT:
                return side == Side.RIGHT;
            case FULL:
                return true;
            default:
                return false;
        }
    }

    /**
     * Which rows the operators emit when they find no match: the padded sides of
     * {@link #padsUnmatched(Side)}, plus the left rows of an anti join (emitted alone). A semi join
     * emits its matched left rows instead, so it emits no unmatched row.
     *
     * @param side an input.
     * @return true when a row of {@code side} without a match is emitted.
     */
    public boolean emitsUnmatched(final Side side)
    {
        return padsUnmatched(side) || (this == ANTI && side == Side.LEFT);
    }

    /**
     * @param side an input.
     * @return true when unmatched rows of {@code side} are emitted null-padded; the same as
     *         {@link #padsUnmatched(Side)}.
     */
    public boolean isOuter(final Side side)
    {
        return padsUnmatched(side);
    }

    /** @return true for semi and anti joins, which emit left rows only. */
    public boolean isSemiOrAnti()
    {
        return this == SEMI || this == ANTI;
    }

    /**
     * @param name a type name such as {@code "left"}.
     * @return the type for a name such as {@code "left"}, case-insensitive, or null.
     */
    public static JoinType fromName(final String name)
    {
        for (final JoinType type : values())
        {
            if (type.name().equalsIgnoreCase(name))
            {
                return type;
            }
        }
        return null;
    }
}
