package io.junction.internal.state;

import java.nio.ByteBuffer;

/**
 * The chunk every state file is cut into: the unit the dirty map tracks, the cut stages, the checkpoints
 * store as a file each and the clean marker checksums. One size for all of them, since a checkpoint's
 * chunks, the marker's sums and the dirty cells must line up. Stateless; any thread.
 */
public final class Chunks
{
    /** log2 of {@link #CHUNK_BYTES}. */
    public static final int CHUNK_SHIFT = 20;
    /** Bytes per checksummed chunk: the checkpoints' and the clean marker's chunk. */
    public static final int CHUNK_BYTES = 1 << CHUNK_SHIFT;

    private Chunks()
    {
    }

    /** @return the number of {@link #CHUNK_BYTES} chunks of a file of {@code length} bytes. */
    public static int chunks(final long length)
    {
        return (int)((length + CHUNK_BYTES - 1) >>> CHUNK_SHIFT);
    }

    /** @return the bytes of chunk {@code c} of a file of {@code length} bytes. */
    public static int chunkLength(final long length, final int c)
    {
        return (int)Math.min(CHUNK_BYTES, length - ((long)c << CHUNK_SHIFT));
    }

    /** @return whether the bytes from the buffer's position to its limit are all zero (the buffer is not moved). */
    public static boolean isZero(final ByteBuffer chunk)
    {
        final ByteBuffer b = chunk.duplicate();
        while (b.remaining() >= 8)
        {
            if (b.getLong() != 0)
            {
                return false;
            }
        }
        while (b.hasRemaining())
        {
            if (b.get() != 0)
            {
                return false;
            }
        }
        return true;
    }
}
