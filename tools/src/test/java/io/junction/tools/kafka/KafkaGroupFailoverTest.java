package io.junction.tools.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.junction.kafka.Provenance;
import io.junction.kafka.testing.KafkaTestBroker;
import io.junction.tools.JunctionCli;
import io.junction.tools.replay.Replay;
import io.junction.tools.replay.ReplayResult;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Junction as a consumer group of real processes on a real broker: three members ({@code junction kafka join}
 * in child JVMs) share 8 partitions; one is killed with SIGKILL mid-stream and a fourth joins. After
 * de-duplication the output topic must hold exactly the result of a single-process replay of the same
 * event log: the killed member's partitions were taken over from their checkpoints (their state moved: a
 * pair whose left row was read before the kill and whose right row after it still joins).
 */
final class KafkaGroupFailoverTest
{
    private static final int PARTITIONS = 8;
    private static final int KEYS = 96;
    private static final int LEFT_ROWS = 4_000;
    private static final String SPEC = "{\"join\":\"interval\",\"type\":\"inner\",\"leftKey\":[\"key\"],\"rightKey\":[\"key\"]," +
        "\"interval\":{\"lower\":-300,\"upper\":300}}";
    private static final ObjectMapper CANONICAL = JsonMapper.builder()
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

    private static KafkaTestBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker()
    {
        broker = KafkaTestBroker.start();
    }

    @AfterAll
    static void stopBroker()
    {
        if (broker != null)
        {
            broker.close();
        }
    }

