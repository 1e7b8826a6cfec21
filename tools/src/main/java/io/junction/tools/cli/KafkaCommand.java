package io.junction.tools.cli;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.Schema;
import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import io.junction.api.RowFormat;
import java.util.Locale;

/**
 * {@code junction kafka}: Junction as a member of a Kafka consumer group ({@code join}), loading a replay
 * event log into the two input topics ({@code produce}), keyed as the runner expects, and what trying it takes: a
 * broker on loopback ({@code broker}), topics ({@code topics}) and the output read back ({@code consume}).
 * <p>
 * Each subcommand is a class of its own ({@link KafkaJoinCommand}, {@link KafkaProduceCommand},
 * {@link KafkaBenchCommand}, {@link KafkaBrokerCommand}, {@link KafkaTopicsCommand}, {@link KafkaConsumeCommand}); this one holds what they share: the exit codes, the connection options
 * ({@link Connection}), the input topics and the spec read from a command line. All run on the CLI's main thread.
 */
@Command(name = "kafka", mixinStandardHelpOptions = true,
    description = "Junction over Kafka topics: run a member of a join's consumer group, load an event log into the input " +
        "topics, and, to try it, start a broker on loopback, create topics and print the output (docs/KAFKA.md).",
    subcommands = {KafkaJoinCommand.class, KafkaProduceCommand.class, KafkaBenchCommand.class, KafkaBrokerCommand.class,
        KafkaTopicsCommand.class, KafkaConsumeCommand.class})
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
        System.err.println("junction kafka: give a subcommand: join, produce or bench, or to try them broker, " +
            "topics or consume (junction kafka --help)");
        return EXIT_USAGE;
    }

    /** Options both subcommands share. */
    static final class Connection
    {
        @Option(names = {"--bootstrap-servers", "--bootstrap"}, required = true, paramLabel = "HOST:PORT[,...]",
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
}
