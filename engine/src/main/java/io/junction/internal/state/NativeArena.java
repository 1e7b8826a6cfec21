package io.junction.internal.state;

import org.agrona.UnsafeApi;

import java.util.Arrays;

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
 * <p>Not thread safe: owned by the partition thread. {@link #reservedBytes()} and
 * {@link #usedBytes()} are plain reads, published to other threads by the owner.
 */
public final class NativeArena implements AutoCloseable
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

    private final int chunkSize;
    private final int maxPooledSize;
    private final long limit;
    private long[] chunks = new long[16];
    private int chunkCount;
    private long cursor;
    private long chunkEnd;
    private long[] freeHeads = new long[64];
    private long reservedBytes;
    private long usedBytes;
    private boolean closed;
    /** Chunks taken and touched up front, handed out before asking the OS for more. */
    private long[] spare = new long[0];
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
                freeHeads[sizeClass] = UnsafeApi.getLong(head);
                usedBytes += size;
                return head;
            }
        }
        if (size > maxPooledSize)
        {
            final long large = reserve(size);
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
        UnsafeApi.putLong(address, freeHeads[sizeClass]);
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

    /** Gives a block of its own back to the OS. */
    private void release(final long address, final int size)
    {
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

    /** @return a new block of memory, or 0 when it would pass the limit or the OS refuses. */
    private long reserve(final int size)
    {
        if (size > limit - reservedBytes)
        {
            return 0;
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

    /** Frees every chunk. Idempotent. Addresses handed out before are invalid afterwards. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
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
