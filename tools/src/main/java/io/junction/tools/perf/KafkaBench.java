package io.junction.tools.perf;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.kafka.BinaryResult;
import io.junction.kafka.Provenance;
import io.junction.kafka.ResultEncoder;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workloads;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;

/**
 * W1 through Kafka: writes W1's events (binary rows keyed by join key, the row's ts as the record timestamp)
 * into the left and right topics at a fixed offered rate (or as fast as the producer goes), reads the output
 * topic, and reports events/s and ingest-to-output latency: from the instant each event was due to be sent
 * (so a producer that falls behind counts against the latency: coordinated omission corrected) to the instant
 * its result is read back. The result's cause is found from its provenance headers and the causing row's
 * {@code f1}. With {@code floor}, no join runs: an in-process relay copies every input record to the output
 * topic, so the same measurement gives Kafka's round trip (two hops through the broker), the floor under the
 * join's figures.
 */
public final class KafkaBench
{
    /** What to run. */
    public static final class Options
    {
        /** The cluster. */
        public String bootstrapServers;
        /** The left input topic. */
        public String leftTopic = "w1-left";
        /** The right input topic. */
        public String rightTopic = "w1-right";
        /** The output topic. */
        public String outputTopic = "w1-out";
        /** Create the three topics with this many partitions first; 0: they exist. */
        public int createPartitions;
        /** W1 impressions. */
        public int impressions = 400_000;
        /** Offered events/s; 0: as fast as the producer goes. */
        public long rate;
        /** Relay instead of join (the floor). */
        public boolean floor;
        /** Give up when no result arrives for this long. */
        public Duration stallTimeout = Duration.ofSeconds(60);
    }

    /** Latencies are recorded for the results of events after the first 1/WARMUP_DIVISOR of the workload. */
    public static final int WARMUP_DIVISOR = 5;

    private KafkaBench()
    {
    }

    /** Assigns and positions a consumer (the offset lookups happen here, not in the timed part). */
    private static void position(final KafkaConsumer<?, ?> consumer, final List<TopicPartition> partitions,
                                 final CountDownLatch ready)
    {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        for (final TopicPartition partition : partitions)
        {
            consumer.position(partition, Duration.ofSeconds(30));
        }
        ready.countDown();
    }

