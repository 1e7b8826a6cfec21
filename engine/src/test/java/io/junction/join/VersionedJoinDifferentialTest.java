package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.join.ScenarioEvents.Event;
import io.junction.join.ScenarioEvents.EventKind;
import io.junction.join.ScenarioEvents.Filter;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.junction.join.ScenarioEvents.ABSENT;
import static io.junction.join.ScenarioEvents.difference;
import static io.junction.join.ScenarioEvents.lines;
import static io.junction.join.ScenarioEvents.multiset;
import static io.junction.join.ScenarioEvents.randomFilter;
import static io.junction.join.ScenarioEvents.randomKey;
import static io.junction.join.ScenarioEvents.randomOp;
import static io.junction.join.ScenarioEvents.randomValue;
import static io.junction.join.ScenarioEvents.randomWatermarkKind;
import static io.junction.join.ScenarioEvents.sequenceSeeds;

/**
 * The temporal and lookup joins against a brute-force model of docs/SEMANTICS.md section 7, over
 * thousands of short random logs per kind and type: versions out of order, {@code -D}, {@code -U},
 * {@code +U}, two changes at one ts, late left rows, right rows below the watermark (never late: they count for every left row not emitted yet), watermarks per side and on both (sometimes
 * going backwards), few keys (a string key, null and absent keys), optional pre-filters and condition,
 * the odd non-insert left row, timestamps next to the ends of the long range.
 *
 * <p>The model keeps every change of the table it has accepted, forever, and picks a left row's
 * version from all of them: the greatest ts at or below the left row's (temporal), or the last one
 * received (lookup). So it also checks that the operator's freeing of versions is invisible. It
 * tracks the engine's exact state size too: the waiting left rows, and per key the versions above the
 * join watermark plus the newest at or below it, a tombstone too (temporal), or the key's
 * current version (lookup).
 *
 * <p>Seeded: the base seed is random unless {@code -Djunction.versioned.seed=N} is given; a failure prints
 * it, the sequence's own seed ({@code -Djunction.versioned.sequenceSeed=N} reruns just that one), the join
 * and the log in the replay format.
 */
class VersionedJoinDifferentialTest
{
    private static final int SEQUENCES = Integer.getInteger("junction.versioned.sequences", 1500);

    private static final class Scenario
    {
        final long seed;
        final JoinKind kind;
        final JoinType type;
        final Filter leftFilter;
        final Filter rightFilter;
        final CompareOp condition;
        final List<Event> events = new ArrayList<>();

        Scenario(final long seed, final JoinKind kind, final JoinType type)
        {
            this.seed = seed;
            this.kind = kind;
            this.type = type;
            final SplittableRandom random = new SplittableRandom(seed);
            final int shift = random.nextInt(100);
            final long offset = shift < 6 ? Long.MAX_VALUE - 200 : shift < 12 ? Long.MIN_VALUE + 200 : 0;
            leftFilter = randomFilter(random, 2);
            rightFilter = randomFilter(random, 2);
            condition = random.nextInt(10) < 3 ? randomOp(random) : null;
            final int length = random.nextInt(5, 51);
            long cursor = offset + random.nextLong(-50, 51);
            int ids = 0;
            for (int i = 0; i < length; i++)
            {
                cursor += random.nextLong(0, 4);
                final int dice = random.nextInt(100);
                if (dice < 70)
                {
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final ChangeKind op;
                    if (side == Side.LEFT)
                    {
                        op = random.nextInt(100) < 4 ? ChangeKind.values()[1 + random.nextInt(3)] : ChangeKind.INSERT;
                    }
                    else
                    {
                        final int o = random.nextInt(100);
                        op = o < 45 ? ChangeKind.INSERT : o < 70 ? ChangeKind.UPDATE_AFTER : o < 88 ? ChangeKind.DELETE
                            : ChangeKind.UPDATE_BEFORE;
                    }
                    // Few distinct timestamps, so that two changes of one key at one ts happen.
                    final long ts = cursor + random.nextLong(-12, 9);
                    events.add(new Event(EventKind.ROW, side, op, ts, randomKey(random, 5), randomValue(random),
                        (side == Side.LEFT ? "L" : "R") + ids++));
                }
                else
                {
                    final long watermark = random.nextInt(10) == 0 ? cursor - random.nextLong(20, 61) : cursor - random.nextLong(0, 10);
                    events.add(new Event(randomWatermarkKind(random), null, null, watermark, null, null, null));
                }
            }
        }

