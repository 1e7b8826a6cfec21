package io.junction.internal.durable;

/**
 * Layout of a durable state directory's clean marker, {@code <state>/}{@value ChunkSums#MARKER_NAME}: written
 * last by a persist (to a new file, synced and renamed into place), so that a directory holding it holds a
 * complete image of the state it describes; read first by a reopen, which checks every file against it. Big
 * endian ({@code ByteBuffer}'s order); offsets from the file's start.
 * <pre>
 *   0      8        12           20      28        36          44       52     56
 *   +------+--------+------------+-------+---------+-----------+--------+------+--------------------+------+
 *   |magic |version |fingerprint |layout |hashSeed |heapLength |heapCrc |files |entry x files       |crc   |
 *   | i64  |  i32   |   i64      | i64   |  i64    |   i64     |  i64   | i32  |                    | i64  |
 *   +------+--------+------------+-------+---------+-----------+--------+------+--------------------+------+
 *   entry:   [nameLength u16 | name (UTF-8) | length i64 | chunks i32 | CRC-32C i32 x chunks]
 *            (version 1 has no chunks and no CRC-32Cs; heap.dat's entry has 0 chunks: heapCrc covers it)
 *   version:     {@value #VERSION}; {@value #VERSION_WITHOUT_SUMS} (no chunk sums) is still read
 *   fingerprint: the join spec's; layout: the partition state layout's hash; hashSeed: the key hash's seed
 *   heapCrc:     CRC-32 of heap.dat ({@link HeapImageDescriptor}); a chunk's CRC-32C is of 1 MiB of its file
 *   crc:         CRC-32 of every byte before it
 * </pre>
 * Every offset is derived from the sizes of the fields before it; {@code DescriptorLayoutTest} pins them to
 * the drawing, and the bytes are those every marker of version 2 has.
 *
 * <p>Constants only: {@code DurableState} owns the reads and writes.
 */
public final class StateMarkerDescriptor
{
    /** The first 8 bytes of a marker. */
    public static final long MAGIC = 0x4A4E43434C45414EL;
    /** The marker version this build writes: each mapped file's entry carries its chunk sums. */
    public static final int VERSION = 2;
    /** The marker version without chunk sums, still read (its files then unverified). */
    public static final int VERSION_WITHOUT_SUMS = 1;

    /** Offset of the magic (i64). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the marker's version (i32). */
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Long.BYTES;
    /** Offset of the join's fingerprint (i64). */
    public static final int FINGERPRINT_OFFSET = VERSION_OFFSET + Integer.BYTES;
    /** Offset of the partition state layout's hash (i64). */
    public static final int LAYOUT_OFFSET = FINGERPRINT_OFFSET + Long.BYTES;
    /** Offset of the key-hash seed the state was built with (i64). */
    public static final int HASH_SEED_OFFSET = LAYOUT_OFFSET + Long.BYTES;
    /** Offset of heap.dat's length (i64). */
    public static final int HEAP_LENGTH_OFFSET = HASH_SEED_OFFSET + Long.BYTES;
    /** Offset of heap.dat's CRC-32 (i64). */
    public static final int HEAP_CRC_OFFSET = HEAP_LENGTH_OFFSET + Long.BYTES;
    /** Offset of the number of file entries (i32). */
    public static final int FILES_OFFSET = HEAP_CRC_OFFSET + Long.BYTES;
    /** Offset of the first file entry. */
    public static final int ENTRIES_OFFSET = FILES_OFFSET + Integer.BYTES;
    /** Bytes of the marker's own checksum, its last field (i64). */
    public static final int CRC_LENGTH = Long.BYTES;
    /** Bytes of a marker without file entries: the fixed fields and the checksum. */
    public static final int FIXED_LENGTH = ENTRIES_OFFSET + CRC_LENGTH;
    /**
     * The shortest marker a reopen reads further than its length: the fixed fields, the checksum and 8 bytes of
     * entries (a real marker lists heap.dat and arena.dat; anything shorter is refused as truncated or foreign).
     */
    public static final int MIN_LENGTH = FIXED_LENGTH + Long.BYTES;

    /** Bytes of an entry's name length (u16). */
    public static final int NAME_LENGTH_LENGTH = Short.BYTES;
    /** Bytes of an entry's file length (i64). */
    public static final int FILE_LENGTH_LENGTH = Long.BYTES;
    /** Bytes of an entry's chunk count (i32; version 2). */
    public static final int CHUNKS_LENGTH = Integer.BYTES;
    /** Bytes of one chunk's CRC-32C (i32). */
    public static final int CHUNK_SUM_LENGTH = Integer.BYTES;

    private StateMarkerDescriptor()
    {
    }

    /**
     * @param nameBytes the file name's UTF-8 bytes.
     * @param chunks    its chunk sums (0 for heap.dat).
     * @return the bytes of a version-2 entry.
     */
    public static int entryLength(final int nameBytes, final int chunks)
    {
        return NAME_LENGTH_LENGTH + nameBytes + FILE_LENGTH_LENGTH + CHUNKS_LENGTH + CHUNK_SUM_LENGTH * chunks;
    }

    /**
     * @param marker the marker's length.
     * @return the offset of its checksum, its last {@link #CRC_LENGTH} bytes.
     */
    public static int crcOffset(final int marker)
    {
        return marker - CRC_LENGTH;
    }
}
