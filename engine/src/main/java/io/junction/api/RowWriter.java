package io.junction.api;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes one binary row ({@link RowFormat}) into a buffer without allocating. Reusable: call
 * {@link #wrap} for each row, put the fields (in ascending index order for canonical bytes), then
 * {@link #finish}.
 *
 * <p>Not thread safe: one writer per thread.
 */
public final class RowWriter
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private MutableDirectBuffer buffer;
    private int start;
    private int limit;
    private int position;
    private int fieldSlots;
    private boolean overflow;
    /** The open array's tag index, or -1; its elements so far. */
    private int arrayAt = -1;
    private int arrayCount;
    /** The open object element's tag index, or -1; its entries so far. */
    private int objectAt = -1;
    private int objectCount;

    /**
     * @param buffer     where to write.
     * @param offset     where the row starts.
     * @param capacity   the most bytes the row may take; a row that does not fit makes {@link #finish} return -1.
     * @param fieldSlots one more than the highest field index this row will hold.
     * @return this writer.
     */
    public RowWriter wrap(final MutableDirectBuffer buffer, final int offset, final int capacity, final int fieldSlots)
    {
        if (fieldSlots < 0 || fieldSlots > Schema.MAX_FIELDS)
        {
            throw new IllegalArgumentException("fieldSlots must be in [0, " + Schema.MAX_FIELDS + "]: " + fieldSlots);
        }
        this.buffer = buffer;
        this.start = offset;
        this.limit = offset + Math.min(capacity, RowFormat.MAX_ROW_LENGTH);
        this.fieldSlots = fieldSlots;
        this.position = offset + RowFormat.valuesOffset(fieldSlots);
        this.overflow = position > limit;
        this.arrayAt = -1;
        this.objectAt = -1;
        if (!overflow)
        {
            buffer.putShort(offset + RowFormat.FIELD_SLOTS_OFFSET, (short)fieldSlots, ORDER);
            for (int i = 0; i < fieldSlots; i++)
            {
                buffer.putShort(offset + RowFormat.offsetEntry(i), (short)0, ORDER);
            }
        }
        return this;
    }

    /**
     * Writes an explicit null.
     *
     * @param field the field index, below the field slots given to {@link #wrap}.
     * @return this writer.
     */
    public RowWriter putNull(final int field)
    {
        if (begin(field, RowFormat.TAG_LENGTH + RowFormat.NULL_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.NULL);
            position += RowFormat.TAG_LENGTH + RowFormat.NULL_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * Writes a long.
     *
     * @param field the field index, below the field slots given to {@link #wrap}.
     * @param value the value.
     * @return this writer.
     */
    public RowWriter putLong(final int field, final long value)
    {
        if (begin(field, RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.LONG);
            buffer.putLong(position + RowFormat.TAG_LENGTH, value, ORDER);
            position += RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * Writes a double.
     *
     * @param field the field index, below the field slots given to {@link #wrap}.
     * @param value the value.
     * @return this writer.
     */
    public RowWriter putDouble(final int field, final double value)
    {
        if (begin(field, RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.DOUBLE);
            buffer.putDouble(position + RowFormat.TAG_LENGTH, value, ORDER);
            position += RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * Writes a boolean.
     *
     * @param field the field index, below the field slots given to {@link #wrap}.
     * @param value the value.
     * @return this writer.
     */
    public RowWriter putBoolean(final int field, final boolean value)
    {
        if (begin(field, RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.BOOLEAN);
            buffer.putByte(position + RowFormat.TAG_LENGTH, value ? (byte)1 : (byte)0);
            position += RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * Writes a string of ASCII characters without allocating (each char must be below 0x80).
     *
     * @param field the field index, below the field slots given to {@link #wrap}.
     * @param value ASCII characters.
     * @return this writer.
     */
    public RowWriter putAscii(final int field, final CharSequence value)
    {
        final int length = value.length();
        if (begin(field, RowFormat.STRING_BYTES_OFFSET + length))
        {
            buffer.putByte(position, FieldType.STRING);
            buffer.putShort(position + RowFormat.TAG_LENGTH, (short)length, ORDER);
            for (int i = 0; i < length; i++)
            {
                buffer.putByte(position + RowFormat.STRING_BYTES_OFFSET + i, (byte)value.charAt(i));
            }
            position += RowFormat.STRING_BYTES_OFFSET + length;
        }
        return this;
    }

    /**
     * Writes a string from UTF-8 bytes.
     *
     * @param field  the field index, below the field slots given to {@link #wrap}.
     * @param utf8   holds the UTF-8 bytes.
     * @param offset where they start.
     * @param length how many bytes.
     * @return this writer.
     */
    public RowWriter putUtf8(final int field, final byte[] utf8, final int offset, final int length)
    {
        if (begin(field, RowFormat.STRING_BYTES_OFFSET + length))
        {
            buffer.putByte(position, FieldType.STRING);
            buffer.putShort(position + RowFormat.TAG_LENGTH, (short)length, ORDER);
            buffer.putBytes(position + RowFormat.STRING_BYTES_OFFSET, utf8, offset, length);
            position += RowFormat.STRING_BYTES_OFFSET + length;
        }
        return this;
    }

    /**
     * Writes a string; allocates its UTF-8 bytes, so meant for codecs and tools, not hot paths.
     *
     * @param field the field index, below the field slots given to {@link #wrap}.
     * @param value the value.
     * @return this writer.
     */
    public RowWriter putString(final int field, final String value)
    {
        final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        return putUtf8(field, utf8, 0, utf8.length);
    }

    /**
     * Copies one field of another row as it is, without allocating: its value and type, an explicit null
     * as null; a field the source does not hold stays absent here.
     *
     * @param field       the field index, below the field slots given to {@link #wrap}.
     * @param source      the row to copy from.
     * @param sourceField the field of {@code source}.
     * @return this writer.
     */
    public RowWriter putField(final int field, final RowView source, final int sourceField)
    {
        switch (source.type(sourceField))
        {
            case FieldType.NULL:
                return putNull(field);
            case FieldType.LONG:
                return putLong(field, source.getLong(sourceField));
            case FieldType.DOUBLE:
                return putDouble(field, source.getDouble(sourceField));
            case FieldType.BOOLEAN:
                return putBoolean(field, source.getBoolean(sourceField));
            case FieldType.STRING:
                final int length = source.stringLength(sourceField);
                if (begin(field, RowFormat.STRING_BYTES_OFFSET + length))
                {
                    buffer.putByte(position, FieldType.STRING);
                    buffer.putShort(position + RowFormat.TAG_LENGTH, (short)length, ORDER);
                    buffer.putBytes(position + RowFormat.STRING_BYTES_OFFSET, source.buffer(), source.stringBytesIndex(sourceField), length);
                    position += RowFormat.STRING_BYTES_OFFSET + length;
                }
                return this;
            case FieldType.ARRAY:
                return putValue(field, source.buffer(), source.valueIndex(sourceField), source.valueLength(sourceField));
            default:
                return this;
        }
    }

    /**
     * Puts a string given as UTF-8 bytes in a buffer (a piece of another row's string, say).
     *
     * @param field  the field index.
     * @param source holds the bytes.
     * @param index  where they start.
     * @param length how many.
     * @return this writer.
     */
    public RowWriter putUtf8(final int field, final DirectBuffer source, final int index, final int length)
    {
        if (begin(field, RowFormat.STRING_BYTES_OFFSET + length))
        {
            buffer.putByte(position, FieldType.STRING);
            buffer.putShort(position + RowFormat.TAG_LENGTH, (short)length, ORDER);
            buffer.putBytes(position + RowFormat.STRING_BYTES_OFFSET, source, index, length);
            position += RowFormat.STRING_BYTES_OFFSET + length;
        }
        return this;
    }

    /**
     * Copies one encoded value, its tag and payload, as a field: for code that moves a value from one row
     * to another (an array element becoming a field of the row it expands to) without decoding it.
     *
     * @param field  the field index.
     * @param source holds the encoded value.
     * @param index  the index of its tag.
     * @param length its bytes, tag included ({@link ArrayValues#valueLength}).
     * @return this writer.
     */
    public RowWriter putValue(final int field, final DirectBuffer source, final int index, final int length)
    {
        if (begin(field, length))
        {
            buffer.putBytes(position, source, index, length);
            position += length;
        }
        return this;
    }

    /**
     * Starts an array value for a field: then its elements ({@link #elementLong} and the others, or
     * {@link #beginObject} ... {@link #endObject}), then {@link #endArray}. The codecs write objects'
     * entries in ascending order of their names' UTF-8 bytes, so that equal objects are equal bytes.
     *
     * @param field the field index.
     * @return this writer.
     */
    public RowWriter beginArray(final int field)
    {
        if (arrayAt >= 0)
        {
            throw new IllegalStateException("an array is open: arrays do not nest");
        }
        arrayAt = position;
        arrayCount = 0;
        if (begin(field, RowFormat.ARRAY_ELEMENTS_OFFSET))
        {
            buffer.putByte(position, FieldType.ARRAY);
            position += RowFormat.ARRAY_ELEMENTS_OFFSET;
        }
        return this;
    }

    /**
     * Ends the array {@link #beginArray} started, writing its length and count.
     *
     * @return this writer.
     */
    public RowWriter endArray()
    {
        if (arrayAt < 0 || objectAt >= 0)
        {
            throw new IllegalStateException(arrayAt < 0 ? "no array is open" : "an object element is open");
        }
        closeContainer(arrayAt, arrayCount, "array");
        arrayAt = -1;
        return this;
    }

    /**
     * Starts an object element of the open array: then, per entry, {@link #entry} and one value
     * ({@link #elementLong} and the others), then {@link #endObject}.
     *
     * @return this writer.
     */
    public RowWriter beginObject()
    {
        if (arrayAt < 0 || objectAt >= 0)
        {
            throw new IllegalStateException(arrayAt < 0 ? "no array is open" : "objects do not nest");
        }
        arrayCount++;
        objectAt = position;
        objectCount = 0;
        if (room(RowFormat.ARRAY_ELEMENTS_OFFSET))
        {
            buffer.putByte(position, FieldType.OBJECT);
            position += RowFormat.ARRAY_ELEMENTS_OFFSET;
        }
        return this;
    }

    /**
     * Ends the object element {@link #beginObject} started.
     *
     * @return this writer.
     */
    public RowWriter endObject()
    {
        if (objectAt < 0)
        {
            throw new IllegalStateException("no object element is open");
        }
        closeContainer(objectAt, objectCount, "object");
        objectAt = -1;
        return this;
    }

    /**
     * Names the next entry of the open object element; its value is the next element call.
     *
     * @param name the entry's name.
     * @return this writer.
     */
    public RowWriter entry(final String name)
    {
        if (objectAt < 0)
        {
            throw new IllegalStateException("no object element is open");
        }
        final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        // The value that follows counts the entry (element() does).
        if (utf8.length > RowFormat.MAX_STRING_LENGTH)
        {
            overflow = true;
        }
        else if (room(RowFormat.ENTRY_NAME_LENGTH_PREFIX + utf8.length))
        {
            buffer.putShort(position, (short)utf8.length, ORDER);
            buffer.putBytes(position + RowFormat.ENTRY_NAME_LENGTH_PREFIX, utf8);
            position += RowFormat.ENTRY_NAME_LENGTH_PREFIX + utf8.length;
        }
        return this;
    }

    /** @return this writer, with a null element (or entry value) written. */
    public RowWriter elementNull()
    {
        if (element(RowFormat.TAG_LENGTH + RowFormat.NULL_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.NULL);
            position += RowFormat.TAG_LENGTH + RowFormat.NULL_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * @param value the element (or entry value).
     * @return this writer.
     */
    public RowWriter elementLong(final long value)
    {
        if (element(RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.LONG);
            buffer.putLong(position + RowFormat.TAG_LENGTH, value, ORDER);
            position += RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * @param value the element (or entry value); the codecs write an integral one as a long.
     * @return this writer.
     */
    public RowWriter elementDouble(final double value)
    {
        if (element(RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.DOUBLE);
            buffer.putDouble(position + RowFormat.TAG_LENGTH, value, ORDER);
            position += RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * @param value the element (or entry value).
     * @return this writer.
     */
    public RowWriter elementBoolean(final boolean value)
    {
        if (element(RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH))
        {
            buffer.putByte(position, FieldType.BOOLEAN);
            buffer.putByte(position + RowFormat.TAG_LENGTH, value ? (byte)1 : (byte)0);
            position += RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH;
        }
        return this;
    }

    /**
     * @param value the element (or entry value).
     * @return this writer.
     */
    public RowWriter elementString(final String value)
    {
        final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > RowFormat.MAX_STRING_LENGTH)
        {
            overflow = true;
            return this;
        }
        if (element(RowFormat.STRING_BYTES_OFFSET + utf8.length))
        {
            buffer.putByte(position, FieldType.STRING);
            buffer.putShort(position + RowFormat.TAG_LENGTH, (short)utf8.length, ORDER);
            buffer.putBytes(position + RowFormat.STRING_BYTES_OFFSET, utf8);
            position += RowFormat.STRING_BYTES_OFFSET + utf8.length;
        }
        return this;
    }

    private boolean element(final int bytes)
    {
        if (arrayAt < 0)
        {
            throw new IllegalStateException("no array is open");
        }
        if (objectAt >= 0)
        {
            objectCount++;
        }
        else
        {
            arrayCount++;
        }
        return room(bytes);
    }

    private boolean room(final int bytes)
    {
        if (overflow || position + bytes > limit)
        {
            overflow = true;
            return false;
        }
        return true;
    }

    private void closeContainer(final int at, final int count, final String what)
    {
        if (overflow)
        {
            return;
        }
        final int length = position - at - RowFormat.TAG_LENGTH - RowFormat.CONTAINER_LENGTH_PREFIX;
        if (count > 0xFFFF || length > 0xFFFF)
        {
            overflow = true;
            return;
        }
        buffer.putShort(at + RowFormat.TAG_LENGTH, (short)length, ORDER);
        buffer.putShort(at + RowFormat.ARRAY_COUNT_OFFSET, (short)count, ORDER);
    }

    /**
     * @param field a field resolved at setup ({@link Schema#ref(String)}) against the row's schema.
     * @param value the value.
     * @return as {@link #putLong(int, long)} at its position.
     */
    public RowWriter putLong(final FieldRef field, final long value)
    {
        return putLong(field.index(), value);
    }

    /**
     * @param field a field resolved at setup against the row's schema.
     * @param value the value.
     * @return as {@link #putDouble(int, double)} at its position.
     */
    public RowWriter putDouble(final FieldRef field, final double value)
    {
        return putDouble(field.index(), value);
    }

    /**
     * @param field a field resolved at setup against the row's schema.
     * @param value the value.
     * @return as {@link #putBoolean(int, boolean)} at its position.
     */
    public RowWriter putBoolean(final FieldRef field, final boolean value)
    {
        return putBoolean(field.index(), value);
    }

    /**
     * @param field a field resolved at setup against the row's schema.
     * @param value ASCII characters.
     * @return as {@link #putAscii(int, CharSequence)} at its position.
     */
    public RowWriter putAscii(final FieldRef field, final CharSequence value)
    {
        return putAscii(field.index(), value);
    }

    /**
     * @param field a field resolved at setup against the row's schema.
     * @return as {@link #putNull(int)} at its position.
     */
    public RowWriter putNull(final FieldRef field)
    {
        return putNull(field.index());
    }

    /** @return the row's length in bytes, or -1 when it did not fit the capacity. */
    public int finish()
    {
        return overflow ? -1 : position - start;
    }

    private boolean begin(final int field, final int bytes)
    {
        if (field < 0 || field >= fieldSlots)
        {
            throw new IndexOutOfBoundsException("field " + field + " outside the row's " + fieldSlots + " slots");
        }
        if (overflow || position + bytes > limit ||
            (bytes > RowFormat.STRING_BYTES_OFFSET && bytes - RowFormat.STRING_BYTES_OFFSET > RowFormat.MAX_STRING_LENGTH))
        {
            overflow = true;
            return false;
        }
        buffer.putShort(start + RowFormat.offsetEntry(field), (short)(position - start), ORDER);
        return true;
    }
}
