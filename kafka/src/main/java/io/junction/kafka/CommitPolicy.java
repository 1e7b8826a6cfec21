package io.junction.kafka;

import io.junction.runtime.CompletedCheckpoint;
import io.junction.runtime.JoinEngine;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a runner checkpoints the partitions it serves and then commits their offsets: periodically, when
 * partitions are handed back, at a take-over and at close. {@link AtLeastOnceCommits} checkpoints each
 * partition on its own and commits its offsets once its checkpoint is complete; {@link TransactionalCommits}
 * checkpoints every served partition at once and commits their offsets and outputs in one transaction.
 * Chosen once, at the start. Owned by the consumer thread.
 */
abstract class CommitPolicy
{
    static final long ENGINE_WAIT_SECONDS = 120;

    final KafkaJoinConfig config;
    final TopicLayout layout;
    final ServedPartition[] partitions;
    final KafkaJoinRunnerBean counters;
    final RunnerFailure failure;
    /** Set by {@link #start}, before the consumer's first poll. */
    JoinEngine engine;
    KafkaConsumer<byte[], byte[]> consumer;
    long nextCheckpointNanos;

    CommitPolicy(final KafkaJoinConfig config, final TopicLayout layout, final ServedPartition[] partitions,
        final KafkaJoinRunnerBean counters, final RunnerFailure failure)
    {
        this.config = config;
        this.layout = layout;
        this.partitions = partitions;
        this.counters = counters;
        this.failure = failure;
    }

    /** @return the policy {@link KafkaJoinConfig#exactlyOnce()} asks for. */
    static CommitPolicy of(final KafkaJoinConfig config, final TopicLayout layout, final ServedPartition[] partitions,
        final KafkaJoinRunnerBean counters, final RunnerFailure failure)
    {
        return config.exactlyOnce() ? new TransactionalCommits(config, layout, partitions, counters, failure) :
            new AtLeastOnceCommits(config, layout, partitions, counters, failure);
    }

    /**
     * The producer the outputs go through, made for this policy from the runner's producer properties; before
     * the engine starts, since the partition threads send into it from their first result.
     */
    abstract KafkaProducer<byte[], byte[]> startProducer(Map<String, Object> props);

    /** The engine and the consumer are there: the first periodic checkpoint is one interval after {@code now}. */
    final void start(final JoinEngine engine, final KafkaConsumer<byte[], byte[]> consumer, final long now)
    {
        this.engine = engine;
        this.consumer = consumer;
        nextCheckpointNanos = now + config.checkpointInterval().toNanos();
    }

    /** After each poll: the periodic checkpoints and commits that are due or complete. */
    abstract void afterPoll(long now);

    /**
     * A revocation: the partitions in {@code handBack} stop being served; they are checkpointed and their
     * offsets committed.
     *
     * @return for each partition, whether it was checkpointed (it is kept parked), else it is dropped.
     */
    abstract boolean[] handBack(boolean[] handBack);

    /**
     * Whether losing a partition loses the uncommitted outputs of every served partition (one transaction spans
     * them all): then all are dropped, {@link #abortUncommitted()} is called, and the held ones are served again
     * from their committed checkpoints; else each lost partition is dropped alone.
     */
    abstract boolean lossAbortsAll();

    /** After a loss dropped every partition ({@link #lossAbortsAll()}): their uncommitted outputs are aborted. */
    abstract void abortUncommitted();

    /** @return the take-over of partition {@code p}, at the checkpoint this policy resumes from. */
    abstract CompletableFuture<CompletedCheckpoint> takeOver(int p);

    /** @return the offsets partition {@code p} starts at when its take-over restored no checkpoint; logged. */
    abstract long[] startEmpty(int p, List<TopicPartition> tps);

    /** A clean close: a last checkpoint and commit of each served partition, so nothing is replayed. None is served after. */
    abstract void commitAtClose();

    /** After the engine closed (what its rings held was sent): whatever is still uncommitted is given up. */
    abstract void afterEngineClosed();

    static CompletedCheckpoint await(final CompletableFuture<CompletedCheckpoint> future, final String what)
    {
        try
        {
            return future.get(ENGINE_WAIT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new KafkaJoinException(what + " failed: " + e.getCause(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new KafkaJoinException(what + " did not complete within " + ENGINE_WAIT_SECONDS + " s", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaJoinException("interrupted while waiting for the " + what, e);
        }
    }
}