        JoinSpec spec()
        {
            final JoinSpec.Builder builder = VersionedTestHarness.spec(kind, type);
            if (leftFilter != null)
            {
                builder.leftFilter("v", leftFilter.op(), Literal.of(leftFilter.value()));
            }
            if (rightFilter != null)
            {
                builder.rightFilter("v", rightFilter.op(), Literal.of(rightFilter.value()));
            }
            if (condition != null)
            {
                builder.condition("v", condition, "v");
            }
            return builder.build();
        }

        String describe()
        {
            final StringBuilder sb = new StringBuilder();
            sb.append("join: {\"join\":\"").append(kind.name().toLowerCase()).append("\",\"type\":\"")
                .append(type.name().toLowerCase()).append("\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]");
            if (leftFilter != null)
            {
                sb.append(',').append(leftFilter.json("leftFilter"));
            }
            if (rightFilter != null)
            {
                sb.append(',').append(rightFilter.json("rightFilter"));
            }
            if (condition != null)
            {
                sb.append(",\"condition\":[{\"left\":\"v\",\"op\":\"").append(condition.symbol()).append("\",\"right\":\"v\"}]");
            }
            sb.append("}\nevents (step: line):\n");
            for (int i = 0; i < events.size(); i++)
            {
                sb.append(String.format("%3d: ", i)).append(events.get(i).json()).append('\n');
            }
            sb.append(String.format("%3d: <end of input>%n", events.size()));
            return sb.toString();
        }
    }

    /** One expected or actual output line. */
    private record Line(long step, String text, long ts) implements Comparable<Line>, ScenarioEvents.Text
    {
        @Override
        public int compareTo(final Line o)
        {
            if (step != o.step)
            {
                return Long.compare(step, o.step);
            }
            final int c = text.compareTo(o.text);
            return c != 0 ? c : Long.compare(ts, o.ts);
        }

        @Override
        public String toString()
        {
            return step + ": " + text + " ts=" + ts;
        }
    }

    /** A change of the table as the model keeps it: a version from {@code ts} on, or a tombstone. */
    private record Change(long ts, Event event, boolean tombstone)
    {
    }

    private static final class Model
    {
        final List<Line> expected = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        /** State size the engine must report after each step (the end of input included). */
        final long[] liveLeft;
        final long[] liveRight;
        private final Scenario s;
        /** Every accepted change per key, never pruned. */
        private final Map<Object, List<Change>> table = new HashMap<>();
        private final List<Event> waiting = new ArrayList<>();

        Model(final Scenario s)
        {
            this.s = s;
            final int end = s.events.size();
            liveLeft = new long[end + 1];
            liveRight = new long[end + 1];
            final boolean temporal = s.kind == JoinKind.TEMPORAL;
            long wl = Long.MIN_VALUE;
            long wr = Long.MIN_VALUE;
            long joined = Long.MIN_VALUE;
            for (int step = 0; step <= end; step++)
            {
                if (step == end)
                {
                    joined = Long.MAX_VALUE;
                    if (temporal)
                    {
                        fireUpTo(joined, step);
                    }
                }
                else
                {
                    final Event e = s.events.get(step);
                    if (e.kind() == EventKind.ROW)
                    {
                        if (e.side() == Side.LEFT)
                        {
                            left(e, step, temporal ? joined : Long.MIN_VALUE, temporal);
                        }
                        else
                        {
                            right(e, step, temporal ? joined : Long.MIN_VALUE, temporal);
                        }
                    }
                    else
                    {
                        if (e.kind() != EventKind.WATERMARK_RIGHT)
                        {
                            wl = Math.max(wl, e.ts());
                        }
                        if (e.kind() != EventKind.WATERMARK_LEFT)
                        {
                            wr = Math.max(wr, e.ts());
                        }
                        if (Math.min(wl, wr) > joined)
                        {
                            joined = Math.min(wl, wr);
                            if (temporal)
                            {
                                fireUpTo(joined, step);
                            }
                        }
                    }
                }
                liveLeft[step] = waiting.size();
                liveRight[step] = temporal ? keptVersions(joined) : currentVersions();
            }
            Collections.sort(expected);
        }

