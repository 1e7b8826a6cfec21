package io.junction.api;

/** The family of a join: what bounds its state and how it emits (docs/SEMANTICS.md, sections 4-7, 10). */
public enum JoinKind
{
    /** Unbounded state, retraction changelog out (Flink SQL regular join). */
    REGULAR,
    /** Time-bounded state, append-only out; outer rows emitted when they close. */
    INTERVAL,
    /** Event-time windows; each window fires once. */
    WINDOW,
    /**
     * Event-time temporal join of an append-only left stream with a versioned table (the right changelog,
     * keyed by its primary key, the join key): each left row joins the version valid at its {@code ts}
     * when the watermark reaches it (Flink SQL {@code FOR SYSTEM_TIME AS OF l.ts}); inner and left only.
     */
    TEMPORAL,
    /**
     * Processing-time lookup join: each left row joins its key's current version (the latest right row
     * received) at once; right rows emit nothing; inner and left only.
     */
    LOOKUP,
    /**
     * Multi-way join: 2 to 16 named inputs on a common key, each after the first inner or left joined to
     * all before it, with a minimal changelog ({@link MultiJoinSpec}, SEMANTICS 10).
     */
    MULTI,
    /**
     * Event-time ASOF join of two append-only streams: each left row joins the right row of its key nearest
     * in time in the spec's {@link AsofSpec direction} (within an optional tolerance), emitted once when the
     * watermark proves it final, or eagerly with {@code -U/+U} corrections (SEMANTICS 11); inner and left only.
     */
    ASOF,
    /**
     * A row expansion on its own (docs/SEMANTICS.md, "Row expansion"): each left row with each row its
     * {@link Expansion} makes, SQL's {@code CROSS JOIN UNNEST} and {@code LATERAL TABLE}; no key, no state.
     */
    EXPAND;

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
