package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.kafka.testing.KafkaTestBroker;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exactly-once mode: three members in child JVMs run a regular LEFT join (whose changelog retracts: a
 * padded {@code +I}, then {@code -D} of it and {@code +I} of the pair when the right row comes) over inserts
 * and deletes on both sides, 8 partitions; one member is killed with SIGKILL while the input streams in (its
 * transaction open) and a new one joins. Read with {@code read_committed}, the output is a valid changelog
 * (no retraction of a row not in the result at that point) whose materialized result equals the join of the
 * whole input exactly: no pair missing, none twice, although the new owners replayed the killed member's
 * input since its last commit. No de-duplication by provenance. The bounds are hang guards.
 */
class KafkaJoinExactlyOnceTest
{
    private static final int PARTITIONS = 8;
    private static final String PREFIX = "eos";
    private static final int KEYS = 600;
    /** The members' join: {@link RunnerMain}'s exactly-once mode runs it. */
    static final JoinSpec REGULAR_LEFT = JoinFixture.spec(JoinKind.REGULAR, JoinType.LEFT);
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

    /** One input change: a row inserted into or deleted from one side. */
    private record Op(boolean left, long key, long payload, long rowTs, ChangeKind kind)
    {
        byte[] bytes()
        {
            return left ? JoinFixture.encode(JoinFixture.LEFT, Row.of("k", key, "ts", rowTs, "f1", payload))
                : JoinFixture.encode(JoinFixture.RIGHT, Row.of("k", key, "ts", rowTs, "f2", payload));
        }
    }

    /** The three phases of input: inserts, then deletes and inserts on both sides, then more of both. */
    private static List<List<Op>> phases()
    {
        final List<Op> one = new ArrayList<>();
        final List<Op> two = new ArrayList<>();
        final List<Op> three = new ArrayList<>();
        for (long k = 0; k < KEYS; k++)
        {
            one.add(new Op(true, k, k * 10, 1, ChangeKind.INSERT));
            if (k % 2 == 0)
            {
                one.add(new Op(false, k, k * 10, 1, ChangeKind.INSERT));
            }
            if (k % 3 == 0)
            {
                two.add(new Op(true, k, k * 10, 1, ChangeKind.DELETE));
            }
            if (k % 5 == 0)
            {
                two.add(new Op(true, k, k * 10 + 1, 2, ChangeKind.INSERT));
            }
            if (k % 3 == 1)
            {
                two.add(new Op(false, k, k * 10 + 2, 2, ChangeKind.INSERT));
            }
            if (k % 4 == 0)
            {
                two.add(new Op(false, k, k * 10, 1, ChangeKind.DELETE));
            }
            if (k % 7 == 0)
            {
                three.add(new Op(false, k, k * 10 + 3, 3, ChangeKind.INSERT));
            }
            if (k % 10 == 0)
            {
                three.add(new Op(true, k, k * 10 + 1, 2, ChangeKind.DELETE));
            }
            if (k % 6 == 1)
            {
                three.add(new Op(false, k, k * 10 + 2, 2, ChangeKind.DELETE));
            }
            if (k % 11 == 0)
            {
                three.add(new Op(true, k, k * 10 + 4, 3, ChangeKind.INSERT));
            }
        }
        return List.of(one, two, three);
    }

    /**
     * The regular left join of the input so far, brute force: each side's rows after the inserts and deletes;
     * per key, each left row with each right row, or with null when the key has no right row. "f1|f2" to count.
     */
    private static Map<String, Integer> expected(final List<Op> ops)
    {
        final Map<Long, Map<Long, Integer>> lefts = new HashMap<>();
        final Map<Long, Map<Long, Integer>> rights = new HashMap<>();
        for (final Op op : ops)
        {
            final Map<Long, Integer> rows = (op.left ? lefts : rights).computeIfAbsent(op.key, k -> new HashMap<>());
            rows.merge(op.payload, op.kind == ChangeKind.INSERT ? 1 : -1, Integer::sum);
            rows.values().removeIf(c -> c == 0);
        }
        final Map<String, Integer> result = new TreeMap<>();
        for (final Map.Entry<Long, Map<Long, Integer>> e : lefts.entrySet())
        {
            final Map<Long, Integer> right = rights.getOrDefault(e.getKey(), Map.of());
            for (final Map.Entry<Long, Integer> l : e.getValue().entrySet())
            {
                if (right.isEmpty())
                {
                    result.merge(l.getKey() + "|null", l.getValue(), Integer::sum);
                }
                for (final Map.Entry<Long, Integer> r : right.entrySet())
                {
                    result.merge(l.getKey() + "|" + r.getKey(), l.getValue() * r.getValue(), Integer::sum);
                }
            }
        }
        return result;
    }

