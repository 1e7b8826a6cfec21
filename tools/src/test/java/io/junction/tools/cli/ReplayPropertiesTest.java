package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.join.FullPolicy;
import io.junction.runtime.EngineConfig;
import io.junction.tools.replay.Replay;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.nio.file.Paths;
import io.junction.tools.JunctionCli;
import picocli.CommandLine;

/**
 * {@code junction replay} honours {@code -Djunction.*} options given in {@code JAVA_OPTS}:
 * set properties replace the replay's defaults; unset ones leave them.
 */
class ReplayPropertiesTest
{
    private static final String[] SET = {EngineConfig.CLOSE_TIMEOUT_PROP_NAME, EngineConfig.RING_SIZE_PROP_NAME,
        "junction.state.fullPolicy", "junction.state.maxBytes"};

    @AfterEach
    void clear()
    {
        for (final String name : SET)
        {
            System.clearProperty(name);
        }
    }

    @Test
    void setPropertiesReplaceTheReplayDefaults()
    {
        final EngineConfig defaults = ReplayCommand.withSystemProperties(Replay.config(1), 100);
        assertEquals(Replay.config(1).ringSize(), defaults.ringSize(), "nothing set: the replay's own ring size");
        System.setProperty(EngineConfig.CLOSE_TIMEOUT_PROP_NAME, "1234");
        System.setProperty(EngineConfig.RING_SIZE_PROP_NAME, "512");
        System.setProperty("junction.state.fullPolicy", "expire-oldest");
        final EngineConfig config = ReplayCommand.withSystemProperties(Replay.config(1), 100);
        assertEquals(1234, config.closeTimeoutMillis());
        assertEquals(512, config.ringSize());
        assertEquals(FullPolicy.EXPIRE_OLDEST, config.state().fullPolicy());
        assertEquals(100, config.state().maxKeys(), "the option's key capacity");
    }

    @Test
    void aBadValueIsRefusedNamingTheProperty()
    {
        System.setProperty(EngineConfig.CLOSE_TIMEOUT_PROP_NAME, "soon");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ReplayCommand.withSystemProperties(Replay.config(1), 100));
        assertTrue(e.getMessage().contains("junction.closeTimeoutMs"), e.getMessage());
    }

    @Test
    void ringsThatCannotFitTheJvmAreRefusedAtStartWithExit2()
    {
        // 64 x 8192 x 65535 bytes is 32 GiB of direct memory: far above any test JVM's limit.
        System.setProperty(EngineConfig.RING_SIZE_PROP_NAME, "8192");
        final Path cases = Paths.get(System.getProperty("junction.cases.dir", Paths.get("..", "conformance", "cases").toString()));
        final StringWriter err = new StringWriter();
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        final int exit = cli.execute("replay", cases.resolve("regular_condition.join.json").toString(),
            cases.resolve("regular_condition.events.jsonl").toString(), "--partitions", "64", "--slot-capacity", "65535",
            "--max-keys", "16");
        assertEquals(2, exit, err.toString());
        assertTrue(err.toString().contains("bytes of direct memory"), err.toString());
    }

    @Test
    void aStateCapBeyondPhysicalMemoryIsRefusedAtStartWithExit2()
    {
        // 64 partitions x 2^50 bytes: more than any machine has, so the engine refuses to start.
        System.setProperty("junction.state.maxBytes", Long.toString(1L << 50));
        final Path cases = Paths.get(System.getProperty("junction.cases.dir", Paths.get("..", "conformance", "cases").toString()));
        final StringWriter err = new StringWriter();
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        final int exit = cli.execute("replay", cases.resolve("regular_condition.join.json").toString(),
            cases.resolve("regular_condition.events.jsonl").toString(), "--partitions", "64", "--max-keys", "16");
        assertEquals(2, exit, err.toString());
        assertTrue(err.toString().contains("junction.state.maxBytes"), err.toString());
        assertTrue(!err.toString().contains("\tat "), "one line, no stack trace: " + err);
    }
}
