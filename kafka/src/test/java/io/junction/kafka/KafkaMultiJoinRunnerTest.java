package io.junction.kafka;

import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.kafka.testing.KafkaTestBroker;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.Side;

/**
 * The runner reading the N co-partitioned topics of a multi-way join (SEMANTICS 10) from a real broker: one member,
 * a 3-input join (orders, inner payments, left shipments) with deletes and updates on every input, its output's
 * materialized result against a brute-force left-deep chain over the inputs' final rows, the changelog never
 * deleting a combination it does not hold, provenance naming the inputs, and the start's refusals.
 */
class KafkaMultiJoinRunnerTest
{
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final Schema ORDERS = Schema.of("id", "ts", "amount");
    private static final Schema PAYMENTS = Schema.of("order_id", "ts", "paid");
    private static final Schema SHIPMENTS = Schema.of("order_id", "ts", "carrier");
    private static final Schema[] SCHEMAS = {ORDERS, PAYMENTS, SHIPMENTS};
    private static final String[] NAMES = {"orders", "payments", "shipments"};
    private static final String[] PAYLOAD = {"amount", "paid", "carrier"};
    private static final JoinSpec SPEC = JoinSpec.multi(MultiJoinSpec.builder(ORDERS)
        .input("orders", ORDERS, null, "id")
        .input("payments", PAYMENTS, JoinType.INNER, "order_id")
        .input("shipments", SHIPMENTS, JoinType.LEFT, "order_id")
        .build());

    private static KafkaTestBroker broker;

    @BeforeAll
    static void startBroker()
    {
        broker = KafkaTestBroker.start();
    }

    @AfterAll
    static void stopBroker()
    {
        if (broker != null)
        {
            broker.close();
        }
    }

    /** One input record: its input, change kind, key and payload (unique per row version). */
    private static final class Change
    {
        final int input;
        final String kind;
        final long key;
        final long payload;
        final long ts;
        int partition;
        long offset;

        Change(final int input, final String kind, final long key, final long payload, final long ts)
        {
            this.input = input;
            this.kind = kind;
            this.key = key;
            this.payload = payload;
            this.ts = ts;
        }

        byte[] bytes()
        {
            return JoinFixture.encode(SCHEMAS[input], Row.of(SCHEMAS[input].nameOf(0), key, "ts", ts, PAYLOAD[input], payload));
        }
    }

    /** Inserts, deletes and updates on every input over a few keys; each retraction follows its row on the same topic. */
    private static List<Change> changes(final long seed, final int count, final List<List<long[]>> live)
    {
        final Random random = new Random(seed);
        final List<Change> out = new ArrayList<>();
        long payload = 1;
        for (int i = 0; i < 3; i++)
        {
            live.add(new ArrayList<>());
        }
        for (int e = 0; e < count; e++)
        {
            final int input = random.nextInt(3);
            final List<long[]> rows = live.get(input);
            final long ts = 1_000 + e;
            final int what = rows.isEmpty() ? 0 : random.nextInt(10);
            if (what < 6)
            {
                final long key = random.nextInt(8);
                rows.add(new long[] {key, payload, ts});
                out.add(new Change(input, "+I", key, payload++, ts));
            }
            else
            {
                final long[] row = rows.remove(random.nextInt(rows.size()));
                if (what < 8)
                {
                    out.add(new Change(input, "-D", row[0], row[1], row[2]));
                }
                else
                {
                    out.add(new Change(input, "-U", row[0], row[1], row[2]));
                    rows.add(new long[] {row[0], payload, ts});
                    out.add(new Change(input, "+U", row[0], payload++, ts));
                }
            }
        }
        return out;
    }

    /** The left-deep chain ((orders JOIN payments) LEFT JOIN shipments) over the final rows, brute force. */
    private static TreeMap<String, Integer> expected(final List<List<long[]>> live)
    {
        final TreeMap<String, Integer> result = new TreeMap<>();
        for (final long[] o : live.get(0))
        {
            for (final long[] p : live.get(1))
            {
                if (p[0] != o[0])
                {
                    continue;
                }
                boolean matched = false;
                for (final long[] s : live.get(2))
                {
                    if (s[0] == o[0])
                    {
                        matched = true;
                        result.merge(o[1] + "|" + p[1] + "|" + s[1], 1, Integer::sum);
                    }
                }
                if (!matched)
                {
                    result.merge(o[1] + "|" + p[1] + "|null", 1, Integer::sum);
                }
            }
        }
        return result;
    }

