package io.junction.kafka;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.Schema;
import io.junction.kafka.testing.KafkaTestBroker;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Upsert output in the JSON format ({@code --format json}, {@link JsonResultEncoder}) through the runner: the
 * left join of docs/SEMANTICS.md 4.6's example, written to a compacted topic. Each record's key is the result key
 * as replay writes it ({@code {"left":{"log_id":2}}}), an upsert's value replay's upsert line without its step
 * and with the result's event time, and a delete a tombstone, so the topic read as a table (last value per key,
 * a tombstone removes) is the SQL join. The bound is a hang guard, not a timing assert.
 */
class KafkaJsonUpsertOutputTest
{
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final Schema SHOWS = Schema.of("log_id", "ts", "show");
    private static final Schema CLICKS = Schema.of("log_id", "ts", "click");
    private static final String KEY_1 = "{\"left\":{\"log_id\":1}}";
    private static final String KEY_2 = "{\"left\":{\"log_id\":2}}";

    @Test
    void keysByTheJsonResultKeyAndWritesADeleteAsATombstone() throws Exception
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SHOWS, CLICKS)
            .leftKey("log_id").rightKey("log_id").leftUniqueKey("log_id").rightUniqueKey("log_id")
            .output(OutputMode.UPSERT).build();
        final String show1 = "{\"log_id\":1,\"ts\":1000,\"show\":\"s1\"}";
        final String click1 = "{\"log_id\":1,\"ts\":1001,\"click\":\"c1\"}";
        final String show2 = "{\"log_id\":2,\"ts\":1002,\"show\":\"s2\"}";
        final Map<String, String> expected = new TreeMap<>();
        expected.put(KEY_1, "{\"op\":\"upsert\",\"key\":" + KEY_1 + ",\"left\":" + show1 + ",\"right\":" + click1 + ",\"ts\":1001}");
        try (KafkaTestBroker broker = KafkaTestBroker.start())
        {
            broker.createTopic("json-upsert-left", 2);
            broker.createTopic("json-upsert-right", 2);
            // a compacted topic refuses a record without a key: every result must name its result key
            broker.admin().createTopics(List.of(new NewTopic("json-upsert-out", 2, (short)1)
                .configs(Map.of("cleanup.policy", "compact")))).all().get(30, TimeUnit.SECONDS);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                new ByteArraySerializer(), new ByteArraySerializer()))
            {
                producer.send(record("json-upsert-left", 1, 1_000, show1, "+I")).get(60, TimeUnit.SECONDS);
                producer.send(record("json-upsert-right", 1, 1_001, click1, "+I")).get(60, TimeUnit.SECONDS);
                producer.send(record("json-upsert-left", 2, 1_002, show2, "+I")).get(60, TimeUnit.SECONDS);
                producer.send(record("json-upsert-left", 2, 1_002, show2, "-D")).get(60, TimeUnit.SECONDS);
            }
            final Path dir = JoinFixture.freshDir("json-upsert");
            final KafkaJoinRunner runner = new KafkaJoinRunner(JoinFixture.config(broker, spec)
                .leftDecoder(new JsonRowDecoder(SHOWS)).rightDecoder(new JsonRowDecoder(CLICKS))
                .resultEncoder(new JsonResultEncoder(spec))
                .groupId("json-upsert-group").leftTopic("json-upsert-left").rightTopic("json-upsert-right")
                .outputTopic("json-upsert-out").stateDir(dir.resolve("state")).checkpointDir(dir.resolve("checkpoints")).build());
            final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            assertTimeoutPreemptively(HANG_GUARD, () ->
            {
                final CompletableFuture<Void> run = new CompletableFuture<>();
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        runner.run();
                        run.complete(null);
                    }
                    catch (final Throwable e)
                    {
                        run.completeExceptionally(e);
                    }
                }, "runner-json-upsert");
                thread.setDaemon(true);
                thread.start();
                JoinFixture.await(() -> runner.recordsConsumed() >= 4 && hasTombstone(read(broker, records)) ||
                    run.isDone(), 60, () -> "a tombstone among " + describe(records));
                runner.close();
                run.get();
            });
            read(broker, records);
            assertEquals(0, runner.deadLetters(), "no dead letters");
            final Map<String, String> table = new TreeMap<>();
            String lastOfKey2 = "none";
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                assertNotNull(record.key(), "every record has a key");
                final String key = new String(record.key(), StandardCharsets.UTF_8);
                assertTrue(key.equals(KEY_1) || key.equals(KEY_2), "the JSON result key: " + describe(records));
                final String value = record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
                if (value == null)
                {
                    table.remove(key);
                }
                else
                {
                    assertTrue(value.startsWith("{\"op\":\"upsert\",\"key\":" + key + ","), "an upsert of its key: " + value);
                    table.put(key, value);
                }
                if (key.equals(KEY_2))
                {
                    lastOfKey2 = value;
                }
            }
            assertNull(lastOfKey2, "the delete of log_id 2 is a tombstone: " + describe(records));
            assertEquals(expected, table, "the topic read as a compacted table is the SQL left join");
        }
    }

    private static ProducerRecord<byte[], byte[]> record(
        final String topic, final long key, final long ts, final String json, final String kind)
    {
        final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null, ts, JoinFixture.key(key),
            json.getBytes(StandardCharsets.UTF_8));
        record.headers().add(new RecordHeader(KafkaJoinRunner.INPUT_KIND_HEADER, kind.getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(
        final KafkaTestBroker broker, final List<ConsumerRecord<byte[], byte[]>> records)
    {
        records.clear();
        records.addAll(JoinFixture.readAll(broker, "json-upsert-out"));
        return records;
    }

    private static boolean hasTombstone(final List<ConsumerRecord<byte[], byte[]>> records)
    {
        for (final ConsumerRecord<byte[], byte[]> record : records)
        {
            if (record.value() == null)
            {
                return true;
            }
        }
        return false;
    }

    private static String describe(final List<ConsumerRecord<byte[], byte[]>> records)
    {
        final StringBuilder out = new StringBuilder();
        for (final ConsumerRecord<byte[], byte[]> record : records)
        {
            out.append("\n  ").append(record.key() == null ? "null" : new String(record.key(), StandardCharsets.UTF_8))
                .append(" -> ").append(record.value() == null ? "null" : new String(record.value(), StandardCharsets.UTF_8));
        }
        return out.toString();
    }
}
