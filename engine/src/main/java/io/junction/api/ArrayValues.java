package io.junction.api;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * Reads the values of an {@link FieldType#ARRAY} field in place ({@link RowFormat} draws the layout):
 * static, allocation-free walks by absolute buffer index, as a flyweight would read them. A position is
 * the index of a value's tag; {@link #first} gives an array's (or object's) first element (or entry) and
 * {@link #next} the one after a value. Object entries are a name and a value: {@link #entryValue} skips
 * the name.
 */
public final class ArrayValues
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private ArrayValues()
    {
    }

    /**
     * @param buffer holds the value.
     * @param at     the index of the value's tag.
     * @return the value's bytes, its tag included, or -1 for an unknown tag.
     */
    public static int valueLength(final DirectBuffer buffer, final int at)
    {
        switch (buffer.getByte(at))
        {
            case FieldType.NULL:
                return RowFormat.TAG_LENGTH + RowFormat.NULL_PAYLOAD_LENGTH;
            case FieldType.LONG:
                return RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH;
            case FieldType.DOUBLE:
                return RowFormat.TAG_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH;
            case FieldType.BOOLEAN:
                return RowFormat.TAG_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH;
            case FieldType.STRING:
                return RowFormat.STRING_BYTES_OFFSET + (buffer.getShort(at + RowFormat.TAG_LENGTH, ORDER) & 0xFFFF);
            case FieldType.ARRAY:
            case FieldType.OBJECT:
                return RowFormat.TAG_LENGTH + RowFormat.CONTAINER_LENGTH_PREFIX +
                    (buffer.getShort(at + RowFormat.TAG_LENGTH, ORDER) & 0xFFFF);
            default:
                return -1;
        }
    }

    /**
     * @param buffer      holds the array or object.
     * @param containerAt the index of its tag.
     * @return its number of elements (entries of an object).
     */
    public static int count(final DirectBuffer buffer, final int containerAt)
    {
        return buffer.getShort(containerAt + RowFormat.ARRAY_COUNT_OFFSET, ORDER) & 0xFFFF;
    }

    /**
     * @param containerAt the index of an array's or object's tag.
     * @return the index of its first element (entry), valid when its count is not 0.
     */
    public static int first(final int containerAt)
    {
        return containerAt + RowFormat.ARRAY_ELEMENTS_OFFSET;
    }

    /**
     * @param buffer holds the value.
     * @param at     the index of an element's tag.
     * @return the index of the element after it.
     */
    public static int next(final DirectBuffer buffer, final int at)
    {
        return at + valueLength(buffer, at);
    }

    /**
     * @param buffer  holds the object.
     * @param entryAt the index of an object entry (its name length).
     * @return the bytes of the entry's UTF-8 name.
     */
    public static int entryNameLength(final DirectBuffer buffer, final int entryAt)
    {
        return buffer.getShort(entryAt, ORDER) & 0xFFFF;
    }

    /**
     * @param entryAt the index of an object entry.
     * @return the index of its UTF-8 name.
     */
    public static int entryNameIndex(final int entryAt)
    {
        return entryAt + RowFormat.ENTRY_NAME_LENGTH_PREFIX;
    }

    /**
     * @param buffer  holds the object.
     * @param entryAt the index of an object entry.
     * @return the index of the entry's value (its tag).
     */
    public static int entryValue(final DirectBuffer buffer, final int entryAt)
    {
        return entryNameIndex(entryAt) + entryNameLength(buffer, entryAt);
    }

    /**
     * @param buffer  holds the object.
     * @param entryAt the index of an object entry.
     * @return the index of the entry after it.
     */
    public static int nextEntry(final DirectBuffer buffer, final int entryAt)
    {
        return next(buffer, entryValue(buffer, entryAt));
    }

    /**
     * Checks an array value's structure: every element and entry inside its bounds, with a known tag,
     * the counts as written, scalars or objects but not both (nulls aside), no array inside it, objects of scalars only.
     * For {@link RowView#validate()}: a hostile producer's bytes must not make a reader walk off the row.
     *
     * @param buffer holds the array.
     * @param at     the index of its tag.
     * @param end    the index one past the last byte it may use.
     * @return null when well formed, else what is wrong.
     */
    public static String validate(final DirectBuffer buffer, final int at, final int end)
    {
        if (at + RowFormat.ARRAY_ELEMENTS_OFFSET > end)
        {
            return "array header overruns the row";
        }
        final int limit = at + valueLength(buffer, at);
        if (limit > end)
        {
            return "array overruns the row";
        }
        final int count = count(buffer, at);
        int position = first(at);
        byte kind = FieldType.NULL;
        for (int i = 0; i < count; i++)
        {
            if (position >= limit)
            {
                return "array element " + (i + 1) + " outside the array";
            }
            final byte tag = buffer.getByte(position);
            if (tag == FieldType.OBJECT)
            {
                final String bad = validateObject(buffer, position, limit);
                if (bad != null)
                {
                    return bad;
                }
            }
            else if (!FieldType.isScalar(tag))
            {
                return "array element " + (i + 1) + " has type tag " + tag;
            }
            // Scalars of any kinds, or objects, not both (nulls aside).
            final byte elementKind = tag == FieldType.OBJECT ? FieldType.OBJECT : tag == FieldType.NULL ? FieldType.NULL : FieldType.STRING;
            if (elementKind != FieldType.NULL)
            {
                if (kind != FieldType.NULL && kind != elementKind)
                {
                    return "array mixes objects and scalars";
                }
                kind = elementKind;
            }
            final int length = valueLength(buffer, position);
            if (position + length > limit)
            {
                return "array element " + (i + 1) + " overruns the array";
            }
            position += length;
        }
        return position == limit ? null : "array length disagrees with its elements";
    }

    private static String validateObject(final DirectBuffer buffer, final int at, final int end)
    {
        if (at + RowFormat.ARRAY_ELEMENTS_OFFSET > end)
        {
            return "object header overruns the array";
        }
        final int limit = at + valueLength(buffer, at);
        if (limit > end)
        {
            return "object overruns the array";
        }
        final int count = count(buffer, at);
        int position = first(at);
        for (int i = 0; i < count; i++)
        {
            if (position + RowFormat.ENTRY_NAME_LENGTH_PREFIX > limit)
            {
                return "object entry outside the object";
            }
            final int value = entryValue(buffer, position);
            if (value + RowFormat.TAG_LENGTH > limit)
            {
                return "object entry name overruns the object";
            }
            final byte tag = buffer.getByte(value);
            if (!FieldType.isScalar(tag))
            {
                return "object entry holds type tag " + tag + ": objects hold scalars only";
            }
            if (tag == FieldType.STRING && value + RowFormat.STRING_BYTES_OFFSET > limit)
            {
                return "object entry value overruns the object";
            }
            final int length = valueLength(buffer, value);
            if (value + length > limit)
            {
                return "object entry value overruns the object";
            }
            position = value + length;
        }
        return position == limit ? null : "object length disagrees with its entries";
    }

    /**
     * @param type an element's type tag.
     * @return its JSON kind as a word: number, string, boolean, object, null.
     */
    public static String kindName(final byte type)
    {
        switch (type)
        {
            case FieldType.LONG:
            case FieldType.DOUBLE:
                return "number";
            case FieldType.STRING:
                return "string";
            case FieldType.BOOLEAN:
                return "boolean";
            case FieldType.OBJECT:
                return "object";
            case FieldType.ARRAY:
                return "array";
            default:
                return "null";
        }
    }
}
