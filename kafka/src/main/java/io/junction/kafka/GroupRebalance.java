package io.junction.kafka;

import io.junction.runtime.CompletedCheckpoint;
import io.junction.runtime.JoinEngine;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Group membership changes: which engine partitions this member serves. A revocation checkpoints and commits
 * the partitions handed back (through the {@link CommitPolicy}) and parks them until the new assignment is
 * known; an assignment serves each partition now held on every input, resumed as parked or taken over from a
 * checkpoint; a loss drops partitions without a commit. Run by the consumer inside poll, on the consumer
 * thread.
 */
final class GroupRebalance implements ConsumerRebalanceListener
{
    private final KafkaJoinConfig config;
    private final TopicLayout layout;
    private final ServedPartition[] partitions;
    private final CommitPolicy commits;
    private final JoinEngine engine;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaJoinRunnerBean counters;
    private final RunnerFailure failure;
    /** Ends the runner's loop: close() woke a blocking call of an assignment. */
    private final Runnable closeRequest;
    private int parkedGeneration = -1;
    private boolean stopping;

    GroupRebalance(final KafkaJoinConfig config, final TopicLayout layout, final ServedPartition[] partitions,
        final CommitPolicy commits, final JoinEngine engine, final KafkaConsumer<byte[], byte[]> consumer,
        final KafkaJoinRunnerBean counters, final RunnerFailure failure, final Runnable closeRequest)
    {
        this.config = config;
        this.layout = layout;
        this.partitions = partitions;
        this.commits = commits;
        this.engine = engine;
        this.consumer = consumer;
        this.counters = counters;
        this.failure = failure;
        this.closeRequest = closeRequest;
    }

    /** The runner shuts down: the consumer's close revokes everything, and nothing is to be done about it. */
    void stop()
    {
        stopping = true;
    }

    @Override
    public void onPartitionsRevoked(final Collection<TopicPartition> revoked)
    {
        if (stopping)
        {
            return;
        }
        try
        {
            final boolean[] affected = new boolean[partitions.length];
            for (final TopicPartition tp : revoked)
            {
                input(tp).held = false;
                affected[tp.partition()] = true;
            }
            // Kept until the new assignment is known: the eager protocol revokes everything on every
            // rebalance, and a partition that comes straight back need not be restored.
            parkedGeneration = consumer.groupMetadata().generationId();
            final boolean[] handBack = new boolean[partitions.length];
            for (int p = 0; p < partitions.length; p++)
            {
                handBack[p] = affected[p] && partitions[p].served;
            }
            final boolean[] checkpointed = commits.handBack(handBack);
            for (int p = 0; p < partitions.length; p++)
            {
                if (checkpointed[p])
                {
                    partitions[p].parked = true;
                }
                else if (handBack[p])
                {
                    drop(p);
                }
            }
            counters.servedPartitions = ServedPartition.countServed(partitions);
        }
        catch (final RuntimeException e)
        {
            failure.fail(new KafkaJoinException("handing partitions " + revoked + " back failed: " + e, e));
        }
    }

    @Override
    public void onPartitionsAssigned(final Collection<TopicPartition> assigned)
    {
        if (stopping)
        {
            return;
        }
        try
        {
            for (final TopicPartition tp : assigned)
            {
                input(tp).held = true;
            }
            // A parked partition is resumed as it is only when no generation passed in between (in which
            // another member could have served it and checkpointed a newer state).
            final boolean parkedCurrent = consumer.groupMetadata().generationId() == parkedGeneration + 1;
            final List<TopicPartition> pause = new ArrayList<>();
            for (int p = 0; p < partitions.length; p++)
            {
                final ServedPartition partition = partitions[p];
                final boolean all = partition.allHeld();
                if (partition.parked && !(all && parkedCurrent))
                {
                    drop(p);
                }
                if (all && !partition.served)
                {
                    serve(p);
                }
                else if (!all)
                {
                    for (int s = 0; s < layout.n; s++)
                    {
                        if (partition.input(s).held)
                        {
                            pause.add(partition.input(s).topicPartition);
                        }
                    }
                }
            }
            if (!pause.isEmpty())
            {
                consumer.pause(pause);
            }
            counters.servedPartitions = ServedPartition.countServed(partitions);
        }
        catch (final WakeupException e)
        {
            // close() woke a blocking call here: the partitions not yet served stay unserved; close goes on.
            closeRequest.run();
        }
        catch (final KafkaJoinException e)
        {
            failure.fail(e);
        }
        catch (final RuntimeException e)
        {
            failure.fail(new KafkaJoinException("taking over partitions " + assigned + " failed: " + e, e));
        }
    }

