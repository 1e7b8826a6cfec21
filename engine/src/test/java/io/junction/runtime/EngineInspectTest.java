package io.junction.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.metrics.KeyState;
import io.junction.metrics.PartitionSnapshot;
import io.junction.metrics.RowExplanation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link EngineInspection#inspect} against running engines (docs/SEMANTICS.md 14): a key's stored rows per side with
 * their match counts and due times, read by the partitions between two events, whatever their wait strategy
 * (an idle partition blocked in its wait answers too), under load, capped, and refused clearly for bad input.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
final class EngineInspectTest
{
    private static final Schema SHOWS = Schema.of("id", "ts", "show");
    private static final Schema CLICKS = Schema.of("id", "ts", "click");

    private static JoinSpec regular()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id").build();
    }

    private static EngineConfig config(final WaitStrategyKind wait)
    {
        return EngineConfig.defaults().withPartitions(3).withWaitStrategy(wait);
    }

    private static long processed(final JoinEngine engine)
    {
        long events = 0;
        for (final PartitionSnapshot p : engine.metrics())
        {
            events += p.events;
        }
        return events;
    }

    /** Spins until the partitions have processed {@code expected} events, failing (not hanging) when they never do. */
    private static void awaitProcessed(final JoinEngine engine, final long expected)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (processed(engine) < expected)
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("processed " + processed(engine) + " events, expected " + expected);
            }
            Thread.onSpinWait();
        }
    }

    private static List<String> describe(final List<KeyState.StoredRow> rows)
    {
        final List<String> out = new ArrayList<>();
        for (final KeyState.StoredRow r : rows)
        {
            out.add(r.side() + " " + r.row() + " ts " + r.ts() + " matches " + r.matches());
        }
        out.sort(null);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(WaitStrategyKind.class)
    void listsAKeysStoredRowsWithTheirMatchCountsOnEveryWaitStrategy(final WaitStrategyKind wait)
    {
        try (JoinEngine engine = JoinEngine.builder(regular()).config(config(wait)).resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 10L, "show", "s1"), 10, 0);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 11L, "show", "s2"), 11, 1);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 12L, "click", "c1"), 12, 2);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 2L, "ts", 13L, "show", "s3"), 13, 3);
            p.publish(Side.LEFT, ChangeKind.DELETE, Row.of("id", 1L, "ts", 11L, "show", "s2"), 14, 4);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", "1", "ts", 15L, "show", "string key"), 15, 5);
            awaitProcessed(engine, 6);
            // The engine is idle now: every partition waits in its strategy and must still answer.
            final KeyState one = engine.inspection().inspect(Side.LEFT, Row.of("id", 1L));
            assertTrue(one.supported(), one.toString());
            assertEquals(List.of("LEFT {id=1, ts=10, show=\"s1\"} ts 10 matches 1"), describe(one.left()));
            assertEquals(List.of("RIGHT {id=1, ts=12, click=\"c1\"} ts 12 matches 1"), describe(one.right()));
            assertEquals(0, one.moreLeft + one.moreRight);
            assertEquals(one.toJson(), engine.inspection().inspect(Side.RIGHT, Row.of("id", 1L, "click", "anything")).toJson(),
                "a right row names the same key");
            assertEquals(List.of("LEFT {id=\"1\", ts=15, show=\"string key\"} ts 15 matches 0"),
                describe(engine.inspection().inspect(Side.LEFT, Row.of("id", "1")).left()), "\"1\" is another key than 1");
            final KeyState none = engine.inspection().inspect(Side.LEFT, Row.of("id", 99L));
            assertTrue(none.supported() && none.left().isEmpty() && none.right().isEmpty(), "an unknown key: " + none);
            assertEquals("{\"left\":[],\"moreLeft\":0,\"right\":[],\"moreRight\":0}", none.toJson());
        }
    }

    @Test
    void theManualsExampleIsWhatTheEngineAnswers() throws Exception
    {
        final List<String> manual = Files.readAllLines(Path.of("..", "docs", "SEMANTICS.md"), StandardCharsets.UTF_8);
        final int marker = manual.indexOf("<!-- inspect-example -->");
        assertTrue(marker > 0 && manual.get(marker + 1).equals("```json"), "docs/SEMANTICS.md 14 keeps its example");
        final EngineConfig defaults = config(WaitStrategyKind.SLEEPING);
        try (JoinEngine engine = JoinEngine.builder(regular()).config(defaults.withState(defaults.state().withHashSeed(0x5eedL)))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 10L, "show", "s1"), 10, 0);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 12L, "click", "c1"), 12, 1);
            awaitProcessed(engine, 2);
            assertEquals(manual.get(marker + 2), engine.inspection().inspect(Side.LEFT, Row.of("id", 1L)).toJson());
        }
    }

    @Test
    void explainsARowAgainstTheStoredRowsOfItsKeyAsTheyWouldBeDecidedNow()
    {
        // clicks must come no earlier than their show (condition ts <= ts), shows must be "ok"
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id")
            .condition("ts", CompareOp.LE, "ts").leftFilter("show", CompareOp.NE, Literal.of("bad")).build();
        try (JoinEngine engine = JoinEngine.builder(spec).config(config(WaitStrategyKind.SLEEPING))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher p = engine.publisher();
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 5L, "click", "early"), 5, 0);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 50L, "click", "late"), 50, 1);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 2L, "ts", 20L, "show", "waiting"), 20, 2);
            awaitProcessed(engine, 3);
            final RowExplanation show = engine.inspection().explain(Side.LEFT, Row.of("id", 1L, "ts", 20L, "show", "s1"), 20);
            assertEquals(List.of("CONDITION_FAILED early", "MATCHED late"), codes(show), show.toString());
            assertEquals("MATCHED", show.fate(), show.toString());
            assertTrue(show.fateDetail().contains("not stored") && show.fateDetail().contains("would join 1"), show.fateDetail());
            final RowExplanation bad = engine.inspection().explain(Side.LEFT, Row.of("id", 1L, "ts", 20L, "show", "bad"), 20);
            assertEquals(List.of("FILTER_FAILED early", "FILTER_FAILED late"), codes(bad));
            assertEquals("NO_MATCH", bad.fate());
            final RowExplanation waiting = engine.inspection().explain(Side.LEFT, Row.of("id", 2L, "ts", 20L, "show", "waiting"), 20);
            assertEquals("PENDING", waiting.fate(), waiting.toString());
            assertTrue(waiting.fateDetail().contains("waits for a right row of its key (it stays until retracted)"), waiting.fateDetail());
            assertEquals("NO_ROW_WITH_KEY", engine.inspection().explain(Side.LEFT, Row.of("id", 3L, "ts", 1L, "show", "x"), 1).fate());
            assertEquals("NULL_KEY", engine.inspection().explain(Side.LEFT, Row.of("id", null, "ts", 1L, "show", "x"), 1).fate());
            final String json = show.toJson();
            assertTrue(json.startsWith("{\"pairs\":[{\"partition\":") && json.contains("\"fate\":\"MATCHED\""), json);
        }
    }

    @Test
    void explainsAnIntervalRowByTheBoundItMissesAndHowFar()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id")
            .interval(IntervalBounds.inclusive(0, 1_000)).build();
        try (JoinEngine engine = JoinEngine.builder(spec).config(config(WaitStrategyKind.BLOCKING))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 100L, "show", "s1"), 100, 0);
            awaitProcessed(engine, 1);
            final RowExplanation tooLate = engine.inspection().explain(Side.RIGHT, Row.of("id", 1L, "ts", 4_100L, "click", "c"), 4_100);
            assertEquals(List.of("OUTSIDE_INTERVAL s1"), codes(tooLate), tooLate.toString());
            assertTrue(tooLate.pairs().get(0).detail().contains("above the upper bound 1000 by 3000 ms"), tooLate.toString());
            assertEquals("NO_MATCH", tooLate.fate());
            final RowExplanation stored = engine.inspection().explain(Side.LEFT, Row.of("id", 1L, "ts", 100L, "show", "s1"), 100);
            assertEquals("PENDING", stored.fate(), stored.toString());
            assertTrue(stored.fateDetail().contains("until the watermark passes 1100"), stored.fateDetail());
        }
    }

    private static List<String> codes(final RowExplanation explanation)
    {
        final List<String> out = new ArrayList<>();
        for (final RowExplanation.Pair pair : explanation.pairs())
        {
            out.add(pair.code() + " " + pair.row().get(pair.side() == Side.LEFT ? "show" : "click"));
        }
        out.sort(null);
        return out;
    }

    @Test
    void listsTheVersionsAndWaitingRowsOfTemporalLookupAndAsofJoins()
    {
        for (final JoinKind kind : new JoinKind[] {JoinKind.TEMPORAL, JoinKind.LOOKUP, JoinKind.ASOF})
        {
            final JoinSpec.Builder builder = JoinSpec.builder(kind, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id");
            if (kind == JoinKind.ASOF)
            {
                builder.asof(AsofSpec.of(AsofSpec.Direction.BACKWARD));
            }
            try (JoinEngine engine = JoinEngine.builder(builder.build()).config(config(WaitStrategyKind.SLEEPING))
                .resultHandler((k, left, right, ts, step) -> { }).start())
            {
                final Publisher p = engine.publisher();
                p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 10L, "click", "v1"), 10, 0);
                p.publish(Side.RIGHT, kind == JoinKind.ASOF ? ChangeKind.INSERT : ChangeKind.UPDATE_AFTER,
                    Row.of("id", 1L, "ts", 20L, "click", "v2"), 20, 1);
                p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 30L, "show", "s1"), 30, 2);
                awaitProcessed(engine, 3);
                final KeyState state = engine.inspection().inspect(Side.LEFT, Row.of("id", 1L));
                assertTrue(state.supported(), kind + ": " + state);
                final List<String> right = new ArrayList<>();
                state.right().forEach(r -> right.add(r.row().get("click") + " at " + r.ts()));
                right.sort(null);
                // A lookup join keeps the key's current row only; the others keep the versions a left row may select.
                assertEquals(kind == JoinKind.LOOKUP ? List.of("v2 at 20") : List.of("v1 at 10", "v2 at 20"), right, kind + ": " + state);
                assertEquals(kind == JoinKind.LOOKUP ? 0 : 1, state.left().size(), kind + ": the left row waits unless it is a lookup: " + state);
                assertTrue(state.toJson().contains("\"matches\":null"), kind + " keeps no match count: " + state);
                final RowExplanation at30 = engine.inspection().explain(Side.LEFT, Row.of("id", 1L, "ts", 30L, "show", "s1"), 30);
                assertEquals(kind == JoinKind.LOOKUP ? List.of("MATCHED v2") : List.of("MATCHED v2", "NOT_SELECTED v1"),
                    codes(at30), kind + ": " + at30);
                if (kind == JoinKind.ASOF)
                {
                    assertEquals("PENDING", at30.fate(), "the stored left row waits to be final: " + at30);
                    final RowExplanation at15 = engine.inspection().explain(Side.LEFT, Row.of("id", 1L, "ts", 15L, "show", "s0"), 15);
                    assertEquals(List.of("MATCHED v1", "OUTSIDE_INTERVAL v2"), codes(at15), "backward: " + at15);
                    final RowExplanation nearer = engine.inspection().explain(Side.RIGHT, Row.of("id", 1L, "ts", 25L, "click", "v3"), 25);
                    assertEquals(List.of("MATCHED s1"), codes(nearer), "a nearer quote would win: " + nearer);
                    final RowExplanation older = engine.inspection().explain(Side.RIGHT, Row.of("id", 1L, "ts", 15L, "click", "v0"), 15);
                    assertEquals(List.of("NOT_SELECTED s1"), codes(older), "an older quote loses to v2: " + older);
                }
                if (kind == JoinKind.TEMPORAL)
                {
                    assertEquals("PENDING", at30.fate(), "the stored left row waits for the watermark: " + at30);
                    final RowExplanation at15 = engine.inspection().explain(Side.LEFT, Row.of("id", 1L, "ts", 15L, "show", "s0"), 15);
                    assertEquals(List.of("MATCHED v1", "NOT_SELECTED v2"), codes(at15), at15.toString());
                    assertTrue(at15.toJson().contains("this version is from ts 20, after the left row's ts 15"), at15.toString());
                    final RowExplanation late = engine.inspection().explain(Side.RIGHT, Row.of("id", 1L, "ts", 40L, "click", "v3"), 40);
                    assertEquals(List.of("NOT_SELECTED s1"), codes(late), "a version after the waiting row's ts: " + late);
                }
            }
        }
    }

    @Test
    void capsTheRowsListedAndCountsTheRest()
    {
        try (JoinEngine engine = JoinEngine.builder(regular()).config(config(WaitStrategyKind.SLEEPING)).resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher p = engine.publisher();
            for (int i = 0; i < 1_000; i++)
            {
                p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 7L, "ts", (long) i, "show", "s" + i), i, i);
            }
            awaitProcessed(engine, 1_000);
            final KeyState capped = engine.inspection().inspect(Side.LEFT, Row.of("id", 7L), 10);
            assertEquals(10, capped.left().size());
            assertEquals(990, capped.moreLeft);
            assertEquals(1_000, engine.inspection().inspect(Side.LEFT, Row.of("id", 7L), 10_000).left().size());
            assertEquals(100, engine.inspection().inspect(Side.LEFT, Row.of("id", 7L)).left().size(), "the default cap");
            final String json = capped.toJson();
            assertTrue(json.startsWith("{\"left\":[{\"partition\":") && json.contains("\"moreLeft\":990"), json);
        }
    }

    @Test
    void givesEachIntervalRowItsDueTime()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SHOWS, CLICKS).leftKey("id").rightKey("id")
            .interval(IntervalBounds.inclusive(0, 1_000)).build();
        try (JoinEngine engine = JoinEngine.builder(spec).config(config(WaitStrategyKind.BLOCKING)).resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 100L, "show", "s1"), 100, 0);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 600L, "click", "c1"), 600, 1);
            awaitProcessed(engine, 2);
            final KeyState state = engine.inspection().inspect(Side.LEFT, Row.of("id", 1L));
            assertEquals(1, state.left().size(), state.toString());
            assertEquals(1, state.left().get(0).matches());
            assertTrue(state.left().get(0).due() >= 1_100 && state.left().get(0).due() != KeyState.NEVER_DUE,
                "the left row can still match a right row up to 1,100: " + state);
            assertEquals(1, state.right().size(), state.toString());
        }
    }

    @Test
    void answersUnderLoadWithoutDisturbingTheJoin() throws Exception
    {
        try (JoinEngine engine = JoinEngine.builder(regular()).config(config(WaitStrategyKind.YIELDING)).resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final Thread producer = new Thread(() ->
            {
                try
                {
                    // The producing thread's own publisher (a single-producer engine): the inspecting thread is another.
                    final Publisher p = engine.publisher();
                    p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", -1L, "ts", 0L, "show", "fixed"), 0, 0);
                    long step = 1;
                    while (!stop.get())
                    {
                        p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", step % 500, "ts", step, "show", "x"), step, step);
                        step++;
                    }
                }
                catch (final Throwable t)
                {
                    failure.set(t);
                }
            }, "inspect-load");
            producer.start();
            try
            {
                // The fixed row is the producer's first; once a partition holds it, no later event touches its key.
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (engine.inspection().inspect(Side.LEFT, Row.of("id", -1L)).left().isEmpty())
                {
                    assertTrue(System.nanoTime() - deadline < 0 && failure.get() == null, "the fixed row never arrived: " + failure.get());
                }
                for (int i = 0; i < 200; i++)
                {
                    final KeyState fixed = engine.inspection().inspect(Side.LEFT, Row.of("id", -1L));
                    assertEquals(1, fixed.left().size(), "the key nobody touches keeps its one row: " + fixed);
                    assertFalse(engine.inspection().inspect(Side.LEFT, Row.of("id", (long) (i % 500))).left().size() > 100);
                }
            }
            finally
            {
                stop.set(true);
                producer.join();
            }
            assertEquals(null, failure.get());
        }
    }

    @Test
    void refusesBadInputClearlyAndSaysWhichKindsItCannotList()
    {
        final JoinEngine engine = JoinEngine.builder(regular()).config(config(WaitStrategyKind.SLEEPING)).resultHandler((kind, left, right, ts, step) -> { }).start();
        try
        {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> engine.inspection().inspect(Side.LEFT, Row.of("idd", 1L)))
                .getMessage().contains("idd"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> engine.inspection().inspect(Side.LEFT, Row.of("show", "s")))
                .getMessage().contains("key field 'id'"));
            assertThrows(IllegalArgumentException.class, () -> engine.inspection().inspect(null, Row.of("id", 1L)));
            assertThrows(IllegalArgumentException.class, () -> engine.inspection().inspect(Side.LEFT, Row.of("id", 1L), 0));
        }
        finally
        {
            engine.close();
        }
        assertThrows(IllegalStateException.class, () -> engine.inspection().inspect(Side.LEFT, Row.of("id", 1L)));
        final JoinSpec window = JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER).schemas(SHOWS, CLICKS).leftKey("id")
            .rightKey("id").window(WindowSpec.tumbling(1_000, 0)).build();
        try (JoinEngine other = JoinEngine.builder(window).config(config(WaitStrategyKind.SLEEPING))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final KeyState state = other.inspection().inspect(Side.LEFT, Row.of("id", 1L));
            assertFalse(state.supported());
            assertTrue(state.refusal().contains("window"), state.refusal());
            assertEquals("{\"unsupported\":\"" + state.refusal() + "\"}", state.toJson());
            assertFalse(other.inspection().explain(Side.LEFT, Row.of("id", 1L), 1).supported());
        }
    }
}
