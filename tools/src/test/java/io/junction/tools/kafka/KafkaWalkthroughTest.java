package io.junction.tools.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/KAFKA.md's "Kafka in five minutes", run as written against a real broker: its commands are read out of that
 * section (so the walk-through cannot rot), with only the broker's port, the {@code /tmp/junction-kafka} directory
 * and the repository's relative paths put in for this run. The broker and the join member run in child JVMs, as
 * in the two terminals the section asks for; the topics, produce and consume commands run in this JVM. The broker
 * prints the address the section shows, every command exits 0, and consume prints the section's output lines.
 */
final class KafkaWalkthroughTest
{
    private static final Path ROOT = Path.of("..");
    private static final String HEADING = "## Kafka in five minutes";
    private static final String PROMPT = "$ tools/bin/junction ";
    private static final String DOC_PORT = "9092";
    private static final String DOC_DIR = "/tmp/junction-kafka";

    @TempDir
    Path dir;

    /** One command of the section with the lines shown under it. */
    private record Step(List<String> args, List<String> output)
    {
        String subcommand()
        {
            return args.get(1);
        }
    }

    /** @return the section's commands, continuation lines joined, each with the output lines the section shows. */
    static List<Step> steps(final List<String> doc)
    {
        final int start = doc.indexOf(HEADING);
        assertTrue(start >= 0, "docs/KAFKA.md has the section " + HEADING);
        final List<Step> steps = new ArrayList<>();
        boolean inBlock = false;
        for (int i = start + 1; i < doc.size() && !doc.get(i).startsWith("## "); i++)
        {
            final String line = doc.get(i);
            if (line.startsWith("```"))
            {
                inBlock = !inBlock;
                continue;
            }
            if (!inBlock)
            {
                continue;
            }
            if (line.startsWith(PROMPT))
            {
                final StringBuilder command = new StringBuilder(line.substring(PROMPT.length()));
                while (command.toString().endsWith("\\"))
                {
                    command.setLength(command.length() - 1);
                    command.append(' ').append(doc.get(++i).trim());
                }
                steps.add(new Step(List.of(command.toString().trim().split("\\s+")), new ArrayList<>()));
            }
            else if (!steps.isEmpty() && !line.isBlank())
            {
                steps.get(steps.size() - 1).output().add(line);
            }
        }
        return steps;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    /** The section's argument for this run: this broker's port, this test's directory, the repository's files. */
    private String localise(final String arg, final int port)
    {
        String local = arg.replace("127.0.0.1:" + DOC_PORT, "127.0.0.1:" + port).replace(DOC_DIR, dir.toString());
        if (local.equals(DOC_PORT))
        {
            local = Integer.toString(port);
        }
        if (local.startsWith("examples/"))
        {
            local = ROOT.resolve(local).toString();
        }
        return local;
    }

    private List<String> localise(final List<String> args, final int port)
    {
        final List<String> local = new ArrayList<>();
        for (final String arg : args)
        {
            local.add(localise(arg, port));
        }
        return local;
    }

    /** A command of the section in a child JVM on this class path, stopping when this JVM ends. */
    private static Process child(final List<String> args, final Path log) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(JunctionCli.class.getName());
        command.addAll(args);
        command.add("--stop-with-pid=" + ProcessHandle.current().pid());
        final ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return builder.start();
    }

    private static void stop(final Process process) throws InterruptedException
    {
        if (process != null && process.isAlive())
        {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Runs a command in this JVM; returns its exit code and what it printed on stdout (stderr into {@code err}). */
    private static int run(final List<String> args, final ByteArrayOutputStream out, final ByteArrayOutputStream err)
    {
        final PrintStream savedOut = System.out;
        final PrintStream savedErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try
        {
            return JunctionCli.commandLine().execute(args.toArray(new String[0]));
        }
        finally
        {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
    }

    private static String tail(final Path log) throws IOException
    {
        return Files.exists(log) ? Files.readString(log) : "(no log)";
    }

    @Test
    void theSectionsCommandsRunAJoinOnARealBrokerAndPrintTheOutputItShows() throws Exception
    {
        final List<Step> steps = steps(Files.readAllLines(ROOT.resolve("docs/KAFKA.md"), StandardCharsets.UTF_8));
        final List<String> order = new ArrayList<>();
        for (final Step step : steps)
        {
            assertEquals("kafka", step.args().get(0), "every command of the section is a junction kafka command: " + step);
            order.add(step.subcommand());
        }
        assertEquals(List.of("broker", "topics", "produce", "join", "consume"), order, "the section's steps");
        final int port = freePort();
        final Path brokerLog = dir.resolve("broker.log");
        final Path memberLog = dir.resolve("member.log");
        Process broker = null;
        Process member = null;
        try
        {
            broker = child(localise(steps.get(0).args(), port), brokerLog);
            final BufferedReader brokerOut = new BufferedReader(new InputStreamReader(broker.getInputStream(),
                StandardCharsets.UTF_8));
            // The bound guards against a hang only: a broker that cannot start fails its own start with its log.
            final String address = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return brokerOut.readLine();
                }
                catch (final IOException e)
                {
                    return "could not read the broker's output: " + e;
                }
            }).get(150, TimeUnit.SECONDS);
            assertEquals(localise(steps.get(0).output(), port), List.of(String.valueOf(address)),
                "junction kafka broker prints the address the section shows:\n" + tail(brokerLog));

            for (final Step step : steps.subList(1, 3))
            {
                final ByteArrayOutputStream out = new ByteArrayOutputStream();
                final ByteArrayOutputStream err = new ByteArrayOutputStream();
                assertEquals(0, run(localise(step.args(), port), out, err), step + ":\n" + err.toString(StandardCharsets.UTF_8));
            }

            member = child(localise(steps.get(3).args(), port), memberLog);

            final Step consume = steps.get(4);
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int consumed = run(localise(consume.args(), port), out, err);
            assertEquals(0, consumed, consume + ":\n" + err.toString(StandardCharsets.UTF_8) + "\nthe member's log:\n" +
                tail(memberLog));
            final List<String> printed = new ArrayList<>(out.toString(StandardCharsets.UTF_8).lines().toList());
            final List<String> shown = new ArrayList<>(consume.output());
            // The member reads both inputs at once: the section says the lines may come in another order.
            printed.sort(null);
            shown.sort(null);
            assertEquals(shown, printed, "junction kafka consume prints the section's output lines");
        }
        finally
        {
            stop(member);
            stop(broker);
        }
        assertEquals(0, member.exitValue(), "the member stops cleanly on SIGTERM:\n" + tail(memberLog));
        assertEquals(0, broker.exitValue(), "the broker stops cleanly on SIGTERM:\n" + tail(brokerLog));
    }

    @Test
    void readsTheStepsOutOfTheSection()
    {
        final List<Step> steps = steps(List.of("# K", HEADING, "text", "```", PROMPT + "kafka broker --port 9092",
            "127.0.0.1:9092", "```", "```", PROMPT + "kafka join --a b \\", "    --c d", "```", "## next", "```",
            PROMPT + "kafka consume", "```"));
        assertEquals(2, steps.size());
        assertEquals(List.of("kafka", "broker", "--port", "9092"), steps.get(0).args());
        assertEquals(List.of("127.0.0.1:9092"), steps.get(0).output());
        assertEquals(List.of("kafka", "join", "--a", "b", "--c", "d"), steps.get(1).args());
    }
}
