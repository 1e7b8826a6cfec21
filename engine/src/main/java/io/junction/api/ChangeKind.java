package io.junction.api;

/**
 * The kind of a changelog row, as Flink SQL's {@code RowKind}: inserts and update-afters accumulate,
 * deletes and update-befores retract one earlier accumulated copy of an equal row (SEMANTICS 1).
 */
public enum ChangeKind
{
    /** {@code +I}: a new row; accumulates. */
    INSERT("+I", true),
    /** {@code -U}: the old version of an updated row; retracts. */
    UPDATE_BEFORE("-U", false),
    /** {@code +U}: the new version of an updated row; accumulates. */
    UPDATE_AFTER("+U", true),
    /** {@code -D}: a deleted row; retracts. */
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

    /**
     * @param ordinal an ordinal of this enum, as stored in a ring slot.
     * @return the kind with that ordinal.
     */
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
