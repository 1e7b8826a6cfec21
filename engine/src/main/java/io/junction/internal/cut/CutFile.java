package io.junction.internal.cut;

import io.junction.internal.state.Chunks;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One tracked mapped file of a {@link StagedCut}: its length, every chunk's sums, and the staged (dirty) chunks,
 * frozen in the live mapping (copy-on-write, captured by the writer under the cell protocol) or copied at the
 * cut (stage A). Owned as its cut is: by the partition thread until the hand-over, then by the writer, except
 * the side buffers, which the partition fills while the writer owns the cut and publishes through each cell's
 * state ({@link DirtyChunks}).
 */
public final class CutFile
{
    private String name;
    int position;
    private long length;
    private int chunks;
    private boolean[] zero = new boolean[0];
    private int[] crc32c = new int[0];
    private int[] crc32 = new int[0];
    int staged;
    private int[] stagedChunks = new int[0];
    private int[] stagedLengths = new int[0];
    /** Stage A (a copy at the cut): per staged chunk its bytes; null entries for a frozen file. */
    private ByteBuffer[] stagedBytes = new ByteBuffer[0];
    /** Copy-on-write: whether the staged chunks are frozen in the live map (captured by the writer). */
    boolean frozen;
    private long fileAddress;
    private long map;
    private int cellShift;
    private long[] imageZeros = new long[0];
    /** Per staged chunk, the side buffer the partition copied cells of it into (written before the cell's state). */
    private ByteBuffer[] side = new ByteBuffer[0];
    /** Per staged chunk, whether the writer captured it (writer thread only, once handed over). */
    private boolean[] chunkCaptured = new boolean[0];
    /** Per staged chunk, its bytes when the writer captured it ahead of the write, until sunk (writer thread). */
    private ByteBuffer[] early = new ByteBuffer[0];
    /** Per staged chunk, whether the writer handed it to the sink (writer thread). */
    private boolean[] chunkSunk = new boolean[0];

    /** Starts the file's part of a cut with the sums of every chunk as of the persist or cut before. */
    void begin(final String fileName, final long fileLength, final boolean[] zeros, final int[] crc32cs, final int[] crc32s)
    {
        name = fileName;
        length = fileLength;
        chunks = Chunks.chunks(fileLength);
        if (zero.length < chunks)
        {
            zero = new boolean[chunks];
            crc32c = new int[chunks];
            crc32 = new int[chunks];
        }
        System.arraycopy(zeros, 0, zero, 0, chunks);
        System.arraycopy(crc32cs, 0, crc32c, 0, chunks);
        System.arraycopy(crc32s, 0, crc32, 0, chunks);
        staged = 0;
        frozen = false;
    }

    /** Partition thread, at a copy-on-write cut: the staged chunks are frozen in {@code cellMap}, to capture. */
    void frozen(final long address, final long cellMap, final int shift, final long[] zeros)
    {
        frozen = true;
        fileAddress = address;
        map = cellMap;
        cellShift = shift;
        imageZeros = zeros;
    }

    /** @return the staged index of chunk {@code c} (frozen, so staged). */
    int indexOf(final int c)
    {
        final int i = Arrays.binarySearch(stagedChunks, 0, staged, c);
        if (i < 0)
        {
            throw new IllegalStateException(name + ": chunk " + c + " is frozen but not in the cut");
        }
        return i;
    }

    /** @return the bytes of staged chunk {@code i}. */
    int chunkLengthOf(final int i)
    {
        return stagedLengths[i];
    }

    ByteBuffer side(final int i)
    {
        return side[i];
    }

    void side(final int i, final ByteBuffer buffer)
    {
        side[i] = buffer;
    }

    /** @return the file's position among the cut's files ({@link StagedCut#file(int)}). */
    int position()
    {
        return position;
    }

    /** @return whether the writer has taken staged chunk {@code i} (writer thread). */
    boolean captured(final int i)
    {
        return chunkCaptured[i];
    }

    /** @return whether the writer has handed staged chunk {@code i} to the sink (writer thread). */
    boolean sunk(final int i)
    {
        return chunkSunk[i];
    }

