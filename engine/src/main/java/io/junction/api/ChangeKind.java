package io.junction.api;

/**
 * The kind of a changelog row, as Flink SQL's {@code RowKind}: inserts and update-afters accumulate,
 * deletes and update-befores retract one earlier accumulated copy of an equal row (SPEC 1).
 */
public enum ChangeKind
{
    INSERT("+I", true),
    UPDATE_BEFORE("-U", false),
    UPDATE_AFTER("+U", true),
    DELETE("-D", false);

    private static final ChangeKind[] VALUES = values();

    private final String shortString;
    private final boolean accumulate;

    ChangeKind(final String shortString, final boolean accumulate)
    {
        this.shortString = shortString;
        this.accumulate = accumulate;
    }

    /** @return {@code +I}, {@code -U}, {@code +U} or {@code -D}. */
    public String shortString()
    {
        return shortString;
    }

    /** @return true for {@code +I} and {@code +U}. */
    public boolean isAccumulate()
    {
        return accumulate;
    }

    /** @return the kind for an ordinal, as stored in a ring slot. */
    public static ChangeKind fromOrdinal(final int ordinal)
    {
        return VALUES[ordinal];
    }

    /**
     * @param shortString {@code +I}, {@code -U}, {@code +U} or {@code -D}.
     * @return the kind, or null when the string is none of them.
     */
    public static ChangeKind fromShortString(final String shortString)
    {
        for (final ChangeKind kind : VALUES)
        {
            if (kind.shortString.equals(shortString))
            {
                return kind;
            }
        }
        return null;
    }
}
