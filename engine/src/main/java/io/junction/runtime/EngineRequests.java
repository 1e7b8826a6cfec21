package io.junction.runtime;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What {@link JoinEngine} checks on the caller's thread before it hands a request on: the producer claim
 * (the single-producer engine's one publishing thread, claimed by each publisher and by each durable call),
 * the durable API's argument checks (a partition that exists, positions, no engine-wide cut with a shared
 * checkpoint root, no checkpoint in memory mode) and the hand-over to the {@link CheckpointCoordinator}.
 *
 * <p>Threads: any caller's; the producer claim is an atomic reference, the rest reads final fields.
 */
final class EngineRequests
{
    private final EngineConfig config;
    private final PartitionRings rings;
    /** Null in memory mode. */
    private final CheckpointCoordinator checkpoints;
    private final AtomicReference<Thread> producer = new AtomicReference<>();

    EngineRequests(final EngineConfig config, final PartitionRings rings, final CheckpointCoordinator checkpoints)
    {
        this.config = config;
        this.rings = rings;
        this.checkpoints = checkpoints;
    }

    /**
     * Claims the engine for the first thread that publishes, unless its rings are multi-producer:
     * called once per publisher, so the hot path stays one compare in the publisher.
     */
    void claimProducer(final Thread thread)
    {
        if (config.multiProducer())
        {
            return;
        }
        final Thread owner = producer.compareAndExchange(null, thread);
        if (owner != null && owner != thread)
        {
            throw new IllegalStateException("single-producer engine: publisher used from thread " + thread.getName() +
                ", owned by " + owner.getName() + "; configure multiProducer (EngineConfig.withMultiProducer, " +
                EngineConfig.MULTI_PRODUCER_PROP_NAME + ") to publish from several threads");
        }
    }

    int[] allPartitions()
    {
        final int[] all = new int[rings.count()];
        for (int p = 0; p < all.length; p++)
        {
            all[p] = p;
        }
        return all;
    }

    void refuseWithCheckpointRoot(final String what)
    {
        if (config.checkpointRoot() != null)
        {
            throw new IllegalStateException(what + " is engine-wide, and the engine has a shared checkpoint root (" +
                config.checkpointRoot() + ") whose partitions move one at a time: use checkpointPartition");
        }
    }

    void checkPartition(final int partition)
    {
        if (partition < 0 || partition >= rings.count())
        {
            throw new IllegalArgumentException("no partition " + partition + " (the engine has " + rings.count() + ")");
        }
    }

    CompletableFuture<CompletedCheckpoint> submit(final int[] partitions, final long[] positions,
        final CheckpointRequest.Mode mode)
    {
        if (checkpoints == null)
        {
            throw new IllegalStateException("the engine keeps its state in memory: checkpoints need a state root " +
                "(EngineConfig.withStateRoot, " + EngineConfig.STATE_DIR_PROP_NAME + ")");
        }
        if (mode == CheckpointRequest.Mode.CHECKPOINT && positions == null)
        {
            throw new IllegalArgumentException("positions are required (an empty array when there are none)");
        }
        claimProducer(Thread.currentThread());
        return checkpoints.submit(partitions, positions, mode, rings);
    }
}
