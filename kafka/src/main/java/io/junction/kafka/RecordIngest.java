package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Each input record into the engine: its change kind, its value decoded into a row, its key checked against
 * the row's join key, published as a step of its partition; or a counted dead letter with its reason. Owned
 * by the consumer thread (the engine's single producer); no allocation per record on the binary path.
 */
final class RecordIngest
{
    private static final int MAX_WARNINGS = 10;

    private final KafkaJoinConfig config;
    private final TopicLayout layout;
    private final ServedPartition[] partitions;
    private final Publisher publisher;
    private final KafkaJoinRunnerBean counters;
    private final RunnerFailure failure;
    private final UnsafeBuffer decoded = new UnsafeBuffer(ByteBuffer.allocateDirect(RowFormat.MAX_ROW_LENGTH));
    private final UnsafeBuffer wrapped = new UnsafeBuffer(new byte[0]);
    /** The record's row, to read its join key from (the consumer thread's). */
    private final RowView keySource = new RowView();
    /** The join key the record's key should be, in {@link KafkaJoinConfig.InputKeys#BINARY_KEY_ROW}: reused. */
    private final byte[] expectedKey = new byte[RowFormat.MAX_ROW_LENGTH];
    private final UnsafeBuffer expectedKeyBuffer = new UnsafeBuffer(expectedKey);
    private final RowWriter keyWriter = new RowWriter();
    /** Per input, its join-key fields' indexes in its schema. */
    private final int[][] keyFields;
    /** Warnings given for refused records so far (consumer thread only): at most {@link #MAX_WARNINGS}. */
    private int warnings;

    RecordIngest(final KafkaJoinConfig config, final TopicLayout layout, final ServedPartition[] partitions,
        final Publisher publisher, final KafkaJoinRunnerBean counters, final RunnerFailure failure)
    {
        this.config = config;
        this.layout = layout;
        this.partitions = partitions;
        this.publisher = publisher;
        this.counters = counters;
        this.failure = failure;
        final int n = layout.n;
        final boolean multi = layout.multi;
        keyFields = new int[n][];
        for (int s = 0; s < n; s++)
        {
            final List<String> fields = multi ? config.spec().multi().key(s) : (s == 0 ? config.spec().leftKey() : config.spec().rightKey());
            final Schema schema = multi ? config.spec().multi().schema(s) : config.spec().schema(TopicLayout.side(s));
            keyFields[s] = new int[fields.size()];
            for (int f = 0; f < fields.size(); f++)
            {
                keyFields[s][f] = schema.indexOf(fields.get(f));
            }
        }
    }

    void onRecord(final ConsumerRecord<byte[], byte[]> record, final long now)
    {
        final int p = record.partition();
        final int s = layout.inputOf(record.topic());
        if (s < 0 || p >= partitions.length || !partitions[p].served)
        {
            // Fetched before its partition left this member: its next owner reads it from the checkpoint.
            return;
        }
        final ServedPartition partition = partitions[p];
        final InputPartition input = partition.input(s);
        final long offset = record.offset();
        final long step = layout.steps.ofRecord(offset, s);
        final long ts = record.timestamp();
        input.read(offset, now);
        partition.lastStep = step;
        counters.recordsConsumed.lazySet(counters.recordsConsumed.get() + 1);

        final byte[] value = record.value();
        final ChangeKind kind = kindOf(record);
        if (value == null)
        {
            deadLetter(p, s, offset, ts, DeadLetterReason.MALFORMED_ROW);
            return;
        }
        if (kind == null)
        {
            // The header, not the value, is what cannot be read: say so, and what it holds.
            warn(record, badKindHeader(record.headers().lastHeader(KafkaJoinRunner.INPUT_KIND_HEADER).value()));
            deadLetter(p, s, offset, ts, DeadLetterReason.UNDECODABLE_VALUE);
            return;
        }
        final RowDecoder decoder = config.inputDecoder(s);
        final UnsafeBuffer row = wrapped;
        final int length = decoder.decodeInto(value, row, decoded);
        if (length < 0)
        {
            warn(record, decoder.lastError());
            deadLetter(p, s, offset, ts, length == RowDecoder.UNDECODABLE ? DeadLetterReason.UNDECODABLE_VALUE
                : length == RowDecoder.TOO_LARGE ? DeadLetterReason.ROW_TOO_LARGE : DeadLetterReason.MALFORMED_ROW);
            return;
        }
        if (!keyMatches(s, record.key(), row, length))
        {
            counters.misrouted.increment();
            deadLetter(p, s, offset, ts, DeadLetterReason.MISROUTED);
            return;
        }
        final int result = layout.multi ? publisher.publishInput(p, s, kind, row, 0, length, ts, step, System.nanoTime()) :
            publisher.publish(p, TopicLayout.side(s), kind, row, 0, length, ts, step, System.nanoTime());
        switch (result)
        {
            case Publisher.PUBLISHED:
                input.published(ts, step);
                break;
            case Publisher.ROW_TOO_LARGE:
                deadLetter(p, s, offset, ts, DeadLetterReason.ROW_TOO_LARGE);
                break;
            case Publisher.MALFORMED_ROW:
            case Publisher.INVALID_ARGUMENT:
                deadLetter(p, s, offset, ts, DeadLetterReason.MALFORMED_ROW);
                break;
            case Publisher.SCHEMA_MISMATCH:
                warn(record, publisher.lastRefusal());
                deadLetter(p, s, offset, ts, DeadLetterReason.SCHEMA_MISMATCH);
                break;
            case Publisher.EXPANSION_FAILED:
                // the row's expansion (docs/SEMANTICS.md 12) failed: nothing of it was published
                warn(record, publisher.lastRefusal());
                deadLetter(p, s, offset, ts, DeadLetterReason.EXPANSION_FAILED);
                break;
            case Publisher.CLOSED:
                failure.fail(new KafkaJoinException("the engine closed under the runner"));
                break;
            case Publisher.PARTITION_FAILED:
                failure.fail(new KafkaJoinException("engine partition " + p + " failed (see the engine's error log): the runner " +
                    "stops; its partitions restart from their last checkpoints on the group's other members or a restart"));
                break;
            default:
                failure.fail(new KafkaJoinException("the engine answered " + result + " to a publish of partition " + p));
                break;
        }
    }

    /**
     * Whether a record's key is its row's join key under {@link KafkaJoinConfig#inputKeys()}: never for a null
     * key; in {@code BINARY_KEY_ROW}, when the key's bytes equal the binary row of the row's key fields, written
     * into a reused buffer (no allocation). A row that is not well formed passes here: the publisher refuses it.
     */
    private boolean keyMatches(final int s, final byte[] key, final UnsafeBuffer row, final int length)
    {
        if (key == null)
        {
            return false;
        }
        if (config.inputKeys() == KafkaJoinConfig.InputKeys.ANY)
        {
            return true;
        }
        keySource.wrap(row, 0, length);
        if (keySource.validate() != null)
        {
            return true;
        }
        final int[] fields = keyFields[s];
        keyWriter.wrap(expectedKeyBuffer, 0, expectedKey.length, fields.length);
        for (int f = 0; f < fields.length; f++)
        {
            keyWriter.putField(f, keySource, fields[f]);
        }
        final int expected = keyWriter.finish();
        return expected >= 0 && Arrays.equals(expectedKey, 0, expected, key, 0, key.length);
    }

    /**
     * The first refused records get a warning that says why (the JSON parser's message, the bad header, the field
     * that does not fit its schema), beside their dead letter's reason; later ones are only counted, as the
     * dead-letter log samples too.
     */
    private void warn(final ConsumerRecord<byte[], byte[]> record, final CharSequence why)
    {
        if (why != null && warnings < MAX_WARNINGS)
        {
            warnings++;
            KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "refused record " + record.topic() + "-" +
                record.partition() + "@" + record.offset() + ": " + why);
        }
    }

    /** @return what is wrong with a {@link KafkaJoinRunner#INPUT_KIND_HEADER} value that is no change kind, naming the value */
    static String badKindHeader(final byte[] value)
    {
        final String header = KafkaJoinRunner.INPUT_KIND_HEADER;
        if (value == null)
        {
            return "its " + header + " header has no value, not one of +I, -U, +U or -D";
        }
        final String text = new String(value, 0, Math.min(value.length, 32), StandardCharsets.UTF_8);
        return "its " + header + " header is \"" + text + (value.length > 32 ? "..." : "") +
            "\", not one of +I, -U, +U or -D";
    }

    private static ChangeKind kindOf(final ConsumerRecord<byte[], byte[]> record)
    {
        final Header header = record.headers().lastHeader(KafkaJoinRunner.INPUT_KIND_HEADER);
        if (header == null)
        {
            return ChangeKind.INSERT;
        }
        final byte[] v = header.value();
        if (v == null || v.length != 2)
        {
            return null;
        }
        for (int kind = 0; kind < ResultSink.KIND_BYTES.length; kind++)
        {
            final byte[] k = ResultSink.KIND_BYTES[kind];
            if (k[0] == v[0] && k[1] == v[1])
            {
                return ChangeKind.fromOrdinal(kind);
            }
        }
        return null;
    }

    private void deadLetter(final int p, final int s, final long offset, final long ts, final DeadLetterReason reason)
    {
        counters.deadLetters.increment();
        try
        {
            if (layout.multi)
            {
                config.deadLetterHandler().onMultiDeadLetter(p, s, offset, ts, reason, null);
            }
            else
            {
                config.deadLetterHandler().onDeadLetter(p, TopicLayout.side(s), offset, ts, reason, null);
            }
        }
        catch (final RuntimeException e)
        {
            KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "the dead-letter handler threw", e);
        }
    }
}
