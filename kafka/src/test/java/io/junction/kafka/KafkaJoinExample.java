package io.junction.kafka;

import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.Schema;
import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import org.agrona.ExpandableArrayBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The README's example of "Running Junction as a Kafka consumer group", runnable against any broker that
 * has the topics {@code shows}, {@code clicks} and {@code shows-clicks} with equal partition counts
 * ({@code main}: bootstrap servers and a working directory); {@link KafkaJoinRunnerTest} runs it against
 * its test broker.
 */
public final class KafkaJoinExample
{
    private KafkaJoinExample()
    {
    }

    /**
     * @param args bootstrap servers and a working directory.
     * @throws Exception when the example fails.
     */
    public static void main(final String[] args) throws Exception
    {
        run(args[0], Path.of(args[1])).forEach(System.out::println);
    }

    static List<String> run(final String bootstrap, final Path dir) throws Exception
    {
        final List<String> printed = new ArrayList<>();
        // --- the README block starts here
        Schema shows = Schema.of("log_id", "ts", "show_params");
        Schema clicks = Schema.of("log_id", "ts", "click_params");
        JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(shows, clicks)
            .leftKey("log_id").rightKey("log_id").interval(IntervalBounds.inclusive(0, 60_000)).build();

        // Input: keyed by the join key (default partitioner), values binary rows, timestamps = event time.
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap), new ByteArraySerializer(), new ByteArraySerializer()))
        {
            producer.send(new ProducerRecord<>("shows", null, 1_000L, key(42),
                row(shows, Row.of("log_id", 42, "ts", 1_000, "show_params", "home"))));
            producer.send(new ProducerRecord<>("clicks", null, 4_000L, key(42),
                row(clicks, Row.of("log_id", 42, "ts", 4_000, "click_params", "buy"))));
        }

        KafkaJoinRunner runner = new KafkaJoinRunner(KafkaJoinConfig.builder()
            .bootstrapServers(bootstrap)
            .groupId("shows-clicks")                                   // every member of the join: the same group
            .leftTopic("shows").rightTopic("clicks").outputTopic("shows-clicks")
            .spec(spec)                                                // values: binary rows (RowDecoder.binary())
            .watermarkDelayMillis(5_000)                               // bounded out-of-orderness per input partition
            .idleTimeoutMillis(30_000)                                 // a silent input partition stops holding back
            .checkpointInterval(Duration.ofSeconds(10))                // the most input a failover replays
            .stateDir(dir.resolve("state"))                            // scratch, this process only
            .checkpointDir(dir.resolve("checkpoints"))                 // shared by every member (NFS, ...)
            .engineConfig(EngineConfig.defaults()                      // size each partition's state
                .withState(StateConfig.defaults().withMaxKeys(1 << 16).withChunkSize(256 << 10)))
            .clientProperty("session.timeout.ms", 10_000)              // passed to the Kafka clients
            .build());
        Thread member = new Thread(runner::run, "junction-member");    // run() blocks until close()
        member.start();

        try (KafkaConsumer<byte[], byte[]> output = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
            "group.id", "shows-clicks-reader", "auto.offset.reset", "earliest", "isolation.level", "read_committed"),
            new ByteArrayDeserializer(), new ByteArrayDeserializer()))
        {
            output.subscribe(List.of("shows-clicks"));
            while (printed.isEmpty())
            {
                for (ConsumerRecord<byte[], byte[]> record : output.poll(Duration.ofMillis(500)))
                {
                    BinaryResult result = BinaryResult.parse(record.value());   // the default ResultEncoder's layout
                    Provenance from = Provenance.of(record.headers());          // de-duplicate after a failover
                    printed.add(result.kind().shortString() + " " + RowCodec.decode(shows, result.leftView()) + " x " +
                        RowCodec.decode(clicks, result.rightView()) + " at " + result.timestamp() + " from " + from);
                }
            }
        }
        runner.close();                                                // last checkpoints, commits, leaves the group
        member.join();
        // --- the README block ends here
        return printed;
    }

    private static byte[] key(final long joinKey)
    {
        return ByteBuffer.allocate(Long.BYTES).putLong(joinKey).array();
    }

    private static byte[] row(final Schema schema, final Row row)
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final int length = new RowCodec(schema).encode(row, buffer, 0, buffer.capacity());
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }
}
