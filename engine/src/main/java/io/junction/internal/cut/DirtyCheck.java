package io.junction.internal.cut;

import io.junction.internal.state.Chunks;
import io.junction.internal.state.MappedFile;

import org.agrona.UnsafeApi;

/**
 * Check mode of one {@link DirtyChunks} (a test aid, on with {@value DirtyChunks#CHECK_PROP_NAME}): a copy of
 * the file as of its last sum, and the check, at each collect, that every cell no write marked still holds
 * those bytes, so that a write path that forgot its mark fails a durable test by name instead of losing a
 * checkpoint's chunk. Off the hot path (its tracking's persists only); owned by the partition thread.
 */
final class DirtyCheck implements AutoCloseable
{
    private final String name;
    private final MappedFile file;
    private final long map;
    private final long cells;
    private final int cellShift;
    private final boolean ownsMap;
    /** A copy of the file as of the last sum (or seed), {@code shadowCapacity} bytes; 0 before the first. */
    private long shadow;
    private long shadowCapacity;

    DirtyCheck(final String name, final MappedFile file, final long map, final long cells, final int cellShift,
        final boolean ownsMap)
    {
        this.name = name;
        this.file = file;
        this.map = map;
        this.cells = cells;
        this.cellShift = cellShift;
        this.ownsMap = ownsMap;
    }

    /**
     * Check mode: every cell no write marked must hold what it held at the last sum (zeros past the
     * old length, which the file grew by).
     */
    void unmarkedCells(final long length, final long summedLength)
    {
        final long cellBytes = 1L << cellShift;
        // A map in the file's own header (the arena's) changes with every mark, and is zeros when summed.
        final long mapFrom = ownsMap ? -1 : map - file.address();
        final long mapTo = ownsMap ? -1 : mapFrom + cells;
        for (long cell = 0; cell << cellShift < length; cell++)
        {
            if (UnsafeApi.getByte(map + cell) != 0)
            {
                continue;
            }
            final long from = cell << cellShift;
            final long to = Math.min(length, from + cellBytes);
            if ((to <= mapFrom || from >= mapTo) && (to <= summedLength ? sameBytes(from, to)
                : from >= summedLength && ChunkSummer.isZero(file.address() + from, (int)(to - from))))
            {
                continue;
            }
            for (long at = from; at < to; at++)
            {
                if (at >= mapFrom && at < mapTo)
                {
                    continue;
                }
                final byte expected = at < summedLength ? UnsafeApi.getByte(shadow + at) : 0;
                if (UnsafeApi.getByte(file.address() + at) != expected)
                {
                    throw new IllegalStateException(name + " byte " + at + " (chunk " + (at >>> Chunks.CHUNK_SHIFT) +
                        ", cell " + cell + ") changed without a dirty mark: a write path does not mark what it writes");
                }
            }
        }
    }

    private boolean sameBytes(final long from, final long to)
    {
        long at = from;
        for (; at + 8 <= to; at += 8)
        {
            if (UnsafeApi.getLong(file.address() + at) != UnsafeApi.getLong(shadow + at))
            {
                return false;
            }
        }
        for (; at < to; at++)
        {
            if (UnsafeApi.getByte(file.address() + at) != UnsafeApi.getByte(shadow + at))
            {
                return false;
            }
        }
        return true;
    }

    /** Copies the file as it is now (after a sum or seed): what {@link #unmarkedCells} compares with. */
    void copy()
    {
        final long length = file.length();
        if (length > shadowCapacity)
        {
            if (shadow != 0)
            {
                UnsafeApi.freeMemory(shadow);
            }
            shadow = UnsafeApi.allocateMemory(length);
            shadowCapacity = length;
        }
        if (length > 0)
        {
            UnsafeApi.copyMemory(file.address(), shadow, length);
        }
    }

    /** Frees the copy; idempotent. */
    @Override
    public void close()
    {
        if (shadow != 0)
        {
            UnsafeApi.freeMemory(shadow);
            shadow = 0;
        }
    }
}