    /**
     * Writer thread: the bytes of staged chunk {@code i} for the sink, once: those captured ahead of the write
     * ({@link StagedCut#drain}), else captured now into {@code into} ({@link #captureChunk}).
     */
    ByteBuffer bytesToSink(final int i, final ByteBuffer into)
    {
        chunkSunk[i] = true;
        final ByteBuffer bytes = early[i];
        if (bytes == null)
        {
            return captureChunk(i, into);
        }
        early[i] = null;
        return bytes;
    }

    /** Writer thread: captures staged chunk {@code i} now, into {@code into} (a side buffer the writer took), for the sink later. */
    void captureEarly(final int i, final ByteBuffer into)
    {
        early[i] = captureChunk(i, into);
    }

    /**
     * Writer thread: the bytes of staged chunk {@code i} at the cut, once. A frozen chunk is captured into
     * {@code into}: every cell copied from the live mapping (CAS frozen to capturing, copy, clean) or, for a
     * cell the partition copied before writing it, from its side buffer, then the ranges an image holds as
     * zeros (the arena's map and dirty flag) zeroed; touches nothing else of the mapping. A chunk staged by
     * copy (stage A) is its staged buffer.
     *
     * @param i    a staged index not captured yet.
     * @param into a direct buffer of at least {@link Chunks#CHUNK_BYTES}, for a frozen chunk.
     * @return the chunk's bytes, position 0, limit its length.
     */
    ByteBuffer captureChunk(final int i, final ByteBuffer into)
    {
        if (chunkCaptured[i])
        {
            throw new IllegalStateException(name + ": staged chunk " + i + " was captured already");
        }
        chunkCaptured[i] = true;
        if (!frozen)
        {
            return stagedBytes[i].duplicate();
        }
        final long cellBytes = 1L << cellShift;
        final long chunkAt = (long)stagedChunks[i] << Chunks.CHUNK_SHIFT;
        final long buffer = BufferUtil.address(into);
        final int chunkLength = stagedLengths[i];
        final long first = chunkAt >>> cellShift;
        for (long off = 0; off < chunkLength; off += cellBytes)
        {
            final long cell = map + first + (off >>> cellShift);
            final long length = Math.min(cellBytes, chunkLength - off);
            while (true)
            {
                if (UnsafeApi.compareAndSetByte(null, cell, DirtyChunks.FROZEN, DirtyChunks.CAPTURING))
                {
                    final Runnable hook = StagedCut.onCapturing;
                    if (hook != null)
                    {
                        hook.run();
                    }
                    UnsafeApi.copyMemory(fileAddress + chunkAt + off, buffer + off, length);
                    UnsafeApi.putByteVolatile(null, cell, DirtyChunks.CLEAN);
                    break;
                }
                final byte state = UnsafeApi.getByteVolatile(null, cell);
                if (state == DirtyChunks.COPYING || state == DirtyChunks.FROZEN)
                {
                    Thread.onSpinWait();
                    continue;
                }
                // The partition copied the cell before its first store into it.
                UnsafeApi.copyMemory(BufferUtil.address(side[i]) + off, buffer + off, length);
                break;
            }
        }
        zeroRanges(buffer, chunkAt, chunkLength, imageZeros);
        final ByteBuffer bytes = into.duplicate();
        bytes.clear().limit(chunkLength);
        return bytes;
    }

    /** Writer thread, on a failed write: every cell still frozen is made dirty (CAS), so none stays frozen. */
    void abandon()
    {
        if (!frozen)
        {
            return;
        }
        final long cellBytes = 1L << cellShift;
        for (int i = 0; i < staged; i++)
        {
            if (chunkCaptured[i])
            {
                continue;
            }
            final long first = ((long)stagedChunks[i] << Chunks.CHUNK_SHIFT) >>> cellShift;
            final int chunkLength = stagedLengths[i];
            for (long off = 0; off < chunkLength; off += cellBytes)
            {
                UnsafeApi.compareAndSetByte(null, map + first + (off >>> cellShift), DirtyChunks.FROZEN, DirtyChunks.DIRTY);
            }
        }
    }