        private void left(final Event e, final int step, final long watermark, final boolean temporal)
        {
            if (e.op() != ChangeKind.INSERT)
            {
                deadLetters.add(step + " " + DeadLetterReason.NOT_APPEND_ONLY);
                return;
            }
            if (e.ts() < watermark)
            {
                deadLetters.add(step + " " + DeadLetterReason.LATE);
                return;
            }
            if (nullKey(e) || !passes(s.leftFilter, e))
            {
                pad(e, step);
                return;
            }
            if (!temporal || watermark != Long.MIN_VALUE && e.ts() <= watermark)
            {
                emit(e, step, temporal);
                return;
            }
            waiting.add(e);
        }

        private void right(final Event e, final int step, final long watermark, final boolean temporal)
        {
            // A right row is never late: it changes the table for every left row not emitted yet.
            if (e.op() == ChangeKind.UPDATE_BEFORE)
            {
                return;
            }
            if (nullKey(e))
            {
                return;
            }
            final List<Change> changes = table.computeIfAbsent(e.key(), k -> new ArrayList<>());
            if (temporal)
            {
                // A later change at the same ts replaces the earlier one.
                changes.removeIf(c -> c.ts() == e.ts());
            }
            changes.add(new Change(e.ts(), e, e.op() == ChangeKind.DELETE));
        }

        private void fireUpTo(final long watermark, final int step)
        {
            for (final Iterator<Event> it = waiting.iterator(); it.hasNext(); )
            {
                final Event l = it.next();
                if (l.ts() <= watermark)
                {
                    emit(l, step, true);
                    it.remove();
                }
            }
        }

        private void emit(final Event l, final int step, final boolean temporal)
        {
            final List<Change> changes = table.getOrDefault(l.key(), List.of());
            Change chosen = null;
            for (final Change c : changes)
            {
                if (temporal ? c.ts() <= l.ts() && (chosen == null || c.ts() > chosen.ts()) : true)
                {
                    chosen = c;
                }
            }
            if (chosen != null && !chosen.tombstone() && passes(s.rightFilter, chosen.event()) &&
                (s.condition == null || ScenarioEvents.compare(s.condition, l.v(), chosen.event().v())))
            {
                expected.add(new Line(step, "+I " + l.id() + " " + chosen.event().id(), l.ts()));
                return;
            }
            pad(l, step);
        }

        private void pad(final Event l, final int step)
        {
            if (s.type == JoinType.LEFT)
            {
                expected.add(new Line(step, "+I " + l.id() + " null", l.ts()));
            }
        }

        /** Temporal: per key, the changes above the watermark, plus the newest at or below it (a tombstone too). */
        private long keptVersions(final long watermark)
        {
            long kept = 0;
            for (final List<Change> changes : table.values())
            {
                Change base = null;
                for (final Change c : changes)
                {
                    if (watermark == Long.MIN_VALUE || c.ts() > watermark)
                    {
                        kept++;
                    }
                    else if (base == null || c.ts() > base.ts())
                    {
                        base = c;
                    }
                }
                if (base != null)
                {
                    kept++;
                }
            }
            return kept;
        }

        /** Lookup: the keys whose last change is not a deletion. */
        private long currentVersions()
        {
            long kept = 0;
            for (final List<Change> changes : table.values())
            {
                if (!changes.isEmpty() && !changes.get(changes.size() - 1).tombstone())
                {
                    kept++;
                }
            }
            return kept;
        }

        private static boolean nullKey(final Event e)
        {
            return e.key() == null || e.key() == ABSENT;
        }

        private static boolean passes(final Filter filter, final Event e)
        {
            return filter == null || ScenarioEvents.compare(filter.op(), e.v(), filter.value());
        }
    }

