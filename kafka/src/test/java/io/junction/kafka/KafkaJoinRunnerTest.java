package io.junction.kafka;

import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.kafka.JoinFixture.Event;
import io.junction.kafka.testing.KafkaTestBroker;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;

/**
 * The runner against a real broker (one per class, {@link KafkaTestBroker}): results, provenance, dead
 * letters, idleness, a second member taking partitions over with their checkpoints, and the errors that must
 * stop it clearly. The bounds are hang guards, not timing asserts.
 */
class KafkaJoinRunnerTest
{
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
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

    private static void createTopics(final String prefix, final int left, final int right, final int output)
    {
        broker.createTopic(prefix + "-left", left);
        broker.createTopic(prefix + "-right", right);
        broker.createTopic(prefix + "-out", output);
    }

    private static KafkaJoinConfig.Builder config(final String prefix, final Path dir, final String member)
    {
        return JoinFixture.config(broker, JoinFixture.INNER)
            .groupId(prefix + "-group")
            .leftTopic(prefix + "-left").rightTopic(prefix + "-right").outputTopic(prefix + "-out")
            .stateDir(dir.resolve("state-" + member))
            .checkpointDir(dir.resolve("checkpoints"));
    }

    private static List<Event> ofSide(final List<Event> events, final boolean left)
    {
        final List<Event> side = new ArrayList<>();
        for (final Event e : events)
        {
            if (e.left == left)
            {
                side.add(e);
            }
        }
        return side;
    }

    private static List<String> sorted(final List<String> values)
    {
        final List<String> copy = new ArrayList<>(values);
        Collections.sort(copy);
        return copy;
    }

