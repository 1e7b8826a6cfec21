package io.junction.testing;

import io.junction.api.FieldType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Builds binary rows from name/value pairs and decodes them back, for tests.
 *
 * <p>Values: {@code null} (explicit null), {@link Integer}/{@link Long} (long), {@link Float}/{@link Double}
 * (double), {@link Boolean}, {@link String}, {@code byte[]} (a string field holding these raw bytes, not checked
 * to be UTF-8). Fields are written in ascending schema index order, so equal
 * name/value sets give equal bytes whatever order the pairs are given in. A name not listed is absent.
 */
public final class Rows
{
    private static final int CAPACITY = 1 << 16;
    private static final ThreadLocal<UnsafeBuffer> SCRATCH = ThreadLocal.withInitial(() -> new UnsafeBuffer(new byte[CAPACITY]));

    private Rows()
    {
    }

    /** @return the canonical bytes of a row. */
    public static byte[] bytes(final Schema schema, final Object... nameValues)
    {
        return bytes(schema, pairs(nameValues));
    }

    /** @return the canonical bytes of a row given as a map from field name to value. */
    public static byte[] bytes(final Schema schema, final Map<String, ?> values)
    {
        final TreeMap<Integer, Object> byIndex = new TreeMap<>();
        for (final Map.Entry<String, ?> e : values.entrySet())
        {
            final int index = schema.indexOf(e.getKey());
            if (index < 0)
            {
                throw new IllegalArgumentException("unknown field '" + e.getKey() + "' in " + schema);
            }
            byIndex.put(index, e.getValue());
        }
        final UnsafeBuffer buffer = SCRATCH.get();
        final RowWriter writer = new RowWriter();
        final int slots = byIndex.isEmpty() ? 0 : byIndex.lastKey() + 1;
        writer.wrap(buffer, 0, CAPACITY, slots);
        for (final Map.Entry<Integer, Object> e : byIndex.entrySet())
        {
            put(writer, e.getKey(), e.getValue());
        }
        final int length = writer.finish();
        if (length < 0)
        {
            throw new IllegalArgumentException("row does not fit " + CAPACITY + " bytes: " + values);
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    /** @return a view over a new row (its own buffer, so it stays valid). */
    public static RowView row(final Schema schema, final Object... nameValues)
    {
        return view(bytes(schema, nameValues));
    }

    /** @return a view over a new row given as a map. */
    public static RowView row(final Schema schema, final Map<String, ?> values)
    {
        return view(bytes(schema, values));
    }

    /** @return a view over a copy of these bytes. */
    public static RowView view(final byte[] bytes)
    {
        return new RowView().wrap(new UnsafeBuffer(bytes.clone()), 0, bytes.length);
    }

    /** @return the name/value pairs as an ordered map (nulls allowed). */
    public static Map<String, Object> pairs(final Object... nameValues)
    {
        if (nameValues.length % 2 != 0)
        {
            throw new IllegalArgumentException("name/value pairs expected, got " + nameValues.length + " items");
        }
        final Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < nameValues.length; i += 2)
        {
            final String name = (String)nameValues[i];
            if (map.containsKey(name))
            {
                throw new IllegalArgumentException("duplicate field " + name);
            }
            map.put(name, nameValues[i + 1]);
        }
        return map;
    }

    private static void put(final RowWriter writer, final int index, final Object value)
    {
        if (value == null)
        {
            writer.putNull(index);
        }
        else if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte)
        {
            writer.putLong(index, ((Number)value).longValue());
        }
        else if (value instanceof Double || value instanceof Float)
        {
            writer.putDouble(index, ((Number)value).doubleValue());
        }
        else if (value instanceof Boolean)
        {
            writer.putBoolean(index, (Boolean)value);
        }
        else if (value instanceof String)
        {
            writer.putString(index, (String)value);
        }
        else if (value instanceof byte[])
        {
            final byte[] raw = (byte[])value;
            writer.putUtf8(index, raw, 0, raw.length);
        }
        else
        {
            throw new IllegalArgumentException("unsupported value type " + value.getClass() + ": " + value);
        }
    }

    /**
     * Decodes a row: an immutable map from field name to value, in schema index order, holding every
     * field the row has (an explicit null maps to null; an absent field is not in the map).
     *
     * @return the map, or null when {@code row} is null.
     */
    public static Map<String, Object> decode(final Schema schema, final RowView row)
    {
        if (row == null)
        {
            return null;
        }
        final Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < row.fieldSlots(); i++)
        {
            final byte type = row.type(i);
            if (type == FieldType.ABSENT)
            {
                continue;
            }
            final String name = i < schema.size() ? schema.nameOf(i) : "#" + i;
            switch (type)
            {
                case FieldType.NULL:
                    map.put(name, null);
                    break;
                case FieldType.LONG:
                    map.put(name, row.getLong(i));
                    break;
                case FieldType.DOUBLE:
                    map.put(name, row.getDouble(i));
                    break;
                case FieldType.BOOLEAN:
                    map.put(name, row.getBoolean(i));
                    break;
                case FieldType.STRING:
                    map.put(name, row.getString(i));
                    break;
                default:
                    throw new IllegalStateException("unknown type tag " + type + " of field " + name);
            }
        }
        return Collections.unmodifiableMap(map);
    }

    /**
     * A canonical text of a decoded row: fields sorted by name, strings quoted, so {@code "1"} and
     * {@code 1} differ and equal rows give equal text. {@code "null"} for a null row (a padded side).
     */
    public static String format(final Map<String, ?> row)
    {
        if (row == null)
        {
            return "null";
        }
        final List<String> names = new ArrayList<>(row.keySet());
        Collections.sort(names);
        final StringBuilder sb = new StringBuilder("{");
        for (final String name : names)
        {
            if (sb.length() > 1)
            {
                sb.append(", ");
            }
            sb.append(name).append('=');
            final Object value = row.get(name);
            if (value instanceof String)
            {
                sb.append('"').append(value).append('"');
            }
            else if (value instanceof Double || value instanceof Float)
            {
                sb.append(value).append('d');
            }
            else
            {
                sb.append(value);
            }
        }
        return sb.append('}').toString();
    }

    /** @return the canonical text of a row view. */
    public static String format(final Schema schema, final RowView row)
    {
        return format(decode(schema, row));
    }
}
