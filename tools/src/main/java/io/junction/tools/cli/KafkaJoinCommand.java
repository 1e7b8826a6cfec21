package io.junction.tools.cli;

import static io.junction.tools.cli.KafkaCommand.EXIT_FAILED;
import static io.junction.tools.cli.KafkaCommand.EXIT_OK;
import static io.junction.tools.cli.KafkaCommand.EXIT_USAGE;
import static io.junction.tools.cli.KafkaCommand.inputTopics;
import static io.junction.tools.cli.KafkaCommand.spec;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.kafka.KafkaJoinConfig;
import io.junction.kafka.KafkaJoinException;
import io.junction.kafka.KafkaJoinRunner;
import io.junction.kafka.ResultEncoder;
import io.junction.kafka.RowDecoder;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.kafka.JsonResultEncoder;
import io.junction.kafka.JsonRowDecoder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code junction kafka join}: one member of the group; runs until SIGTERM/SIGINT or a fatal error. */
@Command(name = "join", mixinStandardHelpOptions = true,
    description = {"Runs one member of a join's consumer group until it is stopped (SIGTERM, Ctrl-C) or fails.",
        "Start as many as you like with the same --group and --checkpoint-dir: Kafka spreads the partitions over them,",
        "and a partition moves with its state (its newest checkpoint) when a member leaves, dies or joins."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:stopped by a signal after its last checkpoints", "1:a file could not be read",
        "2:an option or the spec was rejected; nothing ran",
        "3:the runner stopped with an error: unreachable cluster, missing topic, unequal partition counts, a deleted topic, ..."})
final class KafkaJoinCommand implements Callable<Integer>
{
    @picocli.CommandLine.Mixin
    KafkaCommand.Connection connection = new KafkaCommand.Connection();

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
