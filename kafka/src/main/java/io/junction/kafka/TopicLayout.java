package io.junction.kafka;

import io.junction.api.JoinKind;
import io.junction.api.Side;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The topics a runner joins and how they line up: the input topics in the engine's input order, their names
 * in messages and provenance, and their common partition count. Checked at the start (the spec against the
 * configured inputs before anything connects, then the described topics' partition counts) and watched while
 * the runner runs (deleted topics, changed partition counts). Owned by the consumer thread; what the start
 * sets ({@link #n}, {@link #multi}, the topics, {@link #sideBytes}, {@link #partitions()}) is read by the
 * partition threads too, set before the engine starts.
 */
final class TopicLayout
{
    private final KafkaJoinConfig config;
    private final RunnerFailure failure;
    /** The inputs: 2 for the binary kinds (left, right), the spec's input count for a multi-way join. */
    final int n;
    /** A multi-way join: rows, watermarks and idleness go through the publisher's input-indexed calls. */
    final boolean multi;
    /** The input topics, in the engine's input order. */
    private final String[] topics;
    /** The provenance side of each input ({@code [0, n)}) and of its watermarks ({@code [n, 2n)}). */
    final byte[][] sideBytes;
    /** The step codec of {@link #n} inputs. */
    final Steps steps;
    private Admin admin;
    private int partitions;
    private boolean sameOutputPartitions;
    private long nextMetadataCheckNanos;
    private Map<String, KafkaFuture<TopicDescription>> pendingMetadata;

    /** The spec against the configured inputs, before anything connects: a clear error for each mismatch. */
    TopicLayout(final KafkaJoinConfig config, final RunnerFailure failure)
    {
        this.config = config;
        this.failure = failure;
        final boolean multiSpec = config.spec().kind() == JoinKind.MULTI;
        final List<String> inputs = config.inputTopics();
        if (config.hasInputList() && !multiSpec)
        {
            throw new KafkaJoinException("inputs " + inputs + " are for a multi-way join (JoinKind.MULTI); a " +
                config.spec().kind() + " join reads a leftTopic and a rightTopic");
        }
        if (multiSpec && config.spec().multi().inputs() != inputs.size())
        {
            throw new KafkaJoinException("the multi-way join has " + config.spec().multi().inputs() + " inputs " +
                config.spec().multi().names() + " but " + inputs.size() + " input topics are configured " + inputs +
                ": give one topic per input, in the spec's order (KafkaJoinConfig.Builder.inputs)");
        }
        multi = multiSpec;
        n = inputs.size();
        steps = new Steps(n);
        topics = inputs.toArray(new String[0]);
        sideBytes = new byte[2 * n][];
        for (int s = 0; s < n; s++)
        {
            final String name = multi ? config.spec().multi().names().get(s) : s == 0 ? "L" : "R";
            sideBytes[s] = name.getBytes(StandardCharsets.UTF_8);
            sideBytes[n + s] = ((multi ? Provenance.MULTI_WATERMARK_PREFIX : "W") + name).getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * Describes the topics through {@code admin} (kept for the metadata watch) and checks that the inputs are
     * co-partitioned.
     */
    void connect(final Admin admin)
    {
        this.admin = admin;
        final Map<String, TopicDescription> topics = describeTopics(config.startTimeout().toNanos());
        final int left = topics.get(this.topics[0]).partitions().size();
        final int output = topics.get(config.outputTopic()).partitions().size();
        for (int s = 1; s < n; s++)
        {
            final int count = topics.get(this.topics[s]).partitions().size();
            if (count == left)
            {
                continue;
            }
            if (!multi)
            {
                throw new KafkaJoinException("the input topics are not co-partitioned: left topic '" + config.leftTopic() +
                    "' has " + left + " partitions, right topic '" + config.rightTopic() + "' has " + count + "; both must " +
                    "have the same partition count and be keyed by the join key with the same partitioner");
            }
            throw new KafkaJoinException("the input topics are not co-partitioned: topic '" + this.topics[0] + "' (input " +
                inputName(0) + ") has " + left + " partitions, topic '" + this.topics[s] + "' (input " + inputName(s) +
                ") has " + count + "; every input topic must have the same partition count and be keyed by the common " +
                "key with the same partitioner");
        }
        partitions = left;
        sameOutputPartitions = output == partitions;
    }

    /** @return the input topics' partition count (after {@link #connect}). */
    int partitions()
    {
        return partitions;
    }

    /** @return whether the output topic has as many partitions as the inputs: results go to their input partition. */
    boolean sameOutputPartitions()
    {
        return sameOutputPartitions;
    }

    /** @return input {@code s}'s topic. */
    String topic(final int s)
    {
        return topics[s];
    }

    /** @return the input topics, in the engine's input order. */
    List<String> inputTopics()
    {
        return Arrays.asList(topics);
    }

    String inputName(final int s)
    {
        return multi ? config.spec().multi().names().get(s) : s == 0 ? "left" : "right";
    }

    /** The binary kinds' side of input {@code s}. */
    static Side side(final int s)
    {
        return s == 0 ? Side.LEFT : Side.RIGHT;
    }

    /** The input topics and the output topic. */
    private List<String> allTopics()
    {
        final List<String> names = new ArrayList<>(Arrays.asList(topics));
        names.add(config.outputTopic());
        return names;
    }

    /** The index of an input topic, or -1. */
    int inputOf(final String topic)
    {
        for (int s = 0; s < n; s++)
        {
            if (topics[s].equals(topic))
            {
                return s;
            }
        }
        return -1;
    }

    /** Describes the input and output topics, waiting at most {@code timeoutNanos}; a clear error for each way it fails. */
    private Map<String, TopicDescription> describeTopics(final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        final List<String> names = allTopics();
        final Map<String, KafkaFuture<TopicDescription>> futures = admin.describeTopics(names).topicNameValues();
        final Map<String, TopicDescription> described = new HashMap<>();
        for (final String name : names)
        {
            try
            {
                described.put(name, futures.get(name).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            catch (final ExecutionException e)
            {
                if (e.getCause() instanceof UnknownTopicOrPartitionException)
                {
                    throw new KafkaJoinException("topic '" + name + "' does not exist on " + config.bootstrapServers() +
                        ": create the " + role(name) + " topic first", e.getCause());
                }
                if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException)
                {
                    throw unreachable(e.getCause());
                }
                throw new KafkaJoinException("could not describe topic '" + name + "': " + e.getCause(), e.getCause());
            }
            catch (final TimeoutException e)
            {
                throw unreachable(e);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new KafkaJoinException("interrupted while describing the topics", e);
            }
        }
        return described;
    }

    private KafkaJoinException unreachable(final Throwable cause)
    {
        return new KafkaJoinException("the Kafka cluster at " + config.bootstrapServers() + " did not describe the topics within " +
            config.startTimeout().toMillis() + " ms: is it reachable?", cause);
    }

    private String role(final String topic)
    {
        final int s = inputOf(topic);
        if (s < 0)
        {
            return "output";
        }
        return multi ? "input '" + inputName(s) + "'" : s == 0 ? "left input" : "right input";
    }

    /** Checkpoint positions for the log: the binary kinds' "left L, right R", a multi-way join's input=offset list. */
    String describe(final long[] positions)
    {
        if (!multi)
        {
            return "left " + positions[0] + ", right " + positions[1];
        }
        final StringBuilder b = new StringBuilder();
        for (int s = 0; s < n; s++)
        {
            b.append(s == 0 ? "" : ", ").append(inputName(s)).append(' ').append(positions[s]);
        }
        return b.toString();
    }

    // ------------------------------------------------------------------------------------------ metadata

    /** Starts the metadata watch: the first check is one interval after {@code now}. */
    void watchFrom(final long now)
    {
        nextMetadataCheckNanos = now + config.metadataCheckInterval().toNanos();
    }

    /** Every metadata check interval: are the three topics still there with their partitions? Never blocks. */
    void checkMetadata(final long now)
    {
        if (pendingMetadata == null)
        {
            if (now - nextMetadataCheckNanos >= 0)
            {
                pendingMetadata = admin.describeTopics(allTopics()).topicNameValues();
            }
            return;
        }
        for (final KafkaFuture<TopicDescription> future : pendingMetadata.values())
        {
            if (!future.isDone())
            {
                return;
            }
        }
        final Map<String, KafkaFuture<TopicDescription>> done = pendingMetadata;
        pendingMetadata = null;
        nextMetadataCheckNanos = now + config.metadataCheckInterval().toNanos();
        for (final Map.Entry<String, KafkaFuture<TopicDescription>> e : done.entrySet())
        {
            final String topic = e.getKey();
            try
            {
                final int count = e.getValue().get().partitions().size();
                if (!topic.equals(config.outputTopic()) && count != partitions)
                {
                    failure.fail(new KafkaJoinException("the " + role(topic) + " topic '" + topic + "' now has " + count +
                        " partitions, not " + partitions + ": the inputs are no longer co-partitioned as at start"));
                }
            }
            catch (final ExecutionException ex)
            {
                if (ex.getCause() instanceof UnknownTopicOrPartitionException)
                {
                    failure.fail(deleted(topic, ex.getCause()));
                }
                else
                {
                    // An unreachable cluster for a while is the consumer's to ride out: check again later.
                    KafkaJoinRunner.LOG.log(System.Logger.Level.DEBUG, "metadata check of " + topic + " failed: " + ex.getCause());
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                failure.fail(new KafkaJoinException("interrupted", ex));
            }
        }
    }

    /**
     * A quick look whether both input topics still exist, waiting at most {@code timeout} for an answer; false
     * (and the runner fails) when one is gone.
     */
    boolean inputTopicsExist(final Duration timeout)
    {
        final Map<String, KafkaFuture<TopicDescription>> described =
            admin.describeTopics(Arrays.asList(topics)).topicNameValues();
        for (final Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet())
        {
            try
            {
                e.getValue().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (final ExecutionException ex)
            {
                if (ex.getCause() instanceof UnknownTopicOrPartitionException)
                {
                    failure.fail(deleted(e.getKey(), ex.getCause()));
                    return false;
                }
            }
            catch (final TimeoutException ex)
            {
                // No answer: the commit may still get through; the checkpoint holds the positions either way.
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private KafkaJoinException deleted(final String topic, final Throwable cause)
    {
        return new KafkaJoinException("the " + role(topic) + " topic '" + topic + "' was deleted while the runner ran", cause);
    }
}
