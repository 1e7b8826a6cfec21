package io.junction.internal.state;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The cut of one partition's durable state at a checkpoint barrier, staged by the partition thread and
 * written by the partition's background checkpoint writer (docs/DURABILITY.md "What runs where"). At the
 * barrier the partition thread collects each tracked mapped file's dirty chunks ({@link DirtyChunks#stage})
 * and copies just those chunks' bytes into buffers of this cut's pool, copies the sums of every other chunk
 * (as of the persist or cut before), and writes the heap-held state's image here; the writer then sums the
 * staged chunks, writes the checkpoint from this cut alone, and the partition takes the new sums back
 * ({@link DirtyChunks#install}) before its next cut or persist.
 * <pre>
 *   cut (partition thread)      writer thread                   partition thread again
 *   reset, stage every file,    sumStaged: CRC-32C, CRC-32 and  (before the next cut, persist, close or
 *   heap image, marker encoder  zero flag of the staged chunks; restore, having waited for the write)
 *   -&gt; handed over             chunks.sum, marker, chunks,     install (success) or restage (failure)
 *                               manifest                        -&gt; owns the cut again
 * </pre>
 *
 * <p>Copy-on-write ({@link DirtyChunks#freeze}, docs/DURABILITY.md "Copy-on-write cuts"): the cut takes a
 * staging buffer per dirty chunk without copying and freezes the chunk's cells; the writer first
 * {@link #capture()}s them from the live mapping (CAS frozen to capturing, copy, clean), or from the side
 * buffer the partition copied a cell into before its first store (CAS frozen to copying). The writer
 * touches nothing of the live state but those frozen cells, under that protocol, and the side buffers the
 * partition handed over through their cells' states; a failed write {@link #abandon()}s what it did not
 * capture (dirty, none stays frozen).
 *
 * <p>Ownership, not locking: the cut is owned by the partition thread until it hands it to the writer, and
 * by the writer until the writer reports the write done (except the side buffers, taken and filled by the
 * partition while the writer owns the cut, each published by its cell's state); the hand-over (a monitor) orders every write of one
 * owner before every read of the next. The writer touches only this cut (its files' staged bytes and sums
 * arrays, the heap image) and the {@link Marker} the partition set, which reads nothing but the cut and
 * immutable fields. The pool of chunk buffers is reused from cut to cut: it grows to the most dirty chunks
 * one cut ever staged (bounded by the state's size) and allocates nothing once warm.
 */
public final class StagedCut
{
    /**
     * What hands a cut over behind a public opaque handle (the runtime's handle of {@code JoinOperator.stage}),
     * so that the public operator interface never names this internal type.
     */
    public interface Source
    {
        /** @return the cut behind the handle. */
        StagedCut stagedCut();
    }

    /** Encodes the state's clean marker from a cut whose staged chunks are summed; runs on the writer thread. */
    @FunctionalInterface
    public interface Marker
    {
        /**
         * @param cut the summed cut.
         * @return the marker's bytes.
         */
        byte[] encode(StagedCut cut);
    }

    /** One tracked mapped file of the cut: its length, every chunk's sums, and the staged (dirty) chunks' bytes. */
    public static final class File
    {
        private String name;
        private long length;
        private int chunks;
        private boolean[] zero = new boolean[0];
        private int[] crc32c = new int[0];
        private int[] crc32 = new int[0];
        private int staged;
        private int[] stagedChunks = new int[0];
        private ByteBuffer[] stagedBytes = new ByteBuffer[0];
        /** Copy-on-write: whether the staged chunks are frozen in the live map (captured by the writer). */
        private boolean frozen;
        private boolean captured;
        private long fileAddress;
        private long map;
        private int cellShift;
        private long[] imageZeros = new long[0];
        /** Per staged chunk, the side buffer the partition copied cells of it into (written before the cell's state). */
        private ByteBuffer[] side = new ByteBuffer[0];
        /** Per staged chunk, whether the writer captured it. */
        private boolean[] chunkCaptured = new boolean[0];

        /** Starts the file's part of a cut with the sums of every chunk as of the persist or cut before. */
        void begin(final String fileName, final long fileLength, final boolean[] zeros, final int[] crc32cs, final int[] crc32s)
        {
            name = fileName;
            length = fileLength;
            chunks = DirtyChunks.chunks(fileLength);
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
            captured = false;
        }

        /** Partition thread, at a copy-on-write cut: the staged chunks are frozen in {@code cellMap}, to capture. */
        void frozen(final long address, final long cellMap, final int shift, final long[] zeros)
        {
            frozen = true;
            captured = false;
            fileAddress = address;
            map = cellMap;
            cellShift = shift;
            imageZeros = zeros;
            if (side.length < staged)
            {
                side = new ByteBuffer[stagedChunks.length];
                chunkCaptured = new boolean[stagedChunks.length];
            }
            Arrays.fill(side, null);
            Arrays.fill(chunkCaptured, false);
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
            return stagedBytes[i].limit();
        }

        ByteBuffer side(final int i)
        {
            return side[i];
        }

        void side(final int i, final ByteBuffer buffer)
        {
            side[i] = buffer;
        }

        /**
         * Writer thread: copies every frozen cell of the staged chunks from the live mapping into the staged
         * buffers (CAS frozen to capturing, copy, clean), or, for a cell the partition copied before writing
         * it, from its side buffer; touches nothing else of the mapping. Then zeroes the ranges an image holds
         * as zeros (the arena's map and dirty flag).
         */
        void capture()
        {
            if (!frozen || captured)
            {
                return;
            }
            for (int i = 0; i < staged; i++)
            {
                captureChunk(i);
            }
            captured = true;
        }

        /** Writer thread: {@link #capture()} of staged chunk {@code i} alone (tests interleave it with writes). */
        void captureChunk(final int i)
        {
            if (chunkCaptured[i])
            {
                return;
            }
            chunkCaptured[i] = true;
            final long cellBytes = 1L << cellShift;
            final long chunkAt = (long)stagedChunks[i] << DirtyChunks.CHUNK_SHIFT;
            final long buffer = BufferUtil.address(stagedBytes[i]);
            final int chunkLength = stagedBytes[i].limit();
            final long first = chunkAt >>> cellShift;
            for (long off = 0; off < chunkLength; off += cellBytes)
            {
                final long cell = map + first + (off >>> cellShift);
                final long length = Math.min(cellBytes, chunkLength - off);
                while (true)
                {
                    if (UnsafeApi.compareAndSetByte(null, cell, DirtyChunks.FROZEN, DirtyChunks.CAPTURING))
                    {
                        final Runnable hook = onCapturing;
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
        }

        /** Writer thread, on a failed write: every cell still frozen is made dirty (CAS), so none stays frozen. */
        void abandon()
        {
            if (!frozen || captured)
            {
                return;
            }
            final long cellBytes = 1L << cellShift;
            for (int i = 0; i < staged; i++)
            {
                final long first = ((long)stagedChunks[i] << DirtyChunks.CHUNK_SHIFT) >>> cellShift;
                final int chunkLength = stagedBytes[i].limit();
                for (long off = 0; off < chunkLength; off += cellBytes)
                {
                    UnsafeApi.compareAndSetByte(null, map + first + (off >>> cellShift), DirtyChunks.FROZEN, DirtyChunks.DIRTY);
                }
            }
        }

        /** Adds staged chunk {@code c}, its bytes in {@code bytes} (position 0, limit its length); ascending {@code c}. */
        void add(final int c, final ByteBuffer bytes)
        {
            if (staged == stagedChunks.length)
            {
                final int grown = Math.max(8, staged * 2);
                stagedChunks = Arrays.copyOf(stagedChunks, grown);
                stagedBytes = Arrays.copyOf(stagedBytes, grown);
            }
            stagedChunks[staged] = c;
            stagedBytes[staged] = bytes;
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

        /** @return its {@link DirtyChunks#CHUNK_BYTES} chunks. */
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

        /** @return the bytes of staged chunk {@code i}: a duplicate, position 0, limit the chunk's length. */
        public ByteBuffer stagedBytes(final int i)
        {
            return stagedBytes[i].duplicate();
        }

        /** Writer: sets the sums of staged chunk {@code i}. */
        void summed(final int i, final boolean isZero, final int sumC, final int sum)
        {
            final int c = stagedChunks[i];
            zero[c] = isZero;
            crc32c[c] = sumC;
            crc32[c] = sum;
        }
    }

    /**
     * System property: the most bytes of dirty chunks one partition's cut stages (its pool's memory, direct
     * buffers, which count against {@code -XX:MaxDirectMemorySize}); a cut with more is checkpointed
     * synchronously instead (persisted and copied on the partition thread). Default 256 MiB.
     */
    public static final String MAX_STAGED_PROP_NAME = "junction.checkpoint.maxStagedBytes";
    private static final long DEFAULT_MAX_STAGED = Long.getLong(MAX_STAGED_PROP_NAME, 256L << 20);

    /**
     * Test seam: when set, run on the writer thread while it holds a cell (its state capturing, before its
     * copy), so that a test can hold the writer there. Null outside tests.
     */
    static volatile Runnable onCapturing;

    private long maxStagedBytes = DEFAULT_MAX_STAGED;
    /** The most buffers the pool may hold (tests: a pool that cannot grow is direct memory exhausted). */
    private int bufferLimit = Integer.MAX_VALUE;
    private File[] files = new File[0];
    private int fileCount;
    /**
     * System property: the most bytes of side buffers one partition's copy-on-write cut may use for cells the
     * partition writes before the writer captured them (default 64 MiB); beyond, such a write waits for the
     * writer to capture its cell.
     */
    public static final String MAX_SIDE_PROP_NAME = "junction.checkpoint.maxSideBytes";
    private static final long DEFAULT_MAX_SIDE = Long.getLong(MAX_SIDE_PROP_NAME, 64L << 20);

    private int maxSideBuffers = (int)Math.min(Integer.MAX_VALUE, DEFAULT_MAX_SIDE >>> DirtyChunks.CHUNK_SHIFT);
    private ByteBuffer[] sidePool = new ByteBuffer[0];
    private int sidePooled;
    private int sideTaken;
    private ByteBuffer[] pool = new ByteBuffer[0];
    private int pooled;
    private int taken;
    private byte[] heap = new byte[0];
    private int heapLength;
    private String heapName;
    private Marker marker;
    private long bytesStaged;
    private boolean needsFullCut;
    /** The partition thread's time in each part of its last cut (read by the partition thread only). */
    private final CutTimes times = new CutTimes();

    /** Partition thread: empties the cut for a new one (every pooled buffer free again). */
    public void reset()
    {
        fileCount = 0;
        taken = 0;
        sideTaken = 0;
        heapLength = 0;
        bytesStaged = 0;
        needsFullCut = false;
        marker = null;
    }

    /**
     * Partition thread: the part of the next tracked file.
     *
     * @return a file of the cut, to stage into ({@link DirtyChunks#stage}).
     */
    public File addFile()
    {
        if (fileCount == files.length)
        {
            files = Arrays.copyOf(files, fileCount + 4);
        }
        if (files[fileCount] == null)
        {
            files[fileCount] = new File();
        }
        return files[fileCount++];
    }

    /** @return a free chunk buffer of the pool, cleared ({@link DirtyChunks#CHUNK_BYTES}, direct). */
    ByteBuffer take()
    {
        if (taken == pooled)
        {
            if (pooled >= bufferLimit)
            {
                // As allocateDirect does when direct memory is exhausted.
                throw new OutOfMemoryError("the staging pool holds its limit of " + bufferLimit + " buffers");
            }
            if (pooled == pool.length)
            {
                pool = Arrays.copyOf(pool, Math.max(8, pooled * 2));
            }
            pool[pooled++] = ByteBuffer.allocateDirect(DirtyChunks.CHUNK_BYTES);
        }
        final ByteBuffer buffer = pool[taken++];
        buffer.clear();
        return buffer;
    }

    /**
     * Partition thread, while the cut is with the writer: a side buffer of the bounded, reused pool, or null
     * when all {@link #maxSideBuffers(int)} are taken or no direct memory is left (the write then waits for
     * the writer to capture the cell).
     */
    ByteBuffer takeSide()
    {
        if (sideTaken == sidePooled)
        {
            if (sidePooled >= maxSideBuffers)
            {
                return null;
            }
            final ByteBuffer buffer;
            try
            {
                buffer = ByteBuffer.allocateDirect(DirtyChunks.CHUNK_BYTES);
            }
            catch (final OutOfMemoryError e)
            {
                return null;
            }
            if (sidePooled == sidePool.length)
            {
                sidePool = Arrays.copyOf(sidePool, Math.max(8, sidePooled * 2));
            }
            sidePool[sidePooled++] = buffer;
        }
        return sidePool[sideTaken++];
    }

    /** @param buffers the most side buffers (1 MiB each) a cut may use (tests; else {@value #MAX_SIDE_PROP_NAME}). */
    public void maxSideBuffers(final int buffers)
    {
        maxSideBuffers = buffers;
    }

    /** @return the most side buffers a cut may use. */
    public int maxSideBuffers()
    {
        return maxSideBuffers;
    }

    /** @return side buffers the last cut used (cells the partition copied before writing them). */
    public int sideBuffersTaken()
    {
        return sideTaken;
    }

    /**
     * Writer thread, first thing in a write (idempotent; {@link #sumStaged()} does it too): captures every
     * frozen cell of a copy-on-write cut into its staged buffers ({@link File#capture()}).
     */
    public void capture()
    {
        for (int f = 0; f < fileCount; f++)
        {
            files[f].capture();
        }
    }

    /** Writer thread, when its write failed before or while capturing: no cell stays frozen (they become dirty). */
    public void abandon()
    {
        for (int f = 0; f < fileCount; f++)
        {
            files[f].abandon();
        }
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

    /** Counts bytes staged. */
    void staged(final long bytes)
    {
        bytesStaged += bytes;
    }

    /**
     * Partition thread: room for the heap-held state's image.
     *
     * @param name     the image's file name in the state directory.
     * @param capacity the most bytes it may take.
     * @return a heap buffer at position 0 to write it into; then {@link #heapWritten(int)}.
     */
    public ByteBuffer heapBuffer(final String name, final int capacity)
    {
        if (heap.length < capacity)
        {
            heap = new byte[capacity];
        }
        heapName = name;
        return ByteBuffer.wrap(heap, 0, capacity);
    }

    /** @param length bytes of the heap image written into {@link #heapBuffer}. */
    public void heapWritten(final int length)
    {
        heapLength = length;
    }

    /** @param encoder the marker's encoder (reads only this cut and immutable fields: it runs on the writer). */
    public void marker(final Marker encoder)
    {
        marker = encoder;
    }

    /** @return the marker's encoder. */
    public Marker marker()
    {
        return marker;
    }

    /** @return the partition thread's time in each part of its last cut ({@code PartitionState.stage} fills it). */
    public CutTimes times()
    {
        return times;
    }

    /** @return the tracked files of the cut. */
    public int files()
    {
        return fileCount;
    }

    /** @return tracked file {@code i}. */
    public File file(final int i)
    {
        return files[i];
    }

    /** @return the file named {@code name}, or null. */
    public File file(final String name)
    {
        for (int i = 0; i < fileCount; i++)
        {
            if (files[i].name.equals(name))
            {
                return files[i];
            }
        }
        return null;
    }

    /** @return the heap image's file name. */
    public String heapName()
    {
        return heapName;
    }

    /** @return the heap image's bytes, {@link #heapLength()} of them (not a copy: read only). */
    public byte[] heap()
    {
        return heap;
    }

    /** @return the heap image's length. */
    public int heapLength()
    {
        return heapLength;
    }

    /** @return the most bytes of dirty chunks this cut stages ({@value #MAX_STAGED_PROP_NAME}). */
    public long maxStagedBytes()
    {
        return maxStagedBytes;
    }

    /** @param bytes the most bytes of dirty chunks this cut stages (tests; else {@value #MAX_STAGED_PROP_NAME}). */
    public void maxStagedBytes(final long bytes)
    {
        maxStagedBytes = bytes;
    }

    /**
     * @param buffers the most chunk buffers the pool may hold; one more is refused as direct memory
     *                exhausted ({@link OutOfMemoryError}) is (tests).
     */
    public void bufferLimit(final int buffers)
    {
        bufferLimit = buffers;
    }

    /** Drops the pool's buffers (after a failed allocation), for the collector to free. */
    public void dropPool()
    {
        pool = new ByteBuffer[0];
        pooled = 0;
        taken = 0;
    }

    /** @return bytes of dirty chunks copied at the cut. */
    public long bytesStaged()
    {
        return bytesStaged;
    }

    /** @return chunk buffers the pool holds (its memory: this many MiB), for tests and metrics. */
    public int pooledBuffers()
    {
        return pooled;
    }

    /**
     * Writer: sums every staged chunk (CRC-32C, CRC-32, zero flag) from its staged bytes, into the cut's
     * sums arrays.
     */
    public void sumStaged()
    {
        capture();
        final CRC32C c32c = new CRC32C();
        final CRC32 c32 = new CRC32();
        for (int f = 0; f < fileCount; f++)
        {
            final File file = files[f];
            for (int i = 0; i < file.staged; i++)
            {
                final ByteBuffer bytes = file.stagedBytes[i];
                if (isZero(bytes))
                {
                    file.summed(i, true, DirtyChunks.zeroCrc32c(bytes.limit()), DirtyChunks.zeroCrc32(bytes.limit()));
                    continue;
                }
                c32c.reset();
                c32.reset();
                c32c.update(bytes.duplicate());
                c32.update(bytes.duplicate());
                file.summed(i, false, (int)c32c.getValue(), (int)c32.getValue());
            }
        }
    }

    private static boolean isZero(final ByteBuffer chunk)
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

    /**
     * Writer: a chunk of the cut that neither was staged nor is in the previous checkpoint (it was pruned):
     * the next cut must stage every chunk ({@link #needsFullCut()}).
     */
    public void baseMissing()
    {
        needsFullCut = true;
    }

    /** @return whether the write found a chunk it could neither take from the cut nor link: the next cut stages all. */
    public boolean needsFullCut()
    {
        return needsFullCut;
    }
}
