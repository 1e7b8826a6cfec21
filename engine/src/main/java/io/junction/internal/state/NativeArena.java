package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;
import io.junction.internal.memory.Refs;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * An off-heap allocator of records addressed by raw address. Memory comes in chunks from the OS and
 * is carved by a bump pointer; a freed record goes onto a free list of its exact size class (8-byte
 * steps) and is reused first, so a steady workload (rows dying as fast as they arrive) stays in a
 * fixed footprint and never returns to the bump pointer. The free lists are intrusive: a free
 * record's first 8 bytes hold the next free record. Blocks above {@link #MAX_POOLED_SIZE} (a hot key's
 * row-group array) are taken from the OS one by one and given back when freed.
 *
 * <p>Bounded: the arena takes at most {@code limit} bytes from the OS. An allocation that would need
 * more, or that the OS refuses (malloc returns null: {@link OutOfMemoryError} from Unsafe), returns
 * 0 and leaves the arena as it was, so a caller at its memory limit gets an answer, not an error.
 *
 * <p>Durable ({@link #NativeArena(MappedFile, int, long, boolean)}): the chunks and large blocks are
 * carved from one mapped file instead of malloc, the file growing a chunk at a time behind the bump
 * pointer, and freed large blocks go onto exact-size free lists too. Every link the arena stores (free
 * lists) is an offset from the file's address ({@link Refs}), and its heap-held fields (bump pointer,
 * current chunk, free-list heads, byte counts) are written to the file's header by
 * {@link #writeHeader()} and read back by the reopening constructor, so that the state reopens mapped
 * at another address without reading or rewriting its records. The header's first 8 bytes after the
 * magic are the image's dirty flag ({@link #markDirty()}); {@link ArenaHeaderDescriptor} draws the header.
 *
 * <p>Not thread safe: owned by the partition thread. {@link #reservedBytes()} and
 * {@link #usedBytes()} are plain reads, published to other threads by the owner.
 */
public final class NativeArena implements AutoCloseable, MappedPart
{
    /** Allocation granularity and alignment. */
    public static final int ALIGNMENT = 8;
    /** Default chunk size: large enough that chunk allocation is rare, small enough for small joins. */
    public static final int DEFAULT_CHUNK_SIZE = 4 << 20;
    /**
     * The largest block kept on a free list. Larger ones (a hot key's row-group array) get memory of
     * their own from the OS and give it back when freed: an exact-size free list per large size would
     * keep memory no other size can use and a heap table with an entry per 8 bytes of the largest size.
     */
    public static final int MAX_POOLED_SIZE = 128 << 10;

    /** Bytes of a durable arena file's header, before the first chunk ({@link ArenaHeaderDescriptor}). */
    public static final int HEADER_LENGTH = ArenaHeaderDescriptor.HEADER_LENGTH;
    /** Offset in a durable arena file's header of its dirty-chunk map ({@link ArenaHeaderDescriptor#MAP_OFFSET}). */
    public static final int MAP_OFFSET = ArenaHeaderDescriptor.MAP_OFFSET;
    /** Bytes of the dirty-chunk map ({@link ArenaHeaderDescriptor#MAP_BYTES}). */
    public static final int MAP_BYTES = ArenaHeaderDescriptor.MAP_BYTES;
    /** The first 8 bytes of a durable arena file. */
    public static final long MAGIC = ArenaHeaderDescriptor.MAGIC;
    /** Layout version of a durable arena file. */
    public static final int VERSION = ArenaHeaderDescriptor.VERSION;
    // The header's fields, as ArenaHeaderDescriptor draws them.
    private static final int DIRTY_OFFSET = ArenaHeaderDescriptor.DIRTY_OFFSET;
    private static final int CRC_OFFSET = ArenaHeaderDescriptor.CRC_OFFSET;
    private static final int CHECKED_FROM = ArenaHeaderDescriptor.CHECKED_FROM;
    private static final int VERSION_OFFSET = ArenaHeaderDescriptor.VERSION_OFFSET;
    private static final int CHUNK_SIZE_OFFSET = ArenaHeaderDescriptor.CHUNK_SIZE_OFFSET;
    private static final int BUMP_OFFSET = ArenaHeaderDescriptor.BUMP_OFFSET;
    private static final int CURSOR_OFFSET = ArenaHeaderDescriptor.CURSOR_OFFSET;
    private static final int CHUNK_END_OFFSET = ArenaHeaderDescriptor.CHUNK_END_OFFSET;
    private static final int RESERVED_OFFSET = ArenaHeaderDescriptor.RESERVED_OFFSET;
    private static final int USED_OFFSET = ArenaHeaderDescriptor.USED_OFFSET;
    private static final int LIMIT_OFFSET = ArenaHeaderDescriptor.LIMIT_OFFSET;
    private static final int LARGE_COUNT_OFFSET = ArenaHeaderDescriptor.LARGE_COUNT_OFFSET;
    private static final int MAP_SHIFT_OFFSET = ArenaHeaderDescriptor.MAP_SHIFT_OFFSET;
    private static final int LARGE_LISTS = ArenaHeaderDescriptor.LARGE_LISTS;

    private final int chunkSize;
    private final int maxPooledSize;
    private final long limit;
    /** Address that stored links are relative to: the mapped file's, 0 in memory. */
    private final long base;
    /** The durable arena's file, or null in memory. */
    private final MappedFile file;
    /** Offset of the durable file's end of carved memory: the next chunk starts there. */
    private long bump;
    /** Exact sizes and heads of the durable arena's free lists of large blocks. */
    private long[] largeSizes;
    private long[] largeHeads;
    private int largeCount;
    private long[] chunks = new long[16];
    private int chunkCount;
    private long cursor;
    private long chunkEnd;
    private long[] freeHeads = new long[64];
    /**
     * One past the highest size class a {@link #free} ever gave a head (or a reopened header held one): every
     * head from here on is 0, in {@link #freeHeads} and in a durable file's header, so {@link #writeHeader()}
     * stops here instead of at the 16,385th head.
     */
    private int headsInUse;
    private long reservedBytes;
    private long usedBytes;
    private boolean closed;
    /** The durable file's dirty-chunk tracking (its map in the header), or null in memory. */
    private final DirtyChunks dirtyChunks;
    /** Chunks taken and touched up front, handed out before asking the OS for more. */
    private long[] spare = new long[0];
    /** {@link #writeHeader()}'s checksum and the scratch it reads the header through: no allocation per write. */
    private final CRC32 headerChecksum = new CRC32();
    private final byte[] headerScratch = new byte[4096];
    private int spareCount;

    public NativeArena()
    {
        this(DEFAULT_CHUNK_SIZE);
    }

    /** @param chunkSize bytes per chunk, a multiple of 8 of at least 4096. */
    public NativeArena(final int chunkSize)
    {
        this(chunkSize, 0);
    }

    /**
     * @param chunkSize    bytes per chunk, a multiple of 8 of at least 4096.
     * @param preallocate  bytes to take from the OS and touch now, so that a growing state does not
     *                     pay a page fault per fresh page on the partition thread (as a JVM heap with
     *                     {@code -Xms} and {@code AlwaysPreTouch}); 0 takes memory only as needed.
     */
    public NativeArena(final int chunkSize, final long preallocate)
    {
        this(chunkSize, preallocate, Long.MAX_VALUE);
    }

    /**
     * @param chunkSize   as {@link #NativeArena(int, long)}.
     * @param preallocate as {@link #NativeArena(int, long)}, clamped to {@code limit}.
     * @param limit       the most bytes the arena takes from the OS.
     */
    public NativeArena(final int chunkSize, final long preallocate, final long limit)
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("limit must be >= 1: " + limit);
        }
        this.limit = limit;
        this.base = 0;
        this.file = null;
        this.dirtyChunks = null;
        if (chunkSize < 4096 || (chunkSize & (ALIGNMENT - 1)) != 0)
        {
            throw new IllegalArgumentException("chunkSize must be >= 4096 and a multiple of 8: " + chunkSize);
        }
        if (preallocate < 0)
        {
            throw new IllegalArgumentException("preallocate must be >= 0: " + preallocate);
        }
        this.chunkSize = chunkSize;
        this.maxPooledSize = Math.min(chunkSize, MAX_POOLED_SIZE);
        final int chunksAhead = (int)Math.min(Math.min(Integer.MAX_VALUE, (preallocate + chunkSize - 1) / chunkSize),
            limit / chunkSize);
        spare = new long[chunksAhead];
        for (int i = chunksAhead - 1; i >= 0; i--)
        {
            final long address = reserve(chunkSize);
            if (address == 0)
            {
                close();
                throw new OutOfMemoryError("cannot preallocate " + preallocate + " bytes of state");
            }
            UnsafeApi.setMemory(address, chunkSize, (byte)0);
            spare[spareCount++] = address;
        }
    }

    /**
     * A durable arena in a mapped file: a new one (the file holding only its header, which this writes)
     * or one reopened as its last {@link #writeHeader()} left it, reading the header only.
     *
     * @param file      the file, mapped over at least {@code limit + HEADER_LENGTH} bytes.
     * @param chunkSize as {@link #NativeArena(int, long)}.
     * @param limit     the most bytes carved from the file beyond its header.
     * @param reopen    whether the file holds an arena already.
     */
    public NativeArena(final MappedFile file, final int chunkSize, final long limit, final boolean reopen)
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("limit must be >= 1: " + limit);
        }
        if (chunkSize < 4096 || (chunkSize & (ALIGNMENT - 1)) != 0)
        {
            throw new IllegalArgumentException("chunkSize must be >= 4096 and a multiple of 8: " + chunkSize);
        }
        this.file = file;
        this.base = file.address();
        this.limit = limit;
        this.chunkSize = chunkSize;
        this.maxPooledSize = Math.min(chunkSize, MAX_POOLED_SIZE);
        this.freeHeads = new long[maxPooledSize / ALIGNMENT + 1];
        this.largeSizes = new long[LARGE_LISTS];
        this.largeHeads = new long[LARGE_LISTS];
        if (!reopen)
        {
            final int cellShift = DirtyChunks.cellShift(file.reserved(), MAP_BYTES);
            UnsafeApi.putInt(base + MAP_SHIFT_OFFSET, cellShift);
            this.dirtyChunks = new DirtyChunks(file, base + MAP_OFFSET, cellShift);
            dirtyChunks.zeroInImage(DIRTY_OFFSET, Long.BYTES);
            bump = HEADER_LENGTH;
            writeHeader();
            written(base, base, MAP_OFFSET);
            return;
        }
        final int cellShift = UnsafeApi.getInt(base + MAP_SHIFT_OFFSET);
        if (cellShift < 12 || cellShift > 40 || DirtyChunks.cellsOf(file.reserved(), cellShift) > MAP_BYTES)
        {
            throw new IllegalStateException(file.path() + " has dirty-map cells of 2^" + cellShift +
                " bytes, which a mapping of " + file.reserved() + " bytes cannot use (a header of another layout)");
        }
        this.dirtyChunks = new DirtyChunks(file, base + MAP_OFFSET, cellShift);
        dirtyChunks.zeroInImage(DIRTY_OFFSET, Long.BYTES);
        bump = UnsafeApi.getLong(base + BUMP_OFFSET);
        cursor = Refs.toAddress(base, UnsafeApi.getLong(base + CURSOR_OFFSET));
        chunkEnd = Refs.toAddress(base, UnsafeApi.getLong(base + CHUNK_END_OFFSET));
        reservedBytes = UnsafeApi.getLong(base + RESERVED_OFFSET);
        usedBytes = UnsafeApi.getLong(base + USED_OFFSET);
        largeCount = UnsafeApi.getInt(base + LARGE_COUNT_OFFSET);
        for (int i = 0; i < largeCount; i++)
        {
            largeSizes[i] = UnsafeApi.getLong(base + ArenaHeaderDescriptor.largeSizeOffset(i));
            largeHeads[i] = Refs.toAddress(base, UnsafeApi.getLong(base + ArenaHeaderDescriptor.largeHeadOffset(i)));
        }
        for (int i = 0; i < freeHeads.length; i++)
        {
            freeHeads[i] = Refs.toAddress(base, UnsafeApi.getLong(base + ArenaHeaderDescriptor.freeHeadOffset(i)));
            if (freeHeads[i] != 0)
            {
                headsInUse = i + 1;
            }
        }
    }

    /** @return the durable file's dirty-chunk tracking, or null in memory. */
    public DirtyChunks dirtyChunks()
    {
        return dirtyChunks;
    }

    /**
     * Marks the durable arena's cell holding {@code address} as written (its dirty-chunk map is in the
     * file's header, at a fixed offset from {@code base}); nothing in memory ({@code base} 0). Every store
     * into a durable arena's records, buckets, groups and links calls it (or {@link #written(long, long, long)})
     * before the store (copy-on-write cuts, docs/DURABILITY.md): the fast path, a cell already dirty, is one
     * load and a branch; a clean cell becomes dirty, and a cell frozen by a cut in flight is copied for the
     * cut first ({@link DirtyChunks#mark(long)}).
     *
     * @param base    the arena's base ({@link #base()}).
     * @param address an address of the arena.
     */
    public static void written(final long base, final long address)
    {
        if (base != 0)
        {
            final long cell = base + MAP_OFFSET + ((address - base) >>> UnsafeApi.getInt(base + MAP_SHIFT_OFFSET));
            if (UnsafeApi.getByte(cell) != DirtyChunks.DIRTY)
            {
                DirtyChunks.markSlow(null, base, cell);
            }
        }
    }

    /**
     * As {@link #written(long, long)} for the bytes {@code [address, address + length)}.
     *
     * @param base    the arena's base.
     * @param address the first byte.
     * @param length  bytes, &gt; 0.
     */
    public static void written(final long base, final long address, final long length)
    {
        if (base != 0)
        {
            final int shift = UnsafeApi.getInt(base + MAP_SHIFT_OFFSET);
            final long last = (address + length - 1 - base) >>> shift;
            for (long cell = (address - base) >>> shift; cell <= last; cell++)
            {
                if (UnsafeApi.getByte(base + MAP_OFFSET + cell) != DirtyChunks.DIRTY)
                {
                    DirtyChunks.markSlow(null, base, base + MAP_OFFSET + cell);
                }
            }
        }
    }

    /** @return the address stored links are relative to: the durable file's, 0 in memory. */
    public long base()
    {
        return base;
    }

    /**
     * Writes the arena's heap-held fields into a durable file's header with its checksum, and clears
     * the dirty flag (the caller then forces the file).
     */
    public void writeHeader()
    {
        UnsafeApi.putLong(base + ArenaHeaderDescriptor.MAGIC_OFFSET, MAGIC);
        UnsafeApi.putInt(base + VERSION_OFFSET, VERSION);
        UnsafeApi.putInt(base + CHUNK_SIZE_OFFSET, chunkSize);
        UnsafeApi.putLong(base + BUMP_OFFSET, bump);
        UnsafeApi.putLong(base + CURSOR_OFFSET, Refs.toStored(base, cursor));
        UnsafeApi.putLong(base + CHUNK_END_OFFSET, Refs.toStored(base, chunkEnd));
        UnsafeApi.putLong(base + RESERVED_OFFSET, reservedBytes);
        UnsafeApi.putLong(base + USED_OFFSET, usedBytes);
        UnsafeApi.putLong(base + LIMIT_OFFSET, limit);
        UnsafeApi.putInt(base + LARGE_COUNT_OFFSET, largeCount);
        for (int i = 0; i < largeCount; i++)
        {
            UnsafeApi.putLong(base + ArenaHeaderDescriptor.largeSizeOffset(i), largeSizes[i]);
            UnsafeApi.putLong(base + ArenaHeaderDescriptor.largeHeadOffset(i), Refs.toStored(base, largeHeads[i]));
        }
        // Only the heads a free may have set (every later one is 0 in the file, as it was made or reopened),
        // and only those that changed: a store into one of the header's 32 pages of heads is a write fault
        // once the kernel wrote the page back, and a cut pays it on the partition thread.
        for (int i = 0; i < headsInUse; i++)
        {
            final long at = base + ArenaHeaderDescriptor.freeHeadOffset(i);
            final long stored = Refs.toStored(base, freeHeads[i]);
            if (UnsafeApi.getLong(at) != stored)
            {
                UnsafeApi.putLong(at, stored);
            }
        }
        UnsafeApi.putLong(base + CRC_OFFSET, liveHeaderCrc());
        UnsafeApi.putLong(base + DIRTY_OFFSET, 0);
    }

    /** Sets a durable file's dirty flag: its image no longer matches a clean close until the next {@link #writeHeader()}. */
    public void markDirty()
    {
        written(base, base + DIRTY_OFFSET);
        UnsafeApi.putLong(base + DIRTY_OFFSET, 1);
    }

    /** @return the durable file's length: its header and the memory carved so far. */
    public long imageLength()
    {
        return bump;
    }

    /**
     * Checks a durable arena file's header as read from disk, without mapping it.
     *
     * @param header the file's first {@link #HEADER_LENGTH} bytes.
     * @param length the file's length.
     * @return what is wrong with it, or null.
     */
    public static String checkHeader(final byte[] header, final long length)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(header);
        if (buffer.getLong(ArenaHeaderDescriptor.MAGIC_OFFSET) != MAGIC)
        {
            return "is not a Junction arena file (bad magic)";
        }
        if (buffer.getLong(CRC_OFFSET) != headerCrc(header))
        {
            return "has a damaged header (checksum mismatch)";
        }
        if (buffer.getInt(VERSION_OFFSET) != VERSION)
        {
            return "has arena format version " + buffer.getInt(VERSION_OFFSET) + ", this build reads " + VERSION;
        }
        if (buffer.getLong(DIRTY_OFFSET) != 0)
        {
            return "was changed after its last clean close (dirty flag set): the process stopped without closing it";
        }
        if (buffer.getLong(BUMP_OFFSET) != length)
        {
            return "is " + length + " bytes long, its header says " + buffer.getLong(BUMP_OFFSET);
        }
        return checkOffsets(buffer, length);
    }

    /**
     * Checks every offset the header holds before the arena follows one: each must be 0 (none) or an
     * aligned offset of carved memory ({@code [HEADER_LENGTH, length]}), so that a header whose checksum
     * matches by accident, or one written by a buggy build, is refused instead of followed to a wild address.
     */
    private static String checkOffsets(final UnsafeBuffer header, final long length)
    {
        if (length < HEADER_LENGTH)
        {
            return "is shorter than its header (" + length + " bytes)";
        }
        String wrong = checkOffset("cursor", header.getLong(CURSOR_OFFSET), length);
        wrong = wrong != null ? wrong : checkOffset("chunk end", header.getLong(CHUNK_END_OFFSET), length);
        if (wrong != null)
        {
            return wrong;
        }
        if (header.getLong(CURSOR_OFFSET) > header.getLong(CHUNK_END_OFFSET))
        {
            return "has a cursor past its chunk's end (" + header.getLong(CURSOR_OFFSET) + " > " +
                header.getLong(CHUNK_END_OFFSET) + ")";
        }
        final int largeCount = header.getInt(LARGE_COUNT_OFFSET);
        if (largeCount < 0 || largeCount > LARGE_LISTS)
        {
            return "has " + largeCount + " large free lists, at most " + LARGE_LISTS;
        }
        for (int i = 0; i < largeCount && wrong == null; i++)
        {
            final long size = header.getLong(ArenaHeaderDescriptor.largeSizeOffset(i));
            if (size < ALIGNMENT || size > length - HEADER_LENGTH || (size & (ALIGNMENT - 1)) != 0)
            {
                return "has a large free list " + i + " of blocks of " + size + " bytes, outside its carved memory";
            }
            wrong = checkOffset("large free list " + i, header.getLong(ArenaHeaderDescriptor.largeHeadOffset(i)), length);
        }
        if (header.getInt(MAP_SHIFT_OFFSET) < 12 || header.getInt(MAP_SHIFT_OFFSET) > 40)
        {
            return "has dirty-map cells of 2^" + header.getInt(MAP_SHIFT_OFFSET) + " bytes (damaged header)";
        }
        // Every head's room up to the map, the padding before it too (zeros in a sound header).
        for (int sizeClass = 0; ArenaHeaderDescriptor.freeHeadOffset(sizeClass + 1) <= MAP_OFFSET && wrong == null; sizeClass++)
        {
            wrong = checkOffset("free list " + sizeClass, header.getLong(ArenaHeaderDescriptor.freeHeadOffset(sizeClass)), length);
        }
        return wrong;
    }

    private static String checkOffset(final String what, final long offset, final long length)
    {
        if (offset != 0 && (offset < HEADER_LENGTH || offset > length || (offset & (ALIGNMENT - 1)) != 0))
        {
            return "has a " + what + " offset " + offset + " outside its carved memory [" + HEADER_LENGTH + ", " + length + "]";
        }
        return null;
    }

    /**
     * Checks a bucket reference read from a reopened durable index before it is followed: the bucket lies
     * in carved memory, holds the key hash the index has for it, and its two row group references are 0 or
     * point into carved memory (a record, or an array with its low bit set). Nothing in memory.
     *
     * @param stored       the bucket's reference as the index stores it.
     * @param bucketLength bytes per bucket.
     * @param hash         the key hash the index keeps the bucket under.
     * @return what is wrong, or null.
     */
    public String checkBucket(final long stored, final int bucketLength, final long hash)
    {
        if (file == null)
        {
            return null;
        }
        if (!holds(stored, bucketLength))
        {
            return "bucket reference " + stored + " outside the arena's carved memory [" + HEADER_LENGTH + ", " + bump + ")";
        }
        final long bucket = base + stored;
        if (UnsafeApi.getLong(bucket + BucketDescriptor.HASH_OFFSET) != hash)
        {
            return "bucket at " + stored + " holds key hash " + UnsafeApi.getLong(bucket + BucketDescriptor.HASH_OFFSET) +
                ", the index keeps it under " + hash;
        }
        for (int side = 0; side < 2; side++)
        {
            final long group = UnsafeApi.getLong(bucket + (side == 0 ? BucketDescriptor.LEFT_ROWS_OFFSET :
                BucketDescriptor.RIGHT_ROWS_OFFSET)) & ~1L;
            if (group != 0 && !holds(group, ALIGNMENT))
            {
                return "bucket at " + stored + " has a row group reference " + group + " outside the arena's carved memory";
            }
        }
        return null;
    }

    /**
     * Whether a stored reference read from a reopened durable file (an index slot, a heap-held offset)
     * points at {@code length} bytes of this arena's carved memory, aligned: checked before the reference
     * is followed, so that a damaged value cannot make native memory be read outside the mapping.
     *
     * @param stored the reference as stored (an offset from {@link #base()}; an address in memory).
     * @param length the bytes the reference is followed for.
     * @return whether {@code [stored, stored + length)} lies in the carved memory.
     */
    public boolean holds(final long stored, final long length)
    {
        if (file == null)
        {
            return true;
        }
        return stored >= HEADER_LENGTH && (stored & (ALIGNMENT - 1)) == 0 && length >= 0 && stored <= bump - length;
    }

    /**
     * {@link #headerCrc(byte[])} of the header in memory, read in scratch-sized pieces: a checkpoint's cut writes
     * the header on the partition thread, and copying the whole header for its checksum allocated 64 KiB a cut.
     */
    private long liveHeaderCrc()
    {
        final CRC32 crc = headerChecksum;
        crc.reset();
        crcOfMemory(crc, base + ArenaHeaderDescriptor.MAGIC_OFFSET, Long.BYTES);
        crcOfMemory(crc, base + CHECKED_FROM, MAP_OFFSET - CHECKED_FROM);
        return crc.getValue();
    }

    private void crcOfMemory(final CRC32 crc, final long address, final int length)
    {
        final byte[] scratch = headerScratch;
        for (int done = 0; done < length; done += scratch.length)
        {
            final int piece = Math.min(scratch.length, length - done);
            UnsafeApi.copyMemory(null, address + done, scratch, BufferUtil.ARRAY_BASE_OFFSET, piece);
            crc.update(scratch, 0, piece);
        }
    }

    private static long headerCrc(final byte[] header)
    {
        final CRC32 crc = new CRC32();
        crc.update(header, ArenaHeaderDescriptor.MAGIC_OFFSET, Long.BYTES);
        // Not the dirty-chunk map: it changes with every write after a persist (and is zeros in an image).
        crc.update(header, CHECKED_FROM, MAP_OFFSET - CHECKED_FROM);
        return crc.getValue();
    }

    /** @return the size a request of {@code length} bytes really takes. */
    public static int alignedSize(final int length)
    {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * @param length bytes wanted, > 0.
     * @return the address of {@link #alignedSize(int)} bytes, not zeroed, or 0 when the arena is at its
     *         limit or the OS has no memory.
     */
    public long allocate(final int length)
    {
        final int size = alignedSize(length);
        final int sizeClass = size >>> 3;
        if (sizeClass < freeHeads.length)
        {
            final long head = freeHeads[sizeClass];
            if (head != 0)
            {
                freeHeads[sizeClass] = Refs.toAddress(base, UnsafeApi.getLong(head));
                usedBytes += size;
                return head;
            }
        }
        if (size > maxPooledSize)
        {
            final long large = file != null ? takeLarge(size) : reserve(size);
            if (large != 0)
            {
                usedBytes += size;
            }
            return large;
        }
        if (cursor + size > chunkEnd)
        {
            final long chunk = spareCount > 0 ? spare[--spareCount] : reserve(chunkSize);
            if (chunk == 0)
            {
                return 0;
            }
            cursor = chunk;
            chunkEnd = cursor + chunkSize;
        }
        final long address = cursor;
        cursor += size;
        usedBytes += size;
        return address;
    }

    /** Returns a record of {@code length} bytes (the length it was allocated with) for reuse. */
    public void free(final long address, final int length)
    {
        final int size = alignedSize(length);
        if (size > maxPooledSize)
        {
            release(address, size);
            return;
        }
        final int sizeClass = size >>> 3;
        if (sizeClass >= freeHeads.length)
        {
            freeHeads = Arrays.copyOf(freeHeads, Math.max(sizeClass + 1, freeHeads.length * 2));
        }
        if (sizeClass >= headsInUse)
        {
            headsInUse = sizeClass + 1;
        }
        written(base, address);
        UnsafeApi.putLong(address, Refs.toStored(base, freeHeads[sizeClass]));
        freeHeads[sizeClass] = address;
        usedBytes -= size;
    }

    /** @return bytes taken from the OS. */
    public long reservedBytes()
    {
        return reservedBytes;
    }

    /** @return bytes in live (allocated, not freed) records. */
    public long usedBytes()
    {
        return usedBytes;
    }

    /** @return the most bytes this arena takes from the OS. */
    public long limit()
    {
        return limit;
    }

    /** Gives a block of its own back to the OS; in a durable arena, to the free list of its exact size. */
    private void release(final long address, final int size)
    {
        if (file != null)
        {
            usedBytes -= size;
            for (int i = 0; i < largeCount; i++)
            {
                if (largeSizes[i] == size)
                {
                    written(base, address);
                    UnsafeApi.putLong(address, Refs.toStored(base, largeHeads[i]));
                    largeHeads[i] = address;
                    return;
                }
            }
            if (largeCount < LARGE_LISTS)
            {
                written(base, address);
                UnsafeApi.putLong(address, 0);
                largeSizes[largeCount] = size;
                largeHeads[largeCount++] = address;
            }
            // Else more distinct large sizes than lists (group arrays come in powers of two, so never
            // in practice): the block stays carved and unused.
            return;
        }
        // Scanned from the newest: large blocks are few, and freed far less often than records.
        for (int i = chunkCount - 1; i >= 0; i--)
        {
            if (chunks[i] == address)
            {
                chunks[i] = chunks[--chunkCount];
                UnsafeApi.freeMemory(address);
                reservedBytes -= size;
                usedBytes -= size;
                return;
            }
        }
        throw new IllegalStateException("not a block of this arena: " + address);
    }

    /** @return a large block of a durable arena, from its exact-size free list or carved anew, or 0. */
    private long takeLarge(final int size)
    {
        for (int i = 0; i < largeCount; i++)
        {
            if (largeSizes[i] == size && largeHeads[i] != 0)
            {
                final long head = largeHeads[i];
                largeHeads[i] = Refs.toAddress(base, UnsafeApi.getLong(head));
                return head;
            }
        }
        return reserve(size);
    }

    /** @return a new block of memory, or 0 when it would pass the limit or the OS refuses. */
    private long reserve(final int size)
    {
        if (size > limit - reservedBytes)
        {
            return 0;
        }
        if (file != null)
        {
            if (!file.ensureLength(bump + size))
            {
                return 0;
            }
            final long address = base + bump;
            bump += size;
            reservedBytes += size;
            return address;
        }
        if (chunkCount == chunks.length)
        {
            chunks = Arrays.copyOf(chunks, chunkCount * 2);
        }
        final long address;
        try
        {
            address = UnsafeApi.allocateMemory(size);
        }
        catch (final OutOfMemoryError malloc)
        {
            // Unsafe reports a null from malloc this way: an answer for the caller, not a dead thread.
            return 0;
        }
        if (address == 0)
        {
            return 0;
        }
        chunks[chunkCount++] = address;
        reservedBytes += size;
        return address;
    }

    /** @return the durable arena's file name ({@link MappedPart}); null in memory. */
    @Override
    public String fileName()
    {
        return file == null ? null : file.path().getFileName().toString();
    }

    /**
     * Takes the durable arena's marks, then writes its header ({@link #writeHeader()}) and adds the header's chunk:
     * the marks live in the header, so they are taken (and cleared) before it is written and the image holds a
     * zero map, the header's chunk summed as written.
     */
    @Override
    public void collect()
    {
        dirtyChunks.collect();
        writeHeader();
        dirtyChunks.collectToo(0);
    }

    /** Forces the durable arena's file to the device ({@link MappedFile#force()}). */
    @Override
    public void force() throws IOException
    {
        file.force();
    }

    /** @return the durable arena file's mapped length. */
    @Override
    public long fileLength()
    {
        return file.length();
    }

    /** Frees every chunk. Idempotent. Addresses handed out before are invalid afterwards. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (file != null)
        {
            // The mapping belongs to the file's owner, who unmaps it after a last writeHeader.
            return;
        }
        for (int i = 0; i < chunkCount; i++)
        {
            UnsafeApi.freeMemory(chunks[i]);
        }
        chunkCount = 0;
        spareCount = 0;
        reservedBytes = 0;
        usedBytes = 0;
        Arrays.fill(freeHeads, 0);
        cursor = 0;
        chunkEnd = 0;
    }
}
