package io.junction.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A row as plain objects, for users who prefer them to flyweights and for tests: field names to
 * values ({@link Long}, {@link Double}, {@link Boolean}, {@link String} or null, or an array of those or
 * of flat objects of those as an immutable {@link List} of values or of {@code Map<String, Object>}),
 * in field order.
 * Immutable. A row keeps the number type it was given: {@code Row.of("bid", 101.0).get("bid")} is the
 * {@link Double} 101.0, and a row decoded with a typed schema ({@link RowCodec#decode}) holds a
 * {@link Double} in every double field, though the canonical bytes store a whole 101.0 as a long.
 * Equality is by value, with numbers compared as the engine compares them: an integral double equals
 * the long of the same value ({@code 101.0} and {@code 101L}, {@code -0.0} and {@code 0L}). Convert with
 * {@link RowCodec}. Allocates: not for hot paths.
 */
public final class Row
{
    private final Map<String, Object> fields;

    private Row(final Map<String, Object> fields)
    {
        this.fields = Collections.unmodifiableMap(fields);
    }

    /**
     * @param namesAndValues alternating field names and values, e.g. {@code Row.of("id", 1L, "name", "a")}.
     * @return the row.
     */
    public static Row of(final Object... namesAndValues)
    {
        if (namesAndValues.length % 2 != 0)
        {
            throw new IllegalArgumentException("names and values must alternate: " + namesAndValues.length + " arguments");
        }
        final Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2)
        {
            if (!(namesAndValues[i] instanceof String))
            {
                throw new IllegalArgumentException("field name expected at argument " + i + ": " + namesAndValues[i]);
            }
            fields.put((String)namesAndValues[i], normalise(namesAndValues[i + 1]));
        }
        return new Row(fields);
    }

    /**
     * @param values field names and values, in order.
     * @return a row of these fields (values as {@link #of}).
     */
    public static Row of(final Map<String, ?> values)
    {
        final Map<String, Object> fields = new LinkedHashMap<>();
        for (final Map.Entry<String, ?> e : values.entrySet())
        {
            fields.put(e.getKey(), normalise(e.getValue()));
        }
        return new Row(fields);
    }

    /**
     * Integers become longs and floats doubles; a double stays a double (the encoder, not the row, writes
     * an integral one as a long: {@link RowCodec#encode}).
     */
    static Object normalise(final Object value)
    {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Long)
        {
            return value;
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte)
        {
            return ((Number)value).longValue();
        }
        if (value instanceof Double)
        {
            return value;
        }
        if (value instanceof Float)
        {
            return ((Float)value).doubleValue();
        }
        if (value instanceof CharSequence)
        {
            return value.toString();
        }
        if (value instanceof List)
        {
            return normaliseArray((List<?>)value);
        }
        throw new IllegalArgumentException("unsupported field value type " + value.getClass().getName() +
            ": use Long, Double, Boolean, String, null or a List of those or of Maps of those");
    }

    /**
     * An array value (docs/SEMANTICS.md, "Row expansion"): scalars, or flat objects ({@code Map<String, ?>}
     * of scalars), not both (nulls aside); never an array inside it.
     */
    private static List<Object> normaliseArray(final List<?> elements)
    {
        final List<Object> out = new ArrayList<>(elements.size());
        String kind = null;
        for (final Object element : elements)
        {
            final Object value;
            if (element instanceof Map)
            {
                final Map<String, Object> object = new LinkedHashMap<>();
                for (final Map.Entry<?, ?> e : ((Map<?, ?>)element).entrySet())
                {
                    if (!(e.getKey() instanceof String))
                    {
                        throw new IllegalArgumentException("an object element's names must be strings: " + e.getKey());
                    }
                    final Object entry = normalise(e.getValue());
                    if (entry instanceof List)
                    {
                        throw new IllegalArgumentException("an object element holds scalars only: '" + e.getKey() + "' is a list");
                    }
                    object.put((String)e.getKey(), entry);
                }
                value = Collections.unmodifiableMap(object);
            }
            else
            {
                value = normalise(element);
                if (value instanceof List)
                {
                    throw new IllegalArgumentException("arrays do not nest: an element is a list");
                }
            }
            final String elementKind = value instanceof Map ? "object" : "scalar";
            if (value != null)
            {
                if (kind != null && !kind.equals(elementKind))
                {
                    throw new IllegalArgumentException("an array holds scalars or objects, not both: it mixes them");
                }
                kind = elementKind;
            }
            out.add(value);
        }
        return Collections.unmodifiableList(out);
    }

    /** @return the fields in order; absent fields are not in the map, explicit nulls map to null. */
    public Map<String, Object> fields()
    {
        return fields;
    }

    /**
     * @param name a field name.
     * @return whether the row has the field (possibly null).
     */
    public boolean has(final String name)
    {
        return fields.containsKey(name);
    }

    /**
     * @param name a field name.
     * @return a field's value, or null when absent or null.
     */
    public Object get(final String name)
    {
        return fields.get(name);
    }

    /**
     * @param name a field name.
     * @return a long field.
     */
    public long getLong(final String name)
    {
        return ((Number)require(name)).longValue();
    }

    /**
     * @param name a field name.
     * @return a number field as a double.
     */
    public double getDouble(final String name)
    {
        return ((Number)require(name)).doubleValue();
    }

    /**
     * @param name a field name.
     * @return a string field.
     */
    public String getString(final String name)
    {
        return (String)require(name);
    }

    /**
     * @param name a field name.
     * @return a boolean field.
     */
    public boolean getBoolean(final String name)
    {
        return (Boolean)require(name);
    }

    private Object require(final String name)
    {
        final Object value = fields.get(name);
        if (value == null)
        {
            throw new IllegalArgumentException("field '" + name + "' is absent or null in " + this);
        }
        return value;
    }

    /**
     * @param value a field value as {@link #normalise} leaves it.
     * @return the value as the engine compares it: a double that is integral and fits a long as that
     *         long ({@code 1.0}, {@code -0.0} and {@code 2^60} are longs, {@code 2^63} stays a double).
     */
    private static Object comparable(final Object value)
    {
        if (value instanceof List)
        {
            final List<Object> out = new ArrayList<>();
            for (final Object element : (List<?>)value)
            {
                out.add(comparable(element));
            }
            return out;
        }
        if (value instanceof Map)
        {
            final Map<Object, Object> out = new HashMap<>();
            for (final Map.Entry<?, ?> e : ((Map<?, ?>)value).entrySet())
            {
                out.put(e.getKey(), comparable(e.getValue()));
            }
            return out;
        }
        if (value instanceof Double)
        {
            final double d = (Double)value;
            return Literal.isLongValued(d) ? (Object)(long)d : value;
        }
        return value;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof Row))
        {
            return false;
        }
        final Map<String, Object> other = ((Row)o).fields;
        if (other.size() != fields.size())
        {
            return false;
        }
        for (final Map.Entry<String, Object> e : fields.entrySet())
        {
            if (!other.containsKey(e.getKey()) || !Objects.equals(comparable(e.getValue()), comparable(other.get(e.getKey()))))
            {
                return false;
            }
        }
        return true;
    }

    /** As a map's hash code, of the values as {@link #equals} compares them. */
    @Override
    public int hashCode()
    {
        int hash = 0;
        for (final Map.Entry<String, Object> e : fields.entrySet())
        {
            hash += e.getKey().hashCode() ^ Objects.hashCode(comparable(e.getValue()));
        }
        return hash;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("{");
        for (final Map.Entry<String, Object> e : fields.entrySet())
        {
            if (sb.length() > 1)
            {
                sb.append(", ");
            }
            sb.append(e.getKey()).append('=');
            final Object v = e.getValue();
            sb.append(v instanceof String ? "\"" + v + "\"" : String.valueOf(v));
        }
        return sb.append('}').toString();
    }
}
