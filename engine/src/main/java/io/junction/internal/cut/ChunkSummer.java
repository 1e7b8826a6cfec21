package io.junction.internal.cut;

import io.junction.internal.state.Chunks;
import io.junction.internal.state.MappedFile;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

import static io.junction.internal.state.Chunks.chunkLength;
import static io.junction.internal.state.Chunks.chunks;

/**
 * The chunk sums of one tracked mapped file ({@link DirtyChunks}): per {@link Chunks#CHUNK_BYTES} chunk the
 * CRC-32C, the CRC-32 and a zero flag as of the last persist or cut, seeded from a fresh file or a verified
 * marker, and summed again for the chunks a persist collected only. Owned by the partition thread (a cut's
 * writer sums into its {@link CutFile}, whose sums {@link DirtyChunks#install} copies here).
 */
final class ChunkSummer
{
    private static final int FULL_ZERO_CRC32C;
    private static final int FULL_ZERO_CRC32;

    static
    {
        final byte[] zeros = new byte[Chunks.CHUNK_BYTES];
        final CRC32C c = new CRC32C();
        c.update(zeros, 0, zeros.length);
        FULL_ZERO_CRC32C = (int)c.getValue();
        final CRC32 d = new CRC32();
        d.update(zeros, 0, zeros.length);
        FULL_ZERO_CRC32 = (int)d.getValue();
    }

    boolean[] zero = new boolean[0];
    int[] crc32c = new int[0];
    int[] crc32 = new int[0];
    /** The file's length at the last sum (or seed). */
    long summedLength;
    long bytesSummed;
    int chunksSummed;

    /** A fresh file of {@code length} bytes: every chunk holds zeros (the file was created by writing zeros). */
    void seedZeros(final long length)
    {
        final int chunks = chunks(length);
        zero = new boolean[chunks];
        crc32c = new int[chunks];
        crc32 = new int[chunks];
        Arrays.fill(zero, true);
        for (int c = 0; c < chunks; c++)
        {
            setZero(c, chunkLength(length, c));
        }
        summedLength = length;
    }

    /**
     * Takes a reopened file's sums as verified against its marker (nothing is dirty).
     *
     * @param name     the file's name, for the message.
     * @param length   its length.
     * @param zeros    per chunk, whether it holds zeros only.
     * @param crc32cs  per chunk, its CRC-32C.
     * @param crc32s   per chunk, its CRC-32.
     */
    void seed(final String name, final long length, final boolean[] zeros, final int[] crc32cs, final int[] crc32s)
    {
        final int chunks = chunks(length);
        if (zeros.length != chunks || crc32cs.length != chunks || crc32s.length != chunks)
        {
            throw new IllegalArgumentException(name + " has " + chunks + " chunks, its sums are for " + zeros.length);
        }
        zero = zeros.clone();
        crc32c = crc32cs.clone();
        crc32 = crc32s.clone();
        summedLength = length;
    }

    /**
     * The second step of a persist, once the collected chunks hold their final bytes: reads and
     * checksums them, from the mapping, and nothing else: every other chunk keeps its sums.
     *
     * @param file      the mapped file.
     * @param collected per chunk, whether {@link DirtyChunks#collect()} took it (cleared here as it is summed).
     * @param scratch   a direct buffer of at least {@link Chunks#CHUNK_BYTES}.
     */
    void sum(final MappedFile file, final boolean[] collected, final ByteBuffer scratch)
    {
        final long length = file.length();
        final int chunks = chunks(length);
        final CRC32C c32c = new CRC32C();
        final CRC32 c32 = new CRC32();
        final long scratchAddress = BufferUtil.address(scratch);
        long summed = 0;
        int count = 0;
        for (int c = 0; c < chunks; c++)
        {
            if (!collected[c])
            {
                continue;
            }
            collected[c] = false;
            final int chunkLength = chunkLength(length, c);
            UnsafeApi.copyMemory(file.address() + ((long)c << Chunks.CHUNK_SHIFT), scratchAddress, chunkLength);
            summed += chunkLength;
            count++;
            if (isZero(scratchAddress, chunkLength))
            {
                setZero(c, chunkLength);
                continue;
            }
            scratch.clear().limit(chunkLength);
            c32c.reset();
            c32.reset();
            c32c.update(scratch.duplicate());
            c32.update(scratch);
            zero[c] = false;
            crc32c[c] = (int)c32c.getValue();
            crc32[c] = (int)c32.getValue();
        }
        summedLength = length;
        bytesSummed = summed;
        chunksSummed = count;
    }

    void setZero(final int c, final int chunkLength)
    {
        zero[c] = true;
        crc32c[c] = zeroCrc32c(chunkLength);
        crc32[c] = zeroCrc32(chunkLength);
    }

    /** @return the CRC-32C of {@code length} zeros (a chunk's, at most {@link Chunks#CHUNK_BYTES}). */
    static int zeroCrc32c(final int length)
    {
        if (length == Chunks.CHUNK_BYTES)
        {
            return FULL_ZERO_CRC32C;
        }
        final CRC32C a = new CRC32C();
        a.update(new byte[length], 0, length);
        return (int)a.getValue();
    }

    /** @return the CRC-32 of {@code length} zeros (a chunk's, at most {@link Chunks#CHUNK_BYTES}). */
    static int zeroCrc32(final int length)
    {
        if (length == Chunks.CHUNK_BYTES)
        {
            return FULL_ZERO_CRC32;
        }
        final CRC32 b = new CRC32();
        b.update(new byte[length], 0, length);
        return (int)b.getValue();
    }

    static boolean isZero(final long address, final int length)
    {
        int i = 0;
        for (; i + 8 <= length; i += 8)
        {
            if (UnsafeApi.getLong(address + i) != 0)
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (UnsafeApi.getByte(address + i) != 0)
            {
                return false;
            }
        }
        return true;
    }
}
