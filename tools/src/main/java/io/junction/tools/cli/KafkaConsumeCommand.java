package io.junction.tools.cli;

import static io.junction.tools.cli.KafkaCommand.EXIT_FAILED;
import static io.junction.tools.cli.KafkaCommand.EXIT_OK;
import static io.junction.tools.cli.KafkaCommand.EXIT_USAGE;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.api.FieldType;
import io.junction.api.RowView;
import io.junction.json.RowJson;
import io.junction.kafka.BinaryResult;
import io.junction.kafka.KafkaJoinRunner;
import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code junction kafka consume}: prints a topic's records, a join's output above all, one JSON line each: the
 * record's value (with {@code --format json}, the replay's result line without its step) with the record's key in
 * front as {@code "key"} (a binary key row as the array of its values, a JSON key as itself; a value of the binary
 * encoding, {@code --format binary}, as its kind, its rows as arrays of their values and its time), and a tombstone (an
 * upsert output's delete) as {@code {"op":"delete","key":...,"kind":"-D","ts":...}}. Reads every partition of the
 * topic without a consumer group ({@code assign}), {@code read_committed} unless {@code -X} says otherwise.
 */
@Command(name = "consume", mixinStandardHelpOptions = true,
    description = {"Prints a topic's records as JSON lines: a join's output as the replay's result lines, each with " +
        "its record key in front (\"key\"), an upsert output's tombstones as {\"op\":\"delete\",\"key\":...}.",
        "Stops after --max records, or after --timeout seconds without one, or on Ctrl-C."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:stopped as asked (--max reached, --timeout without records, or a signal)",
        "2:an option was rejected", "3:the topic is missing, the cluster did not answer, or fewer than --max records came " +
        "within --timeout"})
final class KafkaConsumeCommand implements Callable<Integer>
{
    private static final Duration POLL = Duration.ofMillis(200);

    @Option(names = {"--bootstrap-servers", "--bootstrap"}, required = true, paramLabel = "HOST:PORT[,...]",
        description = "the Kafka cluster")
    String bootstrapServers;

    @Option(names = "--topic", required = true, paramLabel = "TOPIC", description = "the topic to print")
    String topic;

    @Option(names = "--from-beginning", description = "print the topic from its first records (default: only new ones)")
    boolean fromBeginning;

    @Option(names = "--max", paramLabel = "N", description = "stop after N records")
    Long max;

    @Option(names = "--timeout", paramLabel = "S",
        description = "stop after this many seconds without a record (default: never); with --max, fewer records by " +
            "then is exit 3. The cluster must answer within it too (default 30 s)")
    Long timeoutSeconds;

    @Option(names = {"-X", "--property"}, paramLabel = "NAME=VALUE",
        description = "a consumer property (security settings, isolation.level=read_uncommitted, ...)")
    Map<String, String> properties = Map.of();

    @Override
    public Integer call()
    {
        if (max != null && max < 1 || timeoutSeconds != null && timeoutSeconds < 1)
        {
            System.err.println("junction kafka consume: --max and --timeout must be >= 1");
            return EXIT_USAGE;
        }
        final long answerMillis = TimeUnit.SECONDS.toMillis(timeoutSeconds != null ? timeoutSeconds : 30);
        final Properties props = new Properties();
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(answerMillis));
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.min(answerMillis, 30_000L)));
        props.putAll(properties);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        final PrintStream out = System.out;
        long printed = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer()))
        {
            final List<PartitionInfo> partitions = consumer.partitionsFor(topic);
            if (partitions == null || partitions.isEmpty())
            {
                System.err.println("junction kafka consume: no topic " + topic + " on " + bootstrapServers +
                    " (junction kafka topics --list shows those there are)");
                return EXIT_FAILED;
            }
            final List<TopicPartition> assigned = new ArrayList<>();
            for (final PartitionInfo partition : partitions)
            {
                assigned.add(new TopicPartition(topic, partition.partition()));
            }
            consumer.assign(assigned);
            if (fromBeginning)
            {
                consumer.seekToBeginning(assigned);
            }
            else
            {
                consumer.seekToEnd(assigned);
            }
            long lastRecord = System.nanoTime();
            while (max == null || printed < max)
            {
                boolean any = false;
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL))
                {
                    any = true;
                    out.println(line(record));
                    printed++;
                    if (max != null && printed == max)
                    {
                        break;
                    }
                }
                out.flush();
                if (any)
                {
                    lastRecord = System.nanoTime();
                }
                else if (timeoutSeconds != null && System.nanoTime() - lastRecord > TimeUnit.SECONDS.toNanos(timeoutSeconds))
                {
                    if (max != null)
                    {
                        System.err.println("junction kafka consume: " + printed + " of --max " + max + " records from " +
                            topic + ", then none for " + timeoutSeconds + " s (--timeout)");
                        return EXIT_FAILED;
                    }
                    break;
                }
            }
        }
        catch (final TimeoutException e)
        {
            System.err.println("junction kafka consume: no answer from the Kafka cluster at " + bootstrapServers + " within " +
                TimeUnit.MILLISECONDS.toSeconds(answerMillis) + " s for topic " + topic + ": is it running and reachable?");
            return EXIT_FAILED;
        }
        catch (final KafkaException e)
        {
            System.err.println("junction kafka consume: " + bootstrapServers + ": " + JunctionCli.describe(e));
            return EXIT_FAILED;
        }
        System.err.println("junction kafka consume: " + printed + " records from " + topic);
        return EXIT_OK;
    }

    /** One record as a JSON line: its value object with the key in front, or a tombstone's line. */
    static String line(final ConsumerRecord<byte[], byte[]> record)
    {
        final ObjectNode line = JsonNodeFactory.instance.objectNode();
        final JsonNode value = json(record.value());
        if (record.value() == null)
        {
            line.put("op", "delete");
            line.set("key", key(record.key()));
            final Header kind = record.headers().lastHeader(KafkaJoinRunner.INPUT_KIND_HEADER);
            if (kind != null)
            {
                line.put("kind", new String(kind.value(), StandardCharsets.UTF_8));
            }
            line.put("ts", record.timestamp());
        }
        else if (value instanceof ObjectNode)
        {
            // An upsert's value names its result key already ("key"): the record key is that same key.
            if (!value.has("key"))
            {
                line.set("key", key(record.key()));
            }
            line.setAll((ObjectNode)value);
        }
        else
        {
            line.set("key", key(record.key()));
            final BinaryResult result = binaryResult(record.value());
            if (result != null)
            {
                // The binary encoding's result (--format binary): its rows as arrays of their values (a binary
                // row has no names), a padded side null.
                line.put("op", result.kind().shortString());
                line.set("left", result.left() == null ? JsonNodeFactory.instance.nullNode() : rowValues(result.left()));
                line.set("right", result.right() == null ? JsonNodeFactory.instance.nullNode() : rowValues(result.right()));
                line.put("ts", result.timestamp());
            }
            else
            {
                line.put("value_base64", Base64.getEncoder().encodeToString(record.value()));
                line.put("ts", record.timestamp());
            }
        }
        return line.toString();
    }

    /** @return the value as a binary join result whose rows are well-formed, or null when it is none. */
    private static BinaryResult binaryResult(final byte[] value)
    {
        final BinaryResult result;
        try
        {
            result = BinaryResult.parse(value);
        }
        catch (final IllegalArgumentException e)
        {
            return null;
        }
        return (result.left() == null || rowValues(result.left()) != null) && (result.right() == null || rowValues(result.right()) != null)
            && (result.left() != null || result.right() != null) ? result : null;
    }

    /** @return the bytes as JSON when they are a JSON document, else null. */
    private static JsonNode json(final byte[] bytes)
    {
        if (bytes == null || bytes.length == 0 || bytes[0] != '{' && bytes[0] != '[' && bytes[0] != '"')
        {
            return null;
        }
        try
        {
            return RowJson.mapper().readTree(bytes);
        }
        catch (final IOException e)
        {
            return null;
        }
    }

    /**
     * A record key: a binary row (the runner's key of a retraction changelog: the join key's values) as the array of
     * its values, a JSON key (an upsert's result key) as itself, anything else as base64; null as null.
     */
    private static JsonNode key(final byte[] key)
    {
        if (key == null)
        {
            return JsonNodeFactory.instance.nullNode();
        }
        final JsonNode json = json(key);
        if (json != null)
        {
            return json;
        }
        final JsonNode values = rowValues(key);
        return values != null ? values : JsonNodeFactory.instance.textNode(Base64.getEncoder().encodeToString(key));
    }

    /** @return a binary row as the array of its values (an array value as its JSON), or null when the bytes are no row. */
    private static JsonNode rowValues(final byte[] bytes)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final RowView row = new RowView().wrap(buffer, 0, bytes.length);
        if (row.validate() != null)
        {
            return null;
        }
        final var values = JsonNodeFactory.instance.arrayNode();
        for (int field = 0; field < row.fieldSlots(); field++)
        {
            switch (row.type(field))
            {
                case FieldType.LONG:
                    values.add(row.getLong(field));
                    break;
                case FieldType.DOUBLE:
                    values.add(row.getDouble(field));
                    break;
                case FieldType.BOOLEAN:
                    values.add(row.getBoolean(field));
                    break;
                case FieldType.STRING:
                    values.add(row.getString(field));
                    break;
                case FieldType.ARRAY:
                case FieldType.OBJECT:
                    values.add(json(RowJson.appendArray(buffer, row.valueIndex(field), new StringBuilder()).toString()
                        .getBytes(StandardCharsets.UTF_8)));
                    break;
                default:
                    values.addNull();
            }
        }
        return values;
    }
}
