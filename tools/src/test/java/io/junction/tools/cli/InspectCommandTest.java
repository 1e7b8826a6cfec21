package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.internal.durable.DirectoryLock;
import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code junction inspect} on the state root a durable replay left: the key's rows as the engine restores them, the
 * root unchanged to the byte, and clear refusals (a held root, no root, a bad key).
 */
final class InspectCommandTest
{
    private static final String SPEC = "{\"join\": \"regular\", \"type\": \"left\", \"leftKey\": [\"log_id\"], \"rightKey\": [\"log_id\"]}";
    private static final String EVENTS = String.join("\n",
        "{\"side\": \"left\", \"ts\": 1, \"row\": {\"log_id\": \"1\", \"show\": \"s1\"}}",
        "{\"side\": \"right\", \"ts\": 2, \"row\": {\"log_id\": \"1\", \"click\": \"c1\"}}",
        "{\"side\": \"left\", \"ts\": 3, \"row\": {\"log_id\": \"2\", \"show\": \"s2\"}}",
        "{\"side\": \"right\", \"ts\": 4, \"row\": {\"log_id\": 1, \"click\": \"a number\"}}", "");

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private Path replayed() throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("shows.join.json"), SPEC);
        final Path events = Files.writeString(tmp.resolve("shows.events.jsonl"), EVENTS);
        final Path state = tmp.resolve("state");
        assertEquals(0, run("replay", spec.toString(), events.toString(), "--partitions", "2", "--state", state.toString(),
            "--out", tmp.resolve("out.jsonl").toString()), err.toString());
        return state;
    }

    /** @return every file under the directory with its bytes' digest. */
    private static Map<String, String> digests(final Path dir) throws Exception
    {
        final Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path path : (Iterable<Path>) walk::iterator)
            {
                if (Files.isRegularFile(path))
                {
                    files.put(dir.relativize(path).toString(),
                        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(path))));
                }
            }
        }
        return files;
    }

    @Test
    void listsTheKeysRowsAsTheEngineRestoresThemWithoutChangingAByte() throws Exception
    {
        final Path state = replayed();
        final String spec = tmp.resolve("shows.join.json").toString();
        final String events = tmp.resolve("shows.events.jsonl").toString();
        final Map<String, String> before = digests(state);
        assertEquals(JunctionCli.EXIT_STATE, run("inspect", spec, state.toString(), "--partitions", "2", "--side", "left",
            "--key", "{\"log_id\": \"1\"}"));
        assertTrue(err.toString().contains("--events"), "the learnt fields are part of the state's identity: " + err);
        assertEquals(0, run("inspect", spec, state.toString(), "--events", events, "--partitions", "2", "--side", "left",
            "--key", "{\"log_id\": \"1\"}"), err.toString());
        final String answer = out.toString().strip();
        assertTrue(answer.startsWith("{\"left\":[{\"partition\":") && answer.contains("\"row\":{\"log_id\":\"1\",\"show\":\"s1\"}") &&
            answer.contains("\"row\":{\"log_id\":\"1\",\"click\":\"c1\"}") && !answer.contains("a number"), answer);
        assertEquals(0, run("inspect", spec, state.toString(), "--events", events, "--partitions", "2", "--side", "right",
            "--key", "{\"log_id\": 1}"));
        assertTrue(out.toString().contains("a number") && out.toString().contains("\"left\":[]"), "1 is another key than \"1\": " + out);
        assertEquals(0, run("inspect", spec, state.resolve("engine").toString(), "--events", events, "--partitions", "2",
            "--side", "left", "--key", "{\"log_id\": \"9\"}"));
        assertEquals("{\"left\":[],\"moreLeft\":0,\"right\":[],\"moreRight\":0}", out.toString().strip());
        assertEquals(before, digests(state), "the root is never written");
    }

    @Test
    void refusesAHeldRootNoRootAndABadKey() throws Exception
    {
        final Path state = replayed();
        final String spec = tmp.resolve("shows.join.json").toString();
        try (DirectoryLock held = DirectoryLock.acquire(state.resolve("engine"), "the state root"))
        {
            assertEquals(JunctionCli.EXIT_STATE, run("inspect", spec, state.toString(), "--partitions", "2", "--side", "left",
                "--key", "{\"log_id\": \"1\"}"));
            assertTrue(err.toString().contains(held.file() + " is locked"), err.toString());
        }
        assertEquals(JunctionCli.EXIT_STATE, run("inspect", spec, tmp.toString(), "--side", "left", "--key", "{\"log_id\": \"1\"}"));
        assertTrue(err.toString().contains("no Junction state root"), err.toString());
        assertEquals(2, run("inspect", spec, state.toString(), "--partitions", "2", "--side", "left", "--key", "[1]"));
        assertTrue(err.toString().contains("--key must be a JSON object"), err.toString());
        assertEquals(2, run("inspect", spec, state.toString(), "--events", tmp.resolve("shows.events.jsonl").toString(),
            "--partitions", "2", "--side", "left", "--key", "{\"logid\": \"1\"}"));
        assertTrue(err.toString().contains("logid"), err.toString());
        assertEquals(2, run("inspect", spec, state.toString(), "--side", "middle", "--key", "{\"log_id\": \"1\"}"));
        assertTrue(err.toString().contains("--side must be left or right"), err.toString());
    }
}