    /** Produces the changes in order, keyed by the join key, with their kind in the input kind header; record time increasing. */
    private static void produce(final List<Op> ops, final long firstTs)
    {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer()))
        {
            final List<Future<RecordMetadata>> sent = new ArrayList<>();
            long ts = firstTs;
            for (final Op op : ops)
            {
                final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(PREFIX + (op.left ? "-left" : "-right"), null,
                    ts++, JoinFixture.key(op.key), op.bytes());
                record.headers().add(KafkaJoinRunner.INPUT_KIND_HEADER, op.kind.shortString().getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(record));
            }
            for (final Future<RecordMetadata> f : sent)
            {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        catch (final Exception e)
        {
            throw new IllegalStateException("producing the input failed", e);
        }
    }

    /** The committed output, materialized; throws naming the record when the changelog retracts a row it does not hold. */
    private static Map<String, Integer> materialized()
    {
        final Map<String, Integer> rows = new TreeMap<>();
        for (final ConsumerRecord<byte[], byte[]> record : JoinFixture.readAll(broker, PREFIX + "-out"))
        {
            final BinaryResult result = BinaryResult.parse(record.value());
            final String left = result.left() == null ? "null" :
                Long.toString(RowCodec.decode(JoinFixture.LEFT, result.leftView()).getLong("f1"));
            final String right = result.right() == null ? "null" :
                Long.toString(RowCodec.decode(JoinFixture.RIGHT, result.rightView()).getLong("f2"));
            final String row = left + "|" + right;
            final ChangeKind kind = result.kind();
            if (kind == ChangeKind.INSERT || kind == ChangeKind.UPDATE_AFTER)
            {
                rows.merge(row, 1, Integer::sum);
            }
            else
            {
                final int count = rows.getOrDefault(row, 0);
                if (count <= 0)
                {
                    throw new AssertionError("invalid changelog: " + kind.shortString() + " " + row + " at " +
                        record.topic() + "-" + record.partition() + "@" + record.offset() + " retracts a row not in the result");
                }
                if (count == 1)
                {
                    rows.remove(row);
                }
                else
                {
                    rows.put(row, count - 1);
                }
            }
        }
        return rows;
    }

    /** The output partitions of the member whose consumer has this client id (output partition p is input partition p). */
    private static List<TopicPartition> outputPartitionsOf(final String clientId) throws Exception
    {
        final ConsumerGroupDescription group = broker.admin().describeConsumerGroups(List.of(PREFIX + "-group")).all()
            .get(30, TimeUnit.SECONDS).get(PREFIX + "-group");
        final List<TopicPartition> partitions = new ArrayList<>();
        for (final MemberDescription member : group.members())
        {
            if (member.clientId().equals(clientId))
            {
                for (final TopicPartition tp : member.assignment().topicPartitions())
                {
                    if (tp.topic().equals(PREFIX + "-left"))
                    {
                        partitions.add(new TopicPartition(PREFIX + "-out", tp.partition()));
                    }
                }
            }
        }
        assertFalse(partitions.isEmpty(), clientId + " holds partitions: " + group);
        return partitions;
    }

    /** Whether one of the partitions has records of an open transaction: its last stable offset is behind its end. */
    private static boolean openTransactionIn(final List<TopicPartition> partitions)
    {
        try
        {
            final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> stable = broker.admin()
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS);
            final Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end = broker.admin()
                .listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED)).all().get(30, TimeUnit.SECONDS);
            for (final TopicPartition tp : partitions)
            {
                if (stable.get(tp).offset() < end.get(tp).offset())
                {
                    return true;
                }
            }
            return false;
        }
        catch (final Exception e)
        {
            return false;
        }
    }

    private static String logs(final Path dir)
    {
        return Members.logs(dir, "a", "b", "c", "d");
    }

    private static String difference(final Map<String, Integer> expected, final Map<String, Integer> actual)
    {
        final StringBuilder out = new StringBuilder();
        final TreeMap<String, Integer> all = new TreeMap<>(expected);
        actual.forEach((k, v) -> all.putIfAbsent(k, 0));
        int shown = 0;
        for (final String row : all.keySet())
        {
            final int want = expected.getOrDefault(row, 0);
            final int got = actual.getOrDefault(row, 0);
            if (want != got && shown++ < 20)
            {
                out.append(' ').append(row).append(" expected ").append(want).append(" got ").append(got).append(';');
            }
        }
        return out.toString();
    }

    @Test
    void shouldCommitExactlyTheJoinsChangelogWhenAMemberIsKilledMidTransaction() throws Exception
    {
        broker.createTopic(PREFIX + "-left", PARTITIONS);
        broker.createTopic(PREFIX + "-right", PARTITIONS);
        broker.createTopic(PREFIX + "-out", PARTITIONS);
        final List<List<Op>> phases = phases();
        final List<Op> first = phases.get(0);
        final List<Op> all = new ArrayList<>();
        phases.forEach(all::addAll);
        final Map<String, Integer> afterFirst = expected(first);
        final Map<String, Integer> expected = expected(all);
        final List<Process> members = new ArrayList<>();
        final Path dir = JoinFixture.freshDir(PREFIX);
        try
        {
            assertTimeoutPreemptively(Duration.ofMinutes(5), () ->
            {
                members.add(Members.start(broker, dir, "a", PREFIX, RunnerMain.EXACTLY_ONCE));
                members.add(Members.start(broker, dir, "b", PREFIX, RunnerMain.EXACTLY_ONCE));
                final Process c = Members.start(broker, dir, "c", PREFIX, RunnerMain.EXACTLY_ONCE);
                members.add(c);
                JoinFixture.await(() -> Members.stableWith(broker, PREFIX + "-group", 3), 120,
                    () -> "three members sharing the partitions" + logs(dir));
                produce(first, 1);
                JoinFixture.await(() -> materialized().equals(afterFirst), 120,
                    () -> "the first phase's result:" + difference(afterFirst, materialized()) + logs(dir));

                // SIGKILL while the second phase streams in, once c's transaction is open with outputs in it (an
                // output partition of c's whose last stable offset is behind its end): those outputs, of events
                // after c's last commit, are never committed; the new owners restore the checkpoint of its
                // committed offsets and replay the input after it.
                final List<TopicPartition> ofC = outputPartitionsOf("state-c");
                final CompletableFuture<Void> second = CompletableFuture.runAsync(() ->
                {
                    final List<Op> ops = phases.get(1);
                    final int chunk = ops.size() / 5 + 1;
                    for (int from = 0; from < ops.size(); from += chunk)
                    {
                        produce(ops.subList(from, Math.min(ops.size(), from + chunk)), 100_000 + from);
                    }
                });
                JoinFixture.await(() -> openTransactionIn(ofC) || second.isDone(), 120, () -> "c's open transaction" + logs(dir));
                c.destroyForcibly();
                assertTrue(c.waitFor(30, TimeUnit.SECONDS));
                second.get(120, TimeUnit.SECONDS);
                members.add(Members.start(broker, dir, "d", PREFIX, RunnerMain.EXACTLY_ONCE));
                produce(phases.get(2), 200_000);
                JoinFixture.await(() -> materialized().equals(expected), 180,
                    () -> "the whole input's result:" + difference(expected, materialized()) + logs(dir));
                JoinFixture.await(() -> Members.stableWith(broker, PREFIX + "-group", 3), 120,
                    () -> "the group stable again with a, b and d" + logs(dir));
                for (final Process member : members)
                {
                    if (member != c)
                    {
                        member.getOutputStream().close();
                    }
                }
                for (final Process member : members)
                {
                    if (member != c)
                    {
                        assertTrue(member.waitFor(60, TimeUnit.SECONDS), "a member closes when its stdin does" + logs(dir));
                        assertEquals(0, member.exitValue(), "a clean close" + logs(dir));
                    }
                }
            });
            assertTrue(JoinFixture.readAll(broker, PREFIX + "-out", "read_uncommitted").size() >
                JoinFixture.readAll(broker, PREFIX + "-out").size(),
                "the output topic holds aborted records (the killed member's open transaction)");
            final Map<String, Integer> actual = materialized();
            assertEquals(expected, actual, "the committed changelog materializes to the join of the whole input, " +
                "each pair exactly as often as expected:" + difference(expected, actual));
        }
        finally
        {
            for (final Process member : members)
            {
                member.destroyForcibly();
            }
        }
        for (final Process member : members)
        {
            assertTrue(member.waitFor(30, TimeUnit.SECONDS));
            assertFalse(member.isAlive());
        }
    }
}
