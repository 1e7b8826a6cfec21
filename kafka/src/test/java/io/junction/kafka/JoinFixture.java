package io.junction.kafka;

import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowFormat;
import io.junction.api.Schema;
import io.junction.join.StateConfig;
import io.junction.kafka.testing.KafkaTestBroker;
import io.junction.runtime.EngineConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The W1-like interval join of the runner tests, its input as Kafka records and a brute-force oracle:
 * left (impressions) {@code k = i, ts = i, f1 = i}; some impressions have one or two clicks (right)
 * {@code k = i, ts = i + d, f2 = i * 10 + n}, some of them outside the interval {@code [0, UPPER]}.
 * Records are keyed by the join key (an 8-byte big-endian long) and partitioned by Kafka's default
 * partitioner, so both topics are co-partitioned.
 */
final class JoinFixture
{
    static final long UPPER = 1_000;
    static final Schema LEFT = Schema.of("k", "ts", "f1");
    static final Schema RIGHT = Schema.of("k", "ts", "f2");
    static final JoinSpec INNER = spec(JoinKind.INTERVAL, JoinType.INNER);

    private JoinFixture()
    {
    }

    /** The fixture's join: on equal keys, an interval join with {@code right.ts - left.ts} in [0, UPPER]. */
    static JoinSpec spec(final JoinKind kind, final JoinType type)
    {
        final JoinSpec.Builder builder = JoinSpec.builder(kind, type).schemas(LEFT, RIGHT).leftKey("k").rightKey("k");
        return (kind == JoinKind.INTERVAL ? builder.interval(IntervalBounds.inclusive(0, UPPER)) : builder).build();
    }

    /** An input row: its side, key, event time, payload field and binary bytes; where it landed once produced. */
    static final class Event
    {
        final boolean left;
        final long key;
        final long ts;
        final long payload;
        final byte[] bytes;
        int partition = -1;
        long offset = -1;

        Event(final boolean left, final long key, final long ts, final long payload)
        {
            this.left = left;
            this.key = key;
            this.ts = ts;
            this.payload = payload;
            this.bytes = left ? encode(LEFT, Row.of("k", key, "ts", ts, "f1", payload)) :
                encode(RIGHT, Row.of("k", key, "ts", ts, "f2", payload));
        }
    }

    static byte[] encode(final Schema schema, final Row row)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
        final int length = new RowCodec(schema).encode(row, buffer, 0, buffer.capacity());
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    /** Impressions {@code [from, to)} and their clicks, each side in event-time order. */
    static List<Event> impressions(final long from, final long to)
    {
        final List<Event> events = new ArrayList<>();
        for (long i = from; i < to; i++)
        {
            events.add(new Event(true, i, i, i));
        }
        return events;
    }

    /** The clicks of impressions {@code [0, n)} whose ts is in {@code [fromTs, toTs)}, in ts order. */
    static List<Event> clicks(final long n, final long fromTs, final long toTs)
    {
        final List<Event> events = new ArrayList<>();
        for (long i = 0; i < n; i++)
        {
            if (i % 3 == 0)
            {
                events.add(new Event(false, i, i + (i * 7919) % 1_200, i * 10));
            }
            if (i % 7 == 0)
            {
                events.add(new Event(false, i, i + (i * 31) % 900, i * 10 + 1));
            }
        }
        events.removeIf(e -> e.ts < fromTs || e.ts >= toTs);
        events.sort((a, b) -> Long.compare(a.ts, b.ts));
        return events;
    }

    /** The inner join's results, brute force: "f1|f2|ts" for each pair with equal keys and right.ts - left.ts in [0, UPPER]. */
    static List<String> expectedInner(final List<Event> lefts, final List<Event> rights)
    {
        final Map<Long, List<Event>> byKey = new HashMap<>();
        for (final Event l : lefts)
        {
            byKey.computeIfAbsent(l.key, k -> new ArrayList<>()).add(l);
        }
        final List<String> expected = new ArrayList<>();
        for (final Event r : rights)
        {
            for (final Event l : byKey.getOrDefault(r.key, List.of()))
            {
                if (r.ts - l.ts >= 0 && r.ts - l.ts <= UPPER)
                {
                    expected.add(l.payload + "|" + r.payload + "|" + Math.max(l.ts, r.ts));
                }
            }
        }
        return expected;
    }

    /** An output value as "f1|f2|ts" ("null" for a padded side). */
    static String describe(final BinaryResult result)
    {
        final Row left = result.left() == null ? null : RowCodec.decode(LEFT, result.leftView());
        final Row right = result.right() == null ? null : RowCodec.decode(RIGHT, result.rightView());
        return (left == null ? "null" : left.getLong("f1")) + "|" + (right == null ? "null" : right.getLong("f2")) + "|" +
            result.timestamp();
    }

