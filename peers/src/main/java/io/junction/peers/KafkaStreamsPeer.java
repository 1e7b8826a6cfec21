package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.RowPayload;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;

import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslStoreSuppliers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * Kafka Streams KStream-KStream join ({@code left.join(right, ...)} / {@code left.leftJoin(right, ...)}) with
 * {@code JoinWindows.ofTimeDifferenceWithNoGrace(window)}, driven record by record through a
 * {@link TopologyTestDriver} (no broker; the driver processes and commits each record synchronously).
 * <p>
 * Rows are Kafka records: {@code Long} key, 48-byte {@code byte[]} value {@code f1|f2|f3} (big-endian), record
 * timestamp = ts; the joiner builds a {@link Pair}; a terminal {@code foreach} counts the results (no output topic).
 * Window = 30 s for W1; for W2/W3 (regular joins) a window wider than the whole input, so every pair joins.
 * Kafka Streams has no watermarks: stream time follows the records. The left join emits a never-matched left row
 * once stream time passes its window (the "spurious results fix" with its default 1 s wall-clock emit interval,
 * the driver's mock wall clock is advanced with real time). End of input: after the last event a sentinel left
 * record with an unused key and a timestamp past every window advances stream time so every pending left row is
 * emitted; it matches nothing and is never emitted itself.
 * <p>
 * Knobs (system properties): {@code kstreams.changelog} (default false: store changelogs are disabled, like the
 * Flink runs that take no checkpoints; true = Kafka's default, the driver then buffers changelog records in memory),
 * and the store type is the peer's ("memory" = in-memory window stores, "rocksdb" = Kafka's default RocksDB).
 */
final class KafkaStreamsPeer implements Peer
{
    static final String CHANGELOG_PROP = "kstreams.changelog";
    static final String LEFT_TOPIC = "left";
    static final String RIGHT_TOPIC = "right";

    private final String store;

    /** A joined pair, what the ValueJoiner returns. */
    static final class Pair
    {
        final byte[] left;
        final byte[] right;

        Pair(final byte[] left, final byte[] right)
        {
            this.left = left;
            this.right = right;
        }
    }

    /** Counts the join results (terminal foreach). */
    static final class Counter
    {
        long n;
    }

    /** @param store "memory" or "rocksdb" */
    KafkaStreamsPeer(final String store)
    {
        if (!store.equals("memory") && !store.equals("rocksdb"))
        {
            throw new IllegalArgumentException("kstreams store '" + store + "': expected memory or rocksdb");
        }
        this.store = store;
    }

    @Override
    public String name()
    {
        return "kstreams-" + store;
    }

    @Override
    public boolean supports(final Workload w, final JoinKind j)
    {
        return w == Workload.W1 || w == Workload.W2 || w == Workload.W3;
    }

    @Override
    public long expected(final Expected e, final JoinKind j)
    {
        return j == JoinKind.INNER ? e.inner : e.leftAppend;
    }

    @Override
    public Prepared prepare(final Workload w, final JoinKind j, final EventTape tape)
    {
        // native input: rows only (watermarks mean nothing to Kafka Streams), then the end
        int rows = 0;
        long maxTs = 0;
        final Set<Long> keysSeen = new HashSet<>();
        for (int i = 0; i < tape.size(); i++)
        {
            final byte t = tape.type(i);
            if (t == EventTape.TYPE_LEFT || t == EventTape.TYPE_RIGHT)
            {
                rows++;
                maxTs = Math.max(maxTs, tape.ts(i));
                keysSeen.add(tape.key(i));
            }
        }
        final byte[] types = new byte[rows + 1];
        final Long[] keys = new Long[rows + 1];
        final byte[][] values = new byte[rows + 1][];
        final long[] tss = new long[rows + 1];
        int r = 0;
        for (int i = 0; i < tape.size(); i++)
        {
            final byte t = tape.type(i);
            if (t == EventTape.TYPE_LEFT || t == EventTape.TYPE_RIGHT)
            {
                types[r] = t;
                keys[r] = tape.key(i);
                values[r] = new byte[RowPayload.LENGTH];
                RowPayload.write(tape.key(i), t, tape.f1(i), values[r], 0);
                tss[r] = tape.ts(i);
                r++;
            }
        }
        final long window = w == Workload.W1 ? Workloads.w1IntervalMillis(w) : maxTs + 1;
        long sentinel = Long.MIN_VALUE + 12345;
        while (keysSeen.contains(sentinel))
        {
            sentinel++;
        }
        types[rows] = EventTape.TYPE_END;
        keys[rows] = sentinel;
        values[rows] = new byte[RowPayload.LENGTH];
        tss[rows] = maxTs + window + 1;
        final boolean changelog = Boolean.getBoolean(CHANGELOG_PROP);
        final String[] storeNote = {""};

        return new Prepared()
        {
            @Override
            public PeerRun newRun() throws Exception
            {
                final Path stateDir = Files.createTempDirectory("junction-peers-kstreams");
                final Properties props = new Properties();
                props.put(StreamsConfig.APPLICATION_ID_CONFIG, "junction-peers");
                props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
                props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
                props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, suppliers().getClass());
                final StreamsBuilder builder = new StreamsBuilder(new TopologyConfig(new StreamsConfig(props)));
                final KStream<Long, byte[]> left =
                    builder.stream(LEFT_TOPIC, Consumed.with(Serdes.Long(), Serdes.ByteArray()));
                final KStream<Long, byte[]> right =
                    builder.stream(RIGHT_TOPIC, Consumed.with(Serdes.Long(), Serdes.ByteArray()));
                final JoinWindows windows = JoinWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis(window));
                StreamJoined<Long, byte[], byte[]> joined =
                    StreamJoined.<Long, byte[], byte[]>with(Serdes.Long(), Serdes.ByteArray(), Serdes.ByteArray())
                        .withDslStoreSuppliers(suppliers());
                if (!changelog)
                {
                    joined = joined.withLoggingDisabled();
                }
                final KStream<Long, Pair> out = j == JoinKind.INNER
                    ? left.join(right, Pair::new, windows, joined)
                    : left.leftJoin(right, Pair::new, windows, joined);
                final Counter counter = new Counter();
                out.foreach((k, v) -> counter.n++);

                final TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props);
                final TestInputTopic<Long, byte[]> leftIn =
                    driver.createInputTopic(LEFT_TOPIC, new LongSerializer(), new ByteArraySerializer());
                final TestInputTopic<Long, byte[]> rightIn =
                    driver.createInputTopic(RIGHT_TOPIC, new LongSerializer(), new ByteArraySerializer());
                if (storeNote[0].isEmpty())
                {
                    final Set<String> kinds = new TreeSet<>();
                    for (final Map.Entry<String, StateStore> e : driver.getAllStateStores().entrySet())
                    {
                        kinds.add(innermost(e.getValue()));
                    }
                    storeNote[0] = suppliers().getClass().getSimpleName() + " (" + String.join(", ", kinds) + ")";
                }
                return new PeerRun()
                {
                    @Override
                    public long run()
                    {
                        final long emitIntervalMs = 1000;
                        long lastNs = System.nanoTime();
                        for (int i = 0, n = types.length; i < n; i++)
                        {
                            if ((i & 1023) == 0)
                            {
                                // the mock wall clock follows real time (left-join emission is throttled by it)
                                final long ms = (System.nanoTime() - lastNs) / 1_000_000;
                                if (ms > 0)
                                {
                                    driver.advanceWallClockTime(Duration.ofMillis(ms));
                                    lastNs += ms * 1_000_000;
                                }
                            }
                            switch (types[i])
                            {
                                case EventTape.TYPE_LEFT:
                                    leftIn.pipeInput(keys[i], values[i], tss[i]);
                                    break;
                                case EventTape.TYPE_RIGHT:
                                    rightIn.pipeInput(keys[i], values[i], tss[i]);
                                    break;
                                default:
                                    // end of input: let the emit throttle pass, then push stream time past every window
                                    driver.advanceWallClockTime(Duration.ofMillis(emitIntervalMs));
                                    leftIn.pipeInput(keys[i], values[i], tss[i]);
                                    break;
                            }
                        }
                        return counter.n;
                    }

                    @Override
                    public void close() throws IOException
                    {
                        try
                        {
                            driver.close();
                        }
                        finally
                        {
                            deleteRecursively(stateDir);
                        }
                    }
                };
            }

            @Override
            public String describe()
            {
                return "KStream-KStream " + (j == JoinKind.INNER ? "join" : "leftJoin")
                    + ", JoinWindows.ofTimeDifferenceWithNoGrace(" + window + " ms), stores: " + storeNote[0]
                    + ", changelog " + (changelog ? "on" : "off") + ", TopologyTestDriver";
            }
        };
    }

    private DslStoreSuppliers suppliers()
    {
        return store.equals("memory")
            ? new BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers()
            : new BuiltInDslStoreSuppliers.RocksDBDslStoreSuppliers();
    }

    /** The class name of the innermost store under the metering/logging wrappers. */
    private static String innermost(final StateStore s)
    {
        StateStore cur = s;
        for (int depth = 0; depth < 10; depth++)
        {
            if (cur instanceof WrappedStateStore)
            {
                cur = ((WrappedStateStore<?, ?, ?>) cur).wrapped();
            }
            else
            {
                break;
            }
        }
        return cur.getClass().getSimpleName();
    }

    static void deleteRecursively(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(p);
            }
        }
    }
}
