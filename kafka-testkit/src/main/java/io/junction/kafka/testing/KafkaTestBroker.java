package io.junction.kafka.testing;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import java.time.Duration;

/**
 * A real Apache Kafka broker for tests: one KRaft node in combined mode (broker and controller in one
 * process) in a child JVM ({@link BrokerMain}) started from the test JVM's own {@code java} and class
 * path, on free loopback ports, with a fresh data directory under {@code target/kafka-brokers/}. Its
 * output goes to {@code broker.log} in that directory.
 *
 * <p>The settings are for fast, small tests: one partition of the offsets and transaction topics with
 * replication factor 1, no initial rebalance delay, short group session timeouts and heartbeats allowed
 * (1 s sessions for both group protocols), no automatic topic creation, no time-based retention.
 *
 * <p>{@link #start()} returns once {@code Admin.describeCluster()} answers, or throws with the tail of the
 * broker's log. {@link #close()} closes the child's standard input (on which it halts), then sends TERM,
 * then KILL, waiting between each. The child also halts when the test JVM dies, since its standard input
 * then closes: no broker outlives its test JVM. One broker per test class, not per test method.
 */
public final class KafkaTestBroker implements AutoCloseable
{
    /** How long {@link #start()} waits for the broker to answer. */
    public static final long START_TIMEOUT_MILLIS = 90_000;
    private static final long STOP_WAIT_MILLIS = 10_000;
    private static final int LOG_TAIL_LINES = 40;
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final Path dataDir;
    private final Path logFile;
    private final int brokerPort;
    private final Process process;
    private final OutputStream stdin;
    private Admin admin;
    private boolean closed;

    private KafkaTestBroker(final Path dataDir, final int brokerPort, final Process process)
    {
        this.dataDir = dataDir;
        this.logFile = dataDir.resolve("broker.log");
        this.brokerPort = brokerPort;
        this.process = process;
        this.stdin = process.getOutputStream();
    }

    /**
     * Starts a broker and waits until it answers.
     *
     * @return the running broker.
     * @throws IllegalStateException with the tail of its log when it does not answer in time or dies.
     */
    public static KafkaTestBroker start()
    {
        return start(0, Path.of(System.getProperty("junction.kafka.broker.dir", "target/kafka-brokers")));
    }