    private static void produce(final String prefix, final List<Change> changes) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
            ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer()))
        {
            final List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (final Change c : changes)
            {
                final ProducerRecord<byte[], byte[]> record =
                    new ProducerRecord<>(prefix + "-" + NAMES[c.input], null, c.ts, JoinFixture.key(c.key), c.bytes());
                record.headers().add(KafkaJoinRunner.INPUT_KIND_HEADER, c.kind.getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(record));
            }
            for (int i = 0; i < changes.size(); i++)
            {
                final RecordMetadata metadata = sent.get(i).get(60, TimeUnit.SECONDS);
                changes.get(i).partition = metadata.partition();
                changes.get(i).offset = metadata.offset();
            }
        }
    }

    private static void createTopics(final String prefix, final int... partitions)
    {
        for (int i = 0; i < NAMES.length; i++)
        {
            broker.createTopic(prefix + "-" + NAMES[i], partitions[i]);
        }
        broker.createTopic(prefix + "-out", partitions[0]);
    }

    private static KafkaJoinConfig.Builder config(final String prefix, final Path dir)
    {
        return JoinFixture.config(broker, SPEC)
            .groupId(prefix + "-group")
            .inputs(prefix + "-orders", prefix + "-payments", prefix + "-shipments")
            .outputTopic(prefix + "-out")
            .stateDir(dir.resolve("state"))
            .checkpointDir(dir.resolve("checkpoints"));
    }

    private static String payloadOf(final BinaryMultiResult result, final int input)
    {
        final RowView view = result.view(input);
        return view == null ? "null" : String.valueOf(RowCodec.decode(SCHEMAS[input], view).getLong(PAYLOAD[input]));
    }

    @Test
    void shouldJoinThreeCoPartitionedTopicsToTheBruteForceChainWithRetractionsAcrossARestart() throws Exception
    {
        joinWithARestart("multi3", false);
    }

    @Test
    void shouldJoinThemExactlyOnceAcrossARestart() throws Exception
    {
        joinWithARestart("multi3eos", true);
    }

    private static KafkaJoinRunner runner(final String prefix, final Path dir, final boolean exactlyOnce,
        final ConcurrentLinkedQueue<String> deadLetters)
    {
        return new KafkaJoinRunner(config(prefix, dir)
            .exactlyOnce(exactlyOnce)
            .deadLetterHandler(new KafkaDeadLetterHandler()
            {
                @Override
                public void onDeadLetter(final int partition, final Side side, final long offset,
                    final long timestamp, final DeadLetterReason reason, final RowView row)
                {
                    deadLetters.add("binary " + side);
                }

                @Override
                public void onMultiDeadLetter(final int partition, final int input, final long offset, final long timestamp,
                    final DeadLetterReason reason, final RowView row)
                {
                    deadLetters.add(partition + "/" + input + "/" + offset + "/" + reason);
                }
            })
            .build());
    }

    /** Runs one member until it has read {@code records}, then closes it (its last checkpoints and commit). */
    private static void runUntil(final KafkaJoinRunner runner, final long records, final String name)
    {
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, name);
            JoinFixture.await(() -> runner.recordsConsumed() >= records || run.isDone(), 120,
                () -> "the runner's input (" + runner.recordsConsumed() + " of " + records + ")");
            // The close's last checkpoint flushes every output of what was read.
            runner.close();
            run.get();
        });
    }

    /**
     * The first half of the changes through one member, closed; the second half through a new member of the group,
     * which takes the three partitions over from their checkpoints (three offsets each) and reads on from there.
     */
    private static void joinWithARestart(final String prefix, final boolean exactlyOnce) throws Exception
    {
        createTopics(prefix, 3, 3, 3);
        final List<List<long[]>> live = new ArrayList<>();
        final List<Change> changes = changes(23, 400, live);
        final List<Change> first = new ArrayList<>(changes.subList(0, 200));
        final List<Change> second = new ArrayList<>(changes.subList(200, changes.size()));
        produce(prefix, first);
        final long malformed = JoinFixture.produceRaw(broker, prefix + "-shipments", 0, 5_000, new byte[] {1, 2, 3});
        final TreeMap<String, Integer> expected = expected(live);
        assertTrue(expected.size() > 10, "the scenario joins something: " + expected.size());

        final ConcurrentLinkedQueue<String> deadLetters = new ConcurrentLinkedQueue<>();
        final Path dir = JoinFixture.freshDir(prefix);
        final KafkaJoinRunner one = runner(prefix, dir, exactlyOnce, deadLetters);
        runUntil(one, first.size() + 1, "runner-" + prefix + "-1");
        assertEquals(3, one.partitions());
        assertEquals(List.of("0/2/" + malformed + "/" + DeadLetterReason.MALFORMED_ROW), new ArrayList<>(deadLetters));

        produce(prefix, second);
        final KafkaJoinRunner two = runner(prefix, dir, exactlyOnce, deadLetters);
        runUntil(two, second.size(), "runner-" + prefix + "-2");
        assertEquals(3, two.partitionsRestored(), "each partition taken over from the first member's last checkpoint");
        assertEquals(second.size(), two.recordsConsumed(), "read on from the checkpoints' offsets, nothing twice");
        assertEquals(1, deadLetters.size(), deadLetters.toString());

        final Map<String, Change> byPosition = new HashMap<>();
        for (final Change c : changes)
        {
            byPosition.put(NAMES[c.input] + c.partition + "@" + c.offset, c);
        }
        // Materialized per output partition in its order: a -D always finds the combination it deletes.
        final TreeMap<String, Integer> materialized = new TreeMap<>();
        final List<ConsumerRecord<byte[], byte[]>> output = JoinFixture.readAll(broker, prefix + "-out");
        for (final ConsumerRecord<byte[], byte[]> record : output)
        {
            final BinaryMultiResult result = BinaryMultiResult.parse(record.value());
            assertEquals(3, result.inputs());
            final String combination = payloadOf(result, 0) + "|" + payloadOf(result, 1) + "|" + payloadOf(result, 2);
            final Provenance provenance = Provenance.of(record.headers());
            assertEquals(record.partition(), provenance.partition(), "the output partition is the input partition");
            assertEquals(result.kind().shortString(), provenance.kind());
            final Change cause = byPosition.get(provenance.side() + provenance.partition() + "@" + provenance.offset());
            assertNotNull(cause, "the provenance names an input record: " + provenance);
            final String causeRow = payloadOf(result, cause.input);
            assertTrue(causeRow.equals("null") || causeRow.equals(String.valueOf(cause.payload)),
                "the causing record is the result's row of its input (or that input is padded): " + provenance + " " + result);
            switch (result.kind())
            {
                case INSERT:
                    materialized.merge(combination, 1, Integer::sum);
                    break;
                case DELETE:
                    final Integer held = materialized.get(combination);
                    assertTrue(held != null && held > 0, "a -D of a combination the output holds: " + combination);
                    if (held == 1)
                    {
                        materialized.remove(combination);
                    }
                    else
                    {
                        materialized.put(combination, held - 1);
                    }
                    break;
                default:
                    throw new AssertionError("a multi-way join emits +I and -D only: " + result);
            }
        }
        assertEquals(expected, materialized, "the output's materialized result is the chain's over the final rows");
        assertEquals(output.size(), one.outputsProduced() + two.outputsProduced(), "each output written once");
    }

    private static int watermarkCaused(final String prefix)
    {
        int n = 0;
        for (final ConsumerRecord<byte[], byte[]> record : JoinFixture.readAll(broker, prefix + "-out", "read_uncommitted"))
        {
            n += Provenance.of(record.headers()).watermarkCaused() ? 1 : 0;
        }
        return n;
    }

    @Test
    void shouldExpireByTheMinimumOfThePartitionsInputWatermarksOnceASilentInputIsIdle() throws Exception
    {
        final String prefix = "multittl";
        createTopics(prefix, 1, 1, 1);
        // Payments live 10 ms of event time; shipments never send a record, so only their idleness lets the
        // join watermark (the minimum over the active inputs) reach 1000 and expire the first payment.
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(ORDERS)
            .input("orders", ORDERS, null, "id")
            .input("payments", PAYMENTS, JoinType.LEFT, "order_id")
            .input("shipments", SHIPMENTS, JoinType.LEFT, "order_id")
            .stateTtl("payments", 10)
            .build());
        final KafkaJoinRunner runner = new KafkaJoinRunner(config(prefix, JoinFixture.freshDir(prefix))
            .spec(spec).idleTimeoutMillis(300).build());
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, "runner-" + prefix);
            // The first order and payment read before anything at ts 1000 is written: the inputs are read
            // concurrently, and a payment read after the join watermark passed its TTL would never be stored.
            produce(prefix, new ArrayList<>(List.of(new Change(0, "+I", 1, 11, 0), new Change(1, "+I", 1, 21, 0))));
            JoinFixture.await(() -> runner.recordsConsumed() >= 2 || run.isDone(), 120,
                () -> "the first pair read (" + runner.recordsConsumed() + " of 2)");
            produce(prefix, new ArrayList<>(List.of(new Change(0, "+I", 2, 12, 1_000), new Change(1, "+I", 2, 22, 1_000))));
            // How many outputs come before the expiry depends on the inputs' interleaving; the expiry's two do not.
            JoinFixture.await(() -> watermarkCaused(prefix) >= 2 || run.isDone(), 120,
                () -> "the expiry's outputs (" + runner.outputsProduced() + " outputs so far)");
            runner.close();
            run.get();
        });
        final List<String> byWatermark = new ArrayList<>();
        final TreeMap<String, Integer> materialized = new TreeMap<>();
        final List<ConsumerRecord<byte[], byte[]>> output = JoinFixture.readAll(broker, prefix + "-out");
        for (final ConsumerRecord<byte[], byte[]> record : output)
        {
            final BinaryMultiResult result = BinaryMultiResult.parse(record.value());
            final String combination = payloadOf(result, 0) + "|" + payloadOf(result, 1) + "|" + payloadOf(result, 2);
            final Provenance provenance = Provenance.of(record.headers());
            if (provenance.watermarkCaused())
            {
                assertTrue(provenance.side().startsWith(Provenance.MULTI_WATERMARK_PREFIX), provenance.toString());
                assertTrue(List.of(NAMES).contains(provenance.input()), provenance.toString());
                byWatermark.add(result.kind().shortString() + " " + combination);
            }
            else
            {
                assertTrue(List.of(NAMES).contains(provenance.side()), provenance.toString());
            }
            materialized.merge(combination, result.kind().isAccumulate() ? 1 : -1, Integer::sum);
        }
        materialized.values().removeIf(count -> count == 0);
        byWatermark.sort(null);
        assertEquals(List.of("+I 11|null|null", "-D 11|21|null"), byWatermark, "the first payment expired by the watermark");
        assertEquals(Map.of("11|null|null", 1, "12|22|null", 1), materialized);
        assertEquals(output.size(), runner.outputsProduced());
    }

    @Test
    void shouldDeadLetterMisroutedRecordsOnEveryInput() throws Exception
    {
        final String prefix = "multimisrouted";
        createTopics(prefix, 1, 1, 1);
        // Keys as junction kafka produce writes them: a binary row of the join key. Order 2 has a null key,
        // payment 3 the key of order 4: both misrouted, so only order 1 joins.
        final Change[] changes = {new Change(0, "+I", 1, 11, 0), new Change(1, "+I", 1, 21, 0), new Change(2, "+I", 1, 31, 0),
            new Change(0, "+I", 2, 12, 0), new Change(1, "+I", 2, 22, 0), new Change(0, "+I", 3, 13, 0), new Change(1, "+I", 3, 23, 0)};
        final Set<String> expectedDeadLetters = new TreeSet<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
            new ByteArraySerializer(), new ByteArraySerializer()))
        {
            for (final Change c : changes)
            {
                final boolean nullKey = c.input == 0 && c.key == 2;
                final boolean wrongKey = c.input == 1 && c.key == 3;
                final byte[] key = nullKey ? null : JoinFixture.encode(Schema.of("k"), Row.of("k", wrongKey ? 4L : c.key));
                final RecordMetadata metadata = producer.send(new ProducerRecord<>(prefix + "-" + NAMES[c.input], null, c.ts, key,
                    c.bytes())).get(60, TimeUnit.SECONDS);
                if (nullKey || wrongKey)
                {
                    expectedDeadLetters.add(metadata.partition() + "/" + c.input + "/" + metadata.offset() + "/" + DeadLetterReason.MISROUTED);
                }
            }
        }
        final ConcurrentLinkedQueue<String> deadLetters = new ConcurrentLinkedQueue<>();
        final KafkaJoinRunner runner = new KafkaJoinRunner(config(prefix, JoinFixture.freshDir(prefix))
            .inputKeys(KafkaJoinConfig.InputKeys.BINARY_KEY_ROW)
            .deadLetterHandler(new KafkaDeadLetterHandler()
            {
                @Override
                public void onDeadLetter(final int partition, final Side side, final long offset,
                    final long timestamp, final DeadLetterReason reason, final RowView row)
                {
                    deadLetters.add("binary " + side);
                }

                @Override
                public void onMultiDeadLetter(final int partition, final int input, final long offset, final long timestamp,
                    final DeadLetterReason reason, final RowView row)
                {
                    deadLetters.add(partition + "/" + input + "/" + offset + "/" + reason);
                }
            })
            .build());
        runUntil(runner, changes.length, "runner-" + prefix);
        assertEquals(expectedDeadLetters, new TreeSet<>(deadLetters));
        assertEquals(2, runner.misrouted());
        assertEquals(2, runner.deadLetters());
        final TreeMap<String, Integer> materialized = new TreeMap<>();
        for (final ConsumerRecord<byte[], byte[]> record : JoinFixture.readAll(broker, prefix + "-out"))
        {
            final BinaryMultiResult result = BinaryMultiResult.parse(record.value());
            materialized.merge(payloadOf(result, 0) + "|" + payloadOf(result, 1) + "|" + payloadOf(result, 2),
                result.kind().isAccumulate() ? 1 : -1, Integer::sum);
        }
        materialized.values().removeIf(count -> count == 0);
        assertEquals(Map.of("11|21|31", 1), materialized);
    }

    @Test
    void shouldRefuseAnInputListThatDoesNotMatchTheSpec() throws Exception
    {
        createTopics("multicount", 2, 2, 2);
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("multicount", JoinFixture.freshDir("multicount"))
            .inputs("multicount-orders", "multicount-payments").build());
        final KafkaJoinException e = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(KafkaJoinException.class, runner::run));
        assertTrue(e.getMessage().contains("3 inputs") && e.getMessage().contains("2 input topics"), e.getMessage());

        final KafkaJoinRunner binary = new KafkaJoinRunner(config("multicount", JoinFixture.freshDir("multicount"))
            .spec(JoinFixture.INNER).build());
        final KafkaJoinException b = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(KafkaJoinException.class, binary::run));
        assertTrue(b.getMessage().contains("multi-way join"), b.getMessage());
    }

    @Test
    void shouldRefuseInputTopicsWithDifferentPartitionCounts() throws Exception
    {
        createTopics("multimismatch", 2, 2, 3);
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("multimismatch", JoinFixture.freshDir("multimismatch")).build());
        final KafkaJoinException e = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(KafkaJoinException.class, runner::run));
        assertTrue(e.getMessage().contains("not co-partitioned") && e.getMessage().contains("multimismatch-shipments") &&
            e.getMessage().contains("shipments") && e.getMessage().contains("3"), e.getMessage());
    }
}
