package io.junction.kafka;

import io.junction.runtime.CompletedCheckpoint;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * At-least-once delivery: each served partition is checkpointed every checkpoint interval, on its own and
 * without waiting, and its offsets are committed once that checkpoint is complete; at a revocation and at
 * close the partitions concerned are checkpointed together and committed in one commit. The checkpoint, not
 * the commit, is authoritative: a failed commit is logged, and the next owner resumes from the checkpoint.
 * Owned by the consumer thread.
 */
final class AtLeastOnceCommits extends CommitPolicy
{
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(5);

    /** The periodic checkpoint under way per partition, or null. */
    private final PendingCheckpoint[] pendingCheckpoint;

    AtLeastOnceCommits(final KafkaJoinConfig config, final TopicLayout layout, final ServedPartition[] partitions,
        final KafkaJoinRunnerBean counters, final RunnerFailure failure)
    {
        super(config, layout, partitions, counters, failure);
        pendingCheckpoint = new PendingCheckpoint[partitions.length];
    }

    @Override
    KafkaProducer<byte[], byte[]> startProducer(final Map<String, Object> props)
    {
        return new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    void afterPoll(final long now)
    {
        completeCheckpoints();
        if (now - nextCheckpointNanos >= 0)
        {
            nextCheckpointNanos = now + config.checkpointInterval().toNanos();
            requestCheckpoints();
        }
    }

    @Override
    boolean[] handBack(final boolean[] handBack)
    {
        for (int p = 0; p < partitions.length; p++)
        {
            partitions[p].served &= !handBack[p];
        }
        return checkpointAndCommit(handBack);
    }

    @Override
    boolean lossAbortsAll()
    {
        return false;
    }

    @Override
    void abortUncommitted()
    {
        // Nothing is open: each lost partition restarts from its last checkpoint on its own.
    }

    @Override
    CompletableFuture<CompletedCheckpoint> takeOver(final int p)
    {
        return engine.takeOverPartition(p);
    }

    @Override
    long[] startEmpty(final int p, final List<TopicPartition> tps)
    {
        // Never checkpointed: the committed offsets, else the earliest (auto.offset.reset).
        final long[] positions = new long[layout.n];
        for (int s = 0; s < layout.n; s++)
        {
            positions[s] = consumer.position(tps.get(s));
        }
        KafkaJoinRunner.LOG.log(System.Logger.Level.INFO, "partition " + p + ": no checkpoint, starting empty at offsets " +
            layout.describe(positions));
        return positions;
    }

    @Override
    void commitAtClose()
    {
        final boolean[] last = new boolean[partitions.length];
        for (int p = 0; p < partitions.length; p++)
        {
            last[p] = partitions[p].served;
            partitions[p].served = false;
        }
        checkpointAndCommit(last);
    }

    @Override
    void afterEngineClosed()
    {
        // Every checkpoint committed its offsets, or the next owner resumes from the checkpoint.
    }

    private void requestCheckpoints()
    {
        for (int p = 0; p < partitions.length; p++)
        {
            if (partitions[p].served && pendingCheckpoint[p] == null)
            {
                final long[] positions = partitions[p].positions();
                pendingCheckpoint[p] = new PendingCheckpoint(engine.checkpointPartition(p, positions), positions,
                    partitions[p].epoch());
            }
        }
    }

    /** Commits the offsets of each periodic checkpoint that completed, if its partition is still served as then. */
    private void completeCheckpoints()
    {
        for (int p = 0; p < partitions.length; p++)
        {
            final PendingCheckpoint pending = pendingCheckpoint[p];
            if (pending == null || !pending.future.isDone())
            {
                continue;
            }
            pendingCheckpoint[p] = null;
            try
            {
                pending.future.join();
                counters.checkpoints.incrementAndGet();
            }
            catch (final RuntimeException e)
            {
                failure.fail(new KafkaJoinException("checkpoint of partition " + p + " failed: " + causeOf(e), causeOf(e)));
                return;
            }
            if (partitions[p].served && pending.epoch == partitions[p].epoch())
            {
                final Map<TopicPartition, OffsetAndMetadata> offsets = offsets(p, pending.positions);
                consumer.commitAsync(offsets, (committed, error) ->
                {
                    if (error == null)
                    {
                        counters.commits.incrementAndGet();
                    }
                    else
                    {
                        // The checkpoint holds the positions: the next owner resumes from it either way.
                        KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "offset commit after a checkpoint failed: " + error);
                    }
                });
            }
        }
    }

    /** A periodic checkpoint requested, with the positions it covers and its partition's epoch then. */
    private static final class PendingCheckpoint
    {
        final CompletableFuture<CompletedCheckpoint> future;
        final long[] positions;
        final int epoch;

        PendingCheckpoint(final CompletableFuture<CompletedCheckpoint> future, final long[] positions, final int epoch)
        {
            this.future = future;
            this.positions = positions;
            this.epoch = epoch;
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> offsets(final int p, final long[] positions)
    {
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int s = 0; s < layout.n; s++)
        {
            offsets.put(partitions[p].input(s).topicPartition, new OffsetAndMetadata(positions[s]));
        }
        return offsets;
    }

    /**
     * Checkpoints the given partitions (all at once) and, once every one is complete, commits their offsets in
     * one commit, unless an input topic has gone (a commit of a deleted topic's offsets only times out).
     *
     * @return for each partition, whether its checkpoint completed.
     */
    private boolean[] checkpointAndCommit(final boolean[] which)
    {
        final boolean[] done = new boolean[partitions.length];
        final List<CompletableFuture<CompletedCheckpoint>> futures = new ArrayList<>();
        final long[][] positions = new long[partitions.length][];
        for (int p = 0; p < partitions.length; p++)
        {
            if (which[p])
            {
                positions[p] = partitions[p].positions();
                futures.add(engine.checkpointPartition(p, positions[p]));
            }
            else
            {
                futures.add(null);
            }
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < partitions.length; p++)
        {
            if (!which[p])
            {
                continue;
            }
            try
            {
                await(futures.get(p), "checkpoint of partition " + p);
                counters.checkpoints.incrementAndGet();
                done[p] = true;
                offsets.putAll(offsets(p, positions[p]));
            }
            catch (final KafkaJoinException e)
            {
                failure.fail(e);
            }
        }
        if (!offsets.isEmpty() && layout.inputTopicsExist(COMMIT_TIMEOUT))
        {
            commitSync(offsets);
        }
        return done;
    }

    private void commitSync(final Map<TopicPartition, OffsetAndMetadata> offsets)
    {
        for (int attempt = 0; attempt < 2; attempt++)
        {
            try
            {
                consumer.commitSync(offsets, COMMIT_TIMEOUT);
                counters.commits.incrementAndGet();
                return;
            }
            catch (final WakeupException e)
            {
                // close() woke the consumer while it committed: commit once more, the close needs it.
            }
            catch (final KafkaException e)
            {
                // The checkpoint holds the positions and is authoritative: the next owner resumes from it.
                KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "offset commit " + offsets + " failed: " + e);
                return;
            }
        }
    }

    private static Throwable causeOf(final Throwable e)
    {
        return (e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null ?
            e.getCause() : e;
    }
}
