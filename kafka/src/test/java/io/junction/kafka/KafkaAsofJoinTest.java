package io.junction.kafka;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.kafka.JoinFixture.Event;
import io.junction.kafka.testing.KafkaTestBroker;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ASOF joins (docs/SEMANTICS.md section 11) through the runner against a real broker (one per
 * class): trades (left, {@code f1}) joined backward with a tolerance to the quote of their key in force
 * (right, {@code f2}), quotes out of order within 50 ms and watermarks trailing by 100 ms, so that no row
 * is late. The trades are produced and read first, the quotes after them, so that in eager mode every
 * trade with a match is first emitted padded and then corrected ({@code -U}, {@code +U}). The output read
 * back (final mode: as it is; eager mode: its changelog applied) equals a brute-force {@code merge_asof}
 * of the input. A flush row per partition and side, far ahead in time, moves every partition's watermark
 * past the real rows. The bounds are hang guards, not timing asserts.
 */
class KafkaAsofJoinTest
{
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);
    private static final long TOLERANCE = 60;
    private static final long DISORDER = 50;
    private static final long DELAY = 100;
    private static final int KEYS = 20;
    private static final long FLUSH_PAYLOAD = 1_000_000;
    private static KafkaTestBroker broker;

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
    void finalModeWritesEachTradeOnceWithItsMergeAsofQuote() throws Exception
    {
        final Map<String, Integer> output = run("asof-final", AsofSpec.Emit.FINAL);
        assertTrue(output.values().stream().allMatch(c -> c == 1), "final mode is append-only, each trade once: " + output);
    }

    @Test
    void eagerModeCorrectsThePaddedTradesToTheirMergeAsofQuote() throws Exception
    {
        run("asof-eager", AsofSpec.Emit.EAGER);
    }

    /** Runs the join in one mode and checks its output against merge_asof; returns the output applied. */
    private static Map<String, Integer> run(final String prefix, final AsofSpec.Emit mode) throws Exception
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.ASOF, JoinType.LEFT).schemas(JoinFixture.LEFT, JoinFixture.RIGHT)
            .leftKey("k").rightKey("k").asof(AsofSpec.of(AsofSpec.Direction.BACKWARD).withTolerance(TOLERANCE).withEmit(mode))
            .build();
        final SplittableRandom random = new SplittableRandom(22);
        final List<Event> trades = new ArrayList<>();
        for (long i = 0; i < 300; i++)
        {
            // Keys KEYS and KEYS + 1 have no quotes: padded.
            trades.add(new Event(true, (i * 7) % (KEYS + 2), 1_000 + i * 10 + random.nextLong(10), i));
        }
        final List<Event> quotes = new ArrayList<>();
        final List<Long> arrival = new ArrayList<>();
        for (long j = 0; j < 600; j++)
        {
            // Distinct ts per key (j * 5 + r, r < 5): no tie on arrival order to break.
            final long ts = 1_000 + j * 5 + random.nextLong(5);
            quotes.add(new Event(false, j % KEYS, ts, 10_000 + j));
            arrival.add(ts + random.nextLong(DISORDER));
        }
        final List<Integer> order = new ArrayList<>();
        for (int j = 0; j < quotes.size(); j++)
        {
            order.add(j);
        }
        order.sort(Comparator.comparing(arrival::get));
        final List<Event> shuffled = new ArrayList<>();
        for (final int j : order)
        {
            shuffled.add(quotes.get(j));
        }
        final Map<String, Integer> expected = mergeAsof(trades, quotes);

        broker.createTopic(prefix + "-left", 2);
        broker.createTopic(prefix + "-right", 2);
        broker.createTopic(prefix + "-out", 2);
        final Path dir = JoinFixture.freshDir(prefix);
        final KafkaJoinRunner runner = new KafkaJoinRunner(JoinFixture.config(broker, spec)
            .groupId(prefix + "-group").leftTopic(prefix + "-left").rightTopic(prefix + "-right").outputTopic(prefix + "-out")
            .watermarkDelayMillis(DELAY)
            .stateDir(dir.resolve("state")).checkpointDir(dir.resolve("checkpoints")).build());
        final Map<String, Integer> applied = new TreeMap<>();
        final List<String> kinds = new ArrayList<>();
        assertTimeoutPreemptively(HANG_GUARD, () ->
        {
            final CompletableFuture<Void> run = new CompletableFuture<>();
            final Thread thread = new Thread(() ->
            {
                try
                {
                    runner.run();
                    run.complete(null);
                }
                catch (final Throwable e)
                {
                    run.completeExceptionally(e);
                }
            }, "runner-" + prefix);
            thread.setDaemon(true);
            thread.start();
            JoinFixture.produce(broker, prefix + "-left", prefix + "-right", trades);
            JoinFixture.await(() -> runner.recordsConsumed() >= trades.size() || run.isDone(), 120, () -> "the trades read");
            JoinFixture.produce(broker, prefix + "-left", prefix + "-right", shuffled);
            for (int p = 0; p < 2; p++)
            {
                JoinFixture.produceRaw(broker, prefix + "-left", p, 100_000, new Event(true, 1_000 + p, 100_000, FLUSH_PAYLOAD).bytes);
                JoinFixture.produceRaw(broker, prefix + "-right", p, 100_000, new Event(false, 1_000 + p, 100_000, FLUSH_PAYLOAD).bytes);
            }
            final int all = trades.size() + quotes.size() + 4;
            JoinFixture.await(() -> runner.recordsConsumed() >= all && read(broker, prefix + "-out", applied, kinds).equals(expected) ||
                run.isDone(), 120, () -> "the merge_asof output (" + applied.size() + " distinct of " + expected.size() + ")");
            runner.close();
            run.get();
        });
        assertEquals(0, runner.deadLetters(), "no row is late: the disorder is within the watermark delay");
        assertEquals(expected, read(broker, prefix + "-out", applied, kinds));
        final long matched = expected.keySet().stream().filter(s -> !s.contains("|null|")).count();
        assertTrue(matched > 50 && matched < trades.size(), "both matched and padded trades: " + matched);
        if (mode == AsofSpec.Emit.EAGER)
        {
            // Every matched trade was emitted padded before its quotes were read, then corrected once or more.
            assertTrue(kinds.stream().filter("-U"::equals).count() >= matched, "corrections: " + kinds);
            assertEquals(kinds.stream().filter("-U"::equals).count(), kinds.stream().filter("+U"::equals).count());
        }
        else
        {
            assertTrue(kinds.stream().allMatch("+I"::equals), "final mode writes inserts only: " + kinds);
        }
        return applied;
    }

    /**
     * Batch merge_asof, backward with the tolerance: each trade's quote of its key with the greatest ts in
     * {@code [ts - TOLERANCE, ts]} (ts distinct per key), or null; as "f1|f2|ts" with the trade's ts.
     */
    private static Map<String, Integer> mergeAsof(final List<Event> trades, final List<Event> quotes)
    {
        final Map<String, Integer> expected = new TreeMap<>();
        for (final Event t : trades)
        {
            Event best = null;
            for (final Event q : quotes)
            {
                if (q.key == t.key && q.ts <= t.ts && q.ts >= t.ts - TOLERANCE && (best == null || q.ts > best.ts))
                {
                    best = q;
                }
            }
            expected.merge(t.payload + "|" + (best == null ? "null" : String.valueOf(best.payload)) + "|" + t.ts, 1, Integer::sum);
        }
        return expected;
    }

    /**
     * Reads the output topic and applies it as a changelog (+I, +U add; -U, -D remove), leaving out the flush
     * rows; the kinds read are in {@code kinds}.
     */
    private static Map<String, Integer> read(
        final KafkaTestBroker broker, final String topic, final Map<String, Integer> applied, final List<String> kinds)
    {
        applied.clear();
        kinds.clear();
        for (final ConsumerRecord<byte[], byte[]> record : JoinFixture.readAll(broker, topic))
        {
            final BinaryResult result = BinaryResult.parse(record.value());
            final String described = JoinFixture.describe(result);
            if (described.startsWith(FLUSH_PAYLOAD + "|"))
            {
                continue;
            }
            kinds.add(result.kind().shortString());
            final boolean retract = result.kind() == ChangeKind.UPDATE_BEFORE || result.kind() == ChangeKind.DELETE;
            applied.merge(described, retract ? -1 : 1, Integer::sum);
        }
        applied.values().removeIf(c -> c == 0);
        return applied;
    }
}
