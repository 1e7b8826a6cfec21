package io.junction.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * One term of a pre-join filter, reading one side's row only. Immutable. Three forms:
 * <ul>
 *   <li>{@code field op literal} ({@link #FieldFilter(String, CompareOp, Literal)});</li>
 *   <li>{@code field IN (literal, ...)} ({@link #in}): true when the field equals one of the literals by
 *       the engine's value comparison; as SQL, a null field or a null entry never matches;</li>
 *   <li>{@code any(filter, ...)} ({@link #any}): true when one of the alternatives holds (OR).</li>
 * </ul>
 * A side's terms are ANDed.
 */
public final class FieldFilter
{
    /** The most literals of one IN list, and the most alternatives of one {@code any}. */
    public static final int MAX_ENTRIES = 256;
    /** The most levels of {@code any} nested in one another (an {@code any} of plain terms is depth 1). */
    public static final int MAX_DEPTH = 8;

    private final String field;
    private final CompareOp op;
    private final Literal value;
    private final List<Literal> values;
    private final List<FieldFilter> alternatives;
    private final int depth;

    /**
     * @param field the field of the row the filter reads.
     * @param op    the comparison (not {@link CompareOp#IN}: that takes a list, {@link #in}).
     * @param value the literal the field is compared with.
     * @throws IllegalArgumentException when any argument is null, or op is IN.
     */
    public FieldFilter(final String field, final CompareOp op, final Literal value)
    {
        if (field == null || op == null || value == null)
        {
            throw new IllegalArgumentException("filter needs field, op and value: " + field + " " + op + " " + value);
        }
        if (op == CompareOp.IN)
        {
            throw new IllegalArgumentException("filter on '" + field + "': in takes a list of literals (FieldFilter.in)");
        }
        this.field = field;
        this.op = op;
        this.value = value;
        this.values = List.of(value);
        this.alternatives = List.of();
        this.depth = 0;
    }

    private FieldFilter(final String field, final List<Literal> values, final List<FieldFilter> alternatives, final int depth)
    {
        this.field = field;
        this.op = field == null ? null : CompareOp.IN;
        this.value = null;
        this.values = values;
        this.alternatives = alternatives;
        this.depth = depth;
    }

    /**
     * @param field  the field of the row the filter reads.
     * @param values the literals, 1 to {@link #MAX_ENTRIES}; a null literal is allowed and never matches.
     * @return the term {@code field IN (values)}.
     * @throws IllegalArgumentException when the field is null, or the list is null, empty, too long or holds a null.
     */
    public static FieldFilter in(final String field, final List<Literal> values)
    {
        if (field == null)
        {
            throw new IllegalArgumentException("in: field is required");
        }
        checkEntries("in list of '" + field + "'", values);
        return new FieldFilter(field, Collections.unmodifiableList(new ArrayList<>(values)), List.of(), 0);
    }

    /**
     * @param field  the field of the row the filter reads.
     * @param values the literals, 1 to {@link #MAX_ENTRIES}.
     * @return the term {@code field IN (values)}.
     */
    public static FieldFilter in(final String field, final Literal... values)
    {
        return in(field, values == null ? null : List.of(values));
    }

    /**
     * @param alternatives the filters, 1 to {@link #MAX_ENTRIES}, nested at most {@link #MAX_DEPTH} deep.
     * @return the disjunction: true when one of the alternatives holds.
     * @throws IllegalArgumentException when the list is null, empty, too long, holds a null or nests too deep.
     */
    public static FieldFilter any(final List<FieldFilter> alternatives)
    {
        checkEntries("any", alternatives);
        int depth = 0;
        for (final FieldFilter f : alternatives)
        {
            depth = Math.max(depth, f.depth);
        }
        if (depth + 1 > MAX_DEPTH)
        {
            throw new IllegalArgumentException("any: nested more than " + MAX_DEPTH + " levels deep");
        }
        return new FieldFilter(null, Collections.unmodifiableList(new ArrayList<>()), Collections.unmodifiableList(new ArrayList<>(alternatives)), depth + 1);
    }

    /**
     * @param alternatives the filters, 1 to {@link #MAX_ENTRIES}.
     * @return the disjunction: true when one of the alternatives holds.
     */
    public static FieldFilter any(final FieldFilter... alternatives)
    {
        return any(alternatives == null ? null : List.of(alternatives));
    }

    private static void checkEntries(final String what, final List<?> entries)
    {
        if (entries == null || entries.isEmpty())
        {
            throw new IllegalArgumentException(what + ": at least one entry is required");
        }
        if (entries.size() > MAX_ENTRIES)
        {
            throw new IllegalArgumentException(what + ": " + entries.size() + " entries, at most " + MAX_ENTRIES);
        }
        for (int i = 0; i < entries.size(); i++)
        {
            if (entries.get(i) == null)
            {
                throw new IllegalArgumentException(what + ": entry " + i + " is null");
            }
        }
    }

    /** @return true for a disjunction ({@link #any}), whose {@link #alternatives()} hold its filters. */
    public boolean isAny()
    {
        return field == null;
    }

    /** @return the field the filter reads; null for a disjunction. */
    public String field()
    {
        return field;
    }

    /** @return the comparison; {@link CompareOp#IN} for an IN list; null for a disjunction. */
    public CompareOp op()
    {
        return op;
    }

    /** @return the literal the field is compared with; null for an IN list or a disjunction. */
    public Literal value()
    {
        return value;
    }

    /** @return the literals of an IN list, or the one literal of a comparison; empty for a disjunction. */
    public List<Literal> values()
    {
        return values;
    }

    /** @return the filters of a disjunction; empty otherwise. */
    public List<FieldFilter> alternatives()
    {
        return alternatives;
    }

    /** @return how many levels of {@code any} this term nests: 0 for a comparison or IN list. */
    public int depth()
    {
        return depth;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof FieldFilter))
        {
            return false;
        }
        final FieldFilter that = (FieldFilter)o;
        return Objects.equals(field, that.field) && op == that.op && values.equals(that.values) &&
            alternatives.equals(that.alternatives);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(field, op, values, alternatives);
    }

    @Override
    public String toString()
    {
        if (isAny())
        {
            final StringBuilder s = new StringBuilder("any(");
            for (int i = 0; i < alternatives.size(); i++)
            {
                s.append(i == 0 ? "" : " or ").append(alternatives.get(i));
            }
            return s.append(')').toString();
        }
        if (op == CompareOp.IN)
        {
            return field + " in " + values;
        }
        return field + ' ' + op.symbol() + ' ' + value;
    }
}