    @Test
    void shouldWriteTheJoinWithProvenanceAndCountMalformedRecordsAsDeadLetters() throws Exception
    {
        createTopics("single", 3, 3, 3);
        final List<Event> events = new ArrayList<>(JoinFixture.impressions(0, 3_000));
        events.addAll(JoinFixture.clicks(3_000, 0, Long.MAX_VALUE));
        JoinFixture.produce(broker, "single-left", "single-right", events);
        final Map<Integer, Long> malformed = new HashMap<>();
        for (int p = 0; p < 3; p++)
        {
            malformed.put(p, JoinFixture.produceRaw(broker, "single-left", p, 10_000, new byte[] {1, 2, 3}));
        }
        final List<String> expected = JoinFixture.expectedInner(ofSide(events, true), ofSide(events, false));

        final ConcurrentLinkedQueue<String> deadLetters = new ConcurrentLinkedQueue<>();
        final Path dir = JoinFixture.freshDir("single");
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("single", dir, "a")
            .deadLetterHandler((partition, side, offset, ts, reason, row) ->
                deadLetters.add(partition + "/" + side + "/" + offset + "/" + reason + "/" + (row == null)))
            .build());
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, "runner-single");
            JoinFixture.await(() -> runner.outputsProduced() >= expected.size() && runner.deadLetters() >= 3 || run.isDone(),
                120, () -> "the runner's outputs (" + runner.outputsProduced() + " of " + expected.size() + ")");
            runner.close();
            run.get();
        });

        final Set<String> expectedDeadLetters = new TreeSet<>();
        malformed.forEach((p, offset) -> expectedDeadLetters.add(p + "/LEFT/" + offset + "/" + DeadLetterReason.MALFORMED_ROW + "/true"));
        assertEquals(expectedDeadLetters, new TreeSet<>(deadLetters));
        assertEquals(3, runner.deadLetters());
        assertEquals(events.size() + 3, runner.recordsConsumed());
        assertTrue(runner.checkpoints() >= 3, "a last checkpoint of each partition at close: " + runner.checkpoints());
        assertEquals(0, runner.servedPartitions());
        assertEquals(3, runner.partitions());

        // Where each input row landed, to check the provenance against.
        final Map<String, Event> byPosition = new HashMap<>();
        for (final Event e : events)
        {
            byPosition.put((e.left ? "L" : "R") + e.partition + "@" + e.offset, e);
        }
        final List<ConsumerRecord<byte[], byte[]>> output = JoinFixture.readAll(broker, "single-out");
        final List<String> actual = new ArrayList<>();
        final Set<Provenance> provenances = new HashSet<>();
        final Schema keySchema = Schema.of("k");
        for (final ConsumerRecord<byte[], byte[]> record : output)
        {
            final BinaryResult result = BinaryResult.parse(record.value());
            actual.add(JoinFixture.describe(result));
            final Provenance provenance = Provenance.of(record.headers());
            assertTrue(provenances.add(provenance), "provenance names one result: " + provenance);
            assertEquals(record.partition(), provenance.partition(), "the output partition is the input partition");
            assertEquals("+I", provenance.kind());
            final Event cause = byPosition.get(provenance.side() + provenance.partition() + "@" + provenance.offset());
            assertNotNull(cause, "the causing record exists: " + provenance);
            final RowView causeRow = provenance.side().equals("L") ? result.leftView() : result.rightView();
            final Row decoded = RowCodec.decode(provenance.side().equals("L") ? JoinFixture.LEFT : JoinFixture.RIGHT, causeRow);
            assertEquals(cause.payload, decoded.getLong(provenance.side().equals("L") ? "f1" : "f2"),
                "the causing record is the result's " + provenance.side() + " row");
            final Row key = RowCodec.decode(keySchema, new RowView().wrap(new UnsafeBuffer(record.key()), 0, record.key().length));
            assertEquals(cause.key, key.getLong("k"), "the record key is the join key");
            assertEquals(Math.max(result.leftView().getLong(1), result.rightView().getLong(1)), record.timestamp());
        }
        assertEquals(sorted(expected), sorted(actual), "one output per join result, no loss, no duplicate");
    }

    /** A binary key row of one long join key, as {@code junction kafka produce} keys its records. */
    private static byte[] keyRow(final long key)
    {
        return JoinFixture.encode(Schema.of("k"), Row.of("k", key));
    }

    @Test
    void shouldDeadLetterRecordsWhoseKeyIsNullOrNotTheirRowsJoinKeyAsMisrouted() throws Exception
    {
        createTopics("misrouted", 3, 3, 3);
        final List<Event> events = new ArrayList<>(JoinFixture.impressions(0, 300));
        events.addAll(JoinFixture.clicks(300, 0, Long.MAX_VALUE));
        final List<String> expected = JoinFixture.expectedInner(ofSide(events, true), ofSide(events, false));
        final Set<String> expectedDeadLetters = new TreeSet<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
            new ByteArraySerializer(), new ByteArraySerializer()))
        {
            for (final Event e : events)
            {
                producer.send(new ProducerRecord<>(e.left ? "misrouted-left" : "misrouted-right", null, e.ts, keyRow(e.key), e.bytes))
                    .get(60, TimeUnit.SECONDS);
            }
            // Two right rows, correctly keyed, and their left partners sent to the same partition (so that,
            // unchecked, they would join): one with a null key, one keyed by another join key.
            for (final long k : new long[] {5_000, 6_000})
            {
                final int partition = producer.send(new ProducerRecord<>("misrouted-right", null, 150L, keyRow(k),
                    new Event(false, k, 150, -k).bytes)).get(60, TimeUnit.SECONDS).partition();
                final byte[] key = k == 5_000 ? null : keyRow(k + 1);
                final long offset = producer.send(new ProducerRecord<>("misrouted-left", partition, 100L, key,
                    new Event(true, k, 100, -k).bytes)).get(60, TimeUnit.SECONDS).offset();
                expectedDeadLetters.add(partition + "/LEFT/" + offset + "/" + DeadLetterReason.MISROUTED);
            }
        }

        final ConcurrentLinkedQueue<String> deadLetters = new ConcurrentLinkedQueue<>();
        final Path dir = JoinFixture.freshDir("misrouted");
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("misrouted", dir, "a")
            .inputKeys(KafkaJoinConfig.InputKeys.BINARY_KEY_ROW)
            .deadLetterHandler((partition, side, offset, ts, reason, row) -> deadLetters.add(partition + "/" + side + "/" + offset + "/" + reason))
            .build());
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, "runner-misrouted");
            JoinFixture.await(() -> runner.recordsConsumed() >= events.size() + 4 && runner.outputsProduced() >= expected.size() || run.isDone(),
                120, () -> "the runner's records (" + runner.recordsConsumed() + " of " + (events.size() + 4) + ")");
            // The runner's counters are in JMX while it runs, misrouted among them.
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            assertNotNull(runner.mbeanName(), "the runner's bean is registered");
            assertEquals(2L, server.getAttribute(runner.mbeanName(), "Misrouted"));
            assertEquals(2L, server.getAttribute(runner.mbeanName(), "DeadLetters"));
            assertEquals(runner.recordsConsumed(), server.getAttribute(runner.mbeanName(), "RecordsConsumed"));
            runner.close();
            run.get();
            assertFalse(server.isRegistered(runner.mbeanName()), "unregistered when the runner stops");
        });

        assertEquals(expectedDeadLetters, new TreeSet<>(deadLetters));
        assertEquals(2, runner.deadLetters());
        assertEquals(2, runner.misrouted());
        final List<String> actual = new ArrayList<>();
        for (final ConsumerRecord<byte[], byte[]> record : JoinFixture.readAll(broker, "misrouted-out"))
        {
            actual.add(JoinFixture.describe(BinaryResult.parse(record.value())));
        }
        assertEquals(sorted(expected), sorted(actual), "every correctly keyed pair joined, the misrouted rows in none");
    }

    @Test
    void shouldMovePartitionsWithTheirCheckpointsWhenASecondMemberJoins() throws Exception
    {
        createTopics("moving", 4, 4, 4);
        final long n = 4_000;
        final long boundary = 2_000;
        final List<Event> first = new ArrayList<>(JoinFixture.impressions(0, boundary));
        first.addAll(JoinFixture.clicks(n, 0, boundary));
        final List<Event> second = new ArrayList<>(JoinFixture.impressions(boundary, n));
        second.addAll(JoinFixture.clicks(n, boundary, Long.MAX_VALUE));
        final List<Event> all = new ArrayList<>(first);
        all.addAll(second);
        final List<String> expected = sorted(JoinFixture.expectedInner(ofSide(all, true), ofSide(all, false)));
        final Set<String> expectedSet = new TreeSet<>(expected);
        assertEquals(expected.size(), expectedSet.size(), "the fixture's results are unique, so content de-duplicates them");
        final int firstResults = JoinFixture.expectedInner(ofSide(first, true), ofSide(first, false)).size();
        assertTrue(expected.size() - firstResults > 200, "many results need state from before the hand-over");

        final Path dir = JoinFixture.freshDir("moving");
        final KafkaJoinRunner a = new KafkaJoinRunner(config("moving", dir, "a").build());
        final KafkaJoinRunner b = new KafkaJoinRunner(config("moving", dir, "b").build());
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> runA = JoinFixture.runInBackground(a, "runner-a");
            JoinFixture.produce(broker, "moving-left", "moving-right", first);
            JoinFixture.await(() -> a.outputsProduced() >= firstResults || runA.isDone(), 120,
                () -> "member a's outputs of the first half (" + a.outputsProduced() + " of " + firstResults + ")");

            final CompletableFuture<Void> runB = JoinFixture.runInBackground(b, "runner-b");
            JoinFixture.await(() -> a.servedPartitions() > 0 && b.servedPartitions() > 0 &&
                    a.servedPartitions() + b.servedPartitions() == 4 || runA.isDone() || runB.isDone(), 120,
                () -> "the partitions shared by both members (a " + a.servedPartitions() + ", b " + b.servedPartitions() + ")");
            JoinFixture.produce(broker, "moving-left", "moving-right", second);
            JoinFixture.await(() -> a.outputsProduced() + b.outputsProduced() >= expected.size() || runA.isDone() || runB.isDone(),
                120, () -> "the members' outputs (" + (a.outputsProduced() + b.outputsProduced()) + " of " + expected.size() + ")");
            // Outputs may include duplicates: wait until the content is complete (or give up at the guard).
            JoinFixture.await(() -> JoinFixture.distinctResults(broker, "moving-out").containsAll(expectedSet) || runA.isDone() || runB.isDone(), 120,
                () -> "every expected result on the output topic");
            a.close();
            b.close();
            runA.get();
            runB.get();
        });
        assertTrue(b.outputsProduced() > 0, "the second member joined for partitions it took over");
        assertTrue(b.partitionsRestored() > 0, "the second member restored the first one's checkpoints");
        assertTrue(b.checkpoints() > 0 && a.checkpoints() > 0);
        assertEquals(expectedSet, JoinFixture.distinctResults(broker, "moving-out"), "after de-duplication by content: every result, nothing else");
    }


    @Test
    void shouldMarkASilentInputIdleSoThatTheOtherOneClosesRows() throws Exception
    {
        createTopics("idle", 1, 1, 1);
        final long n = 3_000;
        final List<Event> lefts = JoinFixture.impressions(0, n);
        JoinFixture.produce(broker, "idle-left", "idle-right", lefts);
        final Path dir = JoinFixture.freshDir("idle");
        final KafkaJoinRunner runner = new KafkaJoinRunner(JoinFixture.config(broker, JoinFixture.spec(JoinKind.INTERVAL, JoinType.LEFT))
            .groupId("idle-group").leftTopic("idle-left").rightTopic("idle-right").outputTopic("idle-out")
            .stateDir(dir.resolve("state")).checkpointDir(dir.resolve("checkpoints"))
            .idleTimeoutMillis(300)
            .build());
        // Left rows close (padded) once the join watermark passes ts + UPPER: only the left watermark can
        // move it, and only after the silent right input is marked idle.
        final long closing = n - 1 - JoinFixture.UPPER - 10;
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, "runner-idle");
            JoinFixture.await(() -> runner.outputsProduced() >= closing || run.isDone(), 120,
                () -> "padded outputs (" + runner.outputsProduced() + " of at least " + closing + ")");
            runner.close();
            run.get();
        });
        final List<ConsumerRecord<byte[], byte[]>> output = JoinFixture.readAll(broker, "idle-out");
        assertTrue(output.size() >= closing);
        for (final ConsumerRecord<byte[], byte[]> record : output)
        {
            final BinaryResult result = BinaryResult.parse(record.value());
            assertNull(result.right(), "only padded results: there is no right row");
            final long ts = result.leftView().getLong(1);
            assertTrue(ts + JoinFixture.UPPER < n, "closed by the left watermark, which stops at " + (n - 1) + ": " + ts);
            final Provenance provenance = Provenance.of(record.headers());
            assertEquals("WL", provenance.side(), "caused by the left input's watermark: " + provenance);
            assertTrue(provenance.watermarkCaused());
            assertTrue(provenance.offset() >= 0 && provenance.offset() < n);
        }
    }

    @Test
    void shouldReadChangeKindsFromTheInputHeaderAndWriteThemInTheOutput() throws Exception
    {
        createTopics("changelog", 1, 1, 1);
        final byte[] left = JoinFixture.encode(JoinFixture.LEFT, Row.of("k", 1L, "ts", 1L, "f1", 7L));
        final byte[] right = JoinFixture.encode(JoinFixture.RIGHT, Row.of("k", 1L, "ts", 2L, "f2", 70L));
        final Path dir = JoinFixture.freshDir("changelog");
        final KafkaJoinRunner runner = new KafkaJoinRunner(JoinFixture.config(broker, JoinFixture.spec(JoinKind.REGULAR, JoinType.INNER))
            .groupId("changelog-group").leftTopic("changelog-left").rightTopic("changelog-right").outputTopic("changelog-out")
            .stateDir(dir.resolve("state")).checkpointDir(dir.resolve("checkpoints"))
            .build());
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, "runner-changelog");
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer()))
            {
                producer.send(new ProducerRecord<>("changelog-left", 0, 1L, JoinFixture.key(1), left)).get();
                producer.send(new ProducerRecord<>("changelog-right", 0, 2L, JoinFixture.key(1), right)).get();
                // The two topics are read concurrently: the retraction goes in once the pair has been joined.
                JoinFixture.await(() -> runner.outputsProduced() >= 1 || run.isDone(), 120, () -> "the pair's output");
                producer.send(kinded("changelog-left", 3L, left, "-D")).get();
                producer.send(kinded("changelog-left", 4L, left, "??")).get();
            }
            JoinFixture.await(() -> runner.outputsProduced() >= 2 && runner.deadLetters() >= 1 || run.isDone(), 120,
                () -> "the retraction's output and the dead letter (" + runner.outputsProduced() + " outputs, " +
                    runner.deadLetters() + " dead letters)");
            runner.close();
            run.get();
        });
        assertEquals(1, runner.deadLetters(), "an unknown change kind is a dead letter");
        final List<String> output = new ArrayList<>();
        for (final ConsumerRecord<byte[], byte[]> record : JoinFixture.readAll(broker, "changelog-out"))
        {
            final BinaryResult result = BinaryResult.parse(record.value());
            final Provenance provenance = Provenance.of(record.headers());
            assertEquals(result.kind().shortString(), provenance.kind());
            output.add(result.kind().shortString() + " " + JoinFixture.describe(result) + " by " + provenance.side() + "@" +
                provenance.offset());
        }
        assertEquals(List.of("+I 7|70|2 by R@0", "-D 7|70|3 by L@1"), output);
    }

    private static ProducerRecord<byte[], byte[]> kinded(final String topic, final long ts, final byte[] row, final String kind)
    {
        final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, 0, ts, JoinFixture.key(1), row);
        record.headers().add(KafkaJoinRunner.INPUT_KIND_HEADER, kind.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    @Test
    void shouldRunTheReadmeExample() throws Exception
    {
        broker.createTopic("shows", 2);
        broker.createTopic("clicks", 2);
        broker.createTopic("shows-clicks", 2);
        final Path dir = JoinFixture.freshDir("example");
        final List<String> printed = assertTimeoutPreemptively(HANG_GUARD, () -> KafkaJoinExample.run(broker.bootstrapServers(), dir));
        assertEquals(1, printed.size(), printed.toString());
        final String line = printed.get(0);
        assertTrue(line.startsWith("+I ") && line.contains("home") && line.contains("buy") && line.contains(" at 4000 from p") &&
            line.contains(" R@0#0 +I"), line);
    }

    @Test
    void shouldRefuseInputsWithDifferentPartitionCounts() throws Exception
    {
        createTopics("mismatch", 2, 3, 2);
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("mismatch", JoinFixture.freshDir("mismatch"), "a").build());
        final KafkaJoinException e = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(KafkaJoinException.class, runner::run));
        assertTrue(e.getMessage().contains("not co-partitioned") && e.getMessage().contains("2") && e.getMessage().contains("3"),
            e.getMessage());
    }

    @Test
    void shouldRefuseAMissingTopic() throws Exception
    {
        broker.createTopic("missing-right", 1);
        broker.createTopic("missing-out", 1);
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("missing", JoinFixture.freshDir("missing"), "a").build());
        final KafkaJoinException e = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(KafkaJoinException.class, runner::run));
        assertTrue(e.getMessage().contains("'missing-left' does not exist"), e.getMessage());
    }

    @Test
    void shouldGiveUpOnAnUnreachableClusterAfterTheStartTimeout() throws Exception
    {
        final int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            closedPort = socket.getLocalPort();
        }
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("nowhere", JoinFixture.freshDir("nowhere"), "a")
            .bootstrapServers("127.0.0.1:" + closedPort)
            .startTimeout(Duration.ofSeconds(2))
            .build());
        final KafkaJoinException e = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(KafkaJoinException.class, runner::run));
        assertTrue(e.getMessage().contains("127.0.0.1:" + closedPort) && e.getMessage().contains("reachable"), e.getMessage());
    }

    @Test
    void shouldStopWithAClearErrorWhenAnInputTopicIsDeleted() throws Exception
    {
        createTopics("deleted", 2, 2, 2);
        final List<Event> events = new ArrayList<>(JoinFixture.impressions(0, 100));
        events.addAll(JoinFixture.clicks(100, 0, Long.MAX_VALUE));
        JoinFixture.produce(broker, "deleted-left", "deleted-right", events);
        final KafkaJoinRunner runner = new KafkaJoinRunner(config("deleted", JoinFixture.freshDir("deleted"), "a").build());
        final ExecutionException e = assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = JoinFixture.runInBackground(runner, "runner-deleted");
            JoinFixture.await(() -> runner.recordsConsumed() == events.size() || run.isDone(), 120, () -> "the input consumed");
            broker.deleteTopic("deleted-right");
            return assertThrows(ExecutionException.class, () -> run.get(120, TimeUnit.SECONDS));
        });
        assertInstanceOf(KafkaJoinException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("'deleted-right' was deleted"), e.getCause().getMessage());
        assertEquals(0, runner.servedPartitions());
    }
}
