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
 * </pre>
 * Two rows are equal (for retraction, SPEC 1) when their bytes are equal. {@link RowWriter} writes
 * canonical bytes when fields are put in ascending index order; the codecs do so.
 */
public final class RowFormat
{
    /** Offset of the field-slot count. */
    public static final int FIELD_SLOTS_OFFSET = 0;
    /** Offset of the first entry of the offset table. */
    public static final int OFFSET_TABLE_OFFSET = 2;
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
        return OFFSET_TABLE_OFFSET + 2 * field;
    }

    /**
     * @param fieldSlots the number of field slots of a row.
     * @return where values start in a row with that many slots.
     */
    public static int valuesOffset(final int fieldSlots)
    {
        return OFFSET_TABLE_OFFSET + 2 * fieldSlots;
    }
}
