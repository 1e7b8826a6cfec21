package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;
import io.junction.internal.memory.Refs;

/**
 * Layout of a durable {@link NativeArena} file's header, the {@link #HEADER_LENGTH} bytes before its first
 * chunk: the arena's heap-held fields, written by {@code NativeArena.writeHeader()} at a persist and read
 * back by the reopening constructor (and checked, unmapped, by {@code NativeArena.checkHeader}). Offsets
 * are from the file's start; every link is an offset from the file's address ({@link Refs}), 0 for none.
 * <pre>
 *   0      8      16     24      28        32     40      48       56       64     72     80         88        92    128
 *   +------+------+------+-------+---------+------+-------+--------+--------+------+------+----------+---------+-----+
 *   |magic |dirty |crc   |version|chunkSize|bump  |cursor |chunkEnd|reserved|used  |limit |largeCount|mapShift |     |
 *   | i64  | i64  | i64  | i32   |  i32    | i64  | i64   | i64    | i64    | i64  | i64  | i32 (+4) |  i32    |     |
 *   +------+------+------+-------+---------+------+-------+--------+--------+------+------+----------+---------+-----+
 *   |&lt;------------------------------- fixed fields, room of 128 bytes -----------------------------------------&gt;|
 *
 *   128      large free lists: LARGE_LISTS (64) x [size i64 | head i64]            1024 B, then free to 2 KiB
 *   2048     free-list heads:  FREE_LISTS (MAX_POOLED_SIZE / 8 + 1) x head i64       131080 B, then free to 64 B
 *   133184   dirty-chunk map:  a byte per cell of the mapping (DirtyChunks)          to the header's end
 *   139264   (34 pages of 4 KiB) the first chunk
 *
 *   dirty:    1 once the file changed after its last clean persist (NativeArena.markDirty), 0 in an image
 *   crc:      CRC-32 of the magic and of [version, mapOffset): not the dirty flag, not itself, not the map
 *             (which changes with every write after a persist and is zeros in an image)
 *   bump:     the file's end of carved memory (its length); cursor, chunkEnd: the current chunk's carving
 *   mapShift: log2 of the bytes of a cell of the dirty-chunk map, chosen when the file is created
 * </pre>
 * Every offset below is derived from the sizes of the fields before it; {@code DescriptorLayoutTest} pins them
 * to the drawing, and the bytes are those the arena has always written (format {@link #VERSION} 2).
 *
 * <p>Constants only: the arena owns the reads and writes.
 */
public final class ArenaHeaderDescriptor
{
    /** The first 8 bytes of a durable arena file. */
    public static final long MAGIC = 0x4A4E4341_52454E41L;
    /** Layout version of a durable arena file. */
    public static final int VERSION = 2;
    /** Bytes of a page: the header is a whole number of them. */
    public static final int PAGE_LENGTH = 4096;
    /** Pages of the header. */
    public static final int HEADER_PAGES = 34;
    /** Bytes of the header, before the first chunk: page aligned. */
    public static final int HEADER_LENGTH = HEADER_PAGES * PAGE_LENGTH;

    /** Offset of the magic (i64). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the dirty flag (i64: 0 clean, 1 changed since the last persist). */
    public static final int DIRTY_OFFSET = MAGIC_OFFSET + Long.BYTES;
    /** Offset of the header's CRC-32 (i64). */
    public static final int CRC_OFFSET = DIRTY_OFFSET + Long.BYTES;
    /** Offset of the layout version (i32). */
    public static final int VERSION_OFFSET = CRC_OFFSET + Long.BYTES;
    /** Where the checksummed range after the magic starts: the version and everything after it, up to the map. */
    public static final int CHECKED_FROM = VERSION_OFFSET;
    /** Offset of the chunk size (i32). */
    public static final int CHUNK_SIZE_OFFSET = VERSION_OFFSET + Integer.BYTES;
    /** Offset of the bump pointer (i64: the file's end of carved memory). */
    public static final int BUMP_OFFSET = CHUNK_SIZE_OFFSET + Integer.BYTES;
    /** Offset of the current chunk's cursor (i64 offset). */
    public static final int CURSOR_OFFSET = BUMP_OFFSET + Long.BYTES;
    /** Offset of the current chunk's end (i64 offset). */
    public static final int CHUNK_END_OFFSET = CURSOR_OFFSET + Long.BYTES;
    /** Offset of the bytes taken from the file (i64). */
    public static final int RESERVED_OFFSET = CHUNK_END_OFFSET + Long.BYTES;
    /** Offset of the bytes in live records (i64). */
    public static final int USED_OFFSET = RESERVED_OFFSET + Long.BYTES;
    /** Offset of the arena's byte limit (i64). */
    public static final int LIMIT_OFFSET = USED_OFFSET + Long.BYTES;
    /** Offset of the number of large free lists in use (i32, in an 8-byte slot). */
    public static final int LARGE_COUNT_OFFSET = LIMIT_OFFSET + Long.BYTES;
    /** Offset of log2 of the bytes of a dirty-map cell (i32). */
    public static final int MAP_SHIFT_OFFSET = LARGE_COUNT_OFFSET + Long.BYTES;
    /** Bytes kept for the fixed fields, room for more: the large free lists' table follows. */
    public static final int FIXED_FIELDS_ROOM = 128;

