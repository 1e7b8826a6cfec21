package io.junction.internal.durable;

import io.junction.internal.io.WorkerThreads;
import io.junction.internal.state.Chunks;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * Sums the {@link Chunks#CHUNK_BYTES} chunks of state files with a bounded pool of the machine's cores,
 * for the two readers of whole state files: a restore comparing the live files with a checkpoint's chunks
 * ({@link StateImage#restore}) and a reopen verifying the chunk sums a clean close recorded
 * ({@link ChunkSums#compute}). Each chunk is read once, by a positional read into its worker's own direct
 * buffer, and its CRC-32C taken first; its CRC-32 is taken only when a {@link Target#wantsCrc32 caller's test}
 * says the CRC-32C alone does not already decide (a chunk whose CRC-32C differs from the checkpoint's is
 * rewritten whatever its CRC-32); its zero flag is looked at only when its CRC-32C is that of zeros.
 * The chunks are handed out in file order, so the files are read front to back by the workers together.
 *
 * <p>Threads: {@link #sum} runs on its caller's thread (a restore's or a reopen's, never a partition's hot
 * path), starts at most {@link #threads()} workers named after the calling thread ({@code <thread>-chunk-sum-N}), and joins them all
 * before it returns or throws; the caller does no I/O itself, so an interrupt of the caller cannot close a
 * channel the workers read (the interrupt is kept for the caller). Each {@link Target}'s arrays are written
 * by the workers, one chunk by one worker, and read by the caller after the join (which orders the writes
 * before the reads).
 */
final class ParallelSums
{
    /** Most workers, whatever the core count: summing is bounded by memory bandwidth beyond a few. */
    private static final int MAX_THREADS = 8;

    private ParallelSums()
    {
    }

    /** @return the workers a sum starts at most: the machine's cores, at most {@value #MAX_THREADS}. */
    static int threads()
    {
        return Math.max(1, Math.min(MAX_THREADS, Runtime.getRuntime().availableProcessors()));
    }

    /**
     * One file's chunks to sum, and where their sums go. Arrays are per chunk of the file's {@link #size};
     * only the chunks below {@link #upTo} with {@link #todo} set are read.
     */
    abstract static class Target
    {
        final Path path;
        final long size;
        final int upTo;
        /** Per chunk: whether to read it (null: every chunk below {@link #upTo}). */
        final boolean[] todo;
        final int[] crc32c;
        final int[] crc32;
        /** Per chunk: whether {@link #crc32} holds its CRC-32 (not taken when the CRC-32C decided). */
        final boolean[] hasCrc32;
        /** Per chunk: whether it holds zeros only (null: not wanted). */
        final boolean[] zero;
        /** Bytes read, written by the caller after the join. */
        long bytesRead;

        Target(final Path path, final long size, final int upTo, final boolean[] todo, final int[] crc32c, final int[] crc32,
            final boolean[] hasCrc32, final boolean[] zero)
        {
            this.path = path;
            this.size = size;
            this.upTo = upTo;
            this.todo = todo;
            this.crc32c = crc32c;
            this.crc32 = crc32;
            this.hasCrc32 = hasCrc32;
            this.zero = zero;
        }

        /**
         * Called on a worker, with nothing but immutable state to read.
         *
         * @return whether chunk {@code c}, whose CRC-32C is {@code crc32c}, needs its CRC-32 too.
         */
        abstract boolean wantsCrc32(int c, int crc32c);

        int chunkLength(final int c)
        {
            return (int)Math.min(Chunks.CHUNK_BYTES, size - (long)c * Chunks.CHUNK_BYTES);
        }
    }

    /** A target whose every chunk gets both sums and its zero flag (a whole file verified). */
    static final class Whole extends Target
    {
        Whole(final Path path, final long size)
        {
            super(path, size, ChunkSums.chunks(size), null, new int[ChunkSums.chunks(size)], new int[ChunkSums.chunks(size)],
                new boolean[ChunkSums.chunks(size)], new boolean[ChunkSums.chunks(size)]);
        }

        @Override
        boolean wantsCrc32(final int c, final int crc32c)
        {
            return true;
        }
    }

    /**
     * Sums the targets' chunks on at most {@code threads} workers and joins them.
     *
     * @param targets the files and their chunks.
     * @param threads the most workers to start (at least one is started when there is a chunk to read).
     * @throws EOFException when a file is shorter than its target's size.
     * @throws IOException  when a file cannot be read (the first failure; the other workers stop).
     */
    static void sum(final List<? extends Target> targets, final int threads) throws IOException
    {
        int tasks = 0;
        for (final Target target : targets)
        {
            for (int c = 0; c < target.upTo; c++)
            {
                if (target.todo == null || target.todo[c])
                {
                    tasks++;
                }
            }
        }
        if (tasks == 0)
        {
            return;
        }
        // Every chunk to read, in file order: (target << 32) | chunk.
        final long[] order = new long[tasks];
        int n = 0;
        for (int t = 0; t < targets.size(); t++)
        {
            final Target target = targets.get(t);
            for (int c = 0; c < target.upTo; c++)
            {
                if (target.todo == null || target.todo[c])
                {
                    order[n++] = ((long)t << 32) | c;
                }
            }
        }
        final FileChannel[] channels = new FileChannel[targets.size()];
        final long[][] bytes = new long[Math.min(Math.max(1, threads), tasks)][targets.size()];
        final AtomicInteger next = new AtomicInteger();
        final IOException[] failures = new IOException[bytes.length];
        final Thread[] workers = new Thread[bytes.length];
        try
        {
            for (int t = 0; t < channels.length; t++)
            {
                if (targets.get(t).upTo > 0)
                {
                    channels[t] = FileChannel.open(targets.get(t).path, StandardOpenOption.READ);
                }
            }
            for (int w = 0; w < workers.length; w++)
            {
                final int worker = w;
                workers[w] = new Thread(() -> failures[worker] = work(targets, channels, order, next, bytes[worker]),
                    Thread.currentThread().getName() + "-chunk-sum-" + w); // named after the thread that asked
                workers[w].setDaemon(true);
                workers[w].start();
            }
        }
        finally
        {
            WorkerThreads.joinAll(workers);
            for (final FileChannel channel : channels)
            {
                if (channel != null)
                {
                    channel.close();
                }
            }
        }
        for (final IOException failure : failures)
        {
            if (failure != null)
            {
                throw failure;
            }
        }
        for (final long[] read : bytes)
        {
            for (int t = 0; t < read.length; t++)
            {
                targets.get(t).bytesRead += read[t];
            }
        }
    }

    /** A worker: takes the next chunk until none is left or one fails; @return its failure, or null. */
    private static IOException work(final List<? extends Target> targets, final FileChannel[] channels, final long[] order,
        final AtomicInteger next, final long[] bytesRead)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
        final CRC32C a = new CRC32C();
        final CRC32 b = new CRC32();
        try
        {
            for (int i = next.getAndIncrement(); i < order.length; i = next.getAndIncrement())
            {
                final int t = (int)(order[i] >>> 32);
                final int c = (int)order[i];
                final Target target = targets.get(t);
                final int length = target.chunkLength(c);
                read(channels[t], target.path, (long)c * Chunks.CHUNK_BYTES, length, buffer);
                bytesRead[t] += length;
                a.reset();
                a.update(buffer.duplicate());
                final int crc32c = (int)a.getValue();
                target.crc32c[c] = crc32c;
                if (target.wantsCrc32(c, crc32c))
                {
                    b.reset();
                    b.update(buffer.duplicate());
                    target.crc32[c] = (int)b.getValue();
                    target.hasCrc32[c] = true;
                }
                if (target.zero != null)
                {
                    target.zero[c] = crc32c == zeroCrc32c(length) && Chunks.isZero(buffer);
                }
            }
            return null;
        }
        catch (final IOException e)
        {
            next.set(order.length);
            return e;
        }
        catch (final RuntimeException e)
        {
            next.set(order.length);
            return new IOException("summing failed: " + e, e);
        }
    }

    private static void read(final FileChannel in, final Path path, final long at, final int length, final ByteBuffer buffer)
        throws IOException
    {
        buffer.clear();
        buffer.limit(length);
        while (buffer.hasRemaining())
        {
            if (in.read(buffer, at + buffer.position()) < 0)
            {
                throw new EOFException(path + " is shorter than " + (at + length) + " bytes (it shrank, or was truncated)");
            }
        }
        buffer.flip();
    }

    /** The CRC-32C of a whole chunk of zeros, a constant of the format. */
    private static final int ZERO_CHUNK_CRC32C = crc32cOfZeros(Chunks.CHUNK_BYTES);

    /** @return the CRC-32C of {@code length} zeros (a chunk not whole is the file's last: computed each time). */
    private static int zeroCrc32c(final int length)
    {
        return length == Chunks.CHUNK_BYTES ? ZERO_CHUNK_CRC32C : crc32cOfZeros(length);
    }

    private static int crc32cOfZeros(final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(length));
        return (int)crc.getValue();
    }

}
