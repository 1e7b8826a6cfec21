package io.junction.api;

import java.util.Locale;

/**
 * The options of an ASOF join ({@link JoinKind#ASOF}, docs/SEMANTICS.md "ASOF joins"): which
 * right rows are candidates for a left row (the {@link Direction} and the optional tolerance), and when
 * the left row is emitted ({@link Emit}). Immutable and thread safe.
 *
 * <pre>{@code
 * AsofSpec asof = AsofSpec.of(AsofSpec.Direction.BACKWARD).withTolerance(1_000).withEmit(AsofSpec.Emit.EAGER);
 * JoinSpec spec = JoinSpec.builder(JoinKind.ASOF, JoinType.LEFT).schemas(trades, quotes)
 *     .leftKey("symbol").rightKey("symbol").asof(asof).build();
 * }</pre>
 * A right row {@code r} of the left row {@code l}'s key is a candidate when, with tolerance {@code T}
 * (unbounded when absent): backward {@code l.ts - T <= r.ts <= l.ts}; forward {@code l.ts <= r.ts <= l.ts + T};
 * nearest {@code |r.ts - l.ts| <= T}.
 */
public final class AsofSpec
{
    /** {@link #tolerance()} of a spec without one: every ts in the direction is a candidate. */
    public static final long UNBOUNDED = -1;

    /** Which right rows, relative to the left row's ts, may be its match, and which of them wins. */
    public enum Direction
    {
        /** {@code r.ts <= l.ts}; the greatest {@code r.ts} wins (the quote in force at the trade). */
        BACKWARD,
        /** {@code r.ts >= l.ts}; the least {@code r.ts} wins (the first reading after the event). */
        FORWARD,
        /** Either side; the least {@code |r.ts - l.ts|} wins, a tie going to the earlier {@code r.ts}. */
        NEAREST;

        /**
         * @param name a direction's name such as {@code "backward"}, case-insensitive.
         * @return the direction, or null when the name is none of them.
         */
        public static Direction fromName(final String name)
        {
            for (final Direction d : values())
            {
                if (d.name().equalsIgnoreCase(name))
                {
                    return d;
                }
            }
            return null;
        }

        /** @return the name as the JSON spec spells it, {@code "backward"}. */
        public String jsonName()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** When a left row is emitted. */
    public enum Emit
    {
        /** Once, {@code +I}, at the first watermark that proves no better match can arrive: append-only output. */
        FINAL,
        /** At once with the best candidate so far, then {@code -U/+U} whenever a better one arrives before it is final. */
        EAGER;

        /**
         * @param name an emission mode's name such as {@code "final"}, case-insensitive.
         * @return the mode, or null when the name is none of them.
         */
        public static Emit fromName(final String name)
        {
            for (final Emit e : values())
            {
                if (e.name().equalsIgnoreCase(name))
                {
                    return e;
                }
            }
            return null;
        }

        /** @return the name as the JSON spec spells it, {@code "final"}. */
        public String jsonName()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Direction direction;
    private final long tolerance;
    private final Emit emit;

    private AsofSpec(final Direction direction, final long tolerance, final Emit emit)
    {
        if (direction == null)
        {
            throw new IllegalArgumentException("asof.direction: required (backward, forward or nearest)");
        }
        if (emit == null)
        {
            throw new IllegalArgumentException("asof.emit: must not be null (final or eager)");
        }
        if (tolerance < 0 && tolerance != UNBOUNDED)
        {
            throw new IllegalArgumentException("asof.tolerance: must be >= 0, got " + tolerance);
        }
        this.direction = direction;
        this.tolerance = tolerance;
        this.emit = emit;
    }

    /**
     * @param direction backward, forward or nearest.
     * @return the options with no tolerance, emitted {@link Emit#FINAL}.
     * @throws IllegalArgumentException when the direction is null.
     */
    public static AsofSpec of(final Direction direction)
    {
        return new AsofSpec(direction, UNBOUNDED, Emit.FINAL);
    }

    /**
     * @param millis the tolerance {@code T} in ms, >= 0.
     * @return these options with that tolerance.
     * @throws IllegalArgumentException when it is negative.
     */
    public AsofSpec withTolerance(final long millis)
    {
        if (millis < 0)
        {
            throw new IllegalArgumentException("asof.tolerance: must be >= 0, got " + millis);
        }
        return new AsofSpec(direction, millis, emit);
    }

    /** @return these options with no tolerance (every ts in the direction is a candidate). */
    public AsofSpec withoutTolerance()
    {
        return new AsofSpec(direction, UNBOUNDED, emit);
    }

    /**
     * @param mode final or eager.
     * @return these options with that emission mode.
     * @throws IllegalArgumentException when it is null.
     */
    public AsofSpec withEmit(final Emit mode)
    {
        return new AsofSpec(direction, tolerance, mode);
    }

    /** @return the direction. */
    public Direction direction()
    {
        return direction;
    }

    /** @return true when a tolerance bounds the candidates. */
    public boolean hasTolerance()
    {
        return tolerance != UNBOUNDED;
    }

    /** @return the tolerance in ms, or {@link #UNBOUNDED}. */
    public long tolerance()
    {
        return tolerance;
    }

    /** @return the emission mode. */
    public Emit emit()
    {
        return emit;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof AsofSpec))
        {
            return false;
        }
        final AsofSpec other = (AsofSpec)o;
        return direction == other.direction && tolerance == other.tolerance && emit == other.emit;
    }

    @Override
    public int hashCode()
    {
        return (direction.hashCode() * 31 + Long.hashCode(tolerance)) * 31 + emit.hashCode();
    }

    @Override
    public String toString()
    {
        return "asof{" + direction.jsonName() + (hasTolerance() ? " tolerance=" + tolerance : "") + ' ' + emit.jsonName() + '}';
    }
}
