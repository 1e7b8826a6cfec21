package io.junction.kafka;

import io.junction.runtime.CompletedCheckpoint;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exactly-once delivery ({@link KafkaJoinConfig#exactlyOnce()}): the producer is transactional and each commit
 * cycle is one transaction. A cycle checkpoints every served partition at its next offsets and the cycle's
 * token, waits for all, sends those offsets (the token in their metadata) into the transaction with the
 * consumer's group metadata and commits it. A take-over resumes at exactly the checkpoint whose positions are
 * the committed ones. Owned by the consumer thread.
 */
final class TransactionalCommits extends CommitPolicy
{
    /** Prefix of the offsets' metadata in exactly-once mode, before the commit's token. */
    static final String TOKEN_PREFIX = "junction-eos ";

    private KafkaProducer<byte[], byte[]> producer;
    /** A transaction is open (begun and neither committed nor aborted). */
    private boolean inTransaction;
    /** The token of the cycle under way: its offsets' metadata, and its checkpoints' last position. */
    private long token;

    TransactionalCommits(final KafkaJoinConfig config, final TopicLayout layout, final ServedPartition[] partitions,
        final KafkaJoinRunnerBean counters, final RunnerFailure failure)
    {
        super(config, layout, partitions, counters, failure);
    }

    @Override
    KafkaProducer<byte[], byte[]> startProducer(final Map<String, Object> props)
    {
        // Per instance: zombies are fenced by the group metadata sent with the offsets (KIP-447), not by the id.
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.groupId() + "-" + UUID.randomUUID());
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        try
        {
            producer.initTransactions();
            // Before the engine starts: the partition threads send into it from their first result.
            producer.beginTransaction();
            inTransaction = true;
        }
        catch (final KafkaException e)
        {
            throw new KafkaJoinException("the transactional producer could not start (exactly-once needs a cluster " +
                "with transactions): " + e, e);
        }
        return producer;
    }

    @Override
    void afterPoll(final long now)
    {
        if (now - nextCheckpointNanos >= 0 && !failure.failed())
        {
            commitCycle(true);
            nextCheckpointNanos = System.nanoTime() + config.checkpointInterval().toNanos();
        }
    }

    @Override
    boolean[] handBack(final boolean[] handBack)
    {
        // One transaction covers every served partition's outputs: commit them all.
        final boolean committed = !failure.failed() && commitCycle(true);
        final boolean[] checkpointed = new boolean[partitions.length];
        for (int p = 0; p < partitions.length; p++)
        {
            checkpointed[p] = committed && handBack[p];
            partitions[p].served &= !handBack[p];
        }
        return checkpointed;
    }

    @Override
    boolean lossAbortsAll()
    {
        return true;
    }

    @Override
    void abortUncommitted()
    {
        if (inTransaction)
        {
            inTransaction = false;
            producer.abortTransaction();
        }
        producer.beginTransaction();
        inTransaction = true;
    }

    @Override
    CompletableFuture<CompletedCheckpoint> takeOver(final int p)
    {
        final long[] committed = committedPositions(p);
        return engine.takeOverPartition(p, committed);
    }

    @Override
    long[] startEmpty(final int p, final List<TopicPartition> tps)
    {
        // Never committed: from the beginning, whatever checkpoints exist (none was committed).
        final Map<TopicPartition, Long> beginning = consumer.beginningOffsets(tps);
        final long[] positions = new long[layout.n];
        for (int s = 0; s < layout.n; s++)
        {
            positions[s] = beginning.get(tps.get(s));
        }
        KafkaJoinRunner.LOG.log(System.Logger.Level.INFO, "partition " + p + ": nothing committed, starting empty at the beginning, " +
            "offsets " + layout.describe(positions));
        return positions;
    }

    @Override
    void commitAtClose()
    {
        commitCycle(false);
        for (final ServedPartition partition : partitions)
        {
            partition.served = false;
        }
    }

    @Override
    void afterEngineClosed()
    {
        // After the engine's close: what it sent last goes with the abort. Nothing when the last cycle committed.
        abortQuietly();
    }

    /**
     * One commit cycle, on the consumer thread (the only publisher, so nothing is published meanwhile).
     * Checkpoints every served partition at its next offsets and a fresh token, waits for all (each flushes the
     * producer first), sends those offsets (the token in their metadata) into the transaction with the group
     * metadata, commits it and, unless {@code next} is false, begins the next. Any failure fails the runner (the
     * caller's shutdown aborts the transaction where it can).
     *
     * @return whether the cycle committed.
     */
    private boolean commitCycle(final boolean next)
    {
        final int n = layout.n;
        token = ThreadLocalRandom.current().nextLong();
        final long[][] positions = new long[partitions.length][];
        final List<CompletableFuture<CompletedCheckpoint>> futures = new ArrayList<>();
        for (int p = 0; p < partitions.length; p++)
        {
            if (partitions[p].served)
            {
                positions[p] = checkpointPositions(p);
                futures.add(engine.checkpointPartition(p, positions[p]));
            }
            else
            {
                futures.add(null);
            }
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        final String metadata = TOKEN_PREFIX + token;
        try
        {
            for (int p = 0; p < partitions.length; p++)
            {
                if (positions[p] != null)
                {
                    await(futures.get(p), "checkpoint of partition " + p);
                    counters.checkpoints.incrementAndGet();
                    for (int s = 0; s < n; s++)
                    {
                        offsets.put(partitions[p].input(s).topicPartition, new OffsetAndMetadata(positions[p][s], metadata));
                    }
                }
            }
            if (failure.failed())
            {
                // An output failed meanwhile: its transaction must not commit.
                return false;
            }
            if (!offsets.isEmpty())
            {
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
            producer.commitTransaction();
            inTransaction = false;
            counters.commits.incrementAndGet();
            if (next)
            {
                producer.beginTransaction();
                inTransaction = true;
            }
            return true;
        }
        catch (final KafkaJoinException e)
        {
            failure.fail(e);
        }
        catch (final KafkaException | IllegalStateException e)
        {
            failure.fail(new KafkaJoinException("the exactly-once commit of " + offsets + " failed (the transaction is aborted; " +
                "the partitions restart from their committed checkpoints on the group's members): " + e, e));
        }
        return false;
    }

    /**
     * The positions the cycle checkpoints partition {@code p} at: its inputs' next offsets, then the cycle's
     * token, which a take-over matches against the committed offsets' metadata ({@link #committedPositions}).
     */
    private long[] checkpointPositions(final int p)
    {
        final long[] positions = Arrays.copyOf(partitions[p].positions(), layout.n + 1);
        positions[layout.n] = token;
        return positions;
    }

    /**
     * The positions partition {@code p} was committed at (its inputs' offsets in input order and the token), or
     * null when no input was ever committed. Some committed and others not (not written by this runner, which
     * commits them all at once) counts the missing ones as their beginning offsets.
     */
    private long[] committedPositions(final int p)
    {
        final int n = layout.n;
        final List<TopicPartition> tps = partitions[p].topicPartitions();
        Map<TopicPartition, OffsetAndMetadata> committed = null;
        for (int attempt = 1; committed == null; attempt++)
        {
            try
            {
                committed = consumer.committed(new HashSet<>(tps));
            }
            catch (final TimeoutException e)
            {
                // Offsets sent into a transaction that is still open (its member died between sending them and
                // committing) stay unstable until the coordinator aborts it after transaction.timeout.ms, which by
                // default is as long as the consumer's default.api.timeout.ms: wait that out once more.
                if (attempt == 2)
                {
                    throw new KafkaJoinException("the committed offsets of partition " + p + " could not be read: " + e +
                        " (an open transaction's offsets stay unstable until transaction.timeout.ms aborts it)", e);
                }
            }
        }
        boolean any = false;
        boolean all = true;
        for (final TopicPartition tp : tps)
        {
            final boolean has = committed.get(tp) != null;
            any |= has;
            all &= has;
        }
        if (!any)
        {
            return null;
        }
        final Map<TopicPartition, Long> beginning = all ? Map.of() : consumer.beginningOffsets(tps);
        String token = null;
        for (final TopicPartition tp : tps)
        {
            final OffsetAndMetadata c = committed.get(tp);
            if (c != null && c.metadata() != null && c.metadata().startsWith(TOKEN_PREFIX))
            {
                token = c.metadata();
                break;
            }
        }
        final long[] positions = new long[token == null ? n : n + 1];
        for (int s = 0; s < n; s++)
        {
            final OffsetAndMetadata c = committed.get(tps.get(s));
            positions[s] = c != null ? c.offset() : beginning.get(tps.get(s));
            if (token != null && c != null && !token.equals(c.metadata()))
            {
                throw new KafkaJoinException("the committed offsets of partition " + p + " carry different commit tokens ('" +
                    token + "', '" + c.metadata() + "'): were they committed by something other than this runner?");
            }
        }
        if (token == null)
        {
            // Committed by the at-least-once mode: its checkpoints hold the offsets only.
            return positions;
        }
        try
        {
            positions[n] = Long.parseLong(token.substring(TOKEN_PREFIX.length()));
            return positions;
        }
        catch (final NumberFormatException e)
        {
            throw new KafkaJoinException("the committed offsets of partition " + p + " carry a malformed commit token '" + token +
                "'", e);
        }
    }

    /** Aborts the open transaction, quietly (a fenced producer cannot: the coordinator aborts it). */
    private void abortQuietly()
    {
        if (!inTransaction)
        {
            return;
        }
        inTransaction = false;
        try
        {
            producer.abortTransaction();
        }
        catch (final KafkaException | IllegalStateException e)
        {
            KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "aborting the transaction failed (it is aborted by the coordinator or was " +
                "fenced; its outputs never become visible to read_committed consumers): " + e);
        }
    }
}
