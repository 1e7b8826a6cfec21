package io.junction.api;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The typed layer over binary rows: {@link Row} objects to and from the {@link RowFormat} bytes of
 * one {@link Schema}. Encoding is canonical (fields in ascending index order, integral doubles as
 * longs), so that equal rows have equal bytes, as retractions need. A field name that is not in
 * the schema is an error (a typo in {@link Row#of} must not become a new column). Allocates: for set-up, tests and users who prefer objects, not hot paths;
 * there, write rows with {@link RowWriter} and read them with {@link RowView}.
 *
 * <p>Not thread safe for encoding (one codec per thread); decoding only reads the schema.
 */
public final class RowCodec
{
    private final Schema schema;
    private final RowWriter writer = new RowWriter();

    /**
     * A codec for the rows of one schema.
     *
     * @param schema the field names of the rows this codec encodes and decodes.
     */
    public RowCodec(final Schema schema)
    {
        this.schema = schema;
    }

    /**
     * Encodes a row. Every field name is checked before anything is written.
     *
     * @param row      the row.
     * @param buffer   where it is written.
     * @param offset   where in the buffer it starts.
     * @param capacity the most bytes it may take.
     * @return its length, or -1 when it does not fit {@code capacity}.
     * @throws IllegalArgumentException naming the field and the closest name when the row has a field the
     *     schema does not ({@link Schema#notInSchema}).
     */
    public int encode(final Row row, final MutableDirectBuffer buffer, final int offset, final int capacity)
    {
        final List<int[]> order = new ArrayList<>(row.fields().size());
        final List<Object> values = new ArrayList<>(row.fields().size());
        int slots = 0;
        for (final Map.Entry<String, Object> e : row.fields().entrySet())
        {
            final int index = schema.indexOf(e.getKey());
            if (index < 0)
            {
                throw new IllegalArgumentException(schema.notInSchema(e.getKey()));
            }
            order.add(new int[] {index, values.size()});
            values.add(e.getValue());
            slots = Math.max(slots, index + 1);
        }
        order.sort((a, b) -> Integer.compare(a[0], b[0]));
        writer.wrap(buffer, offset, capacity, slots);
        for (final int[] entry : order)
        {
            final int field = entry[0];
            final Object value = values.get(entry[1]);
            if (value == null)
            {
                writer.putNull(field);
            }
            else if (value instanceof Long)
            {
                writer.putLong(field, (Long)value);
            }
            else if (value instanceof Double)
            {
                // Canonical bytes: an integral double is the long of its value, so that 101.0 and 101 are
                // one row to a retraction and one key to an index.
                final double d = (Double)value;
                if (Literal.isLongValued(d))
                {
                    writer.putLong(field, (long)d);
                }
                else
                {
                    writer.putDouble(field, d);
                }
            }
            else if (value instanceof Boolean)
            {
                writer.putBoolean(field, (Boolean)value);
            }
            else if (value instanceof List)
            {
                putArray(writer, field, (List<?>)value);
            }
            else
            {
                writer.putString(field, (String)value);
            }
        }
        return writer.finish();
    }

    private static void putArray(final RowWriter writer, final int field, final List<?> elements)
    {
        writer.beginArray(field);
        for (final Object element : elements)
        {
            if (element instanceof Map)
            {
                writer.beginObject();
                final List<Map.Entry<?, ?>> entries = new ArrayList<>(((Map<?, ?>)element).entrySet());
                // Canonical bytes: entries in the order of their names' UTF-8 bytes (RowFormat).
                entries.sort((a, b) -> Arrays.compareUnsigned(utf8(a.getKey()), utf8(b.getKey())));
                for (final Map.Entry<?, ?> e : entries)
                {
                    writer.entry((String)e.getKey());
                    putElement(writer, e.getValue());
                }
                writer.endObject();
            }
            else
            {
                putElement(writer, element);
            }
        }
        writer.endArray();
    }

    private static byte[] utf8(final Object name)
    {
        return ((String)name).getBytes(StandardCharsets.UTF_8);
    }

    private static void putElement(final RowWriter writer, final Object value)
    {
        if (value == null)
        {
            writer.elementNull();
        }
        else if (value instanceof Long)
        {
            writer.elementLong((Long)value);
        }
        else if (value instanceof Double)
        {
            final double d = (Double)value;
            if (Literal.isLongValued(d))
            {
                writer.elementLong((long)d);
            }
            else
            {
                writer.elementDouble(d);
            }
        }
        else if (value instanceof Boolean)
        {
            writer.elementBoolean((Boolean)value);
        }
        else
        {
            writer.elementString((String)value);
        }
    }

    /**
     * Decodes an array value into an immutable list of values or of maps.
     *
     * @param buffer holds the array.
     * @param at     the index of its tag.
     * @return its elements.
     */
    public static List<Object> decodeArray(final DirectBuffer buffer, final int at)
    {
        final int count = ArrayValues.count(buffer, at);
        final List<Object> out = new ArrayList<>(count);
        int position = ArrayValues.first(at);
        for (int i = 0; i < count; i++)
        {
            if (buffer.getByte(position) == FieldType.OBJECT)
            {
                final Map<String, Object> object = new LinkedHashMap<>();
                int entry = ArrayValues.first(position);
                for (int k = ArrayValues.count(buffer, position); k > 0; k--)
                {
                    final int value = ArrayValues.entryValue(buffer, entry);
                    object.put(buffer.getStringWithoutLengthUtf8(ArrayValues.entryNameIndex(entry),
                        ArrayValues.entryNameLength(buffer, entry)), decodeScalar(buffer, value));
                    entry = ArrayValues.next(buffer, value);
                }
                out.add(Collections.unmodifiableMap(object));
            }
            else
            {
                out.add(decodeScalar(buffer, position));
            }
            position = ArrayValues.next(buffer, position);
        }
        return Collections.unmodifiableList(out);
    }

    private static Object decodeScalar(final DirectBuffer buffer, final int at)
    {
        switch (buffer.getByte(at))
        {
            case FieldType.LONG:
                return buffer.getLong(at + RowFormat.TAG_LENGTH, ByteOrder.LITTLE_ENDIAN);
            case FieldType.DOUBLE:
                return buffer.getDouble(at + RowFormat.TAG_LENGTH, ByteOrder.LITTLE_ENDIAN);
            case FieldType.BOOLEAN:
                return buffer.getByte(at + RowFormat.TAG_LENGTH) != 0;
            case FieldType.STRING:
                return buffer.getStringWithoutLengthUtf8(at + RowFormat.STRING_BYTES_OFFSET,
                    buffer.getShort(at + RowFormat.TAG_LENGTH, ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
            default:
                return null;
        }
    }

    /**
     * The first field of a row that this codec's schema lacks, for a caller that answers it with a code
     * instead of the exception of {@link #encode} (the publisher does).
     *
     * @param row the row.
     * @return null when every field is in the schema, else the sentence {@link Schema#notInSchema} says.
     */
    public String unknownField(final Row row)
    {
        for (final String name : row.fields().keySet())
        {
            if (schema.indexOf(name) < 0)
            {
                return schema.notInSchema(name);
            }
        }
        return null;
    }

    /**
     * @param view a binary row of this codec's schema.
     * @return the row a view points at, as objects (as {@link #decode(Schema, RowView)}).
     */
    public Row decode(final RowView view)
    {
        return decode(schema, view);
    }

    /**
     * @param schema the field names.
     * @param view   a binary row.
     * @return the row a view points at, as objects, with names from {@code schema}: a field the schema
     *         declares double is a {@link Double} even when the bytes hold a whole number as a long.
     */
    public static Row decode(final Schema schema, final RowView view)
    {
        final Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i < view.fieldSlots(); i++)
        {
            switch (view.type(i))
            {
                case FieldType.ABSENT:
                    break;
                case FieldType.NULL:
                    fields.put(schema.nameOf(i), null);
                    break;
                case FieldType.LONG:
                    if (schema.field(i).type() == FieldType.DOUBLE)
                    {
                        fields.put(schema.nameOf(i), (double)view.getLong(i));
                    }
                    else
                    {
                        fields.put(schema.nameOf(i), view.getLong(i));
                    }
                    break;
                case FieldType.DOUBLE:
                    fields.put(schema.nameOf(i), view.getDouble(i));
                    break;
                case FieldType.BOOLEAN:
                    fields.put(schema.nameOf(i), view.getBoolean(i));
                    break;
                case FieldType.ARRAY:
                    fields.put(schema.nameOf(i), decodeArray(view.buffer(), view.valueIndex(i)));
                    break;
                default:
                    fields.put(schema.nameOf(i), view.getString(i));
            }
        }
        return Row.of(fields);
    }
}
