package io.junction.tools.cli;

import static io.junction.tools.cli.KafkaCommand.EXIT_FAILED;
import static io.junction.tools.cli.KafkaCommand.EXIT_OK;
import static io.junction.tools.cli.KafkaCommand.EXIT_USAGE;
import static io.junction.tools.cli.KafkaCommand.spec;

import io.junction.api.JoinSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import io.junction.tools.perf.KafkaBench;
import io.junction.tools.workload.EncodedRows;

/** {@code junction kafka bench}: W1 through the group's topics, events/s and ingest-to-output latency. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Writes W1 (binary rows keyed by join key) into the input topics at a fixed rate or at max rate, reads the " +
        "output topic of members started with the same spec (--format binary), and reports events/s and " +
        "ingest-to-output latency percentiles (after the first fifth of the events, the warm-up).",
        "--floor relays the input to the output in-process, without a join: Kafka's own round trip, measured the same way."})
final class KafkaBenchCommand implements Callable<Integer>
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
