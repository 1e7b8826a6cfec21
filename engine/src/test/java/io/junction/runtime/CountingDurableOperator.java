package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.metrics.OperatorCounters;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;

/**
 * A test-only durable operator, so the runtime's checkpoints are tested apart from the real operators:
 * its state is a count of rows, the sum of their steps, and a {@value #BLOB_BYTES}-byte blob (three
 * checkpoint chunks) in which each row flips one byte of the first chunk. {@link #persist()} writes
 * {@code counter} and {@code blob} and the marker {@code CLEAN} last; the first mutation after it deletes
 * the marker. Opening a directory that holds files but no marker throws, as a real durable operator must.
 * The counts are also mirrored per partition into {@link #COUNTS}/{@link #STEP_SUMS} on the partition
 * thread (read by tests after a future completes).
 */
final class CountingDurableOperator implements JoinOperator
{
    static final int BLOB_BYTES = 3 << 20;

    private final Path dir;
    private final int partition;
    private final AtomicLongArray counts;
    private final AtomicLongArray stepSums;
    private final IntPredicate failPersist;
    private final Hooks hooks;
    private final byte[] blob = new byte[BLOB_BYTES];
    private long count;
    private long stepSum;
    private boolean clean;

    /** Test hooks, run on the partition thread. */
    interface Hooks
    {
        Hooks NONE = new Hooks()
        {
        };

        /** Before a row is applied. */
        default void beforeRow(final int partition, final long step)
        {
        }

        /** @return whether {@link #counters()} throws, which the runtime calls unguarded at a batch's end: the thread dies. */
        default boolean dieAtEndOfBatch(final int partition)
        {
            return false;
        }
    }

    CountingDurableOperator(final Path dir, final AtomicLongArray counts, final AtomicLongArray stepSums,
        final IntPredicate failPersist)
    {
        this(dir, counts, stepSums, failPersist, Hooks.NONE);
    }

    CountingDurableOperator(final Path dir, final AtomicLongArray counts, final AtomicLongArray stepSums,
        final IntPredicate failPersist, final Hooks hooks)
    {
        this.hooks = hooks;
        this.dir = dir;
        this.partition = Integer.parseInt(dir.getParent().getFileName().toString().substring("partition-".length()));
        this.counts = counts;
        this.stepSums = stepSums;
        this.failPersist = failPersist;
        try
        {
            Files.createDirectories(dir);
            final boolean empty;
            try (var entries = Files.list(dir))
            {
                empty = entries.findAny().isEmpty();
            }
            if (empty)
            {
                // Not zeros: a checkpoint records a chunk of zeros without storing or linking it.
                for (int i = 0; i < BLOB_BYTES; i++)
                {
                    blob[i] = (byte)(i * 31 + 7);
                }
            }
            if (!empty)
            {
                if (!Files.exists(dir.resolve("CLEAN")))
                {
                    throw new IllegalStateException(dir + " was not closed cleanly: restore from a checkpoint");
                }
                final ByteBuffer counter = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("counter")));
                count = counter.getLong();
                stepSum = counter.getLong();
                final byte[] stored = Files.readAllBytes(dir.resolve("blob"));
                if (stored.length != BLOB_BYTES)
                {
                    throw new IllegalStateException(dir.resolve("blob") + " is " + stored.length + " bytes");
                }
                System.arraycopy(stored, 0, blob, 0, BLOB_BYTES);
                clean = true;
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        counts.set(partition, count);
        stepSums.set(partition, stepSum);
    }

    private void mutate()
    {
        if (clean)
        {
            clean = false;
            try
            {
                Files.delete(dir.resolve("CLEAN"));
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        hooks.beforeRow(partition, step);
        mutate();
        count++;
        stepSum += step;
        blob[(int)(step % (1 << 20))] ^= 1;
        counts.set(partition, count);
        stepSums.set(partition, stepSum);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
    }

    @Override
    public void onEndOfInput(final long step)
    {
    }

    @Override
    public boolean durable()
    {
        return true;
    }

    @Override
    public void persist() throws IOException
    {
        if (failPersist.test(partition))
        {
            throw new IOException("persist of partition " + partition + " fails on purpose");
        }
        final ByteBuffer counter = ByteBuffer.allocate(16).putLong(count).putLong(stepSum);
        Files.write(dir.resolve("counter"), counter.array());
        try (FileChannel out = FileChannel.open(dir.resolve("blob"), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING))
        {
            final ByteBuffer all = ByteBuffer.wrap(blob);
            while (all.hasRemaining())
            {
                out.write(all);
            }
            out.force(true);
        }
        if (!clean)
        {
            Files.write(dir.resolve("CLEAN"), new byte[] {1});
            clean = true;
        }
    }

    @Override
    public OperatorCounters counters()
    {
        if (hooks.dieAtEndOfBatch(partition))
        {
            throw new IllegalStateException("partition " + partition + "'s thread dies on purpose");
        }
        final long rows = count;
        return new OperatorCounters()
        {
            @Override
            public long rowsIn()
            {
                return rows;
            }

            @Override
            public long rowsOut()
            {
                return 0;
            }

            @Override
            public long lateRows()
            {
                return 0;
            }

            @Override
            public long badInputs()
            {
                return 0;
            }

            @Override
            public long expiredRows()
            {
                return 0;
            }

            @Override
            public long liveLeft()
            {
                return 0;
            }

            @Override
            public long liveRight()
            {
                return 0;
            }

            @Override
            public long stateBytes()
            {
                return 0;
            }

            @Override
            public long usedStateBytes()
            {
                return 0;
            }

            @Override
            public long liveStateBytes()
            {
                return 0;
            }

            @Override
            public long pendingTimers()
            {
                return 0;
            }

            @Override
            public long watermark()
            {
                return Long.MIN_VALUE;
            }

            @Override
            public long hashCollisions()
            {
                return 0;
            }
        };
    }

    /** Frees without persisting, as a real durable operator's discard does. */
    @Override
    public void discard()
    {
    }

    @Override
    public void close()
    {
        try
        {
            persist();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
