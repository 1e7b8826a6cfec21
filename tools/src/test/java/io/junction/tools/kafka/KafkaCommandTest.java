package io.junction.tools.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code junction kafka}'s refusals and errors, without a broker: each exits with its code and says why. */
final class KafkaCommandTest
{
    private static final String SPEC = "{\"join\":\"interval\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
        "\"interval\":{\"lower\":0,\"upper\":10}}";

    @TempDir
    Path dir;

    /** Runs the command line in-process and returns its exit code; what it printed on stderr is in {@code err}. */
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(final String... args)
    {
        final PrintStream saved = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try
        {
            return JunctionCli.commandLine().execute(args);
        }
        finally
        {
            System.setErr(saved);
        }
    }

    private String err()
    {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static int closedPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }

    @Test
    void withoutASubcommandItSaysWhichThereAre()
    {
        assertEquals(2, run("kafka"));
        assertTrue(err().contains("join, produce or bench"), err());
    }

    @Test
    void anUnknownFormatIsRefusedBeforeAnythingConnects() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        assertEquals(2, run("kafka", "join", "--bootstrap-servers=127.0.0.1:1", "--group=g", "--left=l", "--right=r",
            "--output=o", "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck"),
            "--format=xml"));
        assertTrue(err().contains("--format is json or binary"), err());
    }

    @Test
    void anUnknownInputKeyFormatIsRefusedBeforeAnythingConnects() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        assertEquals(2, run("kafka", "join", "--bootstrap-servers=127.0.0.1:1", "--group=g", "--left=l", "--right=r",
            "--output=o", "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck"),
            "--input-keys=long"));
        assertTrue(err().contains("--input-keys must be any or binary-row"), err());
    }

    @Test
    void aRejectedSpecNamesTheField() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC.replace("\"inner\"", "\"sideways\""));
        assertEquals(2, run("kafka", "join", "--bootstrap-servers=127.0.0.1:1", "--group=g", "--left=l", "--right=r",
            "--output=o", "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck")));
        assertTrue(err().contains("type"), err());
    }

    @Test
    void anUnreachableClusterEndsTheMemberWithAnErrorInsteadOfAHang() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        final int port = closedPort();
        // The bound is a guard against a hang, not a timing assertion: the member gives up after 2 s.
        final int exit = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> run("kafka", "join",
            "--bootstrap-servers=127.0.0.1:" + port, "--group=g", "--left=l", "--right=r", "--output=o",
            "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck"),
            "--start-timeout-ms=2000"));
        assertEquals(3, exit, err());
        assertTrue(err().contains("127.0.0.1:" + port), "the error names the cluster: " + err());
    }

    @Test
    void anExactlyOnceMemberBuildsItsTransactionalConfigAndStillEndsWithAnErrorWhenTheClusterIsGone() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        final int port = closedPort();
        final int exit = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> run("kafka", "join", "--exactly-once",
            "--bootstrap-servers=127.0.0.1:" + port, "--group=g", "--left=l", "--right=r", "--output=o",
            "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck"),
            "--start-timeout-ms=2000"));
        assertEquals(3, exit, err());
        assertTrue(err().contains("127.0.0.1:" + port), "the error names the cluster: " + err());
    }

    @Test
    void produceRefusesABadEventLineNamingIt() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        final Path events = Files.writeString(dir.resolve("e.events.jsonl"),
            "{\"side\":\"left\",\"ts\":1,\"row\":{\"k\":1}}\n{\"side\":\"up\",\"ts\":2,\"row\":{\"k\":1}}\n");
        assertEquals(2, run("kafka", "produce", "--bootstrap-servers=127.0.0.1:" + closedPort(), "--left=l", "--right=r",
            "--spec=" + spec, events.toString(), "-X", "max.block.ms=2000"));
        assertTrue(err().contains("line 2"), err());
    }

    @Test
    void produceRefusesANegativeTsBeforeSendingAnyRow() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        final Path events = Files.writeString(dir.resolve("e.events.jsonl"),
            "{\"side\":\"left\",\"ts\":1,\"row\":{\"k\":1}}\n{\"side\":\"right\",\"ts\":-5,\"row\":{\"k\":1}}\n");
        // No broker and no client timeout given: only a refusal before the first send ends this quickly.
        final int exit = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> run("kafka", "produce",
            "--bootstrap-servers=127.0.0.1:" + closedPort(), "--left=l", "--right=r", "--spec=" + spec, events.toString()));
        assertEquals(2, exit, err());
        assertTrue(err().contains("line 2: ts -5 is negative"), err());
        assertFalse(err().contains("wrote"), err());
    }

    @Test
    void produceToAnUnreachableClusterGivesUpAfterItsTimeoutNamingTheCluster() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        final Path events = Files.writeString(dir.resolve("e.events.jsonl"), "{\"side\":\"left\",\"ts\":1,\"row\":{\"k\":1}}\n");
        final int port = closedPort();
        // The bound is a guard against a hang, not a timing assertion.
        final int exit = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> run("kafka", "produce",
            "--bootstrap-servers=127.0.0.1:" + port, "--left=l", "--right=r", "--spec=" + spec, "--timeout=2", events.toString()));
        assertEquals(3, exit, err());
        assertTrue(err().contains("127.0.0.1:" + port) && err().contains("--timeout"), err());
        assertEquals(1, err().strip().lines().count(), "one line: " + err());
    }

    @Test
    void kafkasExtraFieldsAreNotReplaysFields() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        final Path events = Files.writeString(dir.resolve("e.events.jsonl"), "{\"side\":\"left\",\"ts\":1,\"row\":{\"k\":1,\"v\":2}}\n");
        assertEquals(2, run("kafka", "produce", "--bootstrap-servers=127.0.0.1:1", "--left=l", "--right=r", "--spec=" + spec,
            "--fields=v:long", events.toString()));
        assertTrue(err().contains("--fields"), err());
    }

    @Test
    void benchRefusesASpecThatIsNotW1s() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("s.join.json"), SPEC);
        assertEquals(2, run("kafka", "bench", "--bootstrap-servers=127.0.0.1:1", "--spec=" + spec));
        assertTrue(err().contains("is not W1's"), err());
    }

    private static final String MULTI = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"orders\",\"key\":[\"id\"]}," +
        "{\"name\":\"payments\",\"key\":[\"order_id\"],\"type\":\"inner\"},{\"name\":\"shipments\",\"key\":[\"order_id\"]," +
        "\"type\":\"left\"}]}";

    @Test
    void aMultiWayJoinTakesOneInputTopicPerInputInTheSpecsOrder() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("m.join.json"), MULTI);
        assertEquals(2, run("kafka", "join", "--bootstrap-servers=127.0.0.1:1", "--group=g", "--input=o", "--input=p",
            "--output=out", "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck")));
        assertTrue(err().contains("has 3 inputs [orders, payments, shipments]: give 3 --input topics"), err());
        err.reset();
        assertEquals(2, run("kafka", "join", "--bootstrap-servers=127.0.0.1:1", "--group=g", "--left=l", "--right=r",
            "--output=out", "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck")));
        assertTrue(err().contains("reads --input topics, not --left/--right"), err());
        err.reset();
        final Path binary = Files.writeString(dir.resolve("s.join.json"), SPEC);
        assertEquals(2, run("kafka", "join", "--bootstrap-servers=127.0.0.1:1", "--group=g", "--inputs=a,b,c",
            "--output=out", "--spec=" + binary, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck")));
        assertTrue(err().contains("--input is for multi-way joins"), err());
        err.reset();
        assertEquals(2, run("kafka", "join", "--bootstrap-servers=127.0.0.1:1", "--group=g", "--left=l",
            "--output=out", "--spec=" + binary, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck")));
        assertTrue(err().contains("--left and --right are required"), err());
        err.reset();
        // The right count gets as far as the cluster: the comma-separated form is the repeated one.
        final int exit = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> run("kafka", "join",
            "--bootstrap-servers=127.0.0.1:" + closedPort(), "--group=g", "--inputs=o,p,s", "--output=out",
            "--spec=" + spec, "--state=" + dir.resolve("state"), "--checkpoint-dir=" + dir.resolve("ck"),
            "--start-timeout-ms=2000"));
        assertEquals(3, exit, err());
    }

    @Test
    void produceOfAMultiWayLogRefusesALineNamingNoInput() throws IOException
    {
        final Path spec = Files.writeString(dir.resolve("m.join.json"), MULTI);
        final Path events = Files.writeString(dir.resolve("m.events.jsonl"),
            "{\"side\":\"orders\",\"row\":{\"id\":1}}\n{\"side\":\"refunds\",\"row\":{\"order_id\":1}}\n");
        assertEquals(2, run("kafka", "produce", "--bootstrap-servers=127.0.0.1:" + closedPort(), "--input=o", "--input=p",
            "--input=s", "--spec=" + spec, events.toString(), "-X", "max.block.ms=2000"));
        assertTrue(err().contains("line 2") && err().contains("refunds"), err());
    }
}
