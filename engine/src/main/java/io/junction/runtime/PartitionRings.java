package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.metrics.PartitionSnapshot;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The partitions' rings: per partition one LMAX Disruptor, its ring of {@link RingSlot}s and the thread that
 * consumes it with the partition's {@link PartitionWorker} (made by the engine's thread factory, or the
 * user's). It is also where the checkpoint coordinator's barriers go ({@link CheckpointCoordinator.Barriers}):
 * a barrier's slot is claimed with {@link RingClaim}, as a publisher's row is.
 *
 * <p>Threads: the starting thread creates and starts the rings ({@link #create}, {@link #start}); barriers go in
 * on the producer's thread; the closing thread marks the rings closed ({@link #markClosed}) and halts them; the
 * gauges ({@link #depth}, {@link #backlog}, {@link #snapshots}) are read from any thread.
 */
final class PartitionRings implements CheckpointCoordinator.Barriers
{
    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");

    private final EngineConfig config;
    /** The engine's workers, one per partition, filled in before {@link #create}. */
    private final PartitionWorker[] workers;
    private final List<Disruptor<RingSlot>> disruptors = new ArrayList<>();
    private final RingBuffer<RingSlot>[] rings;
    /** Each partition's wait, to wake a blocked partition thread for its control mailbox ({@link #wake}). */
    private final UninterruptibleWaitStrategy[] waits;
    /** Set from the start of the first close (or by a failed start): publishers and barriers get {@link Publisher#CLOSED}. */
    private volatile boolean closed;

    /**
     * @param config  the engine's configuration (partitions, ring size, producer type, wait strategy, thread names).
     * @param workers the engine's workers, filled in by the engine before {@link #create}.
     */
    PartitionRings(final EngineConfig config, final PartitionWorker[] workers)
    {
        this.config = config;
        this.workers = workers;
        // A generic array cannot be created: the one unchecked cast, of an array no one else sees.
        @SuppressWarnings("unchecked")
        final RingBuffer<RingSlot>[] created = (RingBuffer<RingSlot>[])new RingBuffer<?>[config.partitions()];
        rings = created;
        waits = new UninterruptibleWaitStrategy[config.partitions()];
    }

    /** Creates each partition's Disruptor around its worker; the threads run from {@link #start}. */
    void create(final ThreadFactory userFactory)
    {
        final int slotCapacity = config.slotCapacity();
        for (int p = 0; p < rings.length; p++)
        {
            waits[p] = new UninterruptibleWaitStrategy(config.waitStrategy().create(), workers[p]);
            final Disruptor<RingSlot> disruptor = new Disruptor<>(
                () -> new RingSlot(slotCapacity), config.ringSize(), threadFactory(p, userFactory),
                config.multiProducer() ? ProducerType.MULTI : ProducerType.SINGLE, waits[p]);
            disruptor.setDefaultExceptionHandler(workers[p]);
            disruptor.handleEventsWith(workers[p]);
            disruptors.add(disruptor);
            rings[p] = disruptor.getRingBuffer();
            workers[p].sliceWatermarkWork(rings[p], config.watermarkSlice());
            if (config.readAhead())
            {
                workers[p].readAhead(rings[p]);
            }
        }
    }

    /** Starts every partition's thread. */
    void start()
    {
        for (final Disruptor<RingSlot> disruptor : disruptors)
        {
            disruptor.start();
        }
    }

    /** @return the rings, by partition (the array itself: for the publishers, which never write it). */
    RingBuffer<RingSlot>[] rings()
    {
        return rings;
    }

    /** @return the number of partitions. */
    int count()
    {
        return rings.length;
    }

    /**
     * @param metrics the engine's partition metrics.
     * @return every partition's snapshot: its metrics as of its last batch, with its ring's gauges.
     */
    List<PartitionSnapshot> snapshots(final PartitionMetrics[] metrics)
    {
        final List<PartitionSnapshot> snapshots = new ArrayList<>(metrics.length);
        for (int p = 0; p < metrics.length; p++)
        {
            snapshots.add(metrics[p].snapshot(depth(p), size(p), workers[p].isFailed()));
        }
        return Collections.unmodifiableList(snapshots);
    }

    /** @return a partition's ring capacity. */
    int size(final int partition)
    {
        return rings[partition].getBufferSize();
    }

    /** @return the slots of a partition's ring that are taken (published or claimed, not yet consumed). */
    long depth(final int partition)
    {
        final RingBuffer<RingSlot> ring = rings[partition];
        return ring.getBufferSize() - ring.remainingCapacity();
    }

    /** @return events published to a partition and not yet processed. */
    long backlog(final int partition)
    {
        final RingBuffer<RingSlot> ring = rings[partition];
        return ring.getCursor() - ring.getMinimumGatingSequence();
    }

    /**
     * Wakes a partition thread that waits for events (a blocking wait strategy sleeps until signalled), so that it
     * serves its control mailbox; the other strategies look on their own at each turn of their wait.
     */
    void wake(final int partition)
    {
        final UninterruptibleWaitStrategy wait = waits[partition];
        if (wait != null)
        {
            wait.signalAllWhenBlocking();
        }
    }

    /** Stops a partition's Disruptor once its worker has been asked to stop. */
    void halt(final int partition)
    {
        disruptors.get(partition).halt();
    }

    /** @return whether the engine closed (or its start failed): the rings take no more events. */
    boolean isClosed()
    {
        return closed;
    }

    /** From the start of the first close on, publishers and barriers are refused. */
    void markClosed()
    {
        closed = true;
    }

    @Override
    public long barrier(final int partition, final CheckpointRequest request)
    {
        return putBarrier(partition, request);
    }

    @Override
    public boolean isFailed(final int partition)
    {
        return workers[partition].isFailed();
    }

    private ThreadFactory threadFactory(final int partition, final ThreadFactory userFactory)
    {
        final AtomicInteger count = new AtomicInteger();
        return runnable ->
        {
            // The worker reports a partition thread that dies (PartitionFailedException, the log): the
            // throwable ending it need not reach the thread's default handler, which prints to stderr.
            final Runnable guarded = () ->
            {
                try
                {
                    runnable.run();
                }
                catch (final Throwable t)
                {
                    if (!workers[partition].isFailed())
                    {
                        LOGGER.log(System.Logger.Level.ERROR, "junction: partition " + partition + " thread ended", t);
                    }
                }
            };
            if (userFactory != null)
            {
                return userFactory.newThread(guarded);
            }
            final Thread thread = new Thread(guarded, config.threadNamePrefix() + partition +
                (count.getAndIncrement() == 0 ? "" : "-" + count.get()));
            thread.setDaemon(config.daemonThreads());
            return thread;
        };
    }

    /**
     * Puts a checkpoint's or restore's barrier into a partition's ring, waiting for room.
     *
     * @return the sequence it took; {@link Publisher#CLOSED} or {@link Publisher#PARTITION_FAILED} when none.
     */
    private long putBarrier(final int p, final CheckpointRequest request)
    {
        final long sequence = closed ? Publisher.CLOSED : workers[p].isFailed() ? Publisher.PARTITION_FAILED :
            claim(rings[p], p);
        if (sequence < 0)
        {
            return sequence;
        }
        final RingSlot slot = rings[p].get(sequence);
        slot.type = request.restores() ? RingSlot.RESTORE : RingSlot.CHECKPOINT;
        slot.request = request;
        slot.rowLength = 0;
        slot.step = request.id;
        slot.ingestNanos = System.nanoTime();
        rings[p].publish(sequence);
        return sequence;
    }

    /** Claims a ring slot for a barrier, waiting for room; a negative code when the engine closes or the partition dies. */
    private long claim(final RingBuffer<RingSlot> ring, final int partition)
    {
        while (true)
        {
            final long sequence = RingClaim.tryClaim(ring);
            if (sequence != RingClaim.NO_ROOM)
            {
                return sequence;
            }
            if (workers[partition].isFailed())
            {
                return Publisher.PARTITION_FAILED;
            }
            if (closed)
            {
                return Publisher.CLOSED;
            }
            LockSupport.parkNanos(1_000);
        }
    }
}
