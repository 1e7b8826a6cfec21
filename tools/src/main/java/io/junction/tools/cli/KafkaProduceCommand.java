package io.junction.tools.cli;

import static io.junction.tools.cli.KafkaCommand.EXIT_FAILED;
import static io.junction.tools.cli.KafkaCommand.EXIT_IO;
import static io.junction.tools.cli.KafkaCommand.EXIT_OK;
import static io.junction.tools.cli.KafkaCommand.EXIT_USAGE;
import static io.junction.tools.cli.KafkaCommand.inputTopics;
import static io.junction.tools.cli.KafkaCommand.spec;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.kafka.KafkaJoinRunner;
import io.junction.kafka.ResultEncoder;
import io.junction.json.BadInputException;
import io.junction.json.RowJson;
import io.junction.tools.JunctionCli;
import io.junction.tools.replay.ReplayEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import io.junction.api.RowFormat;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * {@code junction kafka produce}: writes an event log's rows into the input topics, keyed by their join key
 * as the runner expects (the binary key row, with Kafka's default partitioner), the row's {@code ts} as
 * the record timestamp, and a non-insert change kind in a header. Watermark lines are skipped (the members
 * derive watermarks from the records' timestamps).
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
    description = {"Writes an event log's rows (docs/SEMANTICS.md 1.2) into the left and right topics, keyed by join key, " +
        "or a multi-way join's log (docs/SEMANTICS.md 10) into its --input topics, keyed by the common key.",
        "Watermark lines are skipped: members derive watermarks from record timestamps."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:every row was written", "1:the log could not be read", "2:an option, the spec or a line was rejected",
        "3:the cluster refused a write"})
final class KafkaProduceCommand implements Callable<Integer>
{
    @picocli.CommandLine.Mixin
    KafkaCommand.Connection connection = new KafkaCommand.Connection();

    @Option(names = "--spec", required = true, paramLabel = "SPEC.join.json", description = "the join spec: its keys key the records")
    Path specFile;

    @Parameters(index = "0", paramLabel = "EVENTS.events.jsonl", description = "the event log")
    Path eventsFile;

    @Option(names = "--create-topics", paramLabel = "PARTITIONS",
        description = "create the input topics first, with this many partitions (replication factor 1)")
    Integer createPartitions;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "S",
        description = "give up, naming the cluster, when it does not answer (metadata, a topic's creation, a write) " +
            "within this many seconds (default ${DEFAULT-VALUE}; max.block.ms and delivery.timeout.ms, unless -X sets them)")
    long timeoutSeconds;

    @Override
    public Integer call() throws Exception
    {
        final JoinSpec spec = spec(specFile, connection.fields);
        if (spec == null)
        {
            return EXIT_USAGE;
        }
        final Boolean json = connection.json("produce");
        if (json == null)
        {
            return EXIT_USAGE;
        }
        final List<String> topics = inputTopics("produce", connection, spec);
        if (topics == null)
        {
            return EXIT_USAGE;
        }
        final boolean multi = spec.kind() == JoinKind.MULTI;
        final List<String> inputNames = multi ? spec.multi().names() : null;
        if (createPartitions != null && createPartitions < 1)
        {
            System.err.println("junction kafka produce: --create-topics must be >= 1");
            return EXIT_USAGE;
        }
        if (timeoutSeconds < 1)
        {
            System.err.println("junction kafka produce: --timeout must be >= 1 s, not " + timeoutSeconds);
            return EXIT_USAGE;
        }
        // Every line is checked before the first is sent: a bad line (or a negative ts, which a Kafka record's
        // timestamp cannot carry) refuses the whole log, never leaves a part of it in the topics.
        final Lines checked = lines(spec, topics, multi, inputNames, json, null);
        if (checked.exit != EXIT_OK)
        {
            return checked.exit;
        }
        if (createPartitions != null)
        {
            final Properties adminProps = new Properties();
            adminProps.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(TimeUnit.SECONDS.toMillis(timeoutSeconds)));
            adminProps.putAll(connection.properties);
            adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, connection.bootstrapServers);
            try (Admin admin = Admin.create(adminProps))
            {
                // A topic that exists already is used as it is (a note says so), never a stack trace.
                final List<NewTopic> create = new ArrayList<>();
                for (final String topic : topics)
                {
                    create.add(new NewTopic(topic, createPartitions, (short) 1));
                }
                final var created = admin.createTopics(create).values();
                for (final var topic : created.entrySet())
                {
                    try
                    {
                        // Bounded by the admin client's default.api.timeout.ms, set from --timeout above.
                        topic.getValue().get();
                    }
                    catch (final ExecutionException e)
                    {
                        if (e.getCause() instanceof TimeoutException)
                        {
                            System.err.println("junction kafka produce: no answer from the Kafka cluster at " +
                                connection.bootstrapServers + " within " + timeoutSeconds + " s (--timeout): is it running " +
                                "and reachable? nothing was written");
                            return EXIT_FAILED;
                        }
                        if (!(e.getCause() instanceof TopicExistsException))
                        {
                            System.err.println("junction kafka produce: cannot create topic " + topic.getKey() + " on " +
                                connection.bootstrapServers + ": " + JunctionCli.describe(e.getCause()));
                            return EXIT_FAILED;
                        }
                        System.err.println("junction kafka produce: topic " + topic.getKey() +
                            " exists already: used as it is (--create-topics creates only missing topics)");
                    }
                }
            }
        }
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, connection.bootstrapServers);
        // Bounded: an unreachable cluster ends the command after --timeout, naming it, instead of blocking per row.
        final long timeoutMillis = TimeUnit.SECONDS.toMillis(timeoutSeconds);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMillis));
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.min(timeoutMillis, 30_000L)));
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeoutMillis + Math.min(timeoutMillis, 30_000L)));
        props.putAll(connection.properties);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        final Lines sent;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props))
        {
            for (final String topic : topics)
            {
                // The first metadata fetch: where an unreachable cluster or a missing topic shows, before any row.
                producer.partitionsFor(topic);
            }
            sent = lines(spec, topics, multi, inputNames, json, producer);
            if (sent.exit != EXIT_OK)
            {
                return sent.exit;
            }
            producer.flush();
            if (sent.failure.get() != null)
            {
                System.err.println("junction kafka produce: a write to " + connection.bootstrapServers + " failed: " +
                    JunctionCli.describe(sent.failure.get()));
                return EXIT_FAILED;
            }
        }
        catch (final TimeoutException e)
        {
            System.err.println("junction kafka produce: no answer from the Kafka cluster at " + connection.bootstrapServers +
                " within " + timeoutSeconds + " s (--timeout) for topics " + topics + ": is it running and reachable, and " +
                "do the topics exist (--create-topics)? nothing was written");
            return EXIT_FAILED;
        }
        catch (final KafkaException e)
        {
            System.err.println("junction kafka produce: " + connection.bootstrapServers + ": " + JunctionCli.describe(e));
            return EXIT_FAILED;
        }
        System.err.println("junction kafka produce: wrote " + sent.rows + " rows" +
            (sent.watermarks > 0 ? " (skipped " + sent.watermarks + " watermark lines)" : ""));
        return EXIT_OK;
    }

    /** What a pass over the log found: its exit status (EXIT_OK, or a refusal already printed) and counts. */
    private static final class Lines
    {
        int exit = EXIT_OK;
        long rows;
        long watermarks;
        final AtomicReference<Exception> failure = new AtomicReference<>();
    }

    /**
     * One pass over the event log: parses, encodes and keys every row; sends each when a producer is given
     * (else only checks them). A line that is not an event, a row that does not fit its input's schema, or a
     * negative {@code ts} is refused naming the line (exit 2).
     */
    private Lines lines(final JoinSpec spec, final List<String> topics, final boolean multi, final List<String> inputNames,
        final boolean json, final KafkaProducer<byte[], byte[]> producer) throws IOException
    {
        final Lines result = new Lines();
        final RowJson[] inputRows = new RowJson[topics.size()];
        for (int i = 0; i < inputRows.length; i++)
        {
            inputRows[i] = new RowJson(multi ? spec.multi().schema(i) : i == 0 ? spec.leftSchema() : spec.rightSchema());
        }
        final RowView[] keyRows = new RowView[topics.size()];
        final ResultEncoder keys = ResultEncoder.binary(spec);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
        final RowView view = new RowView();
        long lineNumber = 0;
        try (BufferedReader in = Files.newBufferedReader(eventsFile, StandardCharsets.UTF_8))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                lineNumber++;
                if (line.isBlank())
                {
                    continue;
                }
                final ReplayEvent event;
                try
                {
                    // A multi-way join's rows default their ts to 0, as the replay's (SEMANTICS 10).
                    event = multi ? ReplayEvent.parse(lineNumber == 1 ? stripBom(line) : line, false, inputNames)
                        : ReplayEvent.parse(lineNumber == 1 ? stripBom(line) : line, true);
                }
                catch (final BadInputException e)
                {
                    System.err.println("junction kafka produce: " + eventsFile + " line " + lineNumber + ": " + e.getMessage());
                    result.exit = EXIT_USAGE;
                    return result;
                }
                if (event.isWatermark())
                {
                    result.watermarks++;
                    continue;
                }
                if (event.ts() < 0)
                {
                    // kafka join reads a row's event time from its record's timestamp, which Kafka keeps >= 0.
                    System.err.println("junction kafka produce: " + eventsFile + " line " + lineNumber + ": ts " + event.ts() +
                        " is negative: a row's ts is its Kafka record's timestamp, which cannot be (shift the log's times)");
                    result.exit = EXIT_USAGE;
                    return result;
                }
                final Side side = event.side();
                final int input = multi ? event.input() : side.ordinal();
                final JsonNode row = event.row();
                final int length;
                try
                {
                    length = inputRows[input].encode(row, buffer, 0, buffer.capacity());
                }
                catch (final BadInputException e)
                {
                    System.err.println("junction kafka produce: " + eventsFile + " line " + lineNumber + ": " + e.getMessage());
                    result.exit = EXIT_USAGE;
                    return result;
                }
                if (length < 0)
                {
                    System.err.println("junction kafka produce: " + eventsFile + " line " + lineNumber + ": row too large");
                    result.exit = EXIT_USAGE;
                    return result;
                }
                if (producer == null)
                {
                    result.rows++;
                    continue;
                }
                view.wrap(buffer, 0, length);
                final byte[] key;
                if (multi)
                {
                    // The common key: the binary key row of the input's key fields, equal for every input.
                    Arrays.fill(keyRows, null);
                    keyRows[input] = view;
                    key = keys.key(ChangeKind.INSERT, keyRows, event.ts());
                }
                else
                {
                    key = side == Side.LEFT
                        ? keys.key(ChangeKind.INSERT, view, null, event.ts())
                        : keys.key(ChangeKind.INSERT, null, view, event.ts());
                }
                final byte[] value;
                if (json)
                {
                    value = RowJson.mapper().writeValueAsBytes(row);
                }
                else
                {
                    value = new byte[length];
                    buffer.getBytes(0, value);
                }
                final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.get(input), null, event.ts(), key, value);
                if (event.kind() != ChangeKind.INSERT)
                {
                    record.headers().add(new RecordHeader(KafkaJoinRunner.INPUT_KIND_HEADER,
                        event.kind().shortString().getBytes(StandardCharsets.UTF_8)));
                }
                producer.send(record, (metadata, error) ->
                {
                    if (error != null)
                    {
                        result.failure.compareAndSet(null, error);
                    }
                });
                result.rows++;
            }
        }
        catch (final IOException e)
        {
            System.err.println("junction kafka produce: cannot read " + eventsFile + ": " + JunctionCli.describe(e));
            result.exit = EXIT_IO;
        }
        return result;
    }

    private static String stripBom(final String line)
    {
        return line.startsWith("\uFEFF") ? line.substring(1) : line;
    }
}
