package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.Schema;
import io.junction.kafka.BinaryResult;
import io.junction.kafka.KafkaJoinRunner;
import io.junction.tools.JunctionCli;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * {@code junction kafka broker}, {@code topics} and {@code consume} without a broker: their refusals, and the JSON
 * line consume prints for each kind of record (the walk-through against a real broker is
 * {@code KafkaWalkthroughTest}).
 */
final class KafkaTryCommandsTest
{
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
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    @Test
    void brokerRefusesAPortInUseNamingIt() throws IOException
    {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            assertEquals(KafkaCommand.EXIT_USAGE, run("kafka", "broker", "--port", Integer.toString(taken.getLocalPort())));
            assertTrue(err().contains("port " + taken.getLocalPort() + " on 127.0.0.1 is in use"), err());
        }
    }

    @Test
    void brokerRefusesAPortOutOfRange()
    {
        assertEquals(KafkaCommand.EXIT_USAGE, run("kafka", "broker", "--port", "70000"));
        assertTrue(err().contains("--port is in [0, 65535]"), err());
    }

    @Test
    void topicsTakesCreateOrListNotBoth()
    {
        assertEquals(KafkaCommand.EXIT_USAGE, run("kafka", "topics", "--bootstrap", "127.0.0.1:1", "--create", "a", "--list"));
        assertEquals(KafkaCommand.EXIT_USAGE, run("kafka", "topics", "--bootstrap", "127.0.0.1:1"));
        assertEquals(KafkaCommand.EXIT_USAGE, run("kafka", "topics", "--bootstrap", "127.0.0.1:1", "--create", "a",
            "--partitions", "0"));
    }

    @Test
    void topicsOnAnUnreachableClusterGivesUpAfterItsTimeoutNamingTheCluster() throws IOException
    {
        final int port = closedPort();
        // A guard against a hang, not a timing assertion: the command gives up after --timeout.
        final int exit = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> run("kafka", "topics",
            "--bootstrap", "127.0.0.1:" + port, "--create", "a", "--timeout", "2"));
        assertEquals(KafkaCommand.EXIT_FAILED, exit, err());
        assertTrue(err().contains("127.0.0.1:" + port), err());
    }

    @Test
    void consumeOnAnUnreachableClusterGivesUpAfterItsTimeoutNamingTheCluster() throws IOException
    {
        final int port = closedPort();
        final int exit = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> run("kafka", "consume",
            "--bootstrap", "127.0.0.1:" + port, "--topic", "t", "--timeout", "2"));
        assertEquals(KafkaCommand.EXIT_FAILED, exit, err());
        assertTrue(err().contains("127.0.0.1:" + port), err());
    }

    @Test
    void consumeRefusesAZeroMax()
    {
        assertEquals(KafkaCommand.EXIT_USAGE, run("kafka", "consume", "--bootstrap", "127.0.0.1:1", "--topic", "t",
            "--max", "0"));
    }

    private static ConsumerRecord<byte[], byte[]> record(final byte[] key, final String value)
    {
        return new ConsumerRecord<>("out", 0, 7, 1_500L, TimestampType.CREATE_TIME, 0, 0,
            key, value == null ? null : value.getBytes(StandardCharsets.UTF_8), new RecordHeaders(),
            Optional.empty());
    }

    @Test
    void consumePrintsAResultWithItsBinaryKeyRowAsTheKeysValues()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int length = new RowCodec(Schema.of("log_id", "n")).encode(Row.of("log_id", "1", "n", 2), buffer, 0, 64);
        final byte[] key = new byte[length];
        buffer.getBytes(0, key);
        assertEquals("{\"key\":[\"1\",2],\"op\":\"+I\",\"left\":{\"log_id\":\"1\"},\"right\":null,\"ts\":1500}",
            KafkaConsumeCommand.line(record(key, "{\"op\":\"+I\",\"left\":{\"log_id\":\"1\"},\"right\":null,\"ts\":1500}")));
    }

    @Test
    void consumePrintsAnUpsertAsItIsAndATombstoneAsADeleteOfItsKey()
    {
        final byte[] key = "{\"left\":{\"log_id\":2}}".getBytes(StandardCharsets.UTF_8);
        final String upsert = "{\"op\":\"upsert\",\"key\":{\"left\":{\"log_id\":2}},\"left\":{\"log_id\":2},\"right\":null,\"ts\":1500}";
        assertEquals(upsert, KafkaConsumeCommand.line(record(key, upsert)));
        final ConsumerRecord<byte[], byte[]> tombstone = record(key, null);
        tombstone.headers().add(KafkaJoinRunner.INPUT_KIND_HEADER, "-D".getBytes(StandardCharsets.UTF_8));
        assertEquals("{\"op\":\"delete\",\"key\":{\"left\":{\"log_id\":2}},\"kind\":\"-D\",\"ts\":1500}",
            KafkaConsumeCommand.line(tombstone));
    }

    @Test
    void consumePrintsABinaryResultWithItsRowsAsArraysOfTheirValues()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final int length = new RowCodec(Schema.of("log_id", "ads")).encode(Row.of("log_id", "1", "ads", List.of("a1", "a2")),
            buffer, 0, 128);
        final ByteBuffer value = ByteBuffer.allocate(BinaryResult.HEADER_BYTES + length);
        value.put((byte) ChangeKind.INSERT.ordinal()).putInt(length);
        final byte[] left = new byte[length];
        buffer.getBytes(0, left);
        value.put(left).putInt(-1).putLong(1_500L);
        assertEquals("{\"key\":null,\"op\":\"+I\",\"left\":[\"1\",[\"a1\",\"a2\"]],\"right\":null,\"ts\":1500}",
            KafkaConsumeCommand.line(new ConsumerRecord<>("out", 0, 7, 1_500L, TimestampType.CREATE_TIME, 0, 0,
                null, value.array(), new RecordHeaders(), Optional.empty())));
    }

    @Test
    void consumePrintsAValueThatIsNotJsonAsBase64()
    {
        assertEquals("{\"key\":null,\"value_base64\":\"AQI=\",\"ts\":1500}", KafkaConsumeCommand.line(
            new ConsumerRecord<>("out", 0, 7, 1_500L, TimestampType.CREATE_TIME, 0, 0,
                null, new byte[] {1, 2}, new RecordHeaders(), Optional.empty())));
    }
}