    /** Offset of the table of large free lists. */
    public static final int LARGE_TABLE_OFFSET = FIXED_FIELDS_ROOM;
    /** Most distinct sizes of large blocks with a free list. */
    public static final int LARGE_LISTS = 64;
    /** Offset in a large list's entry of its blocks' size (i64). */
    public static final int LARGE_SIZE_OFFSET = 0;
    /** Offset in a large list's entry of its head (i64 offset). */
    public static final int LARGE_HEAD_OFFSET = LARGE_SIZE_OFFSET + Long.BYTES;
    /** Bytes of a large list's entry. */
    public static final int LARGE_ENTRY_LENGTH = LARGE_HEAD_OFFSET + Long.BYTES;
    /** The free-list heads start at the first boundary of this many bytes after the large table. */
    public static final int FREE_HEADS_ALIGNMENT = 2048;
    /** Offset of the free-list heads, one per size class of {@link NativeArena#ALIGNMENT} bytes. */
    public static final int FREE_HEADS_OFFSET =
        align(LARGE_TABLE_OFFSET + LARGE_LISTS * LARGE_ENTRY_LENGTH, FREE_HEADS_ALIGNMENT);
    /** Size classes with a free-list head: 0 to {@link NativeArena#MAX_POOLED_SIZE} in steps of the alignment. */
    public static final int FREE_LISTS = NativeArena.MAX_POOLED_SIZE / NativeArena.ALIGNMENT + 1;
    /** Bytes of a free-list head (i64 offset). */
    public static final int FREE_HEAD_LENGTH = Long.BYTES;
    /** The dirty-chunk map starts at the first boundary of this many bytes (a cache line) after the heads. */
    public static final int MAP_ALIGNMENT = 64;
    /**
     * Offset of the dirty-chunk map ({@link DirtyChunks}): a byte per cell of the mapping, set by every store
     * into the file ({@link NativeArena#written(long, long)}), all zeros in an image a persist leaves; outside
     * the header's checksum.
     */
    public static final int MAP_OFFSET = align(FREE_HEADS_OFFSET + FREE_LISTS * FREE_HEAD_LENGTH, MAP_ALIGNMENT);
    /** Bytes of the dirty-chunk map: a cell per MiB up to 5.9 GiB of arena, larger cells beyond. */
    public static final int MAP_BYTES = HEADER_LENGTH - MAP_OFFSET;

    private ArenaHeaderDescriptor()
    {
    }

    private static int align(final int offset, final int alignment)
    {
        return (offset + alignment - 1) & -alignment;
    }

    /**
     * @param list a large free list, {@code [0, LARGE_LISTS)}.
     * @return the offset of its blocks' size (i64).
     */
    public static int largeSizeOffset(final int list)
    {
        return LARGE_TABLE_OFFSET + list * LARGE_ENTRY_LENGTH + LARGE_SIZE_OFFSET;
    }

    /**
     * @param list a large free list, {@code [0, LARGE_LISTS)}.
     * @return the offset of its head (i64 offset).
     */
    public static int largeHeadOffset(final int list)
    {
        return LARGE_TABLE_OFFSET + list * LARGE_ENTRY_LENGTH + LARGE_HEAD_OFFSET;
    }

    /**
     * @param sizeClass a size class, {@code [0, FREE_LISTS)}: the block's bytes over the alignment.
     * @return the offset of its free list's head (i64 offset).
     */
    public static int freeHeadOffset(final int sizeClass)
    {
        return FREE_HEADS_OFFSET + sizeClass * FREE_HEAD_LENGTH;
    }
}
