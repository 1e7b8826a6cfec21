package io.junction.tools.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.kafka.KafkaJoinConfig;
import io.junction.kafka.KafkaJoinException;
import io.junction.kafka.KafkaJoinRunner;
import io.junction.kafka.ResultEncoder;
import io.junction.kafka.RowDecoder;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.json.BadInputException;
import io.junction.json.RowJson;
import io.junction.kafka.JsonResultEncoder;
import io.junction.kafka.JsonRowDecoder;
import io.junction.tools.JunctionCli;
import io.junction.tools.replay.ReplayEvent;
import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
import io.junction.tools.perf.KafkaBench;
import io.junction.tools.workload.EncodedRows;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * {@code junction kafka}: Junction as a member of a Kafka consumer group ({@code join}), and loading a replay
 * event log into the two input topics ({@code produce}), keyed as the runner expects.
 */
@Command(name = "kafka", mixinStandardHelpOptions = true,
    description = "Junction over Kafka topics: run a member of a join's consumer group, or load an event log into the input topics.",
    subcommands = {KafkaCommand.Join.class, KafkaCommand.Produce.class, KafkaCommand.Bench.class})
public final class KafkaCommand implements Callable<Integer>
{
    /** Exit code of a run that ended normally (closed by a signal). */
    public static final int EXIT_OK = 0;
    /** Exit code of a file that could not be read. */
    public static final int EXIT_IO = 1;
    /** Exit code of a rejected option, spec or topic layout. */
    public static final int EXIT_USAGE = 2;
    /** Exit code of a run the runner stopped with an error (unreachable cluster, a deleted topic, ...). */
    public static final int EXIT_FAILED = 3;

    @Override
    public Integer call()
    {
        System.err.println("junction kafka: give a subcommand: join, produce or bench (junction kafka --help)");
        return EXIT_USAGE;
    }

    /** Options both subcommands share. */
    static final class Connection
    {
        @Option(names = "--bootstrap-servers", required = true, paramLabel = "HOST:PORT[,...]",
            description = "the Kafka cluster")
        String bootstrapServers;

        @Option(names = "--left", paramLabel = "TOPIC", description = "the left input topic (a two-input join)")
        String leftTopic;

        @Option(names = "--right", paramLabel = "TOPIC", description = "the right input topic (a two-input join)")
        String rightTopic;

        @Option(names = {"--input", "--inputs"}, split = ",", paramLabel = "TOPIC",
            description = "a multi-way join's input topics (\"join\": \"multi\"), one per input in the spec's order: " +
                "repeat --input, or give them comma-separated (instead of --left and --right)")
        List<String> inputs = new ArrayList<>();

        @Option(names = "--extra-fields", split = ",", paramLabel = "NAME",
            description = "the rows' field names beyond those the spec names (the schema of both inputs); not replay's " +
                "--fields, which declares every field and its type")
        List<String> fields = new ArrayList<>();

        @Option(names = "--format", defaultValue = "json", paramLabel = "json|binary",
            description = "record values: json (a row object in, a result object out) or binary (RowFormat rows in, " +
                "the runner's binary results out); default ${DEFAULT-VALUE}")
        String format;

        @Option(names = {"-X", "--property"}, paramLabel = "NAME=VALUE",
            description = "a Kafka client property (security settings, timeouts, linger.ms, ...)")
        Map<String, String> properties = Map.of();

        /** @return whether values are JSON (false: binary); null, with the reason on stderr, for another format */
        Boolean json(final String command)
        {
            if ("json".equals(format) || "binary".equals(format))
            {
                return "json".equals(format);
            }
            System.err.println("junction kafka " + command + ": --format is json or binary, not " + format);
            return null;
        }
    }

    /**
     * The input topics of a command line for this spec, in the engine's input order: {@code --input} for a
     * multi-way join, {@code --left} and {@code --right} for the others; null, with the reason on stderr, when
     * they do not fit the spec.
     */
    static List<String> inputTopics(final String command, final Connection connection, final JoinSpec spec)
    {
        if (spec.kind() == JoinKind.MULTI)
        {
            if (connection.leftTopic != null || connection.rightTopic != null)
            {
                System.err.println("junction kafka " + command + ": a multi-way join reads --input topics, not --left/--right");
                return null;
            }
            final int n = spec.multi().inputs();
            if (connection.inputs.size() != n)
            {
                System.err.println("junction kafka " + command + ": the spec's multi-way join has " + n + " inputs " +
                    spec.multi().names() + ": give " + n + " --input topics in that order, not " + connection.inputs.size());
                return null;
            }
            return List.copyOf(connection.inputs);
        }
        if (!connection.inputs.isEmpty())
        {
            System.err.println("junction kafka " + command + ": --input is for multi-way joins (\"join\": \"multi\"); a " +
                spec.kind().name().toLowerCase(Locale.ROOT) + " join reads --left and --right");
            return null;
        }
        if (connection.leftTopic == null || connection.rightTopic == null)
        {
            System.err.println("junction kafka " + command + ": --left and --right are required");
            return null;
        }
        return List.of(connection.leftTopic, connection.rightTopic);
    }

