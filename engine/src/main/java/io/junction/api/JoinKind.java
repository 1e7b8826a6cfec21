package io.junction.api;

/** The family of a join: what bounds its state and how it emits (SPEC 2.1, 2.2, 2.3). */
public enum JoinKind
{
    /** Unbounded state, retraction changelog out (Flink SQL regular join). */
    REGULAR,
    /** Time-bounded state, append-only out; outer rows emitted when they close. */
    INTERVAL,
    /** Event-time windows; each window fires once. */
    WINDOW;

    /**
     * @param name a kind's name such as {@code "interval"}, case-insensitive.
     * @return the kind, or null when the name is none of them.
     */
    public static JoinKind fromName(final String name)
    {
        for (final JoinKind kind : values())
        {
            if (kind.name().equalsIgnoreCase(name))
            {
                return kind;
            }
        }
        return null;
    }
}
