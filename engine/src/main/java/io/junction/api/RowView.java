package io.junction.api;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A flyweight over one binary row ({@link RowFormat}). Re-pointed with {@link #wrap} for each row:
 * reading allocates nothing except {@link #getString(int)}.
 *
 * <p>Rows handed to a {@link ResultHandler} are valid only during the call: they point into
 * partition state or a ring slot that is reused afterwards. Copy what must outlive the call.
 *
 * <p>Not thread safe.
 */
public final class RowView
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private DirectBuffer buffer;
    private int offset;
    private int length;
    private int fieldSlots;

    /**
     * Points this view at a row.
     *
     * @param buffer holds the row.
     * @param offset where the row starts.
     * @param length the row's length in bytes.
     * @return this view.
     */
    public RowView wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.fieldSlots = length >= RowFormat.FIELD_SLOTS_OFFSET + RowFormat.FIELD_SLOTS_LENGTH ? buffer.getShort(offset + RowFormat.FIELD_SLOTS_OFFSET, ORDER) & 0xFFFF : 0;
        return this;
    }

    /** @return the buffer holding the row. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** @return where the row starts in {@link #buffer()}. */
    public int offset()
    {
        return offset;
    }

    /** @return the row's length in bytes. */
    public int length()
    {
        return length;
    }

    /** @return the number of field slots in the offset table (one more than the highest field index held). */
    public int fieldSlots()
    {
        return fieldSlots;
    }

    /**
     * @param field a field index.
     * @return the type tag of a field; {@link FieldType#ABSENT} when the row does not hold it.
     */
    public byte type(final int field)
    {
        final int at = valueOffset(field);
        return at == 0 ? FieldType.ABSENT : buffer.getByte(offset + at);
    }

    /**
     * @param field a field index.
     * @return true when the field is absent or an explicit null.
     */
    public boolean isNull(final int field)
    {
        final byte type = type(field);
        return type == FieldType.ABSENT || type == FieldType.NULL;
    }

    /**
     * @param field a field index.
     * @return the long value of a {@link FieldType#LONG} field.
     */
    public long getLong(final int field)
    {
        return buffer.getLong(offset + valueOffset(field) + RowFormat.TAG_LENGTH, ORDER);
    }

    /**
     * @param field a field index.
     * @return the value of a {@link FieldType#DOUBLE} field.
     */
    public double getDouble(final int field)
    {
        return buffer.getDouble(offset + valueOffset(field) + RowFormat.TAG_LENGTH, ORDER);
    }

    /**
     * @param field a field index.
     * @return a number field (long or double) as a double.
     */
    public double getNumberAsDouble(final int field)
    {
        return type(field) == FieldType.LONG ? (double)getLong(field) : getDouble(field);
    }

    /**
     * @param field a field index.
     * @return the value of a {@link FieldType#BOOLEAN} field.
     */
    public boolean getBoolean(final int field)
    {
        return buffer.getByte(offset + valueOffset(field) + RowFormat.TAG_LENGTH) != 0;
    }

    /**
     * @param field a field index.
     * @return the absolute index in {@link #buffer()} of a present field's payload (after its tag).
     */
    public int payloadIndex(final int field)
    {
        return offset + valueOffset(field) + RowFormat.TAG_LENGTH;
    }

    /**
     * @param field a present field's index.
     * @return the absolute index in {@link #buffer()} of its value's tag: where {@link ArrayValues} reads an array.
     */
    public int valueIndex(final int field)
    {
        return offset + valueOffset(field);
    }

    /**
     * @param field a present field's index.
     * @return the bytes of its value, tag included.
     */
    public int valueLength(final int field)
    {
        return ArrayValues.valueLength(buffer, offset + valueOffset(field));
    }

    /**
     * @param field a field index.
     * @return the UTF-8 length of a {@link FieldType#STRING} field.
     */
    public int stringLength(final int field)
    {
        return buffer.getShort(offset + valueOffset(field) + RowFormat.TAG_LENGTH, ORDER) & 0xFFFF;
    }

    /**
     * @param field a field index.
     * @return the absolute index in {@link #buffer()} of a string field's first UTF-8 byte.
     */
    public int stringBytesIndex(final int field)
    {
        return offset + valueOffset(field) + RowFormat.STRING_BYTES_OFFSET;
    }

    /**
     * @param field a field index.
     * @return a string field decoded; allocates, so for tools and tests, not hot paths.
     */
    public String getString(final int field)
    {
        final int length = stringLength(field);
        final byte[] bytes = new byte[length];
        buffer.getBytes(stringBytesIndex(field), bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * @param field a field resolved at setup ({@link Schema#ref(String)}) against this row's schema.
     * @return as {@link #type(int)} at its position.
     */
    public byte type(final FieldRef field)
    {
        return type(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema.
     * @return as {@link #isNull(int)} at its position.
     */
    public boolean isNull(final FieldRef field)
    {
        return isNull(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema: a positional read, no name lookup.
     * @return as {@link #getLong(int)} at its position.
     */
    public long getLong(final FieldRef field)
    {
        return getLong(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema.
     * @return the number at its position as a double, as {@link #getNumberAsDouble(int)}: a double field
     *         holds a whole value as a long (the canonical encoding), and a typed read returns the
     *         declared type.
     */
    public double getDouble(final FieldRef field)
    {
        return getNumberAsDouble(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema.
     * @return as {@link #getNumberAsDouble(int)} at its position.
     */
    public double getNumberAsDouble(final FieldRef field)
    {
        return getNumberAsDouble(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema.
     * @return as {@link #getBoolean(int)} at its position.
     */
    public boolean getBoolean(final FieldRef field)
    {
        return getBoolean(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema.
     * @return as {@link #stringLength(int)} at its position.
     */
    public int stringLength(final FieldRef field)
    {
        return stringLength(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema.
     * @return as {@link #stringBytesIndex(int)} at its position.
     */
    public int stringBytesIndex(final FieldRef field)
    {
        return stringBytesIndex(field.index());
    }

    /**
     * @param field a field resolved at setup against this row's schema.
     * @return as {@link #getString(int)} at its position (allocates).
     */
    public String getString(final FieldRef field)
    {
        return getString(field.index());
    }

    /** @return the offset of the field's tag relative to the row start, or 0 when absent. */
    int valueOffset(final int field)
    {
        if (field < 0 || field >= fieldSlots)
        {
            return 0;
        }
        return buffer.getShort(offset + RowFormat.offsetEntry(field), ORDER) & 0xFFFF;
    }

    /**
     * Checks that the bytes are a well-formed row: every offset and payload lies inside the row. Run on
     * input from outside (the publisher does) so that a malformed row is refused at the door instead of
     * failing inside a partition thread.
     *
     * @return null when well-formed, else the reason.
     */
    public String validate()
    {
        if (length < RowFormat.FIELD_SLOTS_OFFSET + RowFormat.FIELD_SLOTS_LENGTH)
        {
            return "row shorter than its header";
        }
        if (length > RowFormat.MAX_ROW_LENGTH)
        {
            return "row longer than " + RowFormat.MAX_ROW_LENGTH + " bytes";
        }
        if (RowFormat.valuesOffset(fieldSlots) > length)
        {
            return "offset table of " + fieldSlots + " fields overruns the row";
        }
        for (int i = 0; i < fieldSlots; i++)
        {
            final int at = valueOffset(i);
            if (at == 0)
            {
                continue;
            }
            if (at < RowFormat.valuesOffset(fieldSlots) || at >= length)
            {
                return "field " + i + " offset " + at + " outside the row";
            }
            final byte type = buffer.getByte(offset + at);
            final int payload;
            switch (type)
            {
                case FieldType.NULL:
                    payload = RowFormat.NULL_PAYLOAD_LENGTH;
                    break;
                case FieldType.LONG:
                    payload = RowFormat.LONG_PAYLOAD_LENGTH;
                    break;
                case FieldType.DOUBLE:
                    payload = RowFormat.DOUBLE_PAYLOAD_LENGTH;
                    break;
                case FieldType.BOOLEAN:
                    payload = RowFormat.BOOLEAN_PAYLOAD_LENGTH;
                    break;
                case FieldType.STRING:
                    payload = at + RowFormat.STRING_BYTES_OFFSET > length ? Integer.MAX_VALUE / 2 :
                        RowFormat.STRING_LENGTH_PREFIX + stringLength(i);
                    break;
                case FieldType.ARRAY:
                    final String bad = ArrayValues.validate(buffer, offset + at, offset + length);
                    if (bad != null)
                    {
                        return "field " + i + ": " + bad;
                    }
                    payload = ArrayValues.valueLength(buffer, offset + at) - RowFormat.TAG_LENGTH;
                    break;
                default:
                    return "field " + i + " has unknown type tag " + type;
            }
            if ((long)at + RowFormat.TAG_LENGTH + payload > length)
            {
                return "field " + i + " value overruns the row";
            }
        }
        return null;
    }

    /**
     * @param other another view.
     * @return true when both views hold the same bytes.
     */
    public boolean contentEquals(final RowView other)
    {
        if (length != other.length)
        {
            return false;
        }
        return Bytes.equals(buffer, offset, other.buffer, other.offset, length);
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("Row{");
        for (int i = 0; i < fieldSlots; i++)
        {
            final byte type = type(i);
            if (type == FieldType.ABSENT)
            {
                continue;
            }
            if (sb.length() > 4)
            {
                sb.append(", ");
            }
            sb.append('#').append(i).append('=');
            switch (type)
            {
                case FieldType.NULL:
                    sb.append("null");
                    break;
                case FieldType.LONG:
                    sb.append(getLong(i));
                    break;
                case FieldType.DOUBLE:
                    sb.append(getDouble(i));
                    break;
                case FieldType.BOOLEAN:
                    sb.append(getBoolean(i));
                    break;
                case FieldType.ARRAY:
                    sb.append("[").append(ArrayValues.count(buffer, valueIndex(i))).append(" elements]");
                    break;
                default:
                    sb.append('"').append(getString(i)).append('"');
            }
        }
        return sb.append('}').toString();
    }
}
