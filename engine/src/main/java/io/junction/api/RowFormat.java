package io.junction.api;

/**
 * Layout of a binary row: a table of 16-bit offsets, one per field index of the {@link Schema},
 * followed by the values, each a type tag and its payload. Little-endian throughout.
 * <pre>
 *   0                   2                       2 + 2n
 *   +-------------------+-----------------------+----------------------------------------+
 *   | n: u16 field slots| offset[0..n-1]: u16   | values: tag u8 + payload, ...          |
 *   +-------------------+-----------------------+----------------------------------------+
 *   offset[i] == 0: field i is absent; else the offset of its tag from the row start.
 *   payload: NULL none | LONG i64 | DOUBLE f64 | BOOLEAN u8 | STRING u16 length + UTF-8 bytes
 *          | ARRAY u16 length (of what follows) + u16 count + count elements
 *   element: tag u8 + payload, a scalar as above or
 *          | OBJECT u16 length (of what follows) + u16 count + count entries
 *   entry:   u16 name length + UTF-8 name + a scalar value (tag + payload); entries sorted by name bytes
 * </pre>
 * An array holds scalars or objects, not both (nulls aside), and never an array: the codecs refuse the
 * rest. Object entries are sorted by the bytes of their names, so that objects equal as JSON values are
 * equal as bytes.
 * Two rows are equal (for retraction, SEMANTICS 1) when their bytes are equal. {@link RowWriter} writes
 * canonical bytes when fields are put in ascending index order; the codecs do so.
 */
public final class RowFormat
{
    /**
     * Version of this layout, part of durable state's layout: 2 adds {@link FieldType#ARRAY} values, so a state
     * written before them (which an older build would read) is refused by name rather than misread.
     */
    public static final int VERSION = 2;
    /** Offset of the field-slot count. */
    public static final int FIELD_SLOTS_OFFSET = 0;
    /** Bytes of the field-slot count, a u16. */
    public static final int FIELD_SLOTS_LENGTH = Short.BYTES;
    /** Offset of the first entry of the offset table, right after the field-slot count. */
    public static final int OFFSET_TABLE_OFFSET = FIELD_SLOTS_OFFSET + FIELD_SLOTS_LENGTH;
    /** Bytes of one offset-table entry, a u16 offset from the row start. */
    public static final int OFFSET_ENTRY_LENGTH = Short.BYTES;
    /** Bytes of a value's type tag, a u8 ({@link FieldType}); its payload follows it. */
    public static final int TAG_LENGTH = Byte.BYTES;
    /** Bytes of a {@link FieldType#NULL} value's payload: none. */
    public static final int NULL_PAYLOAD_LENGTH = 0;
    /** Bytes of a {@link FieldType#LONG} value's payload, an i64. */
    public static final int LONG_PAYLOAD_LENGTH = Long.BYTES;
    /** Bytes of a {@link FieldType#DOUBLE} value's payload, an f64. */
    public static final int DOUBLE_PAYLOAD_LENGTH = Double.BYTES;
    /** Bytes of a {@link FieldType#BOOLEAN} value's payload, a u8 that is 0 or 1. */
    public static final int BOOLEAN_PAYLOAD_LENGTH = Byte.BYTES;
    /** Bytes of the u16 length that starts a {@link FieldType#STRING} value's payload, before its UTF-8 bytes. */
    public static final int STRING_LENGTH_PREFIX = Short.BYTES;
    /** Offset of a string value's UTF-8 bytes from its tag: after the tag and the length prefix. */
    public static final int STRING_BYTES_OFFSET = TAG_LENGTH + STRING_LENGTH_PREFIX;
    /** Bytes of the u16 length that starts an {@link FieldType#ARRAY} or {@link FieldType#OBJECT} payload. */
    public static final int CONTAINER_LENGTH_PREFIX = Short.BYTES;
    /** Offset, from a container's tag, of its u16 element (or entry) count: after the tag and the length. */
    public static final int ARRAY_COUNT_OFFSET = TAG_LENGTH + CONTAINER_LENGTH_PREFIX;
    /** Bytes of a container's element (or entry) count, a u16. */
    public static final int ARRAY_COUNT_LENGTH = Short.BYTES;
    /** Offset, from a container's tag, of its first element (or entry). */
    public static final int ARRAY_ELEMENTS_OFFSET = ARRAY_COUNT_OFFSET + ARRAY_COUNT_LENGTH;
    /** Bytes of the u16 name length that starts an object entry, before its UTF-8 name and its value. */
    public static final int ENTRY_NAME_LENGTH_PREFIX = Short.BYTES;
    /** The longest string value in UTF-8 bytes, bounded by its u16 length prefix. */
    public static final int MAX_STRING_LENGTH = 0xFFFF;
    /** The largest row, bounded by the 16-bit offsets. */
    public static final int MAX_ROW_LENGTH = 0xFFFF;

    private RowFormat()
    {
    }

    /**
     * @param field a field index.
     * @return the offset, within a row, of that field's entry in the offset table.
     */
    public static int offsetEntry(final int field)
    {
        return OFFSET_TABLE_OFFSET + OFFSET_ENTRY_LENGTH * field;
    }

    /**
     * @param fieldSlots the number of field slots of a row.
     * @return where values start in a row with that many slots.
     */
    public static int valuesOffset(final int fieldSlots)
    {
        return OFFSET_TABLE_OFFSET + OFFSET_ENTRY_LENGTH * fieldSlots;
    }
}
