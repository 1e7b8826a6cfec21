package io.junction.kafka;

import io.junction.kafka.testing.KafkaTestBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The Kafka runner's JVM flags (docs/CONFIGURATION.md, "JVM flags": durable state's, {@code kafka-clients} needs
 * none) and its class path's {@code slf4j-api}: a child JVM on this module's test class path, where kafka-clients'
 * {@code slf4j-api} 1.7 wins by Maven's nearest-wins rule as in an application that declares kafka-clients, runs
 * the README's Kafka join against a real broker with exactly the documented flags; with one flag fewer the
 * runner fails with one line naming it, no {@code IllegalAccessError} trace. A durable engine with the Chronicle
 * Map index starts, checkpoints and restores on the same class path: Chronicle calls only the SLF4J 1.7 API.
 */
final class KafkaJvmFlagsTest
{
    private static KafkaTestBroker broker;

    @BeforeAll
    static void startBroker()
    {
        broker = KafkaTestBroker.start();
        broker.createTopic("shows", 1);
        broker.createTopic("clicks", 1);
        broker.createTopic("shows-clicks", 1);
    }

    @AfterAll
    static void stopBroker()
    {
        if (broker != null)
        {
            broker.close();
        }
    }

    private static List<String> flags(final String path)
    {
        final String flags = System.getProperty("junction.jvm.flags." + path);
        assertNotNull(flags, "junction.jvm.flags." + path + " is set by the parent pom's Surefire configuration");
        return List.of(flags.trim().split("\\s+"));
    }

    /** @return exit status and output of the probe in a JVM with only these flags, within 120 s. */
    private static String[] probe(final List<String> flags, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KafkaJvmFlagsProbe.class.getName());
        command.addAll(List.of(args));
        final Path log = Files.createTempFile("junction-kafka-probe", ".log");
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!process.waitFor(120, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                fail("the probe did not end within 120 s:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new String[] {Integer.toString(process.exitValue()), Files.readString(log, StandardCharsets.UTF_8)};
        }
        finally
        {
            Files.deleteIfExists(log);
        }
    }

    @Test
    void theClassPathHasKafkaClientsSlf4j17AsAnApplicationWould()
    {
        final List<String> slf4j = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            if (Path.of(entry).getFileName().toString().startsWith("slf4j-api-"))
            {
                slf4j.add(Path.of(entry).getFileName().toString());
            }
        }
        assertEquals(1, slf4j.size(), slf4j.toString());
        assertTrue(slf4j.get(0).startsWith("slf4j-api-1.7."), "kafka-clients' slf4j-api wins: " + slf4j);
    }

    @Test
    void aDurableChronicleEngineRunsWithSlf4j17(@TempDir final Path dir) throws Exception
    {
        final String[] exit = probe(flags("all"), "engine", dir.resolve("root").toString());
        assertEquals("0", exit[0], exit[1]);
        assertTrue(exit[1].contains("OK results "), exit[1]);
        assertFalse(exit[1].contains("Error"), exit[1]);
    }

    @Test
    void theKafkaJoinRunsWithExactlyTheDurableFlagsAndNamesAMissingOne(@TempDir final Path dir) throws Exception
    {
        final List<String> flags = flags("durable");
        final String[] exact = probe(flags, "kafka", broker.bootstrapServers(), dir.resolve("exact").toString());
        assertEquals("0", exact[0], exact[1]);
        assertTrue(exact[1].contains("OK [+I {log_id=42"), exact[1]);
        for (int i = 0; i < flags.size(); i++)
        {
            final List<String> fewer = new ArrayList<>(flags);
            final String dropped = fewer.remove(i);
            final String[] exit = probe(fewer, "runner", broker.bootstrapServers(), dir.resolve("fewer" + i).toString());
            assertEquals(Integer.toString(KafkaJvmFlagsProbe.FAILED), exit[0], "without " + dropped + ":\n" + exit[1]);
            final String failed = exit[1].lines().filter(l -> l.startsWith("FAILED ")).findFirst().orElse("");
            assertTrue(failed.contains("junction: the JVM was started without " + dropped + ","), "one line naming " + dropped + ":\n" + exit[1]);
            assertFalse(exit[1].contains("IllegalAccessError") || exit[1].contains("\tat "), "no trace:\n" + exit[1]);
        }
    }
}