    /** The spec and schema of a command line; null and a message on stderr when rejected. */
    static JoinSpec spec(final Path file, final List<String> fields)
    {
        final JoinSpecJson.Parsed parsed;
        try
        {
            parsed = JoinSpecJson.read(file);
        }
        catch (final JoinSpecException e)
        {
            System.err.println("junction kafka: " + file + ": " + e.getMessage());
            return null;
        }
        catch (final IOException e)
        {
            System.err.println("junction kafka: cannot read " + file + ": " + e.getMessage());
            return null;
        }
        if (parsed.schema() != null)
        {
            if (!fields.isEmpty())
            {
                System.err.println("junction kafka: --extra-fields: the spec's \"schema\" declares the rows already");
                return null;
            }
            return parsed.spec();
        }
        final Set<String> names = new LinkedHashSet<>(parsed.fieldNames());
        names.addAll(fields);
        try
        {
            return parsed.spec(Schema.of(names.toArray(new String[0])));
        }
        catch (final IllegalArgumentException e)
        {
            System.err.println("junction kafka: " + e.getMessage());
            return null;
        }
    }

    /** {@code junction kafka join}: one member of the group; runs until SIGTERM/SIGINT or a fatal error. */
    @Command(name = "join", mixinStandardHelpOptions = true,
        description = {"Runs one member of a join's consumer group until it is stopped (SIGTERM, Ctrl-C) or fails.",
            "Start as many as you like with the same --group and --checkpoint-dir: Kafka spreads the partitions over them,",
            "and a partition moves with its state (its newest checkpoint) when a member leaves, dies or joins."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:stopped by a signal after its last checkpoints", "1:a file could not be read",
            "2:an option or the spec was rejected; nothing ran",
            "3:the runner stopped with an error: unreachable cluster, missing topic, unequal partition counts, a deleted topic, ..."})
    static final class Join implements Callable<Integer>
    {
        @picocli.CommandLine.Mixin
        Connection connection = new Connection();

        @Option(names = "--spec", required = true, paramLabel = "SPEC.join.json", description = "the join spec (SEMANTICS 1.1)")
        Path specFile;

        @Option(names = "--group", required = true, paramLabel = "ID", description = "the consumer group id every member shares")
        String group;

        @Option(names = "--output", required = true, paramLabel = "TOPIC", description = "the output topic")
        String outputTopic;

        @Option(names = "--state", required = true, paramLabel = "DIR",
            description = "this process's scratch state directory (emptied at start, never shared)")
        Path stateDir;

        @Option(names = "--checkpoint-dir", required = true, paramLabel = "DIR",
            description = "the checkpoint directory every member of the group shares")
        Path checkpointDir;

        @Option(names = "--checkpoint-ms", defaultValue = "10000", paramLabel = "MS",
            description = "checkpoint and commit each served partition this often (default ${DEFAULT-VALUE})")
        long checkpointMillis;

        @Option(names = "--watermark-delay", defaultValue = "0", paramLabel = "MS",
            description = "bounded out-of-orderness of each input partition (default ${DEFAULT-VALUE})")
        long watermarkDelay;

        @Option(names = "--idle-ms", defaultValue = "0", paramLabel = "MS",
            description = "mark an input partition idle after this long without records (default ${DEFAULT-VALUE}: never)")
        long idleMillis;

        @Option(names = "--start-timeout-ms", defaultValue = "30000", paramLabel = "MS",
            description = "how long the start waits for the cluster (default ${DEFAULT-VALUE})")
        long startTimeoutMillis;

        @Option(names = "--wait-strategy", defaultValue = "sleeping", converter = WaitStrategyConverter.class,
            description = "partition threads: blocking, sleeping, yielding or busy-spin (default ${DEFAULT-VALUE})")
        WaitStrategyKind waitStrategy;

        @Option(names = "--exactly-once",
            description = "transactional output: read it with isolation.level=read_committed; results become visible " +
                "once per checkpoint interval (--checkpoint-ms)")
        boolean exactlyOnce;

        @Option(names = "--max-keys", paramLabel = "N",
            description = "keys per partition the state is sized for (default: junction.state.maxKeys, else 1,048,576); " +
                "each checkpoint reads the whole key index, so size it to the live keys")
        Long maxKeys;

        @Option(names = "--input-keys", defaultValue = "any", paramLabel = "any|binary-row",
            description = "how the input records' keys encode the join key: any (only a null key is misrouted) or " +
                "binary-row (a binary row of the join-key values, as junction kafka produce writes; any other key is " +
                "misrouted); misrouted records are dead letters (default ${DEFAULT-VALUE})")
        String inputKeys;

