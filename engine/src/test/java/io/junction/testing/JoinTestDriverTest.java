package io.junction.testing;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.Expansion;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The test driver runs the engine's operators: the same input through a {@link JoinTestDriver} and through a real
 * {@link JoinEngine} (partition threads, rings, the publisher) gives the same changelog, dead letters and expiries,
 * equal line for line on one partition and equal per step on four.
 */
final class JoinTestDriverTest
{
    private static final Schema SHOWS = Schema.of("id", "ts", "show");
    private static final Schema CLICKS = Schema.of("id", "ts", "click");

    /** One event of a scenario: a row (kind non-null), a watermark of both sides, or the end of input. */
    private record Event(Side side, ChangeKind kind, Row row, long ts, boolean isEnd)
    {
        static Event row(final Side side, final ChangeKind kind, final Row row, final long ts)
        {
            return new Event(side, kind, row, ts, false);
        }

        static Event watermark(final long ts)
        {
            return new Event(null, null, null, ts, false);
        }

        static Event endOfInput()
        {
            return new Event(null, null, null, 0, true);
        }
    }

    /** What a run of a scenario gave, in comparable values. */
    private record Outcome(List<CollectingResultHandler.Result> results, List<JoinTestDriver.DeadLetter> deadLetters,
        List<JoinTestDriver.Expiry> expiries)
    {
    }

    private static Row show(final int id, final long ts, final String show)
    {
        return Row.of("id", id, "ts", ts, "show", show);
    }

    private static Row click(final int id, final long ts, final String click)
    {
        return Row.of("id", id, "ts", ts, "click", click);
    }

