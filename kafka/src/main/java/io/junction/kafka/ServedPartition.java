package io.junction.kafka;

import io.junction.runtime.Publisher;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Engine partition {@code p} as this member serves it: partition {@code p} of every input topic, whether it is
 * served (held on every input and taken over) or parked (handed back at a revocation, kept until the new
 * assignment is known), the step of its last record, and its take-over epoch; and its watermarks and idleness
 * marks. Owned by the consumer thread, except {@link #epoch()}, which its result sink reads on the partition's
 * thread.
 */
final class ServedPartition
{
    final int partition;
    private final InputPartition[] inputs;
    private final TopicLayout layout;
    private final RunnerFailure failure;
    boolean served;
    boolean parked;
    long lastStep;
    /** Bumped by the consumer thread (its only writer) at each take-over or drop: the sink restarts its ordinals. */
    private volatile int epoch;

    private ServedPartition(final int partition, final TopicLayout layout, final RunnerFailure failure)
    {
        this.partition = partition;
        this.layout = layout;
        this.failure = failure;
        inputs = new InputPartition[layout.n];
        for (int s = 0; s < layout.n; s++)
        {
            inputs[s] = new InputPartition(new TopicPartition(layout.topic(s), partition));
        }
    }

    /** @return every partition of the layout, indexed by partition. */
    static ServedPartition[] table(final TopicLayout layout, final RunnerFailure failure)
    {
        final ServedPartition[] table = new ServedPartition[layout.partitions()];
        for (int p = 0; p < table.length; p++)
        {
            table[p] = new ServedPartition(p, layout, failure);
        }
        return table;
    }

    /** @return the partitions of the table that are served. */
    static int countServed(final ServedPartition[] table)
    {
        int n = 0;
        for (final ServedPartition partition : table)
        {
            n += partition.served ? 1 : 0;
        }
        return n;
    }

    /** @return partition {@code p} of input {@code s}. */
    InputPartition input(final int s)
    {
        return inputs[s];
    }

    /** @return the take-over epoch. */
    int epoch()
    {
        return epoch;
    }

    /** A take-over or a drop: the partition's outputs restart their ordinals. */
    void newEpoch()
    {
        epoch = epoch + 1;
    }

    /** Whether this member holds partition {@code p} of every input topic. */
    boolean allHeld()
    {
        for (final InputPartition input : inputs)
        {
            if (!input.held)
            {
                return false;
            }
        }
        return true;
    }

    /** Partition {@code p} of every input topic. */
    List<TopicPartition> topicPartitions()
    {
        final List<TopicPartition> tps = new ArrayList<>(inputs.length);
        for (final InputPartition input : inputs)
        {
            tps.add(input.topicPartition);
        }
        return tps;
    }

    /** @return the next offset of each input: what a checkpoint now covers. */
    long[] positions()
    {
        final long[] positions = new long[inputs.length];
        for (int s = 0; s < inputs.length; s++)
        {
            positions[s] = inputs[s].nextOffset;
        }
        return positions;
    }

    /** After each poll: the watermark of each input that advanced, with the step of the record that advanced it. */
    void publishWatermarks(final Publisher publisher, final long delay)
    {
        if (!served)
        {
            return;
        }
        for (int s = 0; s < inputs.length; s++)
        {
            final long watermark = inputs[s].advanceWatermark(delay);
            if (watermark != InputPartition.NONE)
            {
                final long step = Steps.ofMark(inputs[s].maxTimestampStep);
                final int result = layout.multi ? publisher.watermarkInput(partition, s, watermark, step) :
                    publisher.watermark(partition, TopicLayout.side(s), watermark, step);
                checkControl(result, "watermark");
            }
        }
    }

    /** After each poll: an idleness mark for each input without a record for {@code timeout} ns that is read to its end. */
    void markIdle(final Publisher publisher, final KafkaConsumer<byte[], byte[]> consumer, final long now, final long timeout)
    {
        if (!served)
        {
            return;
        }
        for (int s = 0; s < inputs.length; s++)
        {
            if (inputs[s].silent(now, timeout) && caughtUp(consumer, inputs[s]))
            {
                inputs[s].idle = true;
                final long step = Steps.ofMark(lastStep);
                checkControl(layout.multi ? publisher.idleInput(partition, s, step) :
                    publisher.idle(partition, TopicLayout.side(s), step), "idleness mark");
            }
        }
    }

    /**
     * Whether the consumer has read the input partition to its end: only then is its silence idleness. While a
     * take-over replays, fetches may favour one input for longer than the idle timeout; marking the other idle then
     * would let the join watermark pass rows still waiting in Kafka, which would arrive late. An unknown lag (no
     * fetch answered yet) is not idleness either.
     */
    private static boolean caughtUp(final KafkaConsumer<byte[], byte[]> consumer, final InputPartition input)
    {
        final OptionalLong lag = consumer.currentLag(input.topicPartition);
        return lag.isPresent() && lag.getAsLong() == 0;
    }

    private void checkControl(final int result, final String what)
    {
        if (result == Publisher.PARTITION_FAILED)
        {
            failure.fail(new KafkaJoinException("engine partition " + partition + " failed (see the engine's error log) at a " +
                what));
        }
        else if (result != Publisher.PUBLISHED && result != Publisher.CLOSED)
        {
            failure.fail(new KafkaJoinException("the engine answered " + result + " to a " + what + " of partition " + partition));
        }
    }
}