        @Option(names = "--stop-with-pid", paramLabel = "PID",
            description = "stop (as on SIGTERM) when the process PID exits: scripts and tests leave no member behind")
        Long stopWithPid;

        @Override
        public Integer call() throws Exception
        {
            final JoinSpec spec = spec(specFile, connection.fields);
            if (spec == null)
            {
                return EXIT_USAGE;
            }
            if (checkpointMillis <= 0 || watermarkDelay < 0 || idleMillis < 0 || startTimeoutMillis <= 0)
            {
                System.err.println("junction kafka join: --checkpoint-ms and --start-timeout-ms must be > 0, " +
                    "--watermark-delay and --idle-ms >= 0");
                return EXIT_USAGE;
            }
            final Boolean json = connection.json("join");
            if (json == null)
            {
                return EXIT_USAGE;
            }
            final KafkaJoinConfig.InputKeys keys;
            if ("any".equals(inputKeys))
            {
                keys = KafkaJoinConfig.InputKeys.ANY;
            }
            else if ("binary-row".equals(inputKeys))
            {
                keys = KafkaJoinConfig.InputKeys.BINARY_KEY_ROW;
            }
            else
            {
                System.err.println("junction kafka join: --input-keys must be any or binary-row, not " + inputKeys);
                return EXIT_USAGE;
            }
            final List<String> topics = inputTopics("join", connection, spec);
            if (topics == null)
            {
                return EXIT_USAGE;
            }
            final KafkaJoinConfig.Builder builder = KafkaJoinConfig.builder()
                .bootstrapServers(connection.bootstrapServers).groupId(group)
                .outputTopic(outputTopic)
                .spec(spec);
            if (spec.kind() == JoinKind.MULTI)
            {
                final List<RowDecoder> decoders = new ArrayList<>();
                for (int i = 0; i < topics.size(); i++)
                {
                    decoders.add(json ? new JsonRowDecoder(spec.multi().schema(i)) : RowDecoder.binary());
                }
                builder.inputs(topics).inputDecoders(decoders);
            }
            else
            {
                builder.leftTopic(topics.get(0)).rightTopic(topics.get(1))
                    .leftDecoder(json ? new JsonRowDecoder(spec.leftSchema()) : RowDecoder.binary())
                    .rightDecoder(json ? new JsonRowDecoder(spec.rightSchema()) : RowDecoder.binary());
            }
            builder.resultEncoder(json ? new JsonResultEncoder(spec) : ResultEncoder.binary(spec))
                .watermarkDelayMillis(watermarkDelay).idleTimeoutMillis(idleMillis)
                .checkpointInterval(Duration.ofMillis(checkpointMillis))
                .startTimeout(Duration.ofMillis(startTimeoutMillis))
                .stateDir(stateDir).checkpointDir(checkpointDir)
                .exactlyOnce(exactlyOnce)
                .inputKeys(keys);
            final KafkaJoinConfig config;
            try
            {
                EngineConfig engine = EngineConfig.fromSystemProperties().withWaitStrategy(waitStrategy);
                if (maxKeys != null)
                {
                    engine = engine.withState(engine.state().withMaxKeys(maxKeys));
                }
                builder.engineConfig(engine);
                for (final Map.Entry<String, String> p : connection.properties.entrySet())
                {
                    builder.clientProperty(p.getKey(), p.getValue());
                }
                config = builder.build();
            }
            catch (final IllegalArgumentException | IllegalStateException e)
            {
                System.err.println("junction kafka join: " + e.getMessage());
                return EXIT_USAGE;
            }
            final KafkaJoinRunner runner = new KafkaJoinRunner(config);
            final CountDownLatch stopped = new CountDownLatch(1);
            final AtomicInteger status = new AtomicInteger(EXIT_FAILED);
            final Thread hook = new Thread(() ->
            {
                runner.close();
                try
                {
                    // The JVM exits when this hook returns: let the member finish its last checkpoints first.
                    if (stopped.await(60, TimeUnit.SECONDS))
                    {
                        // A SIGTERM that stopped the member cleanly is a clean stop: the run's status (0), not
                        // the 143 the JVM would report for the signal.
                        System.out.flush();
                        System.err.flush();
                        Runtime.getRuntime().halt(status.get());
                    }
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }, "junction-kafka-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            try
            {
                if (stopWithPid != null)
                {
                    final Optional<ProcessHandle> parent = ProcessHandle.of(stopWithPid);
                    if (parent.isEmpty())
                    {
                        System.err.println("junction kafka join: no process " + stopWithPid + " (--stop-with-pid)");
                        return EXIT_USAGE;
                    }
                    parent.get().onExit().thenRun(runner::close);
                }
                runner.run();
                System.err.println("junction kafka join: stopped; consumed " + runner.recordsConsumed() + ", produced " +
                    runner.outputsProduced() + ", dead letters " + runner.deadLetters() + ", checkpoints " +
                    runner.checkpoints());
                status.set(EXIT_OK);
                return EXIT_OK;
            }
            catch (final KafkaJoinException e)
            {
                System.err.println("junction kafka join: " + e.getMessage());
                return EXIT_FAILED;
            }
            finally
            {
                stopped.countDown();
                try
                {
                    Runtime.getRuntime().removeShutdownHook(hook);
                }
                catch (final IllegalStateException shuttingDown)
                {
                    // the hook is running: it waits on the latch just released
                }
            }
        }
    }

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
    static final class Produce implements Callable<Integer>
    {
        @picocli.CommandLine.Mixin
        Connection connection = new Connection();

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

    /** {@code junction kafka bench}: W1 through the group's topics, events/s and ingest-to-output latency. */
    @Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Writes W1 (binary rows keyed by join key) into the input topics at a fixed rate or at max rate, reads the " +
            "output topic of members started with the same spec (--format binary), and reports events/s and " +
            "ingest-to-output latency percentiles (after the first fifth of the events, the warm-up).",
            "--floor relays the input to the output in-process, without a join: Kafka's own round trip, measured the same way."})
    static final class Bench implements Callable<Integer>
    {
        @Option(names = "--bootstrap-servers", required = true, paramLabel = "HOST:PORT[,...]", description = "the Kafka cluster")
        String bootstrapServers;

