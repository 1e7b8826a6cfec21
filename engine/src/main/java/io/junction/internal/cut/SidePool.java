package io.junction.internal.cut;

import io.junction.internal.state.Chunks;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The side buffers of one partition's copy-on-write cuts (direct, a chunk each, reused from cut to cut, at most
 * {@link #maxBuffers()}): the partition takes one to copy a frozen cell into before it writes there, the writer
 * takes some to capture frozen chunks ahead of its write, and the writer tops the free ones up between chunks so
 * that the partition seldom allocates. A monitor: the partition and the writer both take from it while the
 * writer owns the cut ({@link StagedCut}).
 */
final class SidePool
{
    /** Side buffers the writer keeps ready (free in the pool) between chunks, while the bound allows. */
    static final int SPARE = 2;

    private final Object lock = new Object();
    /** Guarded by {@link #lock}. */
    private int maxBuffers;
    /** Guarded by {@link #lock}. */
    private ByteBuffer[] buffers = new ByteBuffer[0];
    /** Guarded by {@link #lock}. */
    private int pooled;
    /** Guarded by {@link #lock}. */
    private int taken;
    /** Guarded by {@link #lock}: of {@link #taken}, the buffers the writer took to capture ahead. */
    private int aheadTaken;

    SidePool(final int maxBuffers)
    {
        this.maxBuffers = maxBuffers;
    }

    /** Partition thread, at a new cut: every pooled buffer free again. */
    void clear()
    {
        synchronized (lock)
        {
            taken = 0;
            aheadTaken = 0;
        }
    }

    /**
     * A free buffer of the side pool, leaving {@code keepFree} free, or, when no more are free, one allocated on the
     * calling thread and added within the pool's bound; null when the bound or the direct memory is reached.
     *
     * @param keepFree the free buffers to leave (the writer's capture ahead leaves the partition its spares).
     * @param ahead    whether the writer takes it to capture ahead ({@link #takenAhead}).
     */
    ByteBuffer take(final int keepFree, final boolean ahead)
    {
        synchronized (lock)
        {
            if (pooled - taken > keepFree)
            {
                return takeFree(ahead);
            }
            if (pooled >= maxBuffers)
            {
                return null;
            }
        }
        final ByteBuffer buffer = allocate();
        if (buffer == null)
        {
            return null;
        }
        synchronized (lock)
        {
            if (pooled < maxBuffers)
            {
                add(buffer);
            }
            // Taken: the one just added, or an older free one (the buffers are alike).
            return pooled - taken > keepFree ? takeFree(ahead) : null;
        }
    }

    /** Guarded by {@link #lock}: takes the next free buffer of the side pool. */
    private ByteBuffer takeFree(final boolean ahead)
    {
        if (ahead)
        {
            aheadTaken++;
        }
        return buffers[taken++];
    }

    /** Guarded by {@link #lock}: adds a buffer to the side pool, free. */
    private void add(final ByteBuffer buffer)
    {
        if (pooled == buffers.length)
        {
            buffers = Arrays.copyOf(buffers, Math.max(8, pooled * 2));
        }
        buffers[pooled++] = buffer;
    }

    private static ByteBuffer allocate()
    {
        try
        {
            return ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
        }
        catch (final OutOfMemoryError e)
        {
            return null;
        }
    }

    /**
     * Writer thread: keeps {@link #SPARE} side buffers free in the pool while its bound allows, allocating
     * here (never on the partition thread while the writer runs).
     */
    void topUp()
    {
        while (true)
        {
            synchronized (lock)
            {
                if (pooled - taken >= SPARE || pooled >= maxBuffers)
                {
                    return;
                }
            }
            final ByteBuffer buffer = allocate();
            if (buffer == null)
            {
                return;
            }
            synchronized (lock)
            {
                if (pooled >= maxBuffers)
                {
                    return;
                }
                add(buffer);
            }
        }
    }

    /** @param max the most side buffers (1 MiB each) a cut may use. */
    void maxBuffers(final int max)
    {
        synchronized (lock)
        {
            maxBuffers = max;
        }
    }

    /** @return the most side buffers a cut may use. */
    int maxBuffers()
    {
        synchronized (lock)
        {
            return maxBuffers;
        }
    }

    /** @return how many the writer may take to capture ahead: half of what the pool may hold beyond its spares. */
    int aheadBound()
    {
        synchronized (lock)
        {
            return Math.max(0, (maxBuffers - SPARE) / 2);
        }
    }

    /** @return buffers the last cut used for cells the partition copied before writing them. */
    int takenForCopies()
    {
        synchronized (lock)
        {
            return taken - aheadTaken;
        }
    }

    /** @return buffers the writer of the last cut took to capture chunks ahead of its write. */
    int takenAhead()
    {
        synchronized (lock)
        {
            return aheadTaken;
        }
    }

    /** @return buffers the pool holds (its memory: this many MiB). */
    int pooled()
    {
        synchronized (lock)
        {
            return pooled;
        }
    }
}
