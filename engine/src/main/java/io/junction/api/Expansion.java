package io.junction.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A row expansion (docs/SEMANTICS.md, "Row expansion"): the rows a function makes from one input row, each
 * the input's fields plus new ones, as SQL's {@code CROSS JOIN UNNEST(arr)}, {@code LEFT JOIN UNNEST(arr) ON
 * TRUE}, {@code WITH ORDINALITY} and {@code LATERAL TABLE(f(..))} make them.
 * <pre>{@code
 * Expansion.unnest("ad_ids", "ad_id").ordinality("pos").outer(true)     // scalar elements
 * Expansion.unnestObjects("lines", Map.of("sku", "sku"))                // object elements, fields renamed
 * Expansion.split("csv", ",", "part")                                    // a string cut at a literal
 * Expansion.function(new MyTableFunction(), "word", "length")            // a user table function
 * }</pre>
 * Used standalone ({@link JoinKind#EXPAND}, {@link JoinSpec.Builder#expand}) or before a join
 * ({@link JoinSpec.Builder#leftExpand}, {@link JoinSpec.Builder#rightExpand}). Immutable: each setter
 * returns a new expansion.
 */
public final class Expansion
{
    /** The most rows one input row may make unless {@link #maxExpansion(int)} says otherwise. */
    public static final int DEFAULT_MAX_EXPANSION = 65_536;

    /** What makes the rows. */
    public enum Kind
    {
        /** One row per element of an array field. */
        UNNEST,
        /** One row per piece of a string field cut at a literal separator. */
        SPLIT,
        /** The rows a user {@link TableFunction} makes. */
        FUNCTION
    }

    private final Kind kind;
    private final String field;
    private final List<String> newFields;
    private final List<String> elementFields;
    private final String separator;
    private final TableFunction function;
    private final String ordinality;
    private final boolean outer;
    private final int maxExpansion;

    private Expansion(
        final Kind kind, final String field, final List<String> newFields, final List<String> elementFields,
        final String separator, final TableFunction function, final String ordinality, final boolean outer,
        final int maxExpansion)
    {
        this.kind = kind;
        this.field = field;
        this.newFields = newFields;
        this.elementFields = elementFields;
        this.separator = separator;
        this.function = function;
        this.ordinality = ordinality;
        this.outer = outer;
        this.maxExpansion = maxExpansion;
    }

    /**
     * @param field the array field, of scalar elements.
     * @param as    the new field each element becomes.
     * @return the expansion.
     */
    public static Expansion unnest(final String field, final String as)
    {
        return new Expansion(Kind.UNNEST, name(field, "unnest"), List.of(name(as, "as")), null, null, null, null,
            false, DEFAULT_MAX_EXPANSION);
    }

    /**
     * @param field the array field, of flat object elements.
     * @param as    element field to new field, in the order the new fields take (a {@link java.util.LinkedHashMap}
     *              keeps it); element fields it does not name are dropped, a named one that is missing is null.
     * @return the expansion.
     */
    public static Expansion unnestObjects(final String field, final Map<String, String> as)
    {
        if (as == null || as.isEmpty())
        {
            throw new IllegalArgumentException("as: an object unnest maps at least one element field to a new field");
        }
        final List<String> elements = new ArrayList<>();
        final List<String> fields = new ArrayList<>();
        for (final Map.Entry<String, String> e : as.entrySet())
        {
            elements.add(name(e.getKey(), "as"));
            fields.add(name(e.getValue(), "as." + e.getKey()));
        }
        return new Expansion(Kind.UNNEST, name(field, "unnest"), Collections.unmodifiableList(fields),
            Collections.unmodifiableList(elements), null, null, null, false, DEFAULT_MAX_EXPANSION);
    }

    /**
     * @param field     the string field.
     * @param separator the non-empty literal it is cut at (leftmost non-overlapping matches; empty pieces kept).
     * @param as        the new field each piece becomes.
     * @return the expansion.
     */
    public static Expansion split(final String field, final String separator, final String as)
    {
        if (separator == null || separator.isEmpty())
        {
            throw new IllegalArgumentException("args: split's separator must be a non-empty string");
        }
        return new Expansion(Kind.SPLIT, name(field, "args"), List.of(name(as, "as")), null, separator, null, null,
            false, DEFAULT_MAX_EXPANSION);
    }

    /**
     * @param function  a deterministic table function: equal rows must give equal expansions.
     * @param newFields the fields it makes, in order ({@link TableRows} puts them by position).
     * @return the expansion.
     */
    public static Expansion function(final TableFunction function, final String... newFields)
    {
        Objects.requireNonNull(function, "function");
        if (newFields.length == 0)
        {
            throw new IllegalArgumentException("as: a table function makes at least one new field");
        }
        final List<String> fields = new ArrayList<>();
        for (final String f : newFields)
        {
            fields.add(name(f, "as"));
        }
        return new Expansion(Kind.FUNCTION, null, Collections.unmodifiableList(fields), null, null, function, null,
            false, DEFAULT_MAX_EXPANSION);
    }

    /**
     * @param name the new field holding each produced row's 1-based position (a long; null in a padded row).
     * @return this expansion with an ordinality.
     */
    public Expansion ordinality(final String name)
    {
        return new Expansion(kind, field, newFields, elementFields, separator, function, name(name, "ordinality"),
            outer, maxExpansion);
    }

    /**
     * @param outer true: an input row that makes no row gives one row whose new fields are null (LEFT JOIN
     *              .. ON TRUE); false: it gives none (CROSS JOIN).
     * @return this expansion with that choice.
     */
    public Expansion outer(final boolean outer)
    {
        return new Expansion(kind, field, newFields, elementFields, separator, function, ordinality, outer, maxExpansion);
    }

    /**
     * @param rows the most rows one input row may make (counted before any filter); more is a bad input.
     * @return this expansion with that bound.
     */
    public Expansion maxExpansion(final int rows)
    {
        if (rows < 1)
        {
            throw new IllegalArgumentException("maxExpansion must be >= 1: " + rows);
        }
        return new Expansion(kind, field, newFields, elementFields, separator, function, ordinality, outer, rows);
    }

    private static String name(final String name, final String what)
    {
        if (name == null || name.isEmpty())
        {
            throw new IllegalArgumentException(what + ": a field name is required");
        }
        return name;
    }

    /** @return what makes the rows. */
    public Kind kind()
    {
        return kind;
    }

    /** @return the field read (the array, or the string to split); null for a table function. */
    public String field()
    {
        return field;
    }

    /** @return the new fields, in order (the ordinality not included). */
    public List<String> newFields()
    {
        return newFields;
    }

    /** @return for an object unnest, the element field each new field reads, in the same order; else null. */
    public List<String> elementFields()
    {
        return elementFields;
    }

    /** @return split's separator; else null. */
    public String separator()
    {
        return separator;
    }

    /** @return the table function; else null. */
    public TableFunction function()
    {
        return function;
    }

    /** @return the ordinality field, or null. */
    public String ordinality()
    {
        return ordinality;
    }

    /** @return whether an input row that makes no row gives one padded row. */
    public boolean outer()
    {
        return outer;
    }

    /** @return the most rows one input row may make. */
    public int maxExpansion()
    {
        return maxExpansion;
    }

    /** @return every field the expansion adds: the new fields, then the ordinality. */
    public List<String> addedFields()
    {
        if (ordinality == null)
        {
            return newFields;
        }
        final List<String> all = new ArrayList<>(newFields);
        all.add(ordinality);
        return Collections.unmodifiableList(all);
    }

    @Override
    public String toString()
    {
        final String source = kind == Kind.UNNEST ? "unnest " + field : kind == Kind.SPLIT ? "split " + field + " at '" +
            separator + "'" : "function " + function.getClass().getName();
        return source + " as " + (elementFields == null ? newFields : elementFields + "->" + newFields) +
            (ordinality == null ? "" : " ordinality " + ordinality) + (outer ? " outer" : "") + " max " + maxExpansion;
    }
}