    /**
     * Runs once and prints the report.
     *
     * @param spec    the join the members run (its key fields key the records)
     * @param options what to run
     * @param out     where the report goes
     * @return 0 when every expected result arrived, 1 otherwise
     * @throws Exception when the cluster fails
     */
    public static int run(final JoinSpec spec, final Options options, final PrintStream out) throws Exception
    {
        final EventTape tape = new EventTape();
        Workloads.w1(options.impressions, tape);
        final EncodedRows rows = EncodedRows.encode(tape);
        final int size = tape.size();
        final int[][] indexBySideAndF1 = new int[2][];
        indexBySideAndF1[0] = new int[options.impressions];
        indexBySideAndF1[1] = new int[(int) tape.rows() - options.impressions];
        long events = 0;
        long expectedResults = 0;
        for (int i = 0; i < size; i++)
        {
            final byte type = tape.type(i);
            if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
            {
                indexBySideAndF1[type][(int) tape.f1(i)] = i;
                events++;
                if (type == EventTape.TYPE_RIGHT)
                {
                    expectedResults++;
                }
            }
        }
        // W1 inner: one result per click (every click is within its own impression's interval, keys distinct);
        // the floor: one record per event.
        final long expected = options.floor ? events : expectedResults;
        if (options.createPartitions > 0)
        {
            createTopics(options);
        }
        final long[] dueNanos = new long[size];
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        // Counted down by the reader and the relay once they are assigned and positioned: the clock starts after.
        final CountDownLatch ready = new CountDownLatch(options.floor ? 2 : 1);
        final Thread relay = options.floor ? relay(spec, options, stop, failure, ready) : null;
        final Reader reader = new Reader(options, indexBySideAndF1, dueNanos, latency, expected, ready);
        final Thread readerThread = new Thread(() ->
        {
            try
            {
                reader.run(stop);
            }
            catch (final Throwable t)
            {
                failure.compareAndSet(null, t);
            }
        }, "kafka-bench-reader");
        readerThread.start();
        if (relay != null)
        {
            relay.start();
        }
        final ResultEncoder keys = ResultEncoder.binary(spec);
        final RowView view = new RowView();
        final AtomicReference<Exception> sendFailure = new AtomicReference<>();
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties(options)))
        {
            // Not timed: the producer's metadata, the reader's (and relay's) assignment and positions.
            producer.partitionsFor(options.leftTopic);
            producer.partitionsFor(options.rightTopic);
            if (!ready.await(60, TimeUnit.SECONDS))
            {
                throw new IllegalStateException("the reader did not get ready in 60 s");
            }
            final long start = System.nanoTime();
            final long period = options.rate > 0 ? 1_000_000_000L / options.rate : 0;
            for (int i = 0; i < size; i++)
            {
                final byte type = tape.type(i);
                if (type != EventTape.TYPE_LEFT && type != EventTape.TYPE_RIGHT)
                {
                    continue;
                }
                final long due = start + sent * period;
                dueNanos[i] = due;
                if (period > 0)
                {
                    long now;
                    while ((now = System.nanoTime()) < due)
                    {
                        LockSupport.parkNanos(Math.min(due - now, 50_000));
                    }
                }
                else
                {
                    dueNanos[i] = System.nanoTime();
                }
                final UnsafeBuffer buffer = rows.buffer(i);
                view.wrap(buffer, rows.offset(i), rows.rowLength());
                final byte[] key = type == EventTape.TYPE_LEFT
                    ? keys.key(ChangeKind.INSERT, view, null, tape.ts(i)) : keys.key(ChangeKind.INSERT, null, view, tape.ts(i));
                final byte[] value = new byte[rows.rowLength()];
                buffer.getBytes(rows.offset(i), value);
                producer.send(new ProducerRecord<>(type == EventTape.TYPE_LEFT ? options.leftTopic : options.rightTopic,
                    null, tape.ts(i), key, value), (metadata, error) ->
                    {
                        if (error != null)
                        {
                            sendFailure.compareAndSet(null, error);
                        }
                    });
                sent++;
            }
            producer.flush();
            reader.start = start;
            reader.sentNanos = System.nanoTime() - start;
        }
        final long start = reader.start;
        final long sentNanos = reader.sentNanos;
        readerThread.join();
        stop.set(true);
        if (relay != null)
        {
            relay.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (sendFailure.get() != null)
        {
            throw sendFailure.get();
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException("the bench failed", failure.get());
        }
        final double seconds = (reader.lastNanos - start) / 1e9;
        out.printf("kafka bench: %s, W1 inner, %,d impressions: %,d events sent in %.2f s (%s offered)%n",
            options.floor ? "FLOOR (relay, no join)" : "join", options.impressions, sent, sentNanos / 1e9,
            options.rate > 0 ? String.format("%,d ev/s", options.rate) : "max rate");
        out.printf("  results: %,d of %,d expected (%,d records read, %,d duplicates), last after %.2f s: %,.0f events/s end to end%n",
            reader.distinct, expected, reader.records, reader.records - reader.distinct, seconds, sent / seconds);
        out.printf("  ingest-to-output latency after the first fifth of the events (ms): p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f  (%,d samples)%n",
            latency.getValueAtPercentile(50) / 1e6, latency.getValueAtPercentile(90) / 1e6,
            latency.getValueAtPercentile(99) / 1e6, latency.getValueAtPercentile(99.9) / 1e6, latency.getMaxValue() / 1e6,
            latency.getTotalCount());
        if (reader.unreadable > 0)
        {
            out.printf("  %,d output records without provenance or not binary results%n", reader.unreadable);
        }
        return reader.distinct == expected ? 0 : 1;
    }

    /**
     * Creates the three topics with {@link Options#createPartitions} partitions each.
     *
     * @param options names the topics and the cluster
     * @throws Exception when the cluster refuses
     */
    public static void createTopics(final Options options) throws Exception
    {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers);
        try (Admin admin = Admin.create(props))
        {
            final List<NewTopic> topics = new ArrayList<>();
            for (final String name : List.of(options.leftTopic, options.rightTopic, options.outputTopic))
            {
                topics.add(new NewTopic(name, options.createPartitions, (short) 1));
            }
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        }
    }

    private static Properties producerProperties(final Options options)
    {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        return props;
    }

    private static Properties consumerProperties(final Options options)
    {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "1");
        return props;
    }

    private static List<TopicPartition> partitions(final KafkaConsumer<?, ?> consumer, final String topic)
    {
        final List<TopicPartition> partitions = new ArrayList<>();
        consumer.partitionsFor(topic, Duration.ofSeconds(30)).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        return partitions;
    }

    /** Reads the output topic: each distinct result's latency from its cause's due time. */
    private static final class Reader
    {
        private final Options options;
        private final int[][] indexBySideAndF1;
        private final long[] dueNanos;
        private final Histogram latency;
        private final long expected;
        private final boolean[][] seen;
        volatile long start;
        volatile long sentNanos;
        long distinct;
        long records;
        long unreadable;
        long lastNanos;

        private final CountDownLatch ready;

        Reader(final Options options, final int[][] indexBySideAndF1, final long[] dueNanos, final Histogram latency,
               final long expected, final CountDownLatch ready)
        {
            this.ready = ready;
            this.options = options;
            this.indexBySideAndF1 = indexBySideAndF1;
            this.dueNanos = dueNanos;
            this.latency = latency;
            this.expected = expected;
            this.seen = new boolean[][] {new boolean[indexBySideAndF1[0].length], new boolean[indexBySideAndF1[1].length]};
        }

        void run(final AtomicBoolean stop)
        {
            final RowView row = new RowView();
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties(options)))
            {
                position(consumer, partitions(consumer, options.outputTopic), ready);
                long lastProgress = System.nanoTime();
                while (distinct < expected && !stop.get())
                {
                    final long polled = System.nanoTime();
                    if (polled - lastProgress > options.stallTimeout.toNanos())
                    {
                        return;
                    }
                    for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
                    {
                        final long now = System.nanoTime();
                        records++;
                        lastProgress = now;
                        final Provenance provenance;
                        final BinaryResult result;
                        try
                        {
                            provenance = Provenance.of(record.headers());
                            result = BinaryResult.parse(record.value());
                        }
                        catch (final IllegalArgumentException e)
                        {
                            unreadable++;
                            continue;
                        }
                        if (provenance.watermarkCaused())
                        {
                            continue;
                        }
                        final int side = "L".equals(provenance.side()) ? 0 : 1;
                        final byte[] bytes = side == 0 ? result.left() : result.right();
                        if (bytes == null)
                        {
                            continue;
                        }
                        // For a join, one result per click: its identity is the click; for the floor, each event.
                        final byte[] identity = options.floor ? bytes : result.right();
                        final int identitySide = options.floor ? side : 1;
                        if (identity == null)
                        {
                            continue;
                        }
                        row.wrap(new UnsafeBuffer(identity), 0, identity.length);
                        final int f1 = (int) row.getLong(2);
                        if (seen[identitySide][f1])
                        {
                            continue;
                        }
                        seen[identitySide][f1] = true;
                        distinct++;
                        row.wrap(new UnsafeBuffer(bytes), 0, bytes.length);
                        final int cause = indexBySideAndF1[side][(int) row.getLong(2)];
                        final long due = dueNanos[cause];
                        // The first fifth of the events warms the JVMs up (the bench's, the members', the broker's):
                        // their results count, their latencies do not.
                        if (cause >= dueNanos.length / WARMUP_DIVISOR && due != 0 && now > due)
                        {
                            latency.recordValue(Math.min(now - due, latency.getHighestTrackableValue()));
                        }
                        lastNanos = now;
                    }
                }
            }
        }
    }

    /** The floor: copies every input record to the output topic, with the provenance a member would write. */
    private static Thread relay(final JoinSpec spec, final Options options, final AtomicBoolean stop,
                                final AtomicReference<Throwable> failure, final CountDownLatch ready)
    {
        final ResultEncoder encoder = ResultEncoder.binary(spec);
        return new Thread(() ->
        {
            final RowView row = new RowView();
            final Properties consumerProps = consumerProperties(options);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProps);
                 KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties(options)))
            {
                final List<TopicPartition> partitions = new ArrayList<>(partitions(consumer, options.leftTopic));
                partitions.addAll(partitions(consumer, options.rightTopic));
                position(consumer, partitions, ready);
                while (!stop.get())
                {
                    for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
                    {
                        final boolean left = record.topic().equals(options.leftTopic);
                        row.wrap(new UnsafeBuffer(record.value()), 0, record.value().length);
                        final ProducerRecord<byte[], byte[]> copy = new ProducerRecord<>(options.outputTopic, record.partition(),
                            record.timestamp(), record.key(),
                            encoder.value(ChangeKind.INSERT, left ? row : null, left ? null : row, record.timestamp()));
                        copy.headers().add(new RecordHeader(Provenance.PARTITION,
                            ByteBuffer.allocate(4).putInt(record.partition()).array()));
                        copy.headers().add(new RecordHeader(Provenance.SIDE, (left ? "L" : "R").getBytes(StandardCharsets.UTF_8)));
                        copy.headers().add(new RecordHeader(Provenance.OFFSET, ByteBuffer.allocate(8).putLong(record.offset()).array()));
                        copy.headers().add(new RecordHeader(Provenance.SEQ, ByteBuffer.allocate(4).putInt(0).array()));
                        copy.headers().add(new RecordHeader(Provenance.KIND, "+I".getBytes(StandardCharsets.UTF_8)));
                        producer.send(copy);
                    }
                }
            }
            catch (final Throwable t)
            {
                failure.compareAndSet(null, t);
            }
        }, "kafka-bench-relay");
    }
}