    static Stream<Arguments> kindsTypesAndIndexes()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final JoinKind kind : new JoinKind[] {JoinKind.TEMPORAL, JoinKind.LOOKUP})
        {
            for (final JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT})
            {
                for (final IndexKind index : IndexKind.values())
                {
                    all.add(Arguments.of(kind, type, index));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("kindsTypesAndIndexes")
    void agreesWithABruteForceModel(final JoinKind kind, final JoinType type, final IndexKind index)
    {
        final StateConfig config = OperatorTestHarness.SMALL_STATE.withIndex(index);
        final Long only = Long.getLong("junction.versioned.sequenceSeed");
        if (only != null)
        {
            check(new Scenario(only, kind, type), config, "sequenceSeed=" + only + ", index " + index);
            return;
        }
        final long base = Long.getLong("junction.versioned.seed", new SplittableRandom().nextLong());
        final long combination = (kind.ordinal() * 8L + type.ordinal()) * IndexKind.values().length + index.ordinal() + 1;
        final SplittableRandom seeds = sequenceSeeds(base, combination);
        final int sequences = SEQUENCES / IndexKind.values().length;
        for (int i = 0; i < sequences; i++)
        {
            final long seed = seeds.nextLong();
            check(new Scenario(seed, kind, type), config, "base seed " + base + " (-Djunction.versioned.seed=" + base + "), index " +
                index + ", sequence " + i + " (-Djunction.versioned.sequenceSeed=" + seed + ")");
        }
    }

    private static void check(final Scenario s, final StateConfig config, final String seedText)
    {
        final Model model = new Model(s);
        final List<Line> actual = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final OperatorCounters counters;
        try (VersionedTestHarness h = new VersionedTestHarness(s.spec(), config))
        {
            for (int step = 0; step <= s.events.size(); step++)
            {
                if (step == s.events.size())
                {
                    h.end();
                }
                else
                {
                    final Event e = s.events.get(step);
                    switch (e.kind())
                    {
                        case ROW:
                            h.row(e.side(), e.op(), e.ts(), e.key(), e.id(), e.v());
                            break;
                        case WATERMARK_BOTH:
                            h.watermark(e.ts());
                            break;
                        case WATERMARK_LEFT:
                            h.watermark(Side.LEFT, e.ts());
                            break;
                        default:
                            h.watermark(Side.RIGHT, e.ts());
                    }
                }
                final OperatorCounters c = h.counters();
                if (c.liveLeft() != model.liveLeft[step] || c.liveRight() != model.liveRight[step])
                {
                    problems.add("after step " + step + " state holds " + c.liveLeft() + " left / " + c.liveRight() +
                        " right rows, the model " + model.liveLeft[step] + " / " + model.liveRight[step]);
                }
            }
            for (final VersionedTestHarness.Out o : h.out)
            {
                actual.add(new Line(o.step(), o.text(), o.ts()));
                if (o.kind() != ChangeKind.INSERT)
                {
                    problems.add("not append-only: " + o);
                }
            }
            for (final OperatorTestHarness.Dead d : h.dead)
            {
                deadLetters.add(d.step() + " " + d.reason());
            }
            counters = h.counters();
        }
        Collections.sort(actual);
        final TreeMap<String, Integer> expectedFinal = multiset(model.expected);
        final TreeMap<String, Integer> actualFinal = multiset(actual);
        if (!expectedFinal.equals(actualFinal))
        {
            problems.add("final results differ: missing " + difference(expectedFinal, actualFinal) +
                ", unexpected " + difference(actualFinal, expectedFinal));
        }
        else if (!model.expected.equals(actual))
        {
            problems.add("same final results, but emitted at other steps (or with other timestamps)");
        }
        if (!model.deadLetters.equals(deadLetters))
        {
            problems.add("dead letters differ: expected " + model.deadLetters + ", actual " + deadLetters);
        }
        final long late = model.deadLetters.stream().filter(d -> d.endsWith(DeadLetterReason.LATE.name())).count();
        if (counters.lateRows() != late || counters.badInputs() != model.deadLetters.size() - late)
        {
            problems.add("counters: lateRows=" + counters.lateRows() + " badInputs=" + counters.badInputs() +
                ", expected " + late + " and " + (model.deadLetters.size() - late));
        }
        if (counters.rowsOut() != actual.size())
        {
            problems.add("counters: rowsOut=" + counters.rowsOut() + " but " + actual.size() + " rows were output");
        }
        if (!problems.isEmpty())
        {
            throw new AssertionError(s.kind + " " + s.type + " join disagrees with the model, " + seedText + "\n" +
                String.join("\n", problems) + "\n" + s.describe() + "expected:\n" + lines(model.expected) + "actual:\n" + lines(actual));
        }
    }
}