    @Test
    void survivorsTakeOverAKilledMembersPartitionsAndTheResultEqualsAReplay() throws Exception
    {
        final List<String> events = events();
        final Path spec = Files.writeString(dir.resolve("w.join.json"), SPEC);
        final Path all = Files.write(dir.resolve("all.events.jsonl"), events);
        final Map<String, Integer> expected = expected(new Replay(Replay.config(4)).run(spec, all));
        assertTrue(expected.size() > 1_000, "the input joins: " + expected.size());

        broker.createTopic("left", PARTITIONS);
        broker.createTopic("right", PARTITIONS);
        broker.createTopic("out", PARTITIONS);
        final Path checkpoints = dir.resolve("checkpoints");
        final List<Member> members = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> output = outputConsumer())
        {
            final Output seen = new Output();
            final int third = events.size() / 3;
            produce(spec, events.subList(0, third), "1");
            for (int m = 1; m <= 3; m++)
            {
                members.add(new Member(m, spec, checkpoints));
            }
            // Every member serves partitions and part of the first third joined and was checkpointed (every
            // second): kill a member mid-stream.
            for (final Member member : members)
            {
                member.awaitServing(Duration.ofSeconds(120));
            }
            seen.readUntil(output, expected.size() / 6, Duration.ofSeconds(120));
            final Member killed = members.get(1);
            killed.process.destroyForcibly();
            assertTrue(killed.process.waitFor(30, TimeUnit.SECONDS), "the killed member is gone");
            final long[] logLengthAtKill = {Files.size(members.get(0).log), Files.size(members.get(2).log)};
            produce(spec, events.subList(third, 2 * third), "2");
            members.add(new Member(4, spec, checkpoints));
            produce(spec, events.subList(2 * third, events.size()), "3");

            seen.readUntil(output, expected.size(), Duration.ofSeconds(180));
            assertEquals(expected.keySet(), seen.distinct.keySet(),
                "after de-duplication the output is the replay's result; members' logs:\n" + logs(members));
            for (final Map.Entry<String, Integer> result : expected.entrySet())
            {
                assertEquals(1, result.getValue(), "the input's rows are distinct, so each result is one pair");
            }
            assertEquals(0, seen.badProvenance, "every output record names the partition it came from");
            // The killed member's partitions moved with their state: a survivor or the newcomer took one of
            // them over from its checkpoint after the kill.
            final Set<Integer> servedByKilled = partitions(Files.readString(killed.log), SERVED);
            final Set<Integer> takenOverAfterKill = new TreeSet<>();
            takenOverAfterKill.addAll(partitions(logAfter(members.get(0).log, logLengthAtKill[0]), FROM_CHECKPOINT));
            takenOverAfterKill.addAll(partitions(logAfter(members.get(2).log, logLengthAtKill[1]), FROM_CHECKPOINT));
            takenOverAfterKill.addAll(partitions(Files.readString(members.get(3).log), FROM_CHECKPOINT));
            assertTrue(!servedByKilled.isEmpty(), "the killed member served partitions:\n" + logs(members));
            takenOverAfterKill.retainAll(servedByKilled);
            assertTrue(!takenOverAfterKill.isEmpty(), "a partition of the killed member " + servedByKilled +
                " was taken over from a checkpoint after the kill:\n" + logs(members));
        }
        finally
        {
            for (final Member member : members)
            {
                member.stop();
            }
        }
    }

    /**
     * An interval join's input in event-time order: left rows every 5 ms over {@value #KEYS} keys, and about
     * one right row per two left rows, near a left row of its key (some just outside the interval).
     */
    private static List<String> events()
    {
        final SplittableRandom random = new SplittableRandom(0x5EED_0012L);
        final TreeMap<Long, List<String>> byTs = new TreeMap<>();
        int right = 0;
        for (int i = 0; i < LEFT_ROWS; i++)
        {
            final long ts = i * 5L;
            final int key = i % KEYS;
            byTs.computeIfAbsent(ts, t -> new ArrayList<>())
                .add("{\"side\":\"left\",\"ts\":" + ts + ",\"row\":{\"key\":" + key + ",\"f1\":" + i + "}}");
            if (random.nextInt(2) == 0)
            {
                final long rts = ts + random.nextInt(-400, 401);
                byTs.computeIfAbsent(Math.max(0, rts), t -> new ArrayList<>())
                    .add("{\"side\":\"right\",\"ts\":" + Math.max(0, rts) + ",\"row\":{\"key\":" + key + ",\"f1\":" + right++ + "}}");
            }
        }
        final List<String> lines = new ArrayList<>();
        byTs.values().forEach(lines::addAll);
        return lines;
    }

    @Test
    void aMemberStoppedBySigtermExitsZero() throws Exception
    {
        // The hardening work: SIGTERM is the documented way to stop a member; a clean stop is exit 0, not 143.
        broker.createTopic("term-left", PARTITIONS);
        broker.createTopic("term-right", PARTITIONS);
        broker.createTopic("term-out", PARTITIONS);
        final Path spec = Files.writeString(dir.resolve("w.join.json"), SPEC);
        final Member member = new Member(9, spec, dir.resolve("checkpoints"), "term-");
        try
        {
            member.awaitServing(Duration.ofSeconds(120));
            member.process.destroy();
            assertTrue(member.process.waitFor(60, TimeUnit.SECONDS), "the member stopped");
            assertEquals(0, member.process.exitValue(), Files.readString(member.log));
        }
        finally
        {
            member.stop();
        }
    }

    @Test
    void produceWithCreateTopicsUsesTopicsThatExistAlready() throws IOException
    {
        // The hardening work: a second --create-topics on the same topics is exit 0, not a TopicExistsException.
        final Path spec = Files.writeString(dir.resolve("spec.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final Path events = Files.write(dir.resolve("e.events.jsonl"), List.of("{\"side\":\"left\",\"ts\":1,\"row\":{\"k\":1}}"));
        for (int i = 0; i < 2; i++)
        {
            final int exit = JunctionCli.commandLine().execute("kafka", "produce", "--bootstrap-servers", broker.bootstrapServers(),
                "--left", "exists-left", "--right", "exists-right", "--spec", spec.toString(), "--extra-fields", "k",
                "--create-topics", "2", events.toString());
            assertEquals(0, exit, "junction kafka produce --create-topics, run " + i);
        }
    }

    private void produce(final Path spec, final List<String> lines, final String name) throws IOException
    {
        final Path file = Files.write(dir.resolve("part" + name + ".events.jsonl"), lines);
        final int exit = JunctionCli.commandLine().execute("kafka", "produce", "--bootstrap-servers", broker.bootstrapServers(),
            "--left", "left", "--right", "right", "--spec", spec.toString(), "--extra-fields", "f1", file.toString());
        assertEquals(0, exit, "junction kafka produce " + file);
    }

    private static final Pattern SERVED =
        Pattern.compile("partition (\\d+): (taken over from checkpoint|no checkpoint)");
    private static final Pattern FROM_CHECKPOINT =
        Pattern.compile("partition (\\d+): taken over from checkpoint");

    private static Set<Integer> partitions(final String log, final Pattern pattern)
    {
        final Set<Integer> found = new TreeSet<>();
        final Matcher m = pattern.matcher(log);
        while (m.find())
        {
            found.add(Integer.parseInt(m.group(1)));
        }
        return found;
    }

    private static String logAfter(final Path log, final long from) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(log);
        return new String(bytes, (int) Math.min(from, bytes.length), bytes.length - (int) Math.min(from, bytes.length),
            StandardCharsets.UTF_8);
    }

    /** The replay's results as canonical (op, left, right) strings, counted. */
    private static Map<String, Integer> expected(final ReplayResult result) throws IOException
    {
        assertEquals(0, result.errorCount(), "replay errors: " + result.errors());
        final Map<String, Integer> counts = new HashMap<>();
        for (final String line : result.resultLines())
        {
            counts.merge(canonical(CANONICAL.readTree(line)), 1, Integer::sum);
        }
        return counts;
    }

    private static String canonical(final JsonNode result) throws IOException
    {
        final Map<String, Object> key = new TreeMap<>();
        key.put("op", result.get("op").asText());
        key.put("left", CANONICAL.treeToValue(result.get("left"), Object.class));
        key.put("right", CANONICAL.treeToValue(result.get("right"), Object.class));
        return CANONICAL.writeValueAsString(key);
    }

    private static KafkaConsumer<byte[], byte[]> outputConsumer()
    {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        final List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++)
        {
            partitions.add(new TopicPartition("out", p));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }

    /** What the output topic held so far: each result (canonical) with how often it came. */
    private static final class Output
    {
        final Map<String, Integer> distinct = new HashMap<>();
        long records;
        long badProvenance;

        void readUntil(final KafkaConsumer<byte[], byte[]> consumer, final int distinctResults, final Duration within)
            throws IOException
        {
            final long deadline = System.nanoTime() + within.toNanos();
            while (distinct.size() < distinctResults)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new AssertionError("only " + distinct.size() + " of " + distinctResults + " distinct results (" +
                        records + " records) on the output topic within " + within);
                }
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200)))
                {
                    records++;
                    try
                    {
                        if (Provenance.of(record.headers()).partition() != record.partition())
                        {
                            badProvenance++;
                        }
                    }
                    catch (final IllegalArgumentException e)
                    {
                        badProvenance++;
                    }
                    distinct.merge(canonical(CANONICAL.readTree(new String(record.value(), StandardCharsets.UTF_8))), 1,
                        Integer::sum);
                }
            }
        }
    }

    private static String logs(final List<Member> members) throws IOException
    {
        final StringBuilder out = new StringBuilder();
        for (final Member member : members)
        {
            out.append("--- member ").append(member.number).append(" ---\n");
            final List<String> lines = Files.readAllLines(member.log, StandardCharsets.UTF_8);
            for (final String line : lines.subList(Math.max(0, lines.size() - 60), lines.size()))
            {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    /** One {@code junction kafka join} in a child JVM, its output in a log file. */
    private final class Member
    {
        final int number;
        final Process process;
        final Path log;

        Member(final int number, final Path spec, final Path checkpoints) throws IOException
        {
            this(number, spec, checkpoints, "");
        }

        /** @param prefix of the topics' and the group's names */
        Member(final int number, final Path spec, final Path checkpoints, final String prefix) throws IOException
        {
            this.number = number;
            this.log = dir.resolve("member-" + number + ".log");
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-XX:+UseSerialGC");
            command.add("-Xmx256m");
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(JunctionCli.class.getName());
            command.add("kafka");
            command.add("join");
            command.add("--bootstrap-servers=" + broker.bootstrapServers());
            command.add("--group=" + prefix + "failover");
            command.add("--left=" + prefix + "left");
            command.add("--right=" + prefix + "right");
            command.add("--output=" + prefix + "out");
            command.add("--spec=" + spec);
            command.add("--extra-fields=f1");
            command.add("--state=" + dir.resolve("state-" + number));
            command.add("--checkpoint-dir=" + checkpoints);
            command.add("--checkpoint-ms=1000");
            // No row is late and no state expires while the test runs: the result is the replay's whatever
            // order the members read the two inputs in.
            command.add("--watermark-delay=3600000");
            command.add("--property=session.timeout.ms=6000");
            command.add("--property=heartbeat.interval.ms=500");
            // A member outlives nothing: it stops when this test JVM ends, however that happens.
            command.add("--stop-with-pid=" + ProcessHandle.current().pid());
            this.process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        }

        /** Waits until the member logs that it serves a partition (its JVM may start slowly on a busy machine). */
        void awaitServing(final Duration within) throws IOException
        {
            final long deadline = System.nanoTime() + within.toNanos();
            while (partitions(Files.readString(log), SERVED).isEmpty())
            {
                if (System.nanoTime() > deadline || !process.isAlive())
                {
                    throw new AssertionError("member " + number + " serves no partition (" +
                        (process.isAlive() ? "within " + within : "it exited") + "):\n" + Files.readString(log));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }

        void stop() throws InterruptedException
        {
            if (process.isAlive())
            {
                process.destroy();
                if (!process.waitFor(30, TimeUnit.SECONDS))
                {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }
}
