package io.junction.api;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where a {@link TableFunction} puts the rows it makes: {@link #row()} starts one, the {@code put} methods set
 * its new fields by position (0 is the expansion's first new field); a field not put is null. One reused
 * instance per expansion, owned by the publishing thread; values are held in one preallocated buffer, so
 * the calls allocate nothing but what a {@code String} argument's bytes cost. When the engine stops taking
 * rows (the expansion's bound is passed, a row does not fit) the remaining calls do nothing.
 */
public final class TableRows
{
    /** Takes each finished row: the engine's side of a table function. */
    public interface Sink
    {
        /**
         * @param rows the finished row's values ({@link TableRows#isSet}, {@link TableRows#valueIndex}, {@link TableRows#valueLength}).
         * @return false to take no more rows from this call of the function.
         */
        boolean onRow(TableRows rows);
    }

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final UnsafeBuffer values;
    private final int[] at;
    private final int[] lengths;
    private final Sink sink;
    private int position;
    private boolean open;
    private boolean stopped;
    private boolean overflow;

    /**
     * @param fields   the expansion's new fields.
     * @param capacity the bytes one row's values may take.
     * @param sink     takes each finished row.
     */
    public TableRows(final int fields, final int capacity, final Sink sink)
    {
        this.values = new UnsafeBuffer(new byte[capacity]);
        this.at = new int[fields];
        this.lengths = new int[fields];
        this.sink = sink;
    }

    /** Readies this for one call of the function. */
    public void reset()
    {
        open = false;
        stopped = false;
    }

    /**
     * Finishes the last row of one call of the function.
     *
     * @return whether the sink took every row.
     */
    public boolean finish()
    {
        flush();
        return !stopped;
    }

    /**
     * Starts a produced row (finishing the one before it).
     *
     * @return this.
     */
    public TableRows row()
    {
        flush();
        if (!stopped)
        {
            open = true;
            position = 0;
            overflow = false;
            Arrays.fill(lengths, 0);
        }
        return this;
    }

    /**
     * @param field a new field's position.
     * @param value its value.
     * @return this.
     */
    public TableRows putLong(final int field, final long value)
    {
        if (begin(field, RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH))
        {
            values.putByte(position, FieldType.LONG);
            values.putLong(position + RowFormat.TAG_LENGTH, value, ORDER);
            end(field);
        }
        return this;
    }

    /**
     * @param field a new field's position.
     * @param value its value; an integral one is written as a long, as the codecs write it.
     * @return this.
     */
    public TableRows putDouble(final int field, final double value)
    {
        if (Literal.isLongValued(value))
        {
            return putLong(field, (long)value);
        }
        if (begin(field, RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH))
        {
            values.putByte(position, FieldType.DOUBLE);
            values.putDouble(position + RowFormat.TAG_LENGTH, value, ORDER);
            end(field);
        }
        return this;
    }

    /**
     * @param field a new field's position.
     * @param value its value.
     * @return this.
     */
    public TableRows putBoolean(final int field, final boolean value)
    {
        if (begin(field, RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH))
        {
            values.putByte(position, FieldType.BOOLEAN);
            values.putByte(position + RowFormat.TAG_LENGTH, value ? (byte)1 : (byte)0);
            end(field);
        }
        return this;
    }

    /**
     * @param field a new field's position.
     * @param value its value, or null.
     * @return this.
     */
    public TableRows putString(final int field, final String value)
    {
        if (value == null)
        {
            return putNull(field);
        }
        final byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > RowFormat.MAX_STRING_LENGTH)
        {
            overflow = true;
            return this;
        }
        if (begin(field, RowFormat.STRING_BYTES_OFFSET + utf8.length))
        {
            values.putByte(position, FieldType.STRING);
            values.putShort(position + RowFormat.TAG_LENGTH, (short)utf8.length, ORDER);
            values.putBytes(position + RowFormat.STRING_BYTES_OFFSET, utf8);
            end(field);
        }
        return this;
    }

    /**
     * @param field a new field's position.
     * @return this, with that field null.
     */
    public TableRows putNull(final int field)
    {
        if (begin(field, RowFormat.TAG_LENGTH))
        {
            values.putByte(position, FieldType.NULL);
            end(field);
        }
        return this;
    }

    /** @return the number of new fields. */
    public int fields()
    {
        return at.length;
    }

    /**
     * @param field a new field's position.
     * @return whether the finished row put it.
     */
    public boolean isSet(final int field)
    {
        return lengths[field] > 0;
    }

    /** @return the buffer holding the finished row's values. */
    public DirectBuffer buffer()
    {
        return values;
    }

    /**
     * @param field a new field's position, {@link #isSet set}.
     * @return the index of its value's tag in {@link #buffer()}.
     */
    public int valueIndex(final int field)
    {
        return at[field];
    }

    /**
     * @param field a new field's position, {@link #isSet set}.
     * @return its value's bytes, tag included.
     */
    public int valueLength(final int field)
    {
        return lengths[field];
    }

    /** @return whether the finished row's values did not fit their buffer. */
    public boolean overflowed()
    {
        return overflow;
    }

    private boolean begin(final int field, final int bytes)
    {
        if (field < 0 || field >= at.length)
        {
            throw new IndexOutOfBoundsException("new field " + field + " outside the expansion's " + at.length + " fields");
        }
        if (!open)
        {
            if (stopped)
            {
                return false;
            }
            throw new IllegalStateException("call row() before putting a produced row's values");
        }
        if (position + bytes > values.capacity())
        {
            overflow = true;
            return false;
        }
        return true;
    }

    private void end(final int field)
    {
        final int length = ArrayValues.valueLength(values, position);
        at[field] = position;
        lengths[field] = length;
        position += length;
    }

    private void flush()
    {
        if (open)
        {
            open = false;
            if (!sink.onRow(this))
            {
                stopped = true;
            }
        }
    }
}
