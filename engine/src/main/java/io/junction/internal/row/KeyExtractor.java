package io.junction.internal.row;

import io.junction.api.FieldType;

import io.junction.api.RowFormat;
import io.junction.api.RowView;

import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Extracts the join key of a row as bytes, allocation-free. The key is the concatenation, for each
 * key field in order, of its type tag and payload (long and double 8 bytes, boolean 1, string a
 * 16-bit length and UTF-8 bytes), so keys compare by value and type: {@code "1"} and {@code 1} differ
 * (SEMANTICS 8). A key with a null or absent field is null: it never matches (SEMANTICS 1). Immutable.
 */
public final class KeyExtractor
{
    /** Returned by {@link #extract} for a null key. */
    public static final int NULL_KEY = -1;
    /** Returned by {@link #extract} when the key does not fit the destination. */
    public static final int KEY_TOO_LONG = -2;

    private final int[] fields;

    public KeyExtractor(final int[] fields)
    {
        this.fields = fields.clone();
    }

    /** @return the number of key fields. */
    public int arity()
    {
        return fields.length;
    }

    /** @return the index of key field {@code i}. */
    public int field(final int i)
    {
        return fields[i];
    }

    /**
     * @return the key length written at {@code dst[offset]}, {@link #NULL_KEY} or {@link #KEY_TOO_LONG}.
     */
    public int extract(final RowView row, final MutableDirectBuffer dst, final int offset, final int capacity)
    {
        int position = offset;
        final int limit = offset + capacity;
        for (final int field : fields)
        {
            final byte type = row.type(field);
            switch (type)
            {
                case FieldType.LONG:
                    if (position + RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH > limit)
                    {
                        return KEY_TOO_LONG;
                    }
                    dst.putByte(position, FieldType.LONG);
                    dst.putLong(position + RowFormat.TAG_LENGTH, row.getLong(field), ByteOrder.LITTLE_ENDIAN);
                    position += RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH;
                    break;
                case FieldType.DOUBLE:
                    // A double key takes a long's bytes either way: the two payloads are the same size.
                    if (position + RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH > limit)
                    {
                        return KEY_TOO_LONG;
                    }
                    // One key per number: an integral double that fits a long is that long (1.0 is 1,
                    // -0.0 is 0), whichever way the row was written, as the JSON and typed layers do.
                    final double value = row.getDouble(field);
                    if (value == Math.rint(value) && value >= -0x1p63 && value < 0x1p63)
                    {
                        dst.putByte(position, FieldType.LONG);
                        dst.putLong(position + RowFormat.TAG_LENGTH, (long)value, ByteOrder.LITTLE_ENDIAN);
                    }
                    else
                    {
                        dst.putByte(position, FieldType.DOUBLE);
                        dst.putLong(position + RowFormat.TAG_LENGTH, Double.doubleToRawLongBits(value), ByteOrder.LITTLE_ENDIAN);
                    }
                    position += RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH;
                    break;
                case FieldType.BOOLEAN:
                    if (position + RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH > limit)
                    {
                        return KEY_TOO_LONG;
                    }
                    dst.putByte(position, type);
                    dst.putByte(position + RowFormat.TAG_LENGTH, row.getBoolean(field) ? (byte)1 : (byte)0);
                    position += RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH;
                    break;
                case FieldType.STRING:
                    final int length = row.stringLength(field);
                    if (position + RowFormat.STRING_BYTES_OFFSET + length > limit)
                    {
                        return KEY_TOO_LONG;
                    }
                    dst.putByte(position, type);
                    dst.putShort(position + RowFormat.TAG_LENGTH, (short)length, ByteOrder.LITTLE_ENDIAN);
                    dst.putBytes(position + RowFormat.STRING_BYTES_OFFSET, row.buffer(), row.stringBytesIndex(field), length);
                    position += RowFormat.STRING_BYTES_OFFSET + length;
                    break;
                default:
                    return NULL_KEY;
            }
        }
        return position - offset;
    }
}