    /**
     * Starts a broker listening on a port the caller names ({@code junction kafka broker --port}), with its data
     * directory under {@code root}, and waits until it answers.
     *
     * @param port the broker's loopback port, or 0 for a free one.
     * @param root where its data directory is made (a new {@code broker-...} directory per start).
     * @return the running broker.
     * @throws IllegalArgumentException when the port is out of range.
     * @throws IllegalStateException    with the tail of its log when it does not answer in time or dies.
     */
    public static KafkaTestBroker start(final int port, final Path root)
    {
        if (port < 0 || port > 65_535)
        {
            throw new IllegalArgumentException("a port is in [0, 65535] (0: a free one), not " + port);
        }
        final Path dataDir = root.toAbsolutePath().resolve("broker-" + ProcessHandle.current().pid() + "-" +
            System.currentTimeMillis() + "-" + COUNTER.incrementAndGet());
        try
        {
            Files.createDirectories(dataDir);
            final int[] ports = freePorts(2);
            if (port != 0)
            {
                // The broker's port is the caller's, so that its address is known; the controller keeps a drawn one.
                ports[1] = ports[1] == port ? ports[0] : ports[1];
                ports[0] = port;
            }
            final Path properties = dataDir.resolve("server.properties");
            writeProperties(properties, dataDir.resolve("logs"), ports[0], ports[1]);
            final List<String> command = new ArrayList<>();
            command.add(javaExecutable());
            command.add("-Xms128m");
            command.add("-Xmx512m");
            command.add("-XX:+UseSerialGC");
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-Djava.awt.headless=true");
            command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
            command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(BrokerMain.class.getName());
            command.add(properties.toString());
            command.add(Uuid.randomUuid().toString());
            final ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dataDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dataDir.resolve("broker.log").toFile()));
            final KafkaTestBroker broker = new KafkaTestBroker(dataDir, ports[0], builder.start());
            try
            {
                broker.awaitReady();
            }
            catch (final RuntimeException | Error e)
            {
                broker.close();
                throw e;
            }
            return broker;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("could not start a Kafka broker in " + dataDir, e);
        }
    }

    private static String javaExecutable()
    {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Ports that were free a moment ago (a race with other processes is possible but unlikely on loopback). */
    private static int[] freePorts(final int count) throws IOException
    {
        final ServerSocket[] sockets = new ServerSocket[count];
        final int[] ports = new int[count];
        try
        {
            for (int i = 0; i < count; i++)
            {
                sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = sockets[i].getLocalPort();
            }
        }
        finally
        {
            for (final ServerSocket socket : sockets)
            {
                if (socket != null)
                {
                    socket.close();
                }
            }
        }
        return ports;
    }

    private static void writeProperties(final Path file, final Path logDirs, final int brokerPort, final int controllerPort)
        throws IOException
    {
        final Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", "1");
        p.setProperty("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", logDirs.toString());
        p.setProperty("num.partitions", "1");
        p.setProperty("default.replication.factor", "1");
        p.setProperty("min.insync.replicas", "1");
        p.setProperty("auto.create.topics.enable", "false");
        p.setProperty("delete.topic.enable", "true");
        p.setProperty("offsets.topic.num.partitions", "1");
        p.setProperty("offsets.topic.replication.factor", "1");
        p.setProperty("transaction.state.log.num.partitions", "1");
        p.setProperty("transaction.state.log.replication.factor", "1");
        p.setProperty("transaction.state.log.min.isr", "1");
        // A killed transactional member's open transaction is aborted soon after its timeout, not up to 10 s later.
        p.setProperty("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        p.setProperty("share.coordinator.state.topic.num.partitions", "1");
        p.setProperty("share.coordinator.state.topic.replication.factor", "1");
        p.setProperty("share.coordinator.state.topic.min.isr", "1");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        // Short sessions allowed, so that a test can let a member's session lapse in about a second.
        p.setProperty("group.min.session.timeout.ms", "500");
        p.setProperty("group.consumer.min.session.timeout.ms", "1000");
        p.setProperty("group.consumer.session.timeout.ms", "6000");
        p.setProperty("group.consumer.min.heartbeat.interval.ms", "100");
        p.setProperty("group.consumer.heartbeat.interval.ms", "500");
        // Small and few: the machine running the tests is small.
        p.setProperty("num.network.threads", "2");
        p.setProperty("num.io.threads", "2");
        p.setProperty("background.threads", "2");
        p.setProperty("num.recovery.threads.per.data.dir", "1");
        p.setProperty("log.cleaner.threads", "1");
        p.setProperty("log.cleaner.dedupe.buffer.size", "4194304");
        p.setProperty("log.segment.bytes", "16777216");
        // No time-based retention: test records carry event times near the epoch (ts = 0, 1, ...), which a
        // retention check (the first runs 30 s after start) would find 56 years old and delete.
        p.setProperty("log.retention.ms", "-1");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            p.store(out, "KafkaTestBroker");
        }
    }

    private void awaitReady()
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
        final Properties props = new Properties();
        props.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.setProperty(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.setProperty(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        props.setProperty(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        props.setProperty(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
        props.setProperty(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        admin = Admin.create(props);
        Exception last = null;
        while (System.nanoTime() < deadline)
        {
            if (!process.isAlive())
            {
                throw new IllegalStateException("the Kafka broker exited with " + process.exitValue() + " before it answered; " +
                    logTail());
            }
            try
            {
                if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty())
                {
                    return;
                }
            }
            catch (final ExecutionException | TimeoutException e)
            {
                last = e;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the Kafka broker", e);
            }
        }
        throw new IllegalStateException("the Kafka broker did not answer describeCluster within " + START_TIMEOUT_MILLIS +
            " ms (last error: " + last + "); " + logTail());
    }

    /** @return {@code host:port} of the broker's listener, for {@code bootstrap.servers}. */
    public String bootstrapServers()
    {
        return "127.0.0.1:" + brokerPort;
    }

    /** @return the broker's data directory (its log file, {@code broker.log}, is in it). */
    public Path dataDir()
    {
        return dataDir;
    }

    /** @return the child process, for tests that check it is gone. */
    public ProcessHandle process()
    {
        return process.toHandle();
    }

    /**
     * @return the child's exit status: 0 when it halted on its standard input closing, as {@link #close()}
     *         first asks.
     * @throws IllegalStateException while it runs.
     */
    public int exitValue()
    {
        return process.exitValue();
    }

    /** @return an admin client on this broker, owned by the broker (closed by {@link #close()}). */
    public Admin admin()
    {
        return admin;
    }

    /**
     * Creates a topic with replication factor 1 and waits until it is created.
     *
     * @param name       the topic.
     * @param partitions its partition count.
     */
    public void createTopic(final String name, final int partitions)
    {
        try
        {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short)1))).all().get(30, TimeUnit.SECONDS);
            // Metadata reaches the broker's cache asynchronously: wait until it describes every partition.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline)
            {
                try
                {
                    final int described = admin.describeTopics(Set.of(name)).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get(name).partitions().size();
                    if (described == partitions)
                    {
                        return;
                    }
                }
                catch (final ExecutionException e)
                {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException))
                    {
                        throw e;
                    }
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            throw new IllegalStateException("topic " + name + " not described with " + partitions + " partitions in time");
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new IllegalStateException("could not create topic " + name + "; " + logTail(), e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        }
    }

    /**
     * Deletes a topic and waits until the deletion is accepted.
     *
     * @param name the topic.
     */
    public void deleteTopic(final String name)
    {
        try
        {
            admin.deleteTopics(List.of(name)).all().get(30, TimeUnit.SECONDS);
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new IllegalStateException("could not delete topic " + name + "; " + logTail(), e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while deleting topic " + name, e);
        }
    }

    /** @return the last lines of the broker's log, for error messages. */
    public String logTail()
    {
        try
        {
            if (!Files.exists(logFile))
            {
                return "no broker log at " + logFile;
            }
            final List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            final int from = Math.max(0, lines.size() - LOG_TAIL_LINES);
            return "last lines of " + logFile + ":\n" + String.join("\n", lines.subList(from, lines.size()));
        }
        catch (final IOException | UncheckedIOException e)
        {
            return "could not read " + logFile + ": " + e;
        }
    }

    /**
     * Stops the broker: closes its standard input (it halts on that), then TERM, then KILL, waiting up to
     * {@value #STOP_WAIT_MILLIS} ms after each; then deletes its Kafka data (the log file stays). Idempotent.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (admin != null)
        {
            admin.close(Duration.ofSeconds(2));
        }
        try
        {
            stdin.close();
        }
        catch (final IOException e)
        {
            // The child is gone already: the waits below return at once.
        }
        if (!waitFor(STOP_WAIT_MILLIS))
        {
            process.destroy();
            if (!waitFor(STOP_WAIT_MILLIS))
            {
                process.destroyForcibly();
                if (!waitFor(STOP_WAIT_MILLIS))
                {
                    throw new IllegalStateException("the Kafka broker " + process.pid() + " survived KILL");
                }
            }
        }
        deleteRecursively(dataDir.resolve("logs"));
    }

    private boolean waitFor(final long millis)
    {
        try
        {
            return process.waitFor(millis, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private static void deleteRecursively(final Path dir)
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path path : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.deleteIfExists(path);
            }
        }
        catch (final IOException | UncheckedIOException e)
        {
            // Leftover test data under target/ is harmless.
        }
    }

    @Override
    public String toString()
    {
        return "KafkaTestBroker[" + bootstrapServers() + ", pid " + process.pid() + ", " + dataDir + "]";
    }
}