    @Override
    public void onPartitionsLost(final Collection<TopicPartition> lost)
    {
        if (stopping)
        {
            return;
        }
        try
        {
            final boolean lossAbortsAll = commits.lossAbortsAll();
            for (final TopicPartition tp : lost)
            {
                input(tp).held = false;
                final int p = tp.partition();
                if (!lossAbortsAll && (partitions[p].served || partitions[p].parked))
                {
                    // Another member may serve it already: no commit, no checkpoint; it restarts from the last one.
                    drop(p);
                }
            }
            if (lossAbortsAll)
            {
                abortAfterLoss();
            }
            counters.servedPartitions = ServedPartition.countServed(partitions);
        }
        catch (final RuntimeException e)
        {
            failure.fail(new KafkaJoinException("dropping lost partitions " + lost + " failed: " + e, e));
        }
    }

    private InputPartition input(final TopicPartition tp)
    {
        if (tp.partition() >= partitions.length)
        {
            throw new KafkaJoinException("topic '" + tp.topic() + "' now has more than the " + partitions.length +
                " partitions it had at start: the inputs are no longer co-partitioned as the join's state is");
        }
        return partitions[tp.partition()].input(layout.inputOf(tp.topic()));
    }

    /**
     * After partitions were lost, where one transaction spans every served partition: the open transaction
     * holds outputs of the lost partitions past their committed offsets, so it is aborted; first every served
     * partition is dropped and the drops awaited (what their rings still held is sent before the abort, not into
     * the next transaction). The partitions still held on every input are then served again from their
     * committed checkpoints.
     */
    private void abortAfterLoss()
    {
        final List<CompletableFuture<CompletedCheckpoint>> drops = new ArrayList<>();
        for (int p = 0; p < partitions.length; p++)
        {
            final ServedPartition partition = partitions[p];
            if (partition.served || partition.parked)
            {
                partition.served = false;
                partition.parked = false;
                partition.newEpoch();
                drops.add(engine.dropPartition(p));
            }
        }
        for (final CompletableFuture<CompletedCheckpoint> drop : drops)
        {
            CommitPolicy.await(drop, "drop of a lost partition");
        }
        commits.abortUncommitted();
        for (int p = 0; p < partitions.length; p++)
        {
            if (partitions[p].allHeld())
            {
                serve(p);
            }
        }
    }

    /** Starts serving {@code p}, held on every input now: resumed as parked, or taken over from its newest checkpoint. */
    private void serve(final int p)
    {
        final int n = layout.n;
        final ServedPartition partition = partitions[p];
        final List<TopicPartition> tps = partition.topicPartitions();
        final long now = System.nanoTime();
        long[] positions;
        if (partition.parked)
        {
            partition.parked = false;
            positions = partition.positions();
        }
        else
        {
            partition.newEpoch();
            final CompletedCheckpoint checkpoint = CommitPolicy.await(commits.takeOver(p), "take-over of partition " + p);
            positions = checkpoint.positions();
            if (positions == null)
            {
                positions = commits.startEmpty(p, tps);
            }
            else
            {
                if (positions.length != n && positions.length != n + 1)
                {
                    throw new KafkaJoinException("the checkpoint of partition " + p + " in " + config.checkpointDir() + " holds " +
                        positions.length + " positions, not " + n + " (the inputs' offsets) or " + (n + 1) + " (and the " +
                        "exactly-once commit's token): is it another job's directory?");
                }
                counters.restored.incrementAndGet();
                KafkaJoinRunner.LOG.log(System.Logger.Level.INFO, "partition " + p + ": taken over from checkpoint " +
                    checkpoint.id() + " at offsets " + layout.describe(positions));
            }
            for (int s = 0; s < n; s++)
            {
                partition.input(s).restart();
            }
            partition.lastStep = 0;
        }
        for (int s = 0; s < n; s++)
        {
            consumer.seek(tps.get(s), positions[s]);
        }
        consumer.resume(tps);
        for (int s = 0; s < n; s++)
        {
            partition.input(s).resume(positions[s], now);
        }
        partition.served = true;
    }

    private void drop(final int p)
    {
        partitions[p].served = false;
        partitions[p].parked = false;
        partitions[p].newEpoch();
        // Through the ring: nothing waits for it, the partition's next take-over queues behind it.
        engine.dropPartition(p);
    }
}