    static byte[] key(final long key)
    {
        return ByteBuffer.allocate(Long.BYTES).putLong(key).array();
    }

    /** Produces the events to their topics (keyed, default partitioner) and records where each landed. */
    static void produce(final KafkaTestBroker broker, final String leftTopic, final String rightTopic, final List<Event> events)
    {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer()))
        {
            final List<Future<RecordMetadata>> sent = new ArrayList<>(events.size());
            for (final Event e : events)
            {
                sent.add(producer.send(new ProducerRecord<>(e.left ? leftTopic : rightTopic, null, e.ts, key(e.key), e.bytes)));
            }
            for (int i = 0; i < events.size(); i++)
            {
                final RecordMetadata metadata = sent.get(i).get(60, TimeUnit.SECONDS);
                events.get(i).partition = metadata.partition();
                events.get(i).offset = metadata.offset();
            }
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new IllegalStateException("producing the input failed", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Produces one raw value to a partition of a topic; returns its offset. */
    static long produceRaw(final KafkaTestBroker broker, final String topic, final int partition, final long ts, final byte[] value)
        throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer()))
        {
            return producer.send(new ProducerRecord<>(topic, partition, ts, key(-1), value)).get(60, TimeUnit.SECONDS).offset();
        }
    }

    /** Every record of a topic up to its current end. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(final KafkaTestBroker broker, final String topic)
    {
        return readAll(broker, topic, "read_committed");
    }

    /** Every record of a topic up to its current end, read with the isolation level given. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(final KafkaTestBroker broker, final String topic, final String isolation)
    {
        final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation), new ByteArrayDeserializer(), new ByteArrayDeserializer()))
        {
            final List<TopicPartition> partitions = new ArrayList<>();
            for (final PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30)))
            {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            final Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!reachedEnd(consumer, end) && System.nanoTime() < deadline)
            {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            if (!reachedEnd(consumer, end))
            {
                throw new IllegalStateException("could not read " + topic + " to its end " + end);
            }
        }
        return records;
    }

    /** The distinct results on an output topic ({@link #describe}), read to its current end. */
    static Set<String> distinctResults(final KafkaTestBroker broker, final String topic)
    {
        final Set<String> results = new TreeSet<>();
        for (final ConsumerRecord<byte[], byte[]> record : readAll(broker, topic))
        {
            results.add(describe(BinaryResult.parse(record.value())));
        }
        return results;
    }

    private static boolean reachedEnd(final KafkaConsumer<byte[], byte[]> consumer, final Map<TopicPartition, Long> end)
    {
        for (final Map.Entry<TopicPartition, Long> e : end.entrySet())
        {
            if (consumer.position(e.getKey()) < e.getValue())
            {
                return false;
            }
        }
        return true;
    }

    /** A runner configuration on the test broker with test-sized settings; the caller adds topics, group, dirs. */
    static KafkaJoinConfig.Builder config(final KafkaTestBroker broker, final JoinSpec spec)
    {
        return KafkaJoinConfig.builder()
            .bootstrapServers(broker.bootstrapServers())
            .spec(spec)
            .checkpointInterval(Duration.ofMillis(500))
            .metadataCheckInterval(Duration.ofMillis(500))
            .startTimeout(Duration.ofSeconds(30))
            .engineConfig(engineConfig())
            .clientProperty("session.timeout.ms", 6_000)
            .clientProperty("heartbeat.interval.ms", 500);
    }

    /** A small engine: the tests' state is small and the machine running them too. */
    static EngineConfig engineConfig()
    {
        return EngineConfig.defaults().withRingSize(1024)
            .withState(StateConfig.defaults().withMaxKeys(1 << 14).withMaxLiveRows(1 << 16).withMaxStateBytes(64L << 20)
                .withChunkSize(64 * 1024));
    }

    /** A fresh directory for one test's state and checkpoints, under target/. */
    static Path freshDir(final String name) throws Exception
    {
        final Path dir = Path.of("target", "kafka-it", name + "-" + System.nanoTime()).toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    /** Waits until the condition holds, failing with the message after the bound: a hang guard, not a timing assert. */
    static void await(final BooleanSupplier condition, final long seconds, final Supplier<String> what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("not within " + seconds + " s: " + what.get());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** Runs a runner's {@code run()} on a daemon thread; the future completes when it returns, or with what it threw. */
    static CompletableFuture<Void> runInBackground(final KafkaJoinRunner runner, final String name)
    {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                runner.run();
                done.complete(null);
            }
            catch (final Throwable e)
            {
                done.completeExceptionally(e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return done;
    }
}
