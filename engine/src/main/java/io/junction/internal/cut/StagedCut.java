package io.junction.internal.cut;

import io.junction.internal.state.Chunks;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The cut of one partition's durable state at a checkpoint barrier, taken by the partition thread and
 * written by the partition's background checkpoint writer (docs/DURABILITY.md "What runs where", "Copy-on-write
 * cuts"). At the barrier the partition thread collects each tracked mapped file's dirty chunks and freezes
 * their cells ({@link DirtyChunks#freeze}: no byte copied, no buffer taken), copies the sums of every other
 * chunk (as of the persist or cut before), and writes the heap-held state's image here; the writer then
 * {@link #drain}s the cut chunk by chunk (capture one frozen chunk into its capture buffer, sum it, hand it to
 * the checkpoint's sink, which writes or links it, then the next), and the partition takes the new sums back
 * ({@link DirtyChunks#install}) before its next cut or persist.
 * <pre>
 *   cut (partition thread)      writer thread (drain)                     partition thread again
 *   reset, freeze every file,   per staged chunk, wanted ones first:      (before the next cut, persist, close
 *   heap image, marker encoder  capture (CAS frozen to capturing, copy,   or restore, having waited for the
 *   -&gt; handed over             clean) into one capture buffer; sum;      write)
 *                               sink (zero line, link or chunk file);     install (success) or restage (failure)
 *                               top the side pool up; next                -&gt; owns the cut again
 *                               then chunks.sum, marker, manifest
 * </pre>
 *
 * <p>Staging memory is the writer's one capture buffer (1 MiB, allocated on the writer thread at its first
 * chunk and kept) plus the side pool ({@value #MAX_SIDE_PROP_NAME}), whatever the cut's size: nothing is
 * allocated at the cut. Cells stay frozen until the writer reaches their chunk, so the partition copies the
 * cells it writes before then into side buffers (the existing protocol: CAS frozen to copying, copy, dirty);
 * the writer keeps a few side buffers ready ({@link SidePool#SPARE}, allocated on its thread between chunks).
 * When the side pool is exhausted (or no direct memory is left) the write asks the writer for its chunk
 * ({@code want}) and waits until the writer has captured it, which the writer does next, after the chunk in
 * hand (counted: {@link #sideWaits()}); a write that fails makes every cell still frozen dirty
 * ({@link #abandon()}), which ends such a wait too. The snapshot is exactly the cut either way.
 *
 * <p>Stage A (a copy at the cut: {@code -Djunction.checkpoint.copyOnWrite=false}, a file whose cells are larger
 * than a chunk, or {@link #copyAtCut(boolean)}) copies the dirty chunks into buffers of a pool at the cut, so
 * it is bounded by {@value #MAX_STAGED_PROP_NAME}; a copy-on-write cut is not bounded by it.
 *
 * <p>Ownership, not locking: the cut is owned by the partition thread until it hands it to the writer, and
 * by the writer until the writer reports the write done, except the side pool (a monitor: the partition takes
 * from it, the writer tops it up), the side buffers (taken and filled by the partition while the writer owns
 * the cut, each published by its cell's state) and the wanted chunk (a volatile the partition sets and the
 * writer clears). The single-writer rule: the writer touches only what the partition handed over, the frozen
 * cells of this cut under the CAS protocol, the side buffers published through them, this cut's arrays and
 * the {@link Marker} the partition set (which reads nothing but the cut and immutable fields); never any other
 * part of the live state. The hand-over (a monitor) orders every write of one owner before every read of the
 * next.
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

    /** Where {@link #drain} hands each staged chunk, summed: the checkpoint's writer (writer thread). */
    @FunctionalInterface
    public interface ChunkSink
    {
        /**
         * @param file  the chunk's file of the cut; its sums of the chunk are set.
         * @param i     the staged index of the chunk in {@code file}.
         * @param bytes the chunk's bytes at the cut (position 0, limit its length); valid until this returns.
         * @throws IOException when the chunk cannot be written.
         */
        void chunk(CutFile file, int i, ByteBuffer bytes) throws IOException;
    }

    /**
     * System property: the most bytes of dirty chunks one partition's stage-A cut (a copy at the cut) copies
     * into its pool (direct buffers, which count against {@code -XX:MaxDirectMemorySize}); such a cut with more
     * is checkpointed synchronously instead. A copy-on-write cut is not bounded by it. Default 256 MiB.
     */
    public static final String MAX_STAGED_PROP_NAME = "junction.checkpoint.maxStagedBytes";
    private static final long DEFAULT_MAX_STAGED = Long.getLong(MAX_STAGED_PROP_NAME, 256L << 20);
    /**
     * System property: the most bytes of side buffers one partition's copy-on-write cut may use for cells the
     * partition writes before the writer captured them (default 64 MiB); beyond, such a write asks the writer
     * for its chunk and waits until it is captured.
     */
    public static final String MAX_SIDE_PROP_NAME = "junction.checkpoint.maxSideBytes";
    private static final long DEFAULT_MAX_SIDE = Long.getLong(MAX_SIDE_PROP_NAME, 64L << 20);
    /** {@link #wanted}: no chunk asked for. */
    private static final long NOT_WANTED = -1;

    /**
     * Test seam: when set, run on the writer thread while it holds a cell (its state capturing, before its
     * copy), so that a test can hold the writer there. Null outside tests.
     */
    static volatile Runnable onCapturing;

    private long maxStagedBytes = DEFAULT_MAX_STAGED;
    /** The most buffers the stage-A pool may hold (tests: a pool that cannot grow is direct memory exhausted). */
    private int bufferLimit = Integer.MAX_VALUE;
    private boolean copyAtCut;
    private CutFile[] files = new CutFile[0];
    private int fileCount;

    /** The side buffers of a copy-on-write cut: taken by the partition, topped up by the writer. */
    private final SidePool side = new SidePool((int)Math.min(Integer.MAX_VALUE, DEFAULT_MAX_SIDE >>> Chunks.CHUNK_SHIFT));
    /** Partition thread: writes that found no side buffer and waited for the writer to capture their chunk. */
    private long sideWaits;
    /** The chunk a write waits for ((file position &lt;&lt; 32) | staged index), or {@link #NOT_WANTED}. */
    private volatile long wanted = NOT_WANTED;

    /** Writer thread: the capture buffer (allocated at its first frozen chunk, kept). */
    private ByteBuffer captureBuffer;
    private ByteBuffer[] pool = new ByteBuffer[0];
    private int pooled;
    private int taken;
    private byte[] heap = new byte[0];
    /** The partition thread's view of {@link #heap}, handed out by {@link #heapBuffer} (reset each time). */
    private ByteBuffer heapView = ByteBuffer.wrap(heap);
    private int heapLength;
    private String heapName;
    /** A part of the heap image the writer still has to write into its gap ({@link #heapDeferred}), or null. */
    private DeferredPart deferred;
    private int deferredAt;
    private int deferredRoom;
    private Marker marker;
    private long bytesStaged;
    private long bytesCopied;
    private long synchronousFallbacks;
    private boolean needsFullCut;
    /** The partition thread's time in each part of its last cut (read by the partition thread only). */
    private final CutTimes times = new CutTimes();

    /** Partition thread: empties the cut for a new one (every pooled buffer free again). */
    public void reset()
    {
        fileCount = 0;
        taken = 0;
        side.clear();
        wanted = NOT_WANTED;
        heapLength = 0;
        deferred = null;
        bytesStaged = 0;
        bytesCopied = 0;
        needsFullCut = false;
        marker = null;
    }

    /**
     * Partition thread: the part of the next tracked file.
     *
     * @return a file of the cut, to stage into ({@link DirtyChunks#freeze}).
     */
    public CutFile addFile()
    {
        if (fileCount == files.length)
        {
            files = Arrays.copyOf(files, fileCount + 4);
        }
        if (files[fileCount] == null)
        {
            files[fileCount] = new CutFile();
        }
        files[fileCount].position = fileCount;
        return files[fileCount++];
    }

    /** @return a free chunk buffer of the stage-A pool, cleared ({@link Chunks#CHUNK_BYTES}, direct). */
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
            pool[pooled++] = ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
        }
        final ByteBuffer buffer = pool[taken++];
        buffer.clear();
        return buffer;
    }

    /**
     * Partition thread, while the cut is with the writer: a side buffer of the bounded, reused pool (one the
     * writer made ready, or, when none is, one allocated here), or null when all {@link #maxSideBuffers(int)}
     * are taken or no direct memory is left (the write then waits for the writer to capture the cell).
     */
    ByteBuffer takeSide()
    {
        // None ready (the writer has not started yet): one is allocated here, within the bound.
        return side.take(0, false);
    }

    /** Writer thread: keeps {@link SidePool#SPARE} side buffers ready ({@link SidePool#topUp}). */
    void topUpSide()
    {
        side.topUp();
    }

    /**
     * Partition thread: a write to a frozen cell of staged chunk {@code i} of {@code file} found no side buffer:
     * the writer captures that chunk next ({@link #drain}).
     */
    void want(final CutFile file, final int i)
    {
        final long code = ((long)file.position << 32) | i;
        if (wanted != code)
        {
            wanted = code;
        }
    }

    /** Partition thread: one more write that waited for the writer for want of a side buffer. */
    void sideWaited()
    {
        sideWaits++;
    }

    /** @return writes (since this cut was made) that found no side buffer and waited for the writer's capture. */
    public long sideWaits()
    {
        return sideWaits;
    }

    /** @param buffers the most side buffers (1 MiB each) a cut may use (tests; else {@value #MAX_SIDE_PROP_NAME}). */
    public void maxSideBuffers(final int buffers)
    {
        side.maxBuffers(buffers);
    }

    /** @return the most side buffers a cut may use. */
    public int maxSideBuffers()
    {
        return side.maxBuffers();
    }

    /** @return side buffers the last cut used for cells the partition copied before writing them. */
    public int sideBuffersTaken()
    {
        return side.takenForCopies();
    }

    /** @return chunks the writer of the last cut captured ahead of its write, a side buffer each ({@link #drain}). */
    public int chunksCapturedAhead()
    {
        return side.takenAhead();
    }

    /** @return side buffers the pool holds (its memory: this many MiB). */
    public int sideBuffersPooled()
    {
        return side.pooled();
    }

    /**
     * Writer thread: takes every staged chunk of the cut once, in order of files and chunks but a chunk a
     * waiting write asks for ({@code want}) first: captures it (a frozen chunk, into the one capture buffer;
     * {@code CutFile.captureChunk}), sums it (CRC-32C, CRC-32, zero flag, into the cut's sums) and hands it to
     * {@code sink}, then tops the side pool up, then the next. On return every frozen cell is captured and
     * every staged chunk summed. When the sink throws, the caller {@link #abandon()}s the rest.
     *
     * @param sink where each summed chunk goes (the checkpoint's chunk files).
     * @throws IOException as the sink throws.
     */
    public void drain(final ChunkSink sink) throws IOException
    {
        topUpSide();
        captureAhead();
        final CRC32C c32c = new CRC32C();
        final CRC32 c32 = new CRC32();
        int f = 0;
        int i = 0;
        while (true)
        {
            final CutFile file;
            final int index;
            final long asked = wanted;
            if (asked != NOT_WANTED)
            {
                wanted = NOT_WANTED;
                final CutFile at = files[(int)(asked >>> 32)];
                if (at.captured((int)asked))
                {
                    continue;
                }
                file = at;
                index = (int)asked;
            }
            else
            {
                while (f < fileCount && (i >= files[f].staged || files[f].sunk(i)))
                {
                    if (i >= files[f].staged)
                    {
                        f++;
                        i = 0;
                    }
                    else
                    {
                        i++;
                    }
                }
                if (f == fileCount)
                {
                    return;
                }
                file = files[f];
                index = i;
            }
            final ByteBuffer bytes = file.bytesToSink(index, file.frozen ? captureBuffer() : null);
            sum(file, index, bytes, c32c, c32);
            sink.chunk(file, index, bytes);
            topUpSide();
        }
    }

    /**
     * Writer thread, before the first chunk is written: captures the frozen chunks, in the drain's order, into side
     * buffers of the pool, up to half of what the pool may hold beyond its spares (the other half stays for the
     * partition's copies). A frozen cell costs the partition a copy of it (a cell, 1 MiB) when it writes there before
     * the writer has captured it, and the write takes hundreds of ms for W1's 12 MiB (a probe saw the partition copy
     * 7-12 of them each second): captured first, in a few ms, the cells are free before the partition comes back to
     * most of them. Nothing changes for what the checkpoint holds: each chunk is captured once, by the same protocol,
     * and written later.
     */
    private void captureAhead()
    {
        final int ahead = side.aheadBound();
        int taken = 0;
        for (int f = 0; f < fileCount && taken < ahead; f++)
        {
            final CutFile file = files[f];
            if (!file.frozen)
            {
                continue;
            }
            for (int i = 0; i < file.staged && taken < ahead; i++)
            {
                if (file.captured(i))
                {
                    continue;
                }
                final ByteBuffer buffer = side.take(SidePool.SPARE, true);
                if (buffer == null)
                {
                    return;
                }
                taken++;
                file.captureEarly(i, buffer);
            }
        }
    }


    private ByteBuffer captureBuffer()
    {
        if (captureBuffer == null)
        {
            captureBuffer = ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
        }
        return captureBuffer;
    }

    private static void sum(final CutFile file, final int i, final ByteBuffer bytes, final CRC32C c32c, final CRC32 c32)
    {
        if (Chunks.isZero(bytes))
        {
            file.summed(i, true, ChunkSummer.zeroCrc32c(bytes.limit()), ChunkSummer.zeroCrc32(bytes.limit()));
            return;
        }
        c32c.reset();
        c32.reset();
        c32c.update(bytes.duplicate());
        c32.update(bytes.duplicate());
        file.summed(i, false, (int)c32c.getValue(), (int)c32.getValue());
    }

    /** Writer thread, when its write failed before or while draining: no cell stays frozen (they become dirty). */
    public void abandon()
    {
        for (int f = 0; f < fileCount; f++)
        {
            files[f].abandon();
        }
    }

    /** Counts bytes staged (frozen or copied); {@code copied} of them copied at the cut (stage A). */
    void staged(final long bytes, final boolean copied)
    {
        bytesStaged += bytes;
        if (copied)
        {
            bytesCopied += bytes;
        }
    }

    /**
     * Partition thread: the heap-held state's image goes into {@code image}, an array the caller allocated
     * before the cut (a first cut that allocated its ~400 KiB spent 2.8 ms of its pause on it) and does not
     * write again until the cut is handed back; the writer reads it until then.
     *
     * @param name  the image's file name in the state directory.
     * @param image the array to write the image into, all of it room.
     * @return a heap buffer over it at position 0 to write it into; then {@link #heapWritten(int)}.
     */
    public ByteBuffer heapBuffer(final String name, final byte[] image)
    {
        if (heap != image)
        {
            heap = image;
            heapView = ByteBuffer.wrap(image);
        }
        heapName = name;
        // The one view of the array, reset: a cut takes no buffer while the array stays the same.
        return heapView.clear().order(ByteOrder.BIG_ENDIAN);
    }

    /** @param length bytes of the heap image written into {@link #heapBuffer}. */
    public void heapWritten(final int length)
    {
        heapLength = length;
    }

    /**
     * Writes a part of the heap image on the writer thread, from what the partition thread copied at the cut
     * (a timer wheel: {@code TimerWheelCopy}), so that the cut's pause does not encode it.
     */
    @FunctionalInterface
    public interface DeferredPart
    {
        /** Writer thread: writes the part at {@code out}'s position and moves the position past it. */
        void write(ByteBuffer out);
    }

    /**
     * Partition thread, while writing the heap image: leaves a gap of {@code room} bytes at {@code at} for
     * {@code part}, which the writer writes there before it reads the image ({@link #heap()}); the bytes after
     * the gap (up to {@link #heapWritten}'s length) then follow the part directly, as if it had been written in place.
     *
     * @param at   the gap's offset in the image.
     * @param room the most bytes the part writes.
     * @param part the part, reading only what the partition thread handed over with this cut.
     */
    public void heapDeferred(final int at, final int room, final DeferredPart part)
    {
        if (deferred != null)
        {
            throw new IllegalStateException("a cut's heap image has one deferred part");
        }
        if (part == null || at < 0 || room < 0 || (long)at + room > heap.length)
        {
            throw new IllegalArgumentException("a deferred part of " + room + " bytes at " + at + " in a heap image of " +
                heap.length + " bytes" + (part == null ? ", and no part" : ""));
        }
        deferred = part;
        deferredAt = at;
        deferredRoom = room;
    }

    /**
     * Writer thread: writes the deferred part into its gap and closes the gap (once; nothing when there is none).
     *
     * @throws RuntimeException the buffer's, when the part would write beyond its room (a relative put's
     *                          {@code BufferOverflowException}, an absolute one's {@code IndexOutOfBoundsException}):
     *                          the image is then not used, and every later read fails the same way.
     */
    private void completeHeap()
    {
        final DeferredPart part = deferred;
        if (part == null)
        {
            return;
        }
        final ByteBuffer out = ByteBuffer.wrap(heap).order(ByteOrder.BIG_ENDIAN);
        out.position(deferredAt).limit(deferredAt + deferredRoom);
        // Thrown out of here, the part stays pending: every later read of the image fails the same way.
        part.write(out);
        final int end = out.position();
        final int after = deferredAt + deferredRoom;
        System.arraycopy(heap, after, heap, end, heapLength - after);
        heapLength -= after - end;
        deferred = null;
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
    public CutFile file(final int i)
    {
        return files[i];
    }

    /** @return the file named {@code name}, or null. */
    public CutFile file(final String name)
    {
        for (int i = 0; i < fileCount; i++)
        {
            if (files[i].name().equals(name))
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

    /**
     * Writer thread (the deferred part written first, {@link #heapDeferred}).
     *
     * @return the heap image's bytes, {@link #heapLength()} of them (not a copy: read only).
     */
    public byte[] heap()
    {
        completeHeap();
        return heap;
    }

    /** @return the heap image's length (writer thread: the deferred part written first, {@link #heapDeferred}). */
    public int heapLength()
    {
        completeHeap();
        return heapLength;
    }

    /** @return the most bytes of dirty chunks a stage-A cut copies ({@value #MAX_STAGED_PROP_NAME}). */
    public long maxStagedBytes()
    {
        return maxStagedBytes;
    }

    /** @param bytes the most bytes of dirty chunks a stage-A cut copies (tests; else {@value #MAX_STAGED_PROP_NAME}). */
    public void maxStagedBytes(final long bytes)
    {
        maxStagedBytes = bytes;
    }

    /**
     * @param copy whether every file of this cut is staged by a copy at the cut (stage A), as
     *             {@code -Djunction.checkpoint.copyOnWrite=false} makes it (tests and comparisons).
     */
    public void copyAtCut(final boolean copy)
    {
        copyAtCut = copy;
    }

    /** @return whether this cut copies its dirty chunks at the cut ({@link #copyAtCut(boolean)}). */
    public boolean copiesAtCut()
    {
        return copyAtCut;
    }

    /**
     * @param buffers the most chunk buffers the stage-A pool may hold; one more is refused as direct memory
     *                exhausted ({@link OutOfMemoryError}) is (tests).
     */
    public void bufferLimit(final int buffers)
    {
        bufferLimit = buffers;
    }

    /** Drops the stage-A pool's buffers (after a failed allocation), for the collector to free. */
    public void dropPool()
    {
        pool = new ByteBuffer[0];
        pooled = 0;
        taken = 0;
    }

    /** @return bytes of dirty chunks the cut took (frozen or copied). */
    public long bytesStaged()
    {
        return bytesStaged;
    }

    /** @return bytes of dirty chunks copied at the cut (stage A only; 0 for a copy-on-write cut). */
    public long bytesCopied()
    {
        return bytesCopied;
    }

    /** @return chunk buffers the stage-A pool holds (its memory: this many MiB), for tests and metrics. */
    public int pooledBuffers()
    {
        return pooled;
    }

    /** @return whether the writer's capture buffer is allocated (one chunk, once, on the writer thread). */
    public boolean hasCaptureBuffer()
    {
        return captureBuffer != null;
    }

    /** Partition thread: a stage-A cut refused (beyond its budget or its memory), checkpointed synchronously. */
    public void refused()
    {
        synchronousFallbacks++;
    }

    /** @return cuts refused for the stage-A budget or memory (each checkpointed synchronously instead). */
    public long synchronousFallbacks()
    {
        return synchronousFallbacks;
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
