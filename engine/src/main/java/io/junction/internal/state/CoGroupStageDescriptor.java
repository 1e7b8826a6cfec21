package io.junction.internal.state;

/**
 * Layout of the window coGroup's stage: what a {@code CoGroupFunction} collected during its call, kept in a
 * {@code long[]} until the call returns and then emitted (or dropped if it threw). One entry per collected
 * output, {@link #WIDTH} longs, offsets in longs:
 * <pre>
 *   0             1              2             3             4
 *   +-------------+--------------+-------------+-------------+
 *   | leftRecord  | rightRecord  | rowOffset   | rowLength   |
 *   |  address    |  address     | in the row  |   bytes     |
 *   |             |              | buffer      |             |
 *   +-------------+--------------+-------------+-------------+
 *   leftRecord, rightRecord: the input rows' records (valid until they are removed after the call), 0 for none.
 *   rowOffset: where a computed row starts in the coGroup's row buffer, {@link #NO_ROW} for an output of
 *              input rows alone; rowLength: its bytes.
 * </pre>
 */
public final class CoGroupStageDescriptor
{
    /** Offset of the left row's record (0 for none). */
    public static final int LEFT_RECORD_OFFSET = 0;
    /** Offset of the right row's record (0 for none). */
    public static final int RIGHT_RECORD_OFFSET = LEFT_RECORD_OFFSET + 1;
    /** Offset of the computed row's offset in the row buffer ({@link #NO_ROW} for none). */
    public static final int ROW_OFFSET_OFFSET = RIGHT_RECORD_OFFSET + 1;
    /** Offset of the computed row's length in bytes. */
    public static final int ROW_LENGTH_OFFSET = ROW_OFFSET_OFFSET + 1;
    /** Longs per entry. */
    public static final int WIDTH = ROW_LENGTH_OFFSET + 1;
    /** The row offset of an output of input rows alone. */
    public static final int NO_ROW = -1;

    private CoGroupStageDescriptor()
    {
    }

    /**
     * Writes entry {@code entry}; the stage must hold it ({@link #length}).
     *
     * @param stage      the stage.
     * @param entry      the entry's index.
     * @param left       the left row's record, or 0.
     * @param right      the right row's record, or 0.
     * @param rowOffset  the computed row's offset, or {@link #NO_ROW}.
     * @param rowLength  the computed row's length.
     */
    public static void put(
        final long[] stage, final int entry, final long left, final long right, final int rowOffset, final int rowLength)
    {
        final int at = entry * WIDTH;
        stage[at + LEFT_RECORD_OFFSET] = left;
        stage[at + RIGHT_RECORD_OFFSET] = right;
        stage[at + ROW_OFFSET_OFFSET] = rowOffset;
        stage[at + ROW_LENGTH_OFFSET] = rowLength;
    }

    /** @return the longs a stage of {@code entries} entries needs. */
    public static int length(final int entries)
    {
        return entries * WIDTH;
    }

    /** @return entry {@code entry}'s left record, or 0. */
    public static long leftRecord(final long[] stage, final int entry)
    {
        return stage[entry * WIDTH + LEFT_RECORD_OFFSET];
    }

    /** @return entry {@code entry}'s right record, or 0. */
    public static long rightRecord(final long[] stage, final int entry)
    {
        return stage[entry * WIDTH + RIGHT_RECORD_OFFSET];
    }

    /** @return entry {@code entry}'s computed row offset, or {@link #NO_ROW}. */
    public static int rowOffset(final long[] stage, final int entry)
    {
        return (int)stage[entry * WIDTH + ROW_OFFSET_OFFSET];
    }

    /** @return entry {@code entry}'s computed row length. */
    public static int rowLength(final long[] stage, final int entry)
    {
        return (int)stage[entry * WIDTH + ROW_LENGTH_OFFSET];
    }
}