        @Option(names = "--spec", required = true, paramLabel = "SPEC.join.json",
            description = "the members' join spec (W1's interval join: keys [key], fields ts,f1,f2,f3)")
        Path specFile;

        @Option(names = "--left", defaultValue = "w1-left", paramLabel = "TOPIC", description = "left topic (default ${DEFAULT-VALUE})")
        String leftTopic;

        @Option(names = "--right", defaultValue = "w1-right", paramLabel = "TOPIC", description = "right topic (default ${DEFAULT-VALUE})")
        String rightTopic;

        @Option(names = "--output", defaultValue = "w1-out", paramLabel = "TOPIC", description = "output topic (default ${DEFAULT-VALUE})")
        String outputTopic;

        @Option(names = "--create-topics", defaultValue = "0", paramLabel = "PARTITIONS",
            description = "create the three topics first with this many partitions (default: they exist)")
        int createPartitions;

        @Option(names = "--impressions", defaultValue = "400000", paramLabel = "N", description = "W1 impressions (default ${DEFAULT-VALUE})")
        int impressions;

        @Option(names = "--rate", defaultValue = "0", paramLabel = "EVENTS/S", description = "offered rate; 0: max (default ${DEFAULT-VALUE})")
        long rate;

        @Option(names = "--floor", description = "relay instead of join: Kafka's round trip")
        boolean floor;

        @Option(names = "--create-only", description = "create the topics (--create-topics) and exit: start the members next")
        boolean createOnly;

        @Option(names = "--stall-seconds", defaultValue = "60", paramLabel = "S",
            description = "give up when no result arrives for this long (default ${DEFAULT-VALUE})")
        long stallSeconds;

        @Override
        public Integer call() throws Exception
        {
            final JoinSpec spec = spec(specFile, List.of("ts", "f1", "f2", "f3"));
            if (spec == null)
            {
                return EXIT_USAGE;
            }
            if (!spec.leftSchema().toString().equals(EncodedRows.schema().toString()))
            {
                System.err.println("junction kafka bench: the spec's schema " + spec.leftSchema() + " is not W1's " +
                    EncodedRows.schema() + " (keys [key], no other fields)");
                return EXIT_USAGE;
            }
            if (impressions < 1 || rate < 0 || createPartitions < 0 || stallSeconds < 1)
            {
                System.err.println("junction kafka bench: --impressions and --stall-seconds must be >= 1, --rate and --create-topics >= 0");
                return EXIT_USAGE;
            }
            final KafkaBench.Options options = new KafkaBench.Options();
            options.bootstrapServers = bootstrapServers;
            options.leftTopic = leftTopic;
            options.rightTopic = rightTopic;
            options.outputTopic = outputTopic;
            options.createPartitions = createPartitions;
            options.impressions = impressions;
            options.rate = rate;
            options.floor = floor;
            options.stallTimeout = Duration.ofSeconds(stallSeconds);
            if (createOnly)
            {
                if (createPartitions < 1)
                {
                    System.err.println("junction kafka bench: --create-only needs --create-topics");
                    return EXIT_USAGE;
                }
                KafkaBench.createTopics(options);
                return EXIT_OK;
            }
            return KafkaBench.run(spec, options, System.out) == 0 ? EXIT_OK : EXIT_FAILED;
        }
    }
}
