package io.junction.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.api.DeadLetterReason;
import io.junction.api.Expansion;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.kafka.testing.KafkaTestBroker;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Row expansion before a join (docs/SEMANTICS.md 12) through the runner and a real broker, with JSON rows: orders
 * carrying an array of items, unnested with their position before a regular join to payments on the order id
 * (the key is not an expanded field, so the join runs as is). Each item meets the payment; an order without items
 * makes no row; its retraction retracts every row it made; an order whose {@code items} is not an array is one
 * dead letter with the code {@code EXPANSION_FAILED}, nothing of it joined. The bound is a hang guard, not a
 * timing assert.
 */
class KafkaExpansionJoinTest
{
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    /** Untyped, so that the expansion, not the decoder, judges a value of {@code items} that is no array. */
    private static final Schema ORDERS = Schema.of("order", "ts", "items");
    private static final Schema PAYMENTS = Schema.of("order", "ts", "paid");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void joinsEachUnnestedItemRetractsThemTogetherAndDeadLettersABadArray() throws Exception
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(ORDERS, PAYMENTS)
            .leftKey("order").rightKey("order")
            .leftExpand(Expansion.unnest("items", "item").ordinality("pos"))
            .build();
        final String order1 = "{\"order\":1,\"ts\":1001,\"items\":[\"apple\",\"pear\",\"apple\"]}";
        final ConcurrentLinkedQueue<String> deadLetters = new ConcurrentLinkedQueue<>();
        try (KafkaTestBroker broker = KafkaTestBroker.start())
        {
            broker.createTopic("expand-left", 2);
            broker.createTopic("expand-right", 2);
            broker.createTopic("expand-out", 2);
            final Path dir = JoinFixture.freshDir("expand");
            final KafkaJoinRunner runner = new KafkaJoinRunner(JoinFixture.config(broker, spec)
                .leftDecoder(new JsonRowDecoder(spec.leftSchema())).rightDecoder(new JsonRowDecoder(spec.rightSchema()))
                .resultEncoder(new JsonResultEncoder(spec))
                .deadLetterHandler((partition, side, offset, ts, reason, row) -> deadLetters.add(side + "/" + reason))
                .engineName("kafka-expand").groupId("expand-group").leftTopic("expand-left").rightTopic("expand-right")
                .outputTopic("expand-out").stateDir(dir.resolve("state")).checkpointDir(dir.resolve("checkpoints")).build());
            assertTimeoutPreemptively(HANG_GUARD, () ->
            {
                final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, "runner-expand");
                try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                    new ByteArraySerializer(), new ByteArraySerializer()))
                {
                    // The payments first, consumed before any order: the two topics are read independently.
                    send(producer, "expand-right", 1, 1_000, "{\"order\":1,\"ts\":1000,\"paid\":9}", "+I");
                    send(producer, "expand-right", 2, 1_000, "{\"order\":2,\"ts\":1000,\"paid\":5}", "+I");
                    send(producer, "expand-right", 3, 1_000, "{\"order\":3,\"ts\":1000,\"paid\":7}", "+I");
                    JoinFixture.await(() -> runner.recordsConsumed() >= 3 || run.isDone(), 60,
                        () -> "the payments consumed, got " + runner.recordsConsumed());
                    send(producer, "expand-left", 1, 1_001, order1, "+I");
                    send(producer, "expand-left", 2, 1_002, "{\"order\":2,\"ts\":1002,\"items\":[]}", "+I");
                    send(producer, "expand-left", 3, 1_003, "{\"order\":3,\"ts\":1003,\"items\":\"apple\"}", "+I");
                    send(producer, "expand-left", 1, 1_004, order1, "-D");
                }
                JoinFixture.await(() -> runner.recordsConsumed() >= 7 && runner.outputsProduced() >= 6 || run.isDone(), 60,
                    () -> "six outputs, got " + runner.outputsProduced());
                // The running join answers on its engine's JMX bean (docs/SEMANTICS.md 14): order 1's rows were
                // retracted, its payment is stored; the consumed records may still be on their way to the partition.
                final ObjectName bean = new ObjectName("io.junction:type=JoinEngine,name=kafka-expand");
                JoinFixture.await(() -> inspect(bean, "{\"order\": 1}").equals("[]|" + "{\"order\":1,\"ts\":1000,\"paid\":9}"), 60,
                    () -> "order 1's state: " + inspect(bean, "{\"order\": 1}"));
                runner.close();
                run.get();
            });
            final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            records.addAll(JoinFixture.readAll(broker, "expand-out"));
            final List<String> outputs = new ArrayList<>();
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                final JsonNode line = JSON.readTree(new String(record.value(), StandardCharsets.UTF_8));
                final JsonNode left = line.get("left");
                assertEquals(JSON.readTree(order1).get("items"), left.get("items"), "the made row keeps the array: " + line);
                outputs.add(line.get("op").asText() + " order " + left.get("order").asLong() + " item " + left.get("item").asText() +
                    " pos " + left.get("pos").asLong() + " paid " + line.get("right").get("paid").asLong());
            }
            Collections.sort(outputs);
            assertEquals(List.of(
                "+I order 1 item apple pos 1 paid 9", "+I order 1 item apple pos 3 paid 9", "+I order 1 item pear pos 2 paid 9",
                "-D order 1 item apple pos 1 paid 9", "-D order 1 item apple pos 3 paid 9", "-D order 1 item pear pos 2 paid 9"),
                outputs, "each item joined once, each retracted once; order 2's empty list made nothing");
            assertEquals(List.of("LEFT/" + DeadLetterReason.EXPANSION_FAILED), new ArrayList<>(deadLetters),
                "order 3's items is not an array: one dead letter, nothing of it joined");
            assertEquals(1, runner.deadLetters());
        }
    }

    /** @return the left rows listed (JSON) and the right rows' row objects, as "LEFT|RIGHT_ROW,...". */
    private static String inspect(final ObjectName bean, final String key)
    {
        try
        {
            final JsonNode answer = JSON.readTree((String)ManagementFactory.getPlatformMBeanServer().invoke(bean, "inspect",
                new Object[] {"right", key}, new String[] {String.class.getName(), String.class.getName()}));
            final List<String> right = new ArrayList<>();
            answer.get("right").forEach(r -> right.add(r.get("row").toString()));
            return answer.get("left").toString() + "|" + String.join(",", right);
        }
        catch (final Exception e)
        {
            return e.toString();
        }
    }

    private static void send(
        final KafkaProducer<byte[], byte[]> producer, final String topic, final long key, final long ts, final String json,
        final String kind) throws Exception
    {
        final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null, ts, JoinFixture.key(key),
            json.getBytes(StandardCharsets.UTF_8));
        record.headers().add(new RecordHeader(KafkaJoinRunner.INPUT_KIND_HEADER, kind.getBytes(StandardCharsets.UTF_8)));
        producer.send(record).get(60, TimeUnit.SECONDS);
    }
}
