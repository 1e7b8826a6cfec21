package io.junction.kafka;

import io.junction.kafka.testing.KafkaTestBroker;

import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.nio.file.Files;

/**
 * Group members as child JVMs running {@link RunnerMain}, for the multi-process tests: the same JVM flags the
 * test JVM got for the engine, a small heap, its output in {@code <dir>/<name>.log}. A member closes cleanly
 * when its standard input is closed, and dies at once with {@link Process#destroyForcibly()} (SIGKILL).
 */
final class Members
{
    private Members()
    {
    }

    /**
     * @param broker the test broker.
     * @param dir    the test's directory: the member's state is {@code state-<name>}, the shared checkpoints
     *               {@code checkpoints}, its log {@code <name>.log}.
     * @param name   the member's name.
     * @param prefix the topics' and group's prefix.
     * @param extra  further {@link RunnerMain} arguments (its mode).
     * @return the started member.
     */
    static Process start(final KafkaTestBroker broker, final Path dir, final String name, final String prefix,
        final String... extra) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            // The engine's JVM flags (--add-opens and the like), as the test JVM got them.
            if (arg.startsWith("--add-") || arg.startsWith("-Dchronicle"))
            {
                command.add(arg);
            }
        }
        command.add("-Xmx256m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(RunnerMain.class.getName());
        command.add(broker.bootstrapServers());
        command.add(prefix);
        command.add(dir.resolve("state-" + name).toString());
        command.add(dir.resolve("checkpoints").toString());
        command.addAll(List.of(extra));
        return new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile())
            .start();
    }

    /**
     * @param broker the test broker.
     * @param group  the consumer group.
     * @param count  the members wanted.
     * @return whether the group is stable with exactly {@code count} members, each holding some partitions.
     */
    static boolean stableWith(final KafkaTestBroker broker, final String group, final int count)
    {
        try
        {
            final ConsumerGroupDescription description = broker.admin().describeConsumerGroups(List.of(group)).all()
                .get(30, TimeUnit.SECONDS).get(group);
            if (description.groupState() != GroupState.STABLE || description.members().size() != count)
            {
                return false;
            }
            for (final MemberDescription member : description.members())
            {
                if (member.assignment().topicPartitions().isEmpty())
                {
                    return false;
                }
            }
            return true;
        }
        catch (final Exception e)
        {
            return false;
        }
    }

    /** @return the last lines of each member's log in {@code dir} ({@code NAME.log}), for a failure message. */
    static String logs(final Path dir, final String... names)
    {
        final StringBuilder out = new StringBuilder();
        for (final String name : names)
        {
            try
            {
                final List<String> lines = Files.readAllLines(dir.resolve(name + ".log"));
                out.append("\n--- ").append(name).append(".log (last lines)\n")
                    .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size())));
            }
            catch (final IOException e)
            {
                out.append("\n--- no ").append(name).append(".log");
            }
        }
        return out.toString();
    }
}
