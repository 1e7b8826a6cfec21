package io.junction.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.junction.api.ArrayValues;
import io.junction.api.FieldType;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Converts flat JSON objects (the rows of the replay format, SEMANTICS 1) to and from the engine's binary
 * row format ({@link io.junction.api.RowFormat}).
 * <p>
 * Encoding is canonical, because the engine tells rows apart by their bytes (a retraction must find
 * "an equal row"): fields are written in ascending field-index order whatever their order in the
 * JSON text, and numbers are normalised the way docs/SEMANTICS.md compares them ({@code 1} equals {@code 1.0}):
 * a number is a {@link FieldType#LONG} when it is integral and fits one, otherwise the nearest
 * {@link FieldType#DOUBLE} ({@link JsonNumbers}). Field names are looked up in a {@link Schema} shared
 * by both sides, so that a key or condition field has one index whichever side it comes from; a name
 * the schema does not have is bad input (a schema never grows).
 * <p>
 * Decoding writes field names from {@link Schema#nameOf(int)}, omits absent fields, writes explicit
 * nulls as {@code null}, escapes strings as JSON requires and writes doubles with
 * {@link Double#toString(double)}, which Jackson (and any correct parser) reads back as the same double.
 * <p>
 * Not thread safe for encoding (one instance per publishing thread); the static decoding methods are
 * thread safe as long as the schema is (it is).
 */
public final class RowJson
{
    /** Returned by {@link #encode} when the row does not fit the given capacity. */
    public static final int TOO_LARGE = -1;

    /**
     * How deep a JSON line may nest. An event is an object holding a flat row object (depth 2); the
     * bound makes a line of thousands of nested brackets a quick, clear bad input.
     */
    public static final int MAX_NESTING_DEPTH = 16;

    /**
     * One strict mapper for every JSON line the tools read: duplicate names and trailing garbage are
     * errors, not silently "last one wins" or ignored, because either would make a replay run
     * something other than what the file says. Non-integer numbers are read as exact decimals, so that
     * {@link JsonNumbers} can tell {@code 9007199254740993.0} from {@code 9007199254740992} (and
     * trailing zeros are kept, so that a dead letter echoes the number as written). Thread safe once
     * configured.
     */
    private static final ObjectMapper MAPPER = JsonMapper.builder(factory(MAX_NESTING_DEPTH))
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
        .build();

    private final Schema schema;
    private final ToIntFunction<String> fieldIndex;
    private final RowWriter writer = new RowWriter();
    private long[] order = new long[16];
    private JsonNode[] values = new JsonNode[16];

    /**
     * @param schema where field names are looked up; share it with the join spec and the other side
     */
    public RowJson(final Schema schema)
    {
        if (schema == null)
        {
            throw new IllegalArgumentException("schema is required");
        }
        this.schema = schema;
        this.fieldIndex = schema::indexOf;
    }

    /**
     * An encoder over a name-to-index function rather than a schema, for sizing rows against field
     * indices that are not a schema yet (the replay's first pass).
     *
     * @param fieldIndex the index of a field name, or -1 when it has none
     */
    public RowJson(final ToIntFunction<String> fieldIndex)
    {
        if (fieldIndex == null)
        {
            throw new IllegalArgumentException("fieldIndex is required");
        }
        this.schema = null;
        this.fieldIndex = fieldIndex;
    }

    /**
     * @param maxNestingDepth how deep a document may nest before reading it fails
     * @return a JSON factory with that bound (Jackson's default, 500 or 1000 levels, is far more than
     *     the tools' formats need, and its error has no location)
     */
    public static JsonFactory factory(final int maxNestingDepth)
    {
        return JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxNestingDepth).build())
            .build();
    }

    /** @return the strict mapper the tools read JSON lines with */
    public static ObjectMapper mapper()
    {
        return MAPPER;
    }

    /** @return the schema field names are looked up in; null for an encoder over an index function */
    public Schema schema()
    {
        return schema;
    }

    /**
     * Parses one JSON object and encodes it; for tests and small tools.
     *
     * @param json     a flat JSON object
     * @param buffer   destination
     * @param offset   where the row starts
     * @param capacity the most bytes the row may take
     * @return the row length, or {@link #TOO_LARGE}
     * @throws BadInputException when the text is not a flat JSON object
     */
    public int encode(final String json, final MutableDirectBuffer buffer, final int offset, final int capacity)
        throws BadInputException
    {
        final JsonNode node;
        try
        {
            node = MAPPER.readTree(json);
        }
        catch (final JsonProcessingException e)
        {
            throw new BadInputException("invalid JSON: " + e.getOriginalMessage());
        }
        return encode(node, buffer, offset, capacity);
    }

    /**
     * Encodes a flat JSON object as a canonical binary row.
     *
     * @param row      a JSON object whose values are strings, numbers, booleans or nulls
     * @param buffer   destination
     * @param offset   where the row starts
     * @param capacity the most bytes the row may take
     * @return the row length, or {@link #TOO_LARGE} when it does not fit {@code capacity} (or the
     *     format's 64 KiB)
     * @throws BadInputException when the row is not an object, holds a nested value or a number
     *     outside the double range, or a field name the schema does not have
     */
    public int encode(final JsonNode row, final MutableDirectBuffer buffer, final int offset, final int capacity)
        throws BadInputException
    {
        checkRow(row);
        final int count = row.size();
        ensureCapacity(count);
        int i = 0;
        int maxIndex = -1;
        for (final Map.Entry<String, JsonNode> field : row.properties())
        {
            final int index = fieldIndex.applyAsInt(field.getKey());
            if (index < 0)
            {
                // With a schema, the closest name too, as a refused publish says it.
                throw new BadInputException(schema != null
                    ? "row " + schema.notInSchema(field.getKey())
                    : "row field '" + field.getKey() + "' is not in the schema");
            }
            values[i] = field.getValue();
            order[i] = ((long) index << 32) | i;
            maxIndex = Math.max(maxIndex, index);
            i++;
        }
        Arrays.sort(order, 0, count);

        writer.wrap(buffer, offset, capacity, maxIndex + 1);
        for (int k = 0; k < count; k++)
        {
            final int index = (int) (order[k] >>> 32);
            put(index, values[(int) order[k]]);
        }
        Arrays.fill(values, 0, count, null);
        final int length = writer.finish();
        return length < 0 ? TOO_LARGE : length;
    }

    /**
     * Checks that a row is a flat object of strings, numbers in the double range, booleans and nulls,
     * whatever its field names.
     *
     * @param row the row
     * @throws BadInputException naming the first bad field
     */
    public static void checkRow(final JsonNode row) throws BadInputException
    {
        if (row == null || !row.isObject())
        {
            throw new BadInputException("row must be a JSON object, got " + kindOf(row));
        }
        for (final Map.Entry<String, JsonNode> field : row.properties())
        {
            checkScalar(field.getKey(), field.getValue());
        }
    }

    private static void checkScalar(final String name, final JsonNode value) throws BadInputException
    {
        if (value.isArray())
        {
            checkArray(name, value);
            return;
        }
        if (value.isContainerNode())
        {
            throw new BadInputException("row field '" + name + "' is " + kindOf(value) +
                ": rows are flat objects of strings, numbers, booleans and nulls, or arrays of those or of flat objects");
        }
        checkNumber(name, value);
        if (!value.isNumber() && !value.isTextual() && !value.isBoolean() && !value.isNull())
        {
            throw new BadInputException("row field '" + name + "' is " + kindOf(value) + ", not a JSON scalar");
        }
    }

    private static void checkNumber(final String name, final JsonNode value) throws BadInputException
    {
        if (value.isNumber() && !JsonNumbers.isLong(value) && !Double.isFinite(value.doubleValue()))
        {
            throw new BadInputException("row field '" + name + "': number " + value.asText() + " is outside the double range");
        }
    }

    /** An array of scalars or of flat objects of scalars, not both (nulls aside): docs/SEMANTICS.md 1. */
    private static void checkArray(final String name, final JsonNode array) throws BadInputException
    {
        String kind = null;
        int position = 0;
        for (final JsonNode element : array)
        {
            position++;
            if (element.isArray())
            {
                throw new BadInputException("row field '" + name + "': element " + position + " is an array: arrays do not nest");
            }
            if (element.isObject())
            {
                for (final Map.Entry<String, JsonNode> entry : element.properties())
                {
                    if (entry.getValue().isContainerNode())
                    {
                        throw new BadInputException("row field '" + name + "': element " + position + " holds " +
                            kindOf(entry.getValue()) + " in '" + entry.getKey() + "': array objects hold scalars only");
                    }
                    checkNumber(name, entry.getValue());
                }
            }
            else
            {
                checkNumber(name, element);
            }
            if (!element.isNull())
            {
                final String elementKind = element.isObject() ? "object" : "scalar";
                if (kind != null && !kind.equals(elementKind))
                {
                    throw new BadInputException("row field '" + name + "' mixes objects and scalars: an array holds one or the other");
                }
                kind = elementKind;
            }
        }
    }

    private void put(final int index, final JsonNode value)
    {
        if (value.isArray())
        {
            putArray(index, value);
        }
        else if (value.isNull())
        {
            writer.putNull(index);
        }
        else if (value.isBoolean())
        {
            writer.putBoolean(index, value.booleanValue());
        }
        else if (value.isTextual())
        {
            writer.putString(index, value.textValue());
        }
        else if (JsonNumbers.isLong(value))
        {
            writer.putLong(index, JsonNumbers.longValue(value));
        }
        else
        {
            writer.putDouble(index, value.doubleValue());
        }
    }

    private void putArray(final int index, final JsonNode array)
    {
        writer.beginArray(index);
        for (final JsonNode element : array)
        {
            if (element.isObject())
            {
                writer.beginObject();
                // Canonical bytes: entries in the order of their names' UTF-8 bytes (RowFormat).
                final List<Map.Entry<String, JsonNode>> entries = new ArrayList<>(element.properties());
                entries.sort((a, b) -> Arrays.compareUnsigned(
                    a.getKey().getBytes(StandardCharsets.UTF_8), b.getKey().getBytes(StandardCharsets.UTF_8)));
                for (final Map.Entry<String, JsonNode> entry : entries)
                {
                    writer.entry(entry.getKey());
                    putElement(entry.getValue());
                }
                writer.endObject();
            }
            else
            {
                putElement(element);
            }
        }
        writer.endArray();
    }

    private void putElement(final JsonNode value)
    {
        if (value.isNull())
        {
            writer.elementNull();
        }
        else if (value.isBoolean())
        {
            writer.elementBoolean(value.booleanValue());
        }
        else if (value.isTextual())
        {
            writer.elementString(value.textValue());
        }
        else if (JsonNumbers.isLong(value))
        {
            writer.elementLong(JsonNumbers.longValue(value));
        }
        else
        {
            writer.elementDouble(value.doubleValue());
        }
    }

    /**
     * Appends an array value as JSON.
     *
     * @param buffer holds the array.
     * @param at     the index of its tag.
     * @param out    where it is appended.
     * @return {@code out}.
     */
    public static StringBuilder appendArray(final DirectBuffer buffer, final int at, final StringBuilder out)
    {
        out.append('[');
        int position = ArrayValues.first(at);
        for (int i = ArrayValues.count(buffer, at); i > 0; i--)
        {
            if (position != ArrayValues.first(at))
            {
                out.append(',');
            }
            if (buffer.getByte(position) == FieldType.OBJECT)
            {
                out.append('{');
                int entry = ArrayValues.first(position);
                for (int k = ArrayValues.count(buffer, position); k > 0; k--)
                {
                    if (entry != ArrayValues.first(position))
                    {
                        out.append(',');
                    }
                    appendString(out, buffer.getStringWithoutLengthUtf8(
                        ArrayValues.entryNameIndex(entry), ArrayValues.entryNameLength(buffer, entry))).append(':');
                    final int value = ArrayValues.entryValue(buffer, entry);
                    appendScalar(buffer, value, out);
                    entry = ArrayValues.next(buffer, value);
                }
                out.append('}');
            }
            else
            {
                appendScalar(buffer, position, out);
            }
            position = ArrayValues.next(buffer, position);
        }
        return out.append(']');
    }

    private static void appendScalar(final DirectBuffer buffer, final int at, final StringBuilder out)
    {
        switch (buffer.getByte(at))
        {
            case FieldType.LONG:
                out.append(buffer.getLong(at + RowFormat.TAG_LENGTH, ByteOrder.LITTLE_ENDIAN));
                break;
            case FieldType.DOUBLE:
                appendDouble(out, buffer.getDouble(at + RowFormat.TAG_LENGTH, ByteOrder.LITTLE_ENDIAN));
                break;
            case FieldType.BOOLEAN:
                out.append(buffer.getByte(at + RowFormat.TAG_LENGTH) != 0);
                break;
            case FieldType.STRING:
                appendString(out, buffer.getStringWithoutLengthUtf8(at + RowFormat.STRING_BYTES_OFFSET,
                    buffer.getShort(at + RowFormat.TAG_LENGTH, ByteOrder.LITTLE_ENDIAN) & 0xFFFF));
                break;
            default:
                out.append("null");
        }
    }

    private void ensureCapacity(final int count)
    {
        if (order.length < count)
        {
            final int size = Math.max(count, order.length * 2);
            order = new long[size];
            values = new JsonNode[size];
        }
    }

    /**
     * Writes some fields of a row as a JSON object, in the given order (an absent field as null): a
     * result key of upsert output (SEMANTICS 4.5-4.7).
     *
     * @param schema names of the row's field indices
     * @param row    the row (read during the call only)
     * @param fields the field indices to write
     * @param out    where the JSON is appended
     * @return out
     */
    public static StringBuilder appendJson(final Schema schema, final RowView row, final int[] fields, final StringBuilder out)
    {
        out.append('{');
        for (int i = 0; i < fields.length; i++)
        {
            final int field = fields[i];
            if (i > 0)
            {
                out.append(',');
            }
            appendString(out, schema.nameOf(field)).append(':');
            final byte type = field < row.fieldSlots() ? row.type(field) : FieldType.ABSENT;
            switch (type)
            {
                case FieldType.LONG:
                    out.append(row.getLong(field));
                    break;
                case FieldType.DOUBLE:
                    appendDouble(out, row.getDouble(field));
                    break;
                case FieldType.BOOLEAN:
                    out.append(row.getBoolean(field));
                    break;
                case FieldType.STRING:
                    appendString(out, row.getString(field));
                    break;
                case FieldType.ARRAY:
                    appendArray(row.buffer(), row.valueIndex(field), out);
                    break;
                default:
                    out.append("null");
            }
        }
        return out.append('}');
    }

    /**
     * Writes a row as a JSON object.
     *
     * @param schema names of the row's field indices
     * @param row    the row (read during the call only)
     * @param out    where the JSON is appended
     * @return out
     */
    public static StringBuilder appendJson(final Schema schema, final RowView row, final StringBuilder out)
    {
        out.append('{');
        boolean first = true;
        final int slots = row.fieldSlots();
        for (int field = 0; field < slots; field++)
        {
            final byte type = row.type(field);
            if (type == FieldType.ABSENT)
            {
                continue;
            }
            if (!first)
            {
                out.append(',');
            }
            first = false;
            appendString(out, schema.nameOf(field)).append(':');
            switch (type)
            {
                case FieldType.NULL:
                    out.append("null");
                    break;
                case FieldType.LONG:
                    out.append(row.getLong(field));
                    break;
                case FieldType.DOUBLE:
                    appendDouble(out, row.getDouble(field));
                    break;
                case FieldType.BOOLEAN:
                    out.append(row.getBoolean(field));
                    break;
                case FieldType.STRING:
                    appendString(out, row.getString(field));
                    break;
                case FieldType.ARRAY:
                    appendArray(row.buffer(), row.valueIndex(field), out);
                    break;
                default:
                    // validated rows hold no other tag; say so rather than write broken JSON
                    appendString(out, "<" + FieldType.name(type) + ">");
            }
        }
        return out.append('}');
    }

    /**
     * @param schema names of the row's field indices
     * @param row    the row
     * @return the row as a JSON object
     */
    public static String toJson(final Schema schema, final RowView row)
    {
        return appendJson(schema, row, new StringBuilder(64)).toString();
    }

    /**
     * Appends a JSON string literal, quoted and escaped.
     *
     * @param out   destination
     * @param value the string
     * @return out
     */
    public static StringBuilder appendString(final StringBuilder out, final String value)
    {
        out.append('"');
        JsonStringEncoder.getInstance().quoteAsString(value, out);
        return out.append('"');
    }

    /**
     * Appends a double so that a JSON parser reads back the same value. Non-finite values cannot come
     * from JSON input; should a row from elsewhere hold one, it is written as a string rather than as
     * invalid JSON.
     *
     * @param out destination
     * @param d   the value
     * @return out
     */
    public static StringBuilder appendDouble(final StringBuilder out, final double d)
    {
        if (Double.isFinite(d))
        {
            return out.append(d);
        }
        return appendString(out, Double.toString(d));
    }

    /**
     * @param node a JSON value or null
     * @return a short description of its kind for messages
     */
    public static String kindOf(final JsonNode node)
    {
        if (node == null || node.isMissingNode())
        {
            return "nothing";
        }
        if (node.isObject())
        {
            return "an object";
        }
        if (node.isArray())
        {
            return "an array";
        }
        if (node.isTextual())
        {
            return "a string";
        }
        if (node.isNumber())
        {
            return "a number";
        }
        if (node.isBoolean())
        {
            return "a boolean";
        }
        if (node.isNull())
        {
            return "null";
        }
        return node.getNodeType().toString().toLowerCase(Locale.ROOT);
    }
}