    /**
     * Adds staged chunk {@code c} of {@code chunkLength} bytes; ascending {@code c}.
     *
     * @param bytes its bytes (stage A: position 0, limit its length), or null for a chunk frozen in place.
     */
    void add(final int c, final int chunkLength, final ByteBuffer bytes)
    {
        if (staged == stagedChunks.length)
        {
            final int grown = Math.max(8, staged * 2);
            stagedChunks = Arrays.copyOf(stagedChunks, grown);
            stagedLengths = Arrays.copyOf(stagedLengths, grown);
            stagedBytes = Arrays.copyOf(stagedBytes, grown);
            side = Arrays.copyOf(side, grown);
            chunkCaptured = Arrays.copyOf(chunkCaptured, grown);
            early = Arrays.copyOf(early, grown);
            chunkSunk = Arrays.copyOf(chunkSunk, grown);
        }
        stagedChunks[staged] = c;
        stagedLengths[staged] = chunkLength;
        stagedBytes[staged] = bytes;
        side[staged] = null;
        chunkCaptured[staged] = false;
        early[staged] = null;
        chunkSunk[staged] = false;
        staged++;
    }

    /** @return the file's name in the state directory. */
    public String name()
    {
        return name;
    }

    /** @return its length at the cut. */
    public long length()
    {
        return length;
    }

    /** @return its {@link Chunks#CHUNK_BYTES} chunks. */
    public int chunks()
    {
        return chunks;
    }

    /** @return whether chunk {@code c} holds zeros only (a staged chunk's once summed). */
    public boolean zero(final int c)
    {
        return zero[c];
    }

    /** @return chunk {@code c}'s CRC-32C (a staged chunk's once summed). */
    public int crc32c(final int c)
    {
        return crc32c[c];
    }

    /** @return chunk {@code c}'s CRC-32 (a staged chunk's once summed). */
    public int crc32(final int c)
    {
        return crc32[c];
    }

    /** @return per chunk, zero flags, exactly {@link #chunks()} (a copy). */
    public boolean[] zeros()
    {
        return Arrays.copyOf(zero, chunks);
    }

    /** @return per chunk, CRC-32Cs, exactly {@link #chunks()} (a copy). */
    public int[] crc32cs()
    {
        return Arrays.copyOf(crc32c, chunks);
    }

    /** @return per chunk, CRC-32s, exactly {@link #chunks()} (a copy). */
    public int[] crc32s()
    {
        return Arrays.copyOf(crc32, chunks);
    }

    /** @return the staged chunks. */
    public int staged()
    {
        return staged;
    }

    /** @return the chunk number of staged chunk {@code i} (ascending in {@code i}). */
    public int stagedChunk(final int i)
    {
        return stagedChunks[i];
    }

    /** @return whether the staged chunks are frozen in the live mapping (copy-on-write), not copied at the cut. */
    public boolean frozen()
    {
        return frozen;
    }

    /**
     * Partition thread, installing a written cut: copies each staged chunk's zero flag and sums into a
     * tracking's arrays, in one loop over this file's own arrays (no call per chunk: the install runs in the
     * interpreter for a run's first minutes, and W1-big's first cut stages 1,250 chunks).
     *
     * @param zeros   the tracking's zero flags, one per chunk, at least as many as this file's.
     * @param crc32cs the tracking's CRC-32Cs.
     * @param crc32s  the tracking's CRC-32s.
     */
    public void copyStagedSums(final boolean[] zeros, final int[] crc32cs, final int[] crc32s)
    {
        for (int i = 0; i < staged; i++)
        {
            final int c = stagedChunks[i];
            zeros[c] = zero[c];
            crc32cs[c] = crc32c[c];
            crc32s[c] = crc32[c];
        }
    }

    /** Writer: sets the sums of staged chunk {@code i}. */
    void summed(final int i, final boolean isZero, final int sumC, final int sum)
    {
        final int c = stagedChunks[i];
        zero[c] = isZero;
        crc32c[c] = sumC;
        crc32[c] = sum;
    }

    /**
     * Zeroes, in a chunk's copy at {@code buffer} (the file's bytes from {@code chunkAt}), the parts of the
     * (offset, length) pairs {@code zeros} that an image holds as zeros.
     */
    static void zeroRanges(final long buffer, final long chunkAt, final int chunkLength, final long[] zeros)
    {
        for (int z = 0; z < zeros.length; z += 2)
        {
            final long from = Math.max(chunkAt, zeros[z]);
            final long to = Math.min(chunkAt + chunkLength, zeros[z] + zeros[z + 1]);
            if (from < to)
            {
                UnsafeApi.setMemory(buffer + from - chunkAt, to - from, (byte)0);
            }
        }
    }
}
