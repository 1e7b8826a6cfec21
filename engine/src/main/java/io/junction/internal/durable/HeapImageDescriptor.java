package io.junction.internal.durable;

/**
 * Layout of a durable state directory's heap image, {@code <state>/heap.dat}: the heap-held state of one
 * operator, written whole by each persist (to a new file, synced and renamed into place, its CRC-32 in the
 * marker, {@link StateMarkerDescriptor#HEAP_CRC_OFFSET}) and read once by a reopen, in the order written.
 * Big endian ({@code ByteBuffer}'s order); offsets from the file's start.
 * <pre>
 *   0      4         12         20         28                  36          44           52
 *   +------+---------+----------+----------+-------------------+-----------+------------+-------------+----------------+-----+
 *   |magic |liveLeft |liveRight |indexSize |unmatchableBucket  |uniqueLeft |uniqueRight |timer wheel  |operator's part |end  |
 *   | i32  |  i64    |  i64     |  i64     |  i64 offset       |  i64      |  i64       |(TimerWheel) |(its HeapPart)  | i32 |
 *   +------+---------+----------+----------+-------------------+-----------+------------+-------------+----------------+-----+
 *   |&lt;------------------------------- the state's part (52) --------------------------&gt;|
 *   liveLeft, liveRight: live rows per side; indexSize: keys in the key index; unmatchableBucket: the bucket
 *     of rows that never match, as an offset from the arena's base; uniqueLeft, uniqueRight: the keys of each
 *     side's unique-key index (0 without one)
 *   timer wheel: the state's wheel, as it saves itself; operator's part: the driver's counters, watermarks
 *     (and the N inputs' of a multi-way join), then the algorithm's own fields (its second wheel, if any)
 *   end: {@link #END}, right after the operator's part: a reopen refuses an image whose part ends elsewhere
 * </pre>
 * The variable parts are sequential; the buffer a persist writes into is {@link #room} bytes.
 * {@code DescriptorLayoutTest} pins the offsets, derived from the sizes of the fields before each.
 *
 * <p>Constants only: {@link HeapImage} owns the reads and writes.
 */
public final class HeapImageDescriptor
{
    /** The first 4 bytes: the start of the state's part. */
    public static final int MAGIC = 0x4A4E4350;
    /** The last 4 bytes: the end of the operator's part. */
    public static final int END = 0x4A4E4345;

    /** Offset of the magic (i32). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the left side's live rows (i64). */
    public static final int LIVE_LEFT_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    /** Offset of the right side's live rows (i64). */
    public static final int LIVE_RIGHT_OFFSET = LIVE_LEFT_OFFSET + Long.BYTES;
    /** Offset of the keys in the key index (i64). */
    public static final int INDEX_SIZE_OFFSET = LIVE_RIGHT_OFFSET + Long.BYTES;
    /** Offset of the never-matching rows' bucket (i64 offset from the arena's base). */
    public static final int UNMATCHABLE_BUCKET_OFFSET = INDEX_SIZE_OFFSET + Long.BYTES;
    /** Offset of the keys of the left side's unique-key index (i64). */
    public static final int UNIQUE_LEFT_OFFSET = UNMATCHABLE_BUCKET_OFFSET + Long.BYTES;
    /** Offset of the keys of the right side's unique-key index (i64). */
    public static final int UNIQUE_RIGHT_OFFSET = UNIQUE_LEFT_OFFSET + Long.BYTES;
    /** Bytes of the state's part: the timer wheel's image starts here. */
    public static final int STATE_PART_LENGTH = UNIQUE_RIGHT_OFFSET + Long.BYTES;
    /** Bytes of the end mark. */
    public static final int END_LENGTH = Integer.BYTES;
    /** Bytes a persist always has for the image, beyond what the wheel and the operator say they may need. */
    public static final int FIXED_ROOM = 64 * 1024;
    /** The room per byte of the wheel's own estimate of its image. */
    public static final int WHEEL_ROOM_FACTOR = 4;

    private HeapImageDescriptor()
    {
    }

    /**
     * @param wheelLength the lengths of the state's own parts before the operator's ({@code HeapPart.savedLength()}:
     *                    its wheel's image, {@code TimerWheel.savedLength()}), weighted by {@link #WHEEL_ROOM_FACTOR}.
     * @param partLength  the bytes the operator's part may write beyond the fixed room ({@code HeapPart.savedLength()}).
     * @return the bytes of the buffer a persist writes the image into.
     */
    public static int room(final int wheelLength, final int partLength)
    {
        return FIXED_ROOM + WHEEL_ROOM_FACTOR * wheelLength + partLength;
    }
}
