package io.junction.tools.cli;

import static io.junction.tools.cli.KafkaCommand.EXIT_FAILED;
import static io.junction.tools.cli.KafkaCommand.EXIT_OK;
import static io.junction.tools.cli.KafkaCommand.EXIT_USAGE;

import io.junction.kafka.testing.KafkaTestBroker;
import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code junction kafka broker}: a one-node Kafka broker on loopback for trying {@code junction kafka} and for
 * tests: the test kit's {@link KafkaTestBroker} (KRaft, broker and controller in one child JVM on this class path).
 * Prints the bootstrap address on one line of standard output once the broker answers, then runs until SIGTERM or
 * Ctrl-C (or, with {@code --stop-with-pid}, until that process exits), when it stops the broker and deletes its
 * Kafka data.
 */
@Command(name = "broker", mixinStandardHelpOptions = true,
    description = {"Starts a one-node Kafka broker (KRaft) on loopback, for trying junction kafka and for tests: prints " +
        "its bootstrap address on one line, then runs until stopped (Ctrl-C, SIGTERM), which stops the broker and " +
        "deletes its data. Not for production: one node, replication factor 1, no security."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:stopped by a signal (or --stop-with-pid)", "2:an option was rejected (a port in use, ...)",
        "3:the broker did not start (its log's last lines say why)"})
final class KafkaBrokerCommand implements Callable<Integer>
{
    private static final String QUIET_WHILE_STARTING = "org.slf4j.simpleLogger.log.org.apache.kafka.clients.NetworkClient";

    @Option(names = "--port", defaultValue = "9092", paramLabel = "P",
        description = "the broker's port on 127.0.0.1 (default ${DEFAULT-VALUE}; 0: any free port)")
    int port;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "where the broker's data directory is made (default: a new temporary directory)")
    Path dir;

    @Option(names = "--stop-with-pid", paramLabel = "PID",
        description = "stop (as on SIGTERM) when the process PID exits: scripts and tests leave no broker behind")
    Long stopWithPid;

    @Override
    public Integer call() throws Exception
    {
        if (port < 0 || port > 65_535)
        {
            System.err.println("junction kafka broker: --port is in [0, 65535] (0: any free port), not " + port);
            return EXIT_USAGE;
        }
        if (port != 0 && !free(port))
        {
            System.err.println("junction kafka broker: port " + port + " on 127.0.0.1 is in use (another broker?): give " +
                "another with --port, or --port 0 for any free one");
            return EXIT_USAGE;
        }
        Optional<ProcessHandle> parent = Optional.empty();
        if (stopWithPid != null)
        {
            parent = ProcessHandle.of(stopWithPid);
            if (parent.isEmpty())
            {
                System.err.println("junction kafka broker: no process " + stopWithPid + " (--stop-with-pid)");
                return EXIT_USAGE;
            }
        }
        final Path root = dir != null ? dir : Files.createTempDirectory("junction-kafka-");
        System.err.println("junction kafka broker: starting a broker on 127.0.0.1:" + (port == 0 ? "(any free port)" : port) +
            ", data under " + root.toAbsolutePath());
        // Connection attempts to the broker while it starts are expected: not a warning each (unless the user asks).
        if (System.getProperty(QUIET_WHILE_STARTING) == null)
        {
            System.setProperty(QUIET_WHILE_STARTING, "error");
        }
        final KafkaTestBroker broker;
        try
        {
            broker = KafkaTestBroker.start(port, root);
        }
        catch (final IllegalStateException | UncheckedIOException e)
        {
            System.err.println("junction kafka broker: the broker did not start: " + JunctionCli.describe(e));
            return EXIT_FAILED;
        }
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread hook = new Thread(() ->
        {
            broker.close();
            stopped.countDown();
            System.err.println("junction kafka broker: stopped");
            System.err.flush();
            // The JVM reports a signal as 143; a broker stopped as asked has done what it should.
            Runtime.getRuntime().halt(EXIT_OK);
        }, "junction-kafka-broker-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        parent.ifPresent(p -> p.onExit().thenRun(() -> System.exit(EXIT_OK)));
        // The one line on standard output: what --bootstrap-servers takes.
        System.out.println(broker.bootstrapServers());
        System.out.flush();
        System.err.println("junction kafka broker: " + broker.bootstrapServers() + " is up (log: " +
            broker.dataDir().resolve("broker.log") + "); Ctrl-C stops it");
        stopped.await();
        return EXIT_OK;
    }

    private static boolean free(final int port)
    {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.isBound();
        }
        catch (final IOException e)
        {
            return false;
        }
    }
}
