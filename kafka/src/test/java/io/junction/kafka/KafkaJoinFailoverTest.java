package io.junction.kafka;

import io.junction.kafka.JoinFixture.Event;
import io.junction.kafka.testing.KafkaTestBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three members in child JVMs share 8 partitions; one is killed with SIGKILL mid-stream and a new one joins:
 * the survivors take its partitions over from its last checkpoints, and the output, de-duplicated by
 * content, equals the join of the whole input. The bounds are hang guards, not timing asserts.
 */
class KafkaJoinFailoverTest
{
    private static final int PARTITIONS = 8;
    private static final String PREFIX = "failover";
    private static KafkaTestBroker broker;
    private final List<Process> members = new ArrayList<>();

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

    private Process startMember(final Path dir, final String name) throws IOException
    {
        final Process process = Members.start(broker, dir, name, PREFIX);
        members.add(process);
        return process;
    }

    private static boolean stableWith(final int count)
    {
        return Members.stableWith(broker, PREFIX + "-group", count);
    }

    private static String logs(final Path dir)
    {
        return Members.logs(dir, "a", "b", "c", "d");
    }

    @Test
    void shouldKeepEveryResultWhenAMemberIsKilledAndAnotherJoins() throws Exception
    {
        broker.createTopic(PREFIX + "-left", PARTITIONS);
        broker.createTopic(PREFIX + "-right", PARTITIONS);
        broker.createTopic(PREFIX + "-out", PARTITIONS);
        final long n = 6_000;
        final List<List<Event>> phases = new ArrayList<>();
        final List<Event> all = new ArrayList<>();
        for (long from = 0; from < n; from += 2_000)
        {
            final List<Event> phase = new ArrayList<>(JoinFixture.impressions(from, from + 2_000));
            phase.addAll(JoinFixture.clicks(n, from, from + 2_000 < n ? from + 2_000 : Long.MAX_VALUE));
            phases.add(phase);
            all.addAll(phase);
        }
        final List<Event> lefts = new ArrayList<>();
        final List<Event> rights = new ArrayList<>();
        for (final Event e : all)
        {
            (e.left ? lefts : rights).add(e);
        }
        final Set<String> expected = new TreeSet<>(JoinFixture.expectedInner(lefts, rights));
        final Set<String> firstPhase = new TreeSet<>(JoinFixture.expectedInner(
            phases.get(0).stream().filter(e -> e.left).toList(), phases.get(0).stream().filter(e -> !e.left).toList()));

        final Path dir = JoinFixture.freshDir(PREFIX);
        try
        {
            assertTimeoutPreemptively(Duration.ofMinutes(4), () ->
            {
                startMember(dir, "a");
                startMember(dir, "b");
                final Process c = startMember(dir, "c");
                JoinFixture.await(() -> stableWith(3), 120, () -> "three members sharing the partitions" + logs(dir));
                JoinFixture.produce(broker, PREFIX + "-left", PREFIX + "-right", phases.get(0));
                JoinFixture.await(() -> JoinFixture.distinctResults(broker, PREFIX + "-out").containsAll(firstPhase), 120,
                    () -> "the first third's results" + logs(dir));

                // SIGKILL while the second third streams in: no close, no last checkpoint; its partitions go
                // back to the group when its session lapses, and their input since its last checkpoint is replayed.
                JoinFixture.produce(broker, PREFIX + "-left", PREFIX + "-right", phases.get(1));
                c.destroyForcibly();
                assertTrue(c.waitFor(30, TimeUnit.SECONDS));
                startMember(dir, "d");
                JoinFixture.produce(broker, PREFIX + "-left", PREFIX + "-right", phases.get(2));
                JoinFixture.await(() -> JoinFixture.distinctResults(broker, PREFIX + "-out").containsAll(expected), 180,
                    () -> "every result after the failover" + logs(dir));
                JoinFixture.await(() -> stableWith(3), 120, () -> "the group stable again with a, b and d" + logs(dir));

                for (final Process member : members)
                {
                    if (member != c)
                    {
                        member.getOutputStream().close();
                    }
                }
                for (final Process member : members)
                {
                    if (member != c)
                    {
                        assertTrue(member.waitFor(60, TimeUnit.SECONDS), "a member closes when its stdin does" + logs(dir));
                        assertEquals(0, member.exitValue(), "a clean close" + logs(dir));
                    }
                }
            });
            final Set<String> actual = JoinFixture.distinctResults(broker, PREFIX + "-out");
            final Set<String> missing = new TreeSet<>(expected);
            missing.removeAll(actual);
            final Set<String> extra = new TreeSet<>(actual);
            extra.removeAll(expected);
            assertEquals(Set.of(), missing, "after de-duplication by content: every result of the whole input");
            assertEquals(Set.of(), extra, "after de-duplication by content: nothing else");
        }
        finally
        {
            for (final Process member : members)
            {
                member.destroyForcibly();
            }
        }
        for (final Process member : members)
        {
            assertTrue(member.waitFor(30, TimeUnit.SECONDS));
            assertFalse(member.isAlive());
        }
    }
}