    /** Inserts and deletes on both sides, a key that never matches, a retraction of a row not in state, a TTL. */
    private static List<Event> regularScenario()
    {
        return List.of(
            Event.row(Side.LEFT, ChangeKind.INSERT, show(1, 1_000, "a"), 1_000),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(2, 1_100, "b"), 1_100),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 1_200, "x"), 1_200),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 1_300, "y"), 1_300),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(1, 1_400, "c"), 1_400),
            Event.row(Side.RIGHT, ChangeKind.DELETE, click(1, 1_200, "x"), 1_500),
            Event.row(Side.RIGHT, ChangeKind.DELETE, click(7, 1_500, "never"), 1_500),
            Event.row(Side.LEFT, ChangeKind.DELETE, show(2, 1_100, "b"), 1_600),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(3, 1_700, "z"), 1_700),
            Event.watermark(20_000),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(3, 20_500, "d"), 20_500),
            Event.endOfInput());
    }

    /** Pairs inside and outside the bounds, a row padded at the watermark, a late row. */
    private static List<Event> intervalScenario()
    {
        return List.of(
            Event.row(Side.LEFT, ChangeKind.INSERT, show(1, 1_000, "a"), 1_000),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 1_500, "x"), 1_500),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 9_000, "too late to pair"), 9_000),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(2, 2_000, "b"), 2_000),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(1, 3_000, "c"), 3_000),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 3_200, "y"), 3_200),
            Event.watermark(6_000),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(4, 4_000, "late"), 4_000),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(2, 6_500, "z"), 6_500),
            Event.watermark(12_000),
            Event.endOfInput());
    }

    /** Eager emission with a correction from an out-of-order quote, a trade without a quote in tolerance. */
    private static List<Event> asofScenario()
    {
        return List.of(
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 1_000, "q100"), 1_000),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(1, 1_500, "t1"), 1_500),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 1_400, "q101"), 1_400),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(1, 3_000, "t2"), 3_000),
            Event.row(Side.LEFT, ChangeKind.INSERT, show(2, 3_100, "t3"), 3_100),
            Event.watermark(3_500),
            Event.row(Side.RIGHT, ChangeKind.INSERT, click(1, 3_400, "late quote"), 3_400),
            Event.endOfInput());
    }

    private static JoinSpec regularSpec()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id")
            .stateTtl(Side.RIGHT, 5_000).build();
    }

    private static JoinSpec intervalSpec()
    {
        return JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id")
            .interval(IntervalBounds.inclusive(0, 1_000)).build();
    }

    private static JoinSpec asofSpec()
    {
        return JoinSpec.builder(JoinKind.ASOF, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id")
            .asof(AsofSpec.of(AsofSpec.Direction.BACKWARD).withTolerance(1_000).withEmit(AsofSpec.Emit.EAGER)).build();
    }

    /**
     * One hash seed for the driver and the engine it is compared with line for line: an engine draws a secret one
     * per start otherwise, and the order in which one event's results of different keys come need not survive a
     * change of seed.
     */
    private static EngineConfig config(final int partitions)
    {
        final EngineConfig defaults = EngineConfig.defaults().withPartitions(partitions);
        return defaults.withState(defaults.state().withHashSeed(0x5eedL));
    }

    private static Outcome throughDriver(final JoinSpec spec, final List<Event> events)
    {
        try (JoinTestDriver driver = JoinTestDriver.create(spec, config(1)))
        {
            for (final Event e : events)
            {
                if (e.isEnd())
                {
                    driver.endOfInput();
                }
                else if (e.kind() == null)
                {
                    driver.watermark(e.ts());
                }
                else
                {
                    assertEquals(Publisher.PUBLISHED, driver.row(e.side(), e.kind(), e.row(), e.ts()), driver.lastRefusal());
                }
            }
            return new Outcome(driver.results(), driver.deadLetters(), driver.expiries());
        }
    }

    /** The engine's handlers, shared by every partition: results as the driver decodes them, plus expiries. */
    private static final class EngineCollector implements ResultHandler, ExpiryHandler, DeadLetterHandler
    {
        private final CollectingResultHandler results;
        private final JoinSpec spec;
        private final List<JoinTestDriver.DeadLetter> deadLetters = new ArrayList<>();
        private final List<JoinTestDriver.Expiry> expiries = new ArrayList<>();

        EngineCollector(final JoinSpec spec)
        {
            this.spec = spec;
            this.results = new CollectingResultHandler(spec);
        }

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
        {
            results.onResult(kind, left, right, ts, step);
        }

        @Override
        public synchronized void onExpired(final Side side, final RowView row, final long ts, final ExpiryReason reason,
            final long step)
        {
            expiries.add(new JoinTestDriver.Expiry(side, RowCodec.decode(spec.schema(side), row), ts, reason, step));
        }

        @Override
        public synchronized void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts,
            final long step, final DeadLetterReason reason)
        {
            deadLetters.add(new JoinTestDriver.DeadLetter(side.ordinal(), kind,
                row == null ? null : RowCodec.decode(spec.schema(side), row), ts, step, reason));
        }
    }

    private static Outcome throughEngine(final JoinSpec spec, final List<Event> events, final int partitions)
    {
        final EngineCollector collector = new EngineCollector(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).config(config(partitions))
            .resultHandler(collector).deadLetterHandler(collector).start())
        {
            final Publisher publisher = engine.publisher();
            long step = 0;
            for (final Event e : events)
            {
                if (e.isEnd())
                {
                    assertEquals(Publisher.PUBLISHED, publisher.endOfInput(step));
                }
                else if (e.kind() == null)
                {
                    assertEquals(Publisher.PUBLISHED, publisher.watermark(e.ts(), step));
                }
                else
                {
                    assertEquals(Publisher.PUBLISHED, publisher.publish(e.side(), e.kind(), e.row(), e.ts(), step));
                }
                step++;
            }
        }
        // close() drained every partition: the handlers saw everything.
        synchronized (collector)
        {
            return new Outcome(collector.results.results(), new ArrayList<>(collector.deadLetters),
                new ArrayList<>(collector.expiries));
        }
    }

    /** @return the values of each step as sorted strings: what every partitioning of the keys agrees on. */
    private static Map<Long, List<String>> perStep(final Outcome outcome)
    {
        final Map<Long, List<String>> steps = new TreeMap<>();
        for (final CollectingResultHandler.Result r : outcome.results())
        {
            steps.computeIfAbsent(r.step(), s -> new ArrayList<>()).add(r.toString());
        }
        for (final JoinTestDriver.DeadLetter d : outcome.deadLetters())
        {
            steps.computeIfAbsent(d.step(), s -> new ArrayList<>()).add(d.toString());
        }
        for (final JoinTestDriver.Expiry x : outcome.expiries())
        {
            steps.computeIfAbsent(x.step(), s -> new ArrayList<>()).add(x.toString());
        }
        steps.values().forEach(list -> list.sort(null));
        return steps;
    }

    private static void assertSameAsTheEngine(final JoinSpec spec, final List<Event> events)
    {
        final Outcome driver = throughDriver(spec, events);
        assertTrue(driver.results().size() >= 3, "the scenario emits: " + driver.results());
        assertEquals(throughEngine(spec, events, 1), driver, "the driver and a one-partition engine");
        assertEquals(perStep(throughEngine(spec, events, 4)), perStep(driver), "the driver and a four-partition engine, per step");
    }

    @Test
    void aRegularLeftJoinGivesTheEnginesChangelog()
    {
        assertSameAsTheEngine(regularSpec(), regularScenario());
        final Outcome outcome = throughDriver(regularSpec(), regularScenario());
        assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, outcome.deadLetters().get(0).reason());
        assertTrue(!outcome.expiries().isEmpty(), "the right side's TTL expired rows: " + outcome);
    }

    @Test
    void anIntervalJoinGivesTheEnginesChangelog()
    {
        assertSameAsTheEngine(intervalSpec(), intervalScenario());
        final Outcome outcome = throughDriver(intervalSpec(), intervalScenario());
        assertTrue(outcome.deadLetters().stream().anyMatch(d -> d.reason() == DeadLetterReason.LATE && d.step() == 7),
            "the row below the watermark is late: " + outcome.deadLetters());
    }

    @Test
    void anAsofJoinGivesTheEnginesChangelog()
    {
        assertSameAsTheEngine(asofSpec(), asofScenario());
        final List<String> lines = new ArrayList<>();
        for (final CollectingResultHandler.Result r : throughDriver(asofSpec(), asofScenario()).results())
        {
            lines.add(r.kind().shortString() + " " + r.left().get("show") + " " + (r.right() == null ? null : r.right().get("click")));
        }
        assertEquals(List.of("+I t1 q100", "-U t1 q100", "+U t1 q101", "+I t2 null", "+I t3 null"), lines);
    }

    private static final Schema SHOWN_ADS = Schema.of("id", "ts", "ads");
    private static final Schema AD_CLICKS = Schema.of("ad", "ts", "click");

    private static JoinSpec unnestSpec()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SHOWN_ADS, AD_CLICKS).leftKey("ad").rightKey("ad")
            .leftExpand(Expansion.unnest("ads", "ad").ordinality("slot")).build();
    }

    private static List<Event> unnestScenario()
    {
        final Row s1 = Row.of("id", 1, "ts", 100L, "ads", List.of("a1", "a2", "a1"));
        return List.of(
            Event.row(Side.LEFT, ChangeKind.INSERT, s1, 100),
            Event.row(Side.RIGHT, ChangeKind.INSERT, Row.of("ad", "a1", "ts", 150L, "click", "c1"), 150),
            Event.row(Side.LEFT, ChangeKind.INSERT, Row.of("id", 2, "ts", 200L, "ads", List.of()), 200),
            Event.row(Side.RIGHT, ChangeKind.INSERT, Row.of("ad", "a2", "ts", 250L, "click", "c2"), 250),
            Event.row(Side.LEFT, ChangeKind.DELETE, s1, 300),
            Event.endOfInput());
    }

    @Test
    void expandsRowsBeforeTheJoinAsThePublisherDoes()
    {
        assertSameAsTheEngine(unnestSpec(), unnestScenario());
        final Outcome outcome = throughDriver(unnestSpec(), unnestScenario());
        // three made rows padded, a1's two and a2's one re-emitted with their clicks, all retracted by the delete
        assertEquals(3 + 2 * 2 + 2 + 3, outcome.results().size(), outcome.toString());
        final JoinSpec standalone = JoinSpec.builder(JoinKind.EXPAND, JoinType.LEFT).schemas(SHOWN_ADS, Schema.of("ad"))
            .expand(Expansion.unnest("ads", "ad")).build();
        try (JoinTestDriver driver = JoinTestDriver.create(standalone))
        {
            assertEquals(Publisher.PUBLISHED, driver.insert(Side.LEFT, Row.of("id", 1, "ts", 1L, "ads", List.of("x", "y")), 1));
            assertEquals(Publisher.PUBLISHED, driver.insert(Side.LEFT, Row.of("id", 2, "ts", 2L, "ads", List.of()), 2));
            assertEquals(3, driver.results().size(), "two made rows, and the row that made none once with right null: " +
                driver.results());
        }
    }

    @Test
    void refusesARowWhoseExpansionFailsWithNothingOfItJoined()
    {
        try (JoinTestDriver driver = JoinTestDriver.create(unnestSpec()))
        {
            assertEquals(Publisher.EXPANSION_FAILED, driver.insert(Side.LEFT, Row.of("id", 1, "ts", 1L, "ads", "a1"), 1));
            assertTrue(driver.lastRefusal().contains("ads"), driver.lastRefusal());
            assertEquals(Publisher.PUBLISHED, driver.insert(Side.RIGHT, Row.of("ad", "a1", "ts", 2L, "click", "c1"), 2));
            driver.endOfInput();
            assertEquals(List.of(), driver.results(), "nothing of the refused row was stored");
            assertEquals(1, driver.counters().rowsIn(), "only the click reached the operator");
        }
        final JoinSpec standalone = JoinSpec.builder(JoinKind.EXPAND, JoinType.INNER).schemas(SHOWN_ADS, Schema.of("ad"))
            .expand(Expansion.unnest("ads", "ad")).build();
        try (JoinTestDriver driver = JoinTestDriver.create(standalone))
        {
            assertEquals(Publisher.EXPANSION_FAILED, driver.insert(Side.RIGHT, Row.of("ad", "x"), 1));
            assertEquals(Publisher.EXPANSION_FAILED, driver.insert(Side.LEFT, Row.of("id", 1, "ts", 1L, "ads", 7), 2));
            assertEquals(List.of(), driver.results());
        }
    }

    @Test
    void readResultsGivesEachResultOnceAndStepsCountEveryEvent()
    {
        try (JoinTestDriver driver = JoinTestDriver.create(regularSpec()))
        {
            driver.insert(Side.LEFT, show(1, 1_000, "a"), 1_000);
            assertEquals(1, driver.readResults().size(), "a left join pads the show at once");
            driver.insert(Side.RIGHT, click(1, 1_100, "x"), 1_100);
            final List<CollectingResultHandler.Result> second = driver.readResults();
            assertEquals(List.of(ChangeKind.DELETE, ChangeKind.INSERT), second.stream().map(r -> r.kind()).toList());
            assertEquals(List.of(1L, 1L), second.stream().map(r -> r.step()).toList());
            assertEquals(List.of(), driver.readResults());
            assertEquals(3, driver.results().size());
            driver.watermark(5_000);
            assertEquals(3, driver.nextStep());
        }
    }

    @Test
    void refusesWhatThePublisherRefusesWithItsCodeAndReason()
    {
        final JoinSpec spec = regularSpec();
        final List<Integer> engineCodes = new ArrayList<>();
        final List<String> engineReasons = new ArrayList<>();
        final Row misspelt = Row.of("idd", 1, "ts", 5, "show", "a");
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher publisher = engine.publisher();
            engineCodes.add(publisher.publish(Side.LEFT, ChangeKind.INSERT, misspelt, 5, 0));
            engineReasons.add(publisher.lastRefusal().toString());
            engineCodes.add(publisher.publish(Side.LEFT, ChangeKind.INSERT, (Row)null, 5, 1));
        }
        try (JoinTestDriver driver = JoinTestDriver.create(spec))
        {
            assertEquals(engineCodes.get(0), driver.row(Side.LEFT, ChangeKind.INSERT, misspelt, 5));
            assertEquals(engineReasons.get(0), driver.lastRefusal());
            assertEquals(engineCodes.get(1), driver.row(Side.LEFT, ChangeKind.INSERT, (Row)null, 5));
            assertEquals(List.of(), driver.results());
            assertEquals(List.of(), driver.deadLetters());
            assertEquals(2, driver.nextStep(), "a refused row is a step too");
        }
    }

    @Test
    void runsAMultiWayJoinAndRefusesTheOtherVocabulary()
    {
        final Schema s = Schema.of("k", "v");
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(s).input("a", "k").input("b", JoinType.INNER, "k").input("c", JoinType.INNER, "k")
            .build());
        try (JoinTestDriver driver = JoinTestDriver.create(spec))
        {
            assertEquals(Publisher.PUBLISHED, driver.inputRow(0, ChangeKind.INSERT, Row.of("k", 1, "v", "a"), 10));
            assertEquals(Publisher.PUBLISHED, driver.inputRow(1, ChangeKind.INSERT, Row.of("k", 1, "v", "b"), 11));
            assertEquals(Publisher.PUBLISHED, driver.inputRow(2, ChangeKind.INSERT, Row.of("k", 1, "v", "c"), 12));
            driver.endOfInput();
            assertTrue(driver.multiResults().stream().anyMatch(r -> r.rows().stream().allMatch(row -> row != null)),
                "the three rows of key 1 joined: " + driver.multiResults());
            assertThrows(IllegalStateException.class, () -> driver.insert(Side.LEFT, Row.of("k", 1), 13));
        }
        try (JoinTestDriver driver = JoinTestDriver.create(regularSpec()))
        {
            assertThrows(IllegalStateException.class, () -> driver.inputWatermark(0, 5));
            assertEquals(0, driver.nextStep());
        }
    }

    @Test
    void refusesAStateRoot()
    {
        assertThrows(IllegalArgumentException.class,
            () -> JoinTestDriver.create(regularSpec(), EngineConfig.defaults().withStateRoot(Path.of("target/never"))));
    }
}
