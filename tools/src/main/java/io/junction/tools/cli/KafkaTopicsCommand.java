package io.junction.tools.cli;

import static io.junction.tools.cli.KafkaCommand.EXIT_FAILED;
import static io.junction.tools.cli.KafkaCommand.EXIT_OK;
import static io.junction.tools.cli.KafkaCommand.EXIT_USAGE;

import io.junction.tools.JunctionCli;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code junction kafka topics}: creates the topics a join needs ({@code --create}, replication factor 1 by default,
 * {@code --compact} for an upsert output) and waits until the cluster describes each with its partitions, so that a
 * produce or a join started right after finds them; or lists the cluster's topics ({@code --list}).
 */
@Command(name = "topics", mixinStandardHelpOptions = true,
    description = {"Creates topics (--create NAME[,NAME...] --partitions N [--compact]) and waits until the cluster " +
        "describes them, or lists the cluster's topics with their partition counts (--list).",
        "A topic that exists already is left as it is (a note says so) when its partition count is the one asked for."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:every topic exists as asked (or the list was printed)", "2:an option was rejected, or a topic " +
        "exists with another partition count", "3:the cluster refused or did not answer within --timeout"})
final class KafkaTopicsCommand implements Callable<Integer>
{
    @Option(names = {"--bootstrap-servers", "--bootstrap"}, required = true, paramLabel = "HOST:PORT[,...]",
        description = "the Kafka cluster")
    String bootstrapServers;

    /** One of the two actions. */
    static final class Action
    {
        @Option(names = "--create", split = ",", paramLabel = "NAME", required = true,
            description = "create these topics (repeat, or comma-separated)")
        List<String> create;

        @Option(names = "--list", required = true, description = "print every topic and its partition count, one a line")
        boolean list;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Action action;

    @Option(names = "--partitions", defaultValue = "1", paramLabel = "N",
        description = "partitions of each created topic (default ${DEFAULT-VALUE}); a join's inputs and output must " +
            "have equal counts")
    int partitions;

    @Option(names = "--replication-factor", defaultValue = "1", paramLabel = "R",
        description = "replicas of each created topic (default ${DEFAULT-VALUE}, as junction kafka broker has one node)")
    short replicationFactor;

    @Option(names = "--compact",
        description = "cleanup.policy=compact: for an upsert join's output, which then reads as the joined table")
    boolean compact;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "S",
        description = "give up, naming the cluster, when it does not answer within this many seconds (default ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Option(names = {"-X", "--property"}, paramLabel = "NAME=VALUE",
        description = "an admin client property (security settings, ...)")
    Map<String, String> properties = Map.of();

    @Override
    public Integer call()
    {
        if (timeoutSeconds < 1 || partitions < 1 || replicationFactor < 1)
        {
            System.err.println("junction kafka topics: --timeout, --partitions and --replication-factor must be >= 1");
            return EXIT_USAGE;
        }
        final long timeoutMillis = TimeUnit.SECONDS.toMillis(timeoutSeconds);
        final Properties props = new Properties();
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Long.toString(timeoutMillis));
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.min(timeoutMillis, 30_000L)));
        props.putAll(properties);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(props))
        {
            return action.list ? list(admin) : create(admin, timeoutMillis);
        }
        catch (final ExecutionException e)
        {
            return failed(e.getCause());
        }
        catch (final TimeoutException e)
        {
            return failed(e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            System.err.println("junction kafka topics: interrupted");
            return EXIT_FAILED;
        }
    }

    private int failed(final Throwable cause)
    {
        if (cause instanceof TimeoutException)
        {
            System.err.println("junction kafka topics: no answer from the Kafka cluster at " + bootstrapServers + " within " +
                timeoutSeconds + " s (--timeout): is it running and reachable?");
        }
        else
        {
            System.err.println("junction kafka topics: " + bootstrapServers + ": " + JunctionCli.describe(cause));
        }
        return EXIT_FAILED;
    }

    private int list(final Admin admin) throws ExecutionException, InterruptedException
    {
        final Set<String> names = admin.listTopics().names().get();
        final Map<String, TopicDescription> described = new TreeMap<>(admin.describeTopics(names).allTopicNames().get());
        for (final TopicDescription topic : described.values())
        {
            System.out.println(topic.name() + " " + topic.partitions().size());
        }
        return EXIT_OK;
    }

    private int create(final Admin admin, final long timeoutMillis) throws ExecutionException, InterruptedException
    {
        final List<NewTopic> topics = new ArrayList<>();
        for (final String name : action.create)
        {
            if (name.isBlank())
            {
                System.err.println("junction kafka topics: --create: an empty topic name");
                return EXIT_USAGE;
            }
            final NewTopic topic = new NewTopic(name, partitions, replicationFactor);
            if (compact)
            {
                topic.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            }
            topics.add(topic);
        }
        final var created = admin.createTopics(topics).values();
        for (final String name : action.create)
        {
            try
            {
                created.get(name).get();
                System.err.println("junction kafka topics: created " + name + " (" + partitions + " partitions" +
                    (compact ? ", compacted" : "") + ")");
            }
            catch (final ExecutionException e)
            {
                if (!(e.getCause() instanceof TopicExistsException))
                {
                    throw e;
                }
                final int existing = admin.describeTopics(Set.of(name)).allTopicNames().get().get(name).partitions().size();
                if (existing != partitions)
                {
                    System.err.println("junction kafka topics: topic " + name + " exists with " + existing +
                        " partitions, not " + partitions + ": delete it or use it as it is");
                    return EXIT_USAGE;
                }
                System.err.println("junction kafka topics: topic " + name + " exists already, with " + existing +
                    " partitions: used as it is");
            }
        }
        return awaitDescribed(admin, timeoutMillis);
    }

    /** Metadata reaches the brokers asynchronously: a join started at once must find every partition. */
    private int awaitDescribed(final Admin admin, final long timeoutMillis) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true)
        {
            try
            {
                final Map<String, TopicDescription> described = admin.describeTopics(action.create).allTopicNames().get();
                boolean complete = true;
                for (final TopicDescription topic : described.values())
                {
                    for (final var partition : topic.partitions())
                    {
                        complete &= partition.leader() != null && !partition.leader().isEmpty();
                    }
                }
                if (complete)
                {
                    return EXIT_OK;
                }
            }
            catch (final ExecutionException e)
            {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException))
                {
                    return failed(e.getCause());
                }
            }
            if (System.nanoTime() > deadline)
            {
                System.err.println("junction kafka topics: " + action.create + " not described with their leaders by " +
                    bootstrapServers + " within " + timeoutSeconds + " s (--timeout)");
                return EXIT_FAILED;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
