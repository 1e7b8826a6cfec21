package io.junction.api;

/** Join types (SPEC 2). Semi and anti joins output the left row only. */
public enum JoinType
{
    INNER,
    LEFT,
    RIGHT,
    FULL,
    SEMI,
    ANTI;

    /** @return true when unmatched rows of {@code side} are emitted null-padded. */
    public boolean isOuter(final Side side)
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

    /** @return true for semi and anti joins, which emit left rows only. */
    public boolean isSemiOrAnti()
    {
        return this == SEMI || this == ANTI;
    }

    /** @return the type for a name such as {@code "left"}, case-insensitive, or null. */
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
