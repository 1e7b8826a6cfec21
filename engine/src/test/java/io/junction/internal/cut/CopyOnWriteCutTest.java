package io.junction.internal.cut;

import io.junction.internal.state.Chunks;
import io.junction.internal.state.MappedFile;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Copy-on-write cuts (docs/DURABILITY.md "Copy-on-write cuts"): the cut freezes the dirty chunks' cells
 * ({@link DirtyChunks#freeze}), the writer captures them from the live mapping ({@link StagedCut#capture()}),
 * and a write to a frozen cell copies it to a side buffer first: the captured bytes are the state at the cut
 * whatever the partition writes meanwhile, a write to the cell the writer holds waits for that one copy, a
 * failed write leaves no cell frozen and its chunks are taken again, and a write that finds no side buffer
 * waits for the writer. A randomized differential (fixed seeds) applies every cut's captured chunks to a model
 * image and compares it with the file at the cut. Runs in the suites' check mode too (every unmarked write is
 * refused at the next collect).
 */
class CopyOnWriteCutTest
{
    private static final int MIB = Chunks.CHUNK_BYTES;

    @AfterEach
    void clearSeams()
    {
        StagedCut.onCapturing = null;
        DirtyChunks.onCellWait = null;
    }

    /** A write path's order: the mark, then the store. */
    private static void write(final DirtyChunks dirty, final MappedFile file, final long offset, final byte[] bytes)
    {
        dirty.mark(file.address() + offset, bytes.length);
        new UnsafeBuffer(file.address() + offset, bytes.length).putBytes(0, bytes);
    }

    private static void writeLong(final DirtyChunks dirty, final MappedFile file, final long offset, final long value)
    {
        dirty.mark(file.address() + offset, Long.BYTES);
        UnsafeApi.putLong(file.address() + offset, value);
    }

    private static CutFile cut(final DirtyChunks dirty, final StagedCut cut)
    {
        cut.reset();
        dirty.collect();
        final CutFile out = cut.addFile();
        dirty.freeze(out, cut);
        return out;
    }

    private static byte[] contents(final MappedFile file)
    {
        final byte[] bytes = new byte[(int)file.length()];
        new UnsafeBuffer(file.address(), bytes.length).getBytes(0, bytes);
        return bytes;
    }

    /** The writer's drain of the cut (capture, sum, hand over one chunk at a time): each staged chunk's bytes. */
    private static byte[][] drain(final StagedCut cut, final CutFile out) throws IOException
    {
        final byte[][] chunks = new byte[out.staged()][];
        cut.drain((file, i, bytes) ->
        {
            if (file == out)
            {
                chunks[i] = bytes(bytes);
            }
        });
        return chunks;
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final byte[] copy = new byte[buffer.remaining()];
        buffer.duplicate().get(copy);
        return copy;
    }

    /** Applies the cut's captured chunks to {@code model} (grown to the cut's length): a restore of it. */
    private static byte[] apply(final byte[] model, final CutFile out, final byte[][] captured)
    {
        final byte[] image = Arrays.copyOf(model, (int)out.length());
        for (int i = 0; i < out.staged(); i++)
        {
            System.arraycopy(captured[i], 0, image, out.stagedChunk(i) * MIB, captured[i].length);
        }
        return image;
    }

    private static byte[] chunk(final byte[] bytes, final int c)
    {
        return Arrays.copyOfRange(bytes, c * MIB, Math.min(bytes.length, (c + 1) * MIB));
    }


    /**
     * The writer captures the frozen chunks before it writes the first one (up to half the side pool), so that
     * the partition's writes during the write find them captured and copy nothing; the cut stays exact and the
     * written cells are dirty for the next cut.
     */
    @Test
    void theWriterCapturesFrozenChunksAheadSoThatWritesDuringTheWriteCopyNothing(@TempDir final Path dir) throws IOException
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 16L * MIB, 8L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            for (int c = 0; c < 6; c++)
            {
                writeLong(dirty, file, c * MIB + 64, c + 1);
            }
            final CutFile out = cut(dirty, cut);
            assertEquals(6, out.staged());
            final byte[] atCut = contents(file);
            final byte[][] captured = new byte[6][];
            cut.drain((f, i, bytes) ->
            {
                captured[i] = bytes(bytes);
                if (i == 0)
                {
                    // The partition writes into every chunk while the writer holds its first.
                    for (int c = 0; c < 6; c++)
                    {
                        writeLong(dirty, file, c * MIB + 64, 100 + c);
                    }
                }
            });
            assertEquals(6, cut.chunksCapturedAhead(), "all six captured before the first was written");
            assertEquals(0, cut.sideBuffersTaken(), "the partition copied none");
            for (int c = 0; c < 6; c++)
            {
                assertArrayEquals(chunk(atCut, c), captured[c], "chunk " + c + " as it was at the cut");
            }
            dirty.install(out);
            final CutFile next = cut(dirty, cut);
            assertEquals(6, next.staged(), "the written cells are dirty for the next cut");
            final byte[][] again = drain(cut, next);
            assertEquals(100 + 5, ByteBuffer.wrap(again[5]).order(ByteOrder.nativeOrder()).getLong(64));
        }
    }

    /** With a side pool of its two spares only, nothing is captured ahead: the partition keeps both. */
    @Test
    void aSidePoolOfItsSparesOnlyCapturesNothingAhead(@TempDir final Path dir) throws IOException
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 16L * MIB, 8L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            cut.maxSideBuffers(SidePool.SPARE);
            for (int c = 0; c < 3; c++)
            {
                writeLong(dirty, file, c * MIB + 64, c + 1);
            }
            final CutFile out = cut(dirty, cut);
            final byte[] atCut = contents(file);
            final byte[][] captured = drain(cut, out);
            assertEquals(0, cut.chunksCapturedAhead());
            assertArrayEquals(chunk(atCut, 2), captured[2]);
        }
    }

    @Test
    void aWriteToAFrozenCellBeforeTheWriterCapturedItKeepsTheCutExact(@TempDir final Path dir) throws IOException
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 16L * MIB, 4L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            writeLong(dirty, file, MIB + 128, 7);
            final CutFile out = cut(dirty, cut);
            assertEquals(1, out.staged(), "one dirty chunk frozen");
            final byte[] atCut = contents(file);
            writeLong(dirty, file, MIB + 128, 8);
            assertEquals(1, cut.sideBuffersTaken(), "the partition copied the frozen cell first");
            assertEquals(8, UnsafeApi.getLong(file.address() + MIB + 128), "the live file has the write");
            assertArrayEquals(chunk(atCut, 1), drain(cut, out)[0], "the cut holds the bytes at the cut (the side copy)");
            dirty.install(out);
            final CutFile next = cut(dirty, cut);
            assertEquals(1, next.staged(), "the written cell is dirty for the next cut");
            assertArrayEquals(chunk(contents(file), 1), drain(cut, next)[0]);
        }
    }

    @Test
    void aWriteToTheCellTheWriterHoldsWaitsForItsCopyAndStaysExact(@TempDir final Path dir) throws Exception
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 16L * MIB, 4L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            writeLong(dirty, file, 2L * MIB, 11);
            final CutFile out = cut(dirty, cut);
            final byte[] atCut = contents(file);
            final CountDownLatch holding = new CountDownLatch(1);
            final CountDownLatch go = new CountDownLatch(1);
            final CountDownLatch waiting = new CountDownLatch(1);
            final AtomicBoolean first = new AtomicBoolean(true);
            StagedCut.onCapturing = () ->
            {
                if (first.getAndSet(false))
                {
                    holding.countDown();
                    awaitQuietly(go);
                }
            };
            DirtyChunks.onCellWait = waiting::countDown;
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final AtomicReference<byte[][]> captured = new AtomicReference<>();
            final Thread writer = new Thread(() -> run(() -> captured.set(drainQuietly(cut, out)), failed));
            writer.start();
            holding.await();
            // The writer holds the chunk's first cell: the partition's write to it waits.
            final Thread partition = new Thread(() -> run(() -> writeLong(dirty, file, 2L * MIB, 12), failed));
            partition.start();
            waiting.await();
            assertEquals(11, UnsafeApi.getLong(file.address() + 2L * MIB), "the store waits for the writer's copy");
            assertEquals(0, cut.sideBuffersTaken(), "a held cell is not copied by the partition");
            go.countDown();
            writer.join();
            partition.join();
            assertEquals(null, failed.get());
            assertEquals(12, UnsafeApi.getLong(file.address() + 2L * MIB));
            assertArrayEquals(chunk(atCut, 2), captured.get()[0], "the cut holds the value at the cut");
        }
    }

    @Test
    void aFrozenCellWithNoSideBufferLeftWaitsForTheWriterToCaptureIt(@TempDir final Path dir) throws Exception
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 16L * MIB, 4L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            cut.maxSideBuffers(0);
            writeLong(dirty, file, 3L * MIB + 4096 + 8, 21);
            final CutFile out = cut(dirty, cut);
            final byte[] atCut = contents(file);
            final CountDownLatch waiting = new CountDownLatch(1);
            DirtyChunks.onCellWait = waiting::countDown;
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final Thread partition = new Thread(() -> run(() -> writeLong(dirty, file, 3L * MIB + 4096 + 8, 22), failed));
            partition.start();
            waiting.await();
            assertEquals(21, UnsafeApi.getLong(file.address() + 3L * MIB + 4096 + 8), "the store waits for the writer");
            // This thread is the writer now: it captures the frozen cells, and the write goes on.
            final byte[][] captured = drain(cut, out);
            partition.join();
            assertEquals(null, failed.get());
            assertEquals(0, cut.sideBuffersTaken());
            assertEquals(1, cut.sideWaits(), "the write that found no side buffer is counted");
            assertEquals(22, UnsafeApi.getLong(file.address() + 3L * MIB + 4096 + 8));
            assertArrayEquals(chunk(atCut, 3), captured[0]);
        }
    }

    @Test
    void aFailedWriteLeavesNoCellFrozenAndItsChunksAreTakenAgain(@TempDir final Path dir) throws IOException
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 16L * MIB, 4L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            writeLong(dirty, file, 64, 1);
            writeLong(dirty, file, 3L * MIB + 64, 2);
            final CutFile out = cut(dirty, cut);
            assertEquals(2, out.staged());
            // The write fails before it captured anything (a full disk at its first chunk).
            cut.abandon();
            writeLong(dirty, file, 64, 3);
            assertEquals(0, cut.sideBuffersTaken(), "no cell is frozen any more: a write copies nothing");
            dirty.restage(out);
            final CutFile again = cut(dirty, cut);
            assertEquals(2, again.staged(), "the failed cut's chunks are taken by the next one");
            final byte[] atCut = contents(file);
            writeLong(dirty, file, 3L * MIB + 64, 4);
            assertArrayEquals(apply(new byte[0], again, drain(cut, again)), atCut, "the next cut is exact");
            dirty.install(again);
        }
    }

    /**
     * A cut of many more chunks than the staging memory (one capture buffer, a side pool of two): the writer
     * drains it chunk by chunk while the partition writes all over the frozen chunks; the cut is exact, the
     * staging memory stays one buffer and two side buffers, and the writes that found no side buffer waited for
     * the writer to take their chunk (counted), none for ever.
     */
    @ParameterizedTest
    @ValueSource(longs = {21, 22, 23})
    void aCutMuchLargerThanTheStagingMemoryIsDrainedChunkByChunkWhileThePartitionWrites(final long seed, @TempDir final Path dir)
        throws Exception
    {
        final SplittableRandom random = new SplittableRandom(seed);
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 64L * MIB, 40L * MIB + 123);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            cut.maxSideBuffers(2);
            byte[] model = new byte[0];
            for (int round = 0; round < 3; round++)
            {
                // Every chunk dirty: a cut of 41 chunks against a chunk of capture buffer and two of side pool.
                for (long at = 0; at < file.length(); at += MIB / 2)
                {
                    writeLong(dirty, file, at, random.nextLong());
                }
                final CutFile out = cut(dirty, cut);
                assertTrue(out.staged() >= 41 && out.staged() == Chunks.chunks(file.length()), "every chunk is in the cut");
                final byte[] atCut = contents(file);
                final AtomicReference<Throwable> failed = new AtomicReference<>();
                final AtomicReference<byte[][]> captured = new AtomicReference<>();
                final Thread writer = new Thread(() -> run(() -> captured.set(drainQuietly(cut, out)), failed));
                writer.start();
                // The partition goes on: writes everywhere, most into chunks the writer has not reached.
                mutate(random, dirty, file, 400);
                writer.join();
                assertEquals(null, failed.get());
                assertTrue(cut.sideBuffersPooled() <= 2, "the side pool keeps its bound: " + cut.sideBuffersPooled());
                assertTrue(cut.hasCaptureBuffer(), "the writer captured into its one buffer");
                assertEquals(0, cut.pooledBuffers(), "a copy-on-write cut takes no staging buffer at the cut");
                dirty.install(out);
                model = apply(model, out, captured.get());
                assertArrayEquals(atCut, model, "seed " + seed + " round " + round + ": the restored cut is the file at the cut");
            }
        }
    }

    /**
     * A write to a frozen chunk with no side buffer left asks the writer for that chunk: the writer takes it
     * right after the chunk in hand, ahead of the chunks before it in the cut's order.
     */
    @Test
    void aWriteWithNoSideBufferHasItsChunkCapturedNext(@TempDir final Path dir) throws Exception
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 32L * MIB, 24L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            cut.maxSideBuffers(0);
            for (int c = 0; c < 24; c++)
            {
                writeLong(dirty, file, (long)c * MIB + 8, c);
            }
            final CutFile out = cut(dirty, cut);
            final byte[] atCut = contents(file);
            final CountDownLatch inSink = new CountDownLatch(1);
            final CountDownLatch go = new CountDownLatch(1);
            final CountDownLatch waiting = new CountDownLatch(1);
            DirtyChunks.onCellWait = waiting::countDown;
            final int[] order = new int[24];
            final byte[][] captured = new byte[24][];
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final int[] n = new int[1];
            final Thread writer = new Thread(() -> run(() ->
            {
                try
                {
                    cut.drain((f, i, bytes) ->
                    {
                        order[n[0]++] = f.stagedChunk(i);
                        captured[i] = bytes(bytes);
                        if (n[0] == 1)
                        {
                            // The writer is writing its first chunk: the partition's write arrives now.
                            inSink.countDown();
                            awaitQuietly(go);
                        }
                    });
                }
                catch (final IOException e)
                {
                    throw new UncheckedIOException(e);
                }
            }, failed));
            writer.start();
            inSink.await();
            final Thread partition = new Thread(() -> run(() -> writeLong(dirty, file, 17L * MIB + 8, -1), failed));
            partition.start();
            waiting.await();
            assertEquals(17, UnsafeApi.getLong(file.address() + 17L * MIB + 8), "the store waits for the writer");
            go.countDown();
            partition.join();
            writer.join();
            assertEquals(null, failed.get());
            assertEquals(0, order[0]);
            assertEquals(17, order[1], "the chunk the waiting write asked for is the writer's next");
            assertEquals(1, cut.sideWaits());
            assertEquals(-1, UnsafeApi.getLong(file.address() + 17L * MIB + 8));
            dirty.install(out);
            assertArrayEquals(atCut, apply(new byte[0], out, captured), "the cut is exact");
        }
    }

    /**
     * The differential: random writes (marked before their stores, some across cells and chunks, the file
     * growing now and then) interleaved with the capture of the frozen chunks in a random order, some cuts'
     * writes failing; every successful cut applied to a model image equals the file at the cut.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void randomWritesInterleavedWithCapturesRestoreExactlyTheCut(final long seed, @TempDir final Path dir) throws IOException
    {
        final SplittableRandom random = new SplittableRandom(seed);
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 32L * MIB, 3L * MIB + 4096);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            if (random.nextBoolean())
            {
                cut.maxSideBuffers(random.nextInt(3));
            }
            byte[] model = new byte[0];
            for (int round = 0; round < 12; round++)
            {
                mutate(random, dirty, file, 1 + random.nextInt(40));
                final CutFile out = cut(dirty, cut);
                final byte[] atCut = contents(file);
                if (random.nextInt(10) == 0)
                {
                    // The write fails before it captured anything: nothing stays frozen, the chunks come again.
                    cut.abandon();
                    mutate(random, dirty, file, random.nextInt(10));
                    dirty.restage(out);
                    continue;
                }
                final int[] order = shuffled(random, out.staged());
                final byte[][] captured = new byte[out.staged()][];
                final ByteBuffer into = ByteBuffer.allocateDirect(MIB);
                for (final int i : order)
                {
                    if (random.nextInt(3) == 0)
                    {
                        // A write lands while the cut waits: only cells the writer captured or the side pool
                        // has room for (else this thread, the writer too, would wait for itself).
                        mutateSafely(random, dirty, file, cut, out, 1 + random.nextInt(6));
                    }
                    captured[i] = bytes(out.captureChunk(i, into));
                }
                if (random.nextInt(8) == 0)
                {
                    // The write fails after its capture: the chunks are marked again.
                    dirty.restage(out);
                    continue;
                }
                // Captured by hand, so not summed by a drain: the test compares bytes, not sums.
                dirty.install(out);
                model = apply(model, out, captured);
                assertArrayEquals(atCut, model, "seed " + seed + " round " + round + ": the restored cut is the file at the cut");
            }
        }
    }

    /** As the differential, with a real writer thread capturing while this thread writes. */
    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void aWriterThreadCapturingWhileThePartitionWritesKeepsEveryCutExact(final long seed, @TempDir final Path dir) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(seed);
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 32L * MIB, 6L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            final StagedCut cut = new StagedCut();
            byte[] model = new byte[0];
            for (int round = 0; round < 10; round++)
            {
                mutate(random, dirty, file, 1 + random.nextInt(60));
                final CutFile out = cut(dirty, cut);
                final byte[] atCut = contents(file);
                final AtomicReference<Throwable> failed = new AtomicReference<>();
                final AtomicReference<byte[][]> captured = new AtomicReference<>();
                final Thread writer = new Thread(() -> run(() -> captured.set(drainQuietly(cut, out)), failed));
                writer.start();
                mutate(random, dirty, file, random.nextInt(200));
                writer.join();
                assertEquals(null, failed.get());
                dirty.install(out);
                model = apply(model, out, captured.get());
                assertArrayEquals(atCut, model, "seed " + seed + " round " + round);
            }
        }
    }

    private static void mutate(final SplittableRandom random, final DirtyChunks dirty, final MappedFile file, final int writes)
    {
        for (int w = 0; w < writes; w++)
        {
            if (random.nextInt(30) == 0 && file.length() + MIB <= file.reserved())
            {
                assertTrue(file.ensureLength(file.length() + 1 + random.nextInt(MIB)));
            }
            final int length = 1 + (random.nextInt(4) == 0 ? random.nextInt(3 * 4096) : random.nextInt(16));
            final long offset = random.nextLong(file.length() - length);
            final byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            write(dirty, file, offset, bytes);
        }
    }

    /** Writes that cannot wait for the writer: into frozen cells only while the side pool has room. */
    private static void mutateSafely(final SplittableRandom random, final DirtyChunks dirty, final MappedFile file,
        final StagedCut cut, final CutFile out, final int writes)
    {
        for (int w = 0; w < writes; w++)
        {
            final int length = 1 + random.nextInt(16);
            final long offset = random.nextLong(file.length() - length);
            final int c = (int)(offset / MIB);
            final int cEnd = (int)((offset + length - 1) / MIB);
            boolean safe = true;
            for (int chunk = c; chunk <= cEnd; chunk++)
            {
                final int i = Arrays.binarySearch(stagedChunks(out), chunk);
                if (i >= 0 && !capturedOrSided(out, i, cut))
                {
                    safe = false;
                }
            }
            if (!safe)
            {
                continue;
            }
            final byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            write(dirty, file, offset, bytes);
        }
    }

    private static int[] stagedChunks(final CutFile out)
    {
        final int[] chunks = new int[out.staged()];
        for (int i = 0; i < chunks.length; i++)
        {
            chunks[i] = out.stagedChunk(i);
        }
        return chunks;
    }

    /** Whether a write into staged chunk {@code i} cannot wait: it has a side buffer, or one is free (a margin of two). */
    private static boolean capturedOrSided(final CutFile out, final int i, final StagedCut cut)
    {
        return out.side(i) != null || cut.sideBuffersTaken() + 2 <= cut.maxSideBuffers();
    }

    private static int[] shuffled(final SplittableRandom random, final int n)
    {
        final int[] order = new int[n];
        for (int i = 0; i < n; i++)
        {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    private static byte[][] drainQuietly(final StagedCut cut, final CutFile out)
    {
        try
        {
            return drain(cut, out);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static void run(final Runnable body, final AtomicReference<Throwable> failed)
    {
        try
        {
            body.run();
        }
        catch (final Throwable t)
        {
            failed.set(t);
        }
    }

    private static void awaitQuietly(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
