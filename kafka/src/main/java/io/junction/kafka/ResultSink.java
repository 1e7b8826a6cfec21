package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What the engine's partition threads hand back to Kafka: each partition's results, encoded and sent to the
 * output topic with their provenance ({@link PartitionSink}); the engine's dead letters, to the configured
 * handler; and the check at each checkpoint barrier that every output so far was acknowledged. Used by the
 * partition threads (each partition's sink by its own) and the producer's callbacks.
 */
final class ResultSink
{
    /** The UTF-8 short strings of the change kinds, by ordinal: the kind headers of inputs and outputs. */
    static final byte[][] KIND_BYTES = kindBytes();

    private final KafkaJoinConfig config;
    private final TopicLayout layout;
    private final ServedPartition[] partitions;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaJoinRunnerBean counters;
    private final RunnerFailure failure;
    /** The first failed send per partition, checked before that partition's next checkpoint. */
    private final AtomicReferenceArray<Exception> sendErrors;

    ResultSink(final KafkaJoinConfig config, final TopicLayout layout, final ServedPartition[] partitions,
        final KafkaProducer<byte[], byte[]> producer, final KafkaJoinRunnerBean counters, final RunnerFailure failure)
    {
        this.config = config;
        this.layout = layout;
        this.partitions = partitions;
        this.producer = producer;
        this.counters = counters;
        this.failure = failure;
        this.sendErrors = new AtomicReferenceArray<>(partitions.length);
    }

    /** @return partition {@code p}'s result handler. */
    ResultHandler results(final int p)
    {
        return new PartitionSink(p);
    }

    /** Partition {@code p}'s thread, at each checkpoint barrier: every output so far acknowledged, or the checkpoint fails. */
    void beforeCheckpoint(final int p)
    {
        producer.flush();
        final Exception error = sendErrors.get(p);
        if (error != null)
        {
            throw new KafkaJoinException("an output of partition " + p + " could not be written to '" + config.outputTopic() +
                "': " + error, error);
        }
    }

    /** @return partition {@code p}'s dead-letter handler: the engine's refusals, named by their record's offset. */
    DeadLetterHandler deadLetters(final int p)
    {
        return new DeadLetterHandler()
        {
            @Override
            public void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
                final DeadLetterReason reason)
            {
                final long offset = counted(step);
                try
                {
                    config.deadLetterHandler().onDeadLetter(p, side, offset, ts, reason, row);
                }
                catch (final RuntimeException e)
                {
                    KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "the dead-letter handler threw", e);
                }
            }

            @Override
            public void onMultiDeadLetter(final int input, final ChangeKind kind, final RowView row, final long ts,
                final long step, final DeadLetterReason reason)
            {
                final long offset = counted(step);
                try
                {
                    config.deadLetterHandler().onMultiDeadLetter(p, input, offset, ts, reason, row);
                }
                catch (final RuntimeException e)
                {
                    KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "the dead-letter handler threw", e);
                }
            }
        };
    }

    /** Counts one of the engine's dead letters; returns the offset of the record that caused it (or advanced its mark). */
    private long counted(final long step)
    {
        counters.deadLetters.increment();
        return layout.steps.offset(Steps.cause(step));
    }

    /**
     * Partition {@code p}'s results: encoded and sent with their provenance. Owned by the partition's thread.
     */
    private final class PartitionSink implements ResultHandler, Callback
    {
        private final int partition;
        private final byte[] partitionBytes;
        private final ResultEncoder encoder = config.resultEncoder();
        private long lastStep = Steps.NONE;
        private int seq;
        private int epoch = -1;

        PartitionSink(final int partition)
        {
            this.partition = partition;
            this.partitionBytes = ByteBuffer.allocate(Integer.BYTES).putInt(partition).array();
        }

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            send(step, timestamp, kind, encoder.key(kind, left, right, timestamp), encoder.value(kind, left, right, timestamp));
        }

        @Override
        public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
        {
            send(step, timestamp, kind, encoder.key(kind, rows, timestamp), encoder.value(kind, rows, timestamp));
        }

        private void send(final long step, final long timestamp, final ChangeKind kind, final byte[] key, final byte[] value)
        {
            final int current = partitions[partition].epoch();
            if (current != epoch)
            {
                epoch = current;
                lastStep = Steps.NONE;
            }
            if (step == lastStep)
            {
                seq++;
            }
            else
            {
                lastStep = step;
                seq = 0;
            }
            final long cause = Steps.cause(step);
            final int side = layout.steps.input(cause) + (Steps.isMark(step) ? layout.n : 0);
            final RecordHeaders headers = new RecordHeaders();
            headers.add(new RecordHeader(Provenance.PARTITION, partitionBytes));
            headers.add(new RecordHeader(Provenance.SIDE, layout.sideBytes[side]));
            headers.add(new RecordHeader(Provenance.OFFSET,
                ByteBuffer.allocate(Long.BYTES).putLong(layout.steps.offset(cause)).array()));
            headers.add(new RecordHeader(Provenance.SEQ, ByteBuffer.allocate(Integer.BYTES).putInt(seq).array()));
            headers.add(new RecordHeader(Provenance.KIND, KIND_BYTES[kind.ordinal()]));
            final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(config.outputTopic(),
                layout.sameOutputPartitions() ? Integer.valueOf(partition) : null, timestamp >= 0 ? Long.valueOf(timestamp) : null,
                key, value, headers);
            try
            {
                producer.send(record, this);
            }
            catch (final KafkaException | IllegalStateException e)
            {
                onCompletion(null, e);
            }
        }

        @Override
        public void onCompletion(final RecordMetadata metadata, final Exception error)
        {
            if (error == null)
            {
                counters.outputsProduced.increment();
                return;
            }
            sendErrors.compareAndSet(partition, null, error);
            failure.fail(new KafkaJoinException("an output of partition " + partition + " could not be written to '" +
                config.outputTopic() + "': " + error, error));
        }
    }

    private static byte[][] kindBytes()
    {
        final ChangeKind[] kinds = ChangeKind.values();
        final byte[][] bytes = new byte[kinds.length][];
        for (final ChangeKind kind : kinds)
        {
            bytes[kind.ordinal()] = kind.shortString().getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }
}
