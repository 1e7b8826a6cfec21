package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.metrics.JoinCounters;
import io.junction.join.ScenarioEvents.Event;
import io.junction.join.ScenarioEvents.EventKind;
import io.junction.join.ScenarioEvents.Filter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.junction.join.ScenarioEvents.difference;
import static io.junction.join.ScenarioEvents.lines;
import static io.junction.join.ScenarioEvents.multiset;
import static io.junction.join.ScenarioEvents.randomFilter;
import static io.junction.join.ScenarioEvents.randomKey;
import static io.junction.join.ScenarioEvents.randomRowOp;
import static io.junction.join.ScenarioEvents.randomValue;
import static io.junction.join.ScenarioEvents.randomWatermarkKind;
import static io.junction.join.ScenarioEvents.sequenceSeeds;

/**
 * The window coGroup's built-in functions against a brute-force model of SEMANTICS 6.4, over short random logs
 * for every built-in, every coGroup type (inner, left, right, full) and window family: the window join's
 * random scenarios (keys 0..3, the string "1", null and absent; out-of-order rows, watermarks per side and
 * on both, sometimes going backwards; pre-filters, more often for sessions; the odd non-insert row; time
 * scaled over many wheel ticks; sometimes at an end of the long range), without a condition (a coGroup
 * has none); each sequence runs on one of the two key indexes in turn.
 *
 * <p>The model assigns rows to windows exactly as the window join's model does (SEMANTICS 6.1-6.3: windows,
 * lateness, sessions merged per key with filtered rows shaping them, null-key rows alone) and, when a
 * window fires, groups its rows: the rows that can match by key, each row that cannot (null key, failed
 * pre-filter) alone; it calls each group the type calls (full: any; left: with a left row; right: with a
 * right row; inner: with both) with its rows of each side in arrival order, and applies the built-in by
 * its SEMANTICS 6.4 definition. The engine must agree step by step: the multiset of outputs per step, the dead
 * letters with their steps and reasons, the counters, and empty state at the end.
 *
 * <p>Seeded: {@code -Djunction.cogroup.seed=N} fixes the base seed, {@code -Djunction.cogroup.sequenceSeed=N}
 * reruns one sequence, {@code -Djunction.cogroup.sequences=N} sets the sequences per combination.
 */
class CoGroupDifferentialTest
{
    private static final int SEQUENCES = Integer.getInteger("junction.cogroup.sequences", 120);
    private static final Object ABSENT = IntervalTestRows.ABSENT;
    private static final int MAX_REPORTED = 10;
    private static final long BASE_SEED = Long.getLong("junction.cogroup.seed", new SplittableRandom().nextLong());
    private static final JoinType[] TYPES = {JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL};

    private static final class Scenario
    {
        final long seed;
        final JoinType type;
        final WindowSpec.Kind kind;
        final CoGroupBuiltin builtin;
        final IndexKind index;
        final long size;
        final long slide;
        final long offset;
        final long gap;
        final Filter leftFilter;
        final Filter rightFilter;
        final List<Event> events = new ArrayList<>();

        Scenario(final long seed, final JoinType type, final WindowSpec.Kind kind, final CoGroupBuiltin builtin, final IndexKind index)
        {
            this.seed = seed;
            this.type = type;
            this.kind = kind;
            this.builtin = builtin;
            this.index = index;
            final SplittableRandom random = new SplittableRandom(seed);
            final int scaleDice = random.nextInt(100);
            final long scale = scaleDice < 55 ? 1 : scaleDice < 75 ? 37 : scaleDice < 92 ? 1000 : 300_000;
            final int placeDice = random.nextInt(100);
            final boolean nearMin = placeDice < 5;
            final boolean nearMax = placeDice >= 5 && placeDice < 10;
            final long shift = nearMin ? Long.MIN_VALUE + random.nextLong(0, 40) * scale :
                nearMax ? Long.MAX_VALUE - random.nextLong(100, 250) * scale :
                placeDice < 20 ? (random.nextBoolean() ? 1_000_000_000_000L : -1_000_000_000_000L) + random.nextLong(-5000, 5001) : 0;
            final boolean huge = random.nextInt(100) < 6;
            switch (kind)
            {
                case TUMBLING:
                    size = huge ? Long.MAX_VALUE - random.nextLong(0, 1000) : random.nextLong(1, 13) * scale + jitter(random, scale);
                    slide = size;
                    offset = huge ? random.nextLong() : random.nextLong(-30, 31) * scale + jitter(random, scale);
                    gap = 0;
                    break;
                case SLIDING:
                    size = huge ? Long.MAX_VALUE - random.nextLong(0, 1000) : random.nextLong(1, 16) * scale + jitter(random, scale);
                    final int slideDice = random.nextInt(100);
                    slide = slideDice < 10 ? size + Math.min(Long.MAX_VALUE - size, random.nextLong(1, 3 * scale + 1)) :
                        slideDice < 20 || size < 2 ? size : random.nextLong((size - 1) / 6 + 1, size);
                    offset = huge ? random.nextLong() : random.nextLong(-30, 31) * scale + jitter(random, scale);
                    gap = 0;
                    break;
                default:
                    size = 0;
                    slide = 0;
                    offset = 0;
                    gap = huge ? Long.MAX_VALUE - random.nextLong(0, 1000) : random.nextLong(1, 11) * scale + jitter(random, scale);
            }
            final int filterChance = kind == WindowSpec.Kind.SESSION ? 5 : 3;
            leftFilter = randomFilter(random, filterChance);
            rightFilter = randomFilter(random, filterChance);
            final int length = random.nextInt(5, 41);
            long cursor = random.nextLong(-50, 51);
            int ids = 0;
            for (int i = 0; i < length; i++)
            {
                cursor += random.nextLong(0, 5);
                final int dice = random.nextInt(100);
                if (dice < 65)
                {
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final ChangeKind op = randomRowOp(random);
                    final long ts = clampedAdd((cursor + random.nextLong(-25, 9)) * scale + jitter(random, scale), shift);
                    events.add(new Event(EventKind.ROW, side, op, ts, randomKey(random, 9), randomValue(random),
                        (side == Side.LEFT ? "L" : "R") + ids++));
                }
                else
                {
                    final long back = random.nextInt(10) == 0 ? random.nextLong(20, 61) : random.nextLong(0, 16);
                    final long watermark = clampedAdd((cursor - back) * scale + jitter(random, scale), shift);
                    events.add(new Event(randomWatermarkKind(random), null, null, watermark, null, null, null));
                }
            }
        }

        private static long clampedAdd(final long a, final long b)
        {
            return clamp(BigInteger.valueOf(a).add(BigInteger.valueOf(b)));
        }

        private static long jitter(final SplittableRandom random, final long scale)
        {
            return scale == 1 ? 0 : random.nextLong(0, scale);
        }

        WindowSpec window()
        {
            switch (kind)
            {
                case TUMBLING:
                    return WindowSpec.tumbling(size, offset);
                case SLIDING:
                    return WindowSpec.sliding(size, slide, offset);
                default:
                    return WindowSpec.session(gap);
            }
        }

        JoinSpec spec()
        {
            final JoinSpec.Builder builder = CoGroupTestHarness.spec(type, window()).coGroup(builtin);
            if (leftFilter != null)
            {
                builder.leftFilter("v", leftFilter.op(), Literal.of(leftFilter.value()));
            }
            if (rightFilter != null)
            {
                builder.rightFilter("v", rightFilter.op(), Literal.of(rightFilter.value()));
            }
            return builder.build();
        }

        String describe()
        {
            final StringBuilder sb = new StringBuilder();
            sb.append("index: ").append(index).append('\n');
            sb.append("join: {\"join\":\"window\",\"type\":\"").append(type.name().toLowerCase())
                .append("\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"coGroup\":\"").append(builtin.jsonName())
                .append("\",\"window\":").append(window());
            if (leftFilter != null)
            {
                sb.append(',').append(leftFilter.json("leftFilter"));
            }
            if (rightFilter != null)
            {
                sb.append(',').append(rightFilter.json("rightFilter"));
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

    /** A non-late input row; {@code seq} is its step, which orders rows by arrival. */
    private record ModelRow(Event event, boolean matchable, int seq)
    {
        Side side()
        {
            return event.side();
        }
    }

    private static final class Session
    {
        final List<ModelRow> rows = new ArrayList<>();
        long min;
        long max;

        Session(final ModelRow row)
        {
            rows.add(row);
            min = row.event().ts();
            max = row.event().ts();
        }
    }

    private record Line(long step, String text) implements Comparable<Line>, ScenarioEvents.Text
    {
        @Override
        public int compareTo(final Line o)
        {
            return step != o.step ? Long.compare(step, o.step) : text.compareTo(o.text);
        }

        @Override
        public String toString()
        {
            return step + ": " + text;
        }
    }

    private static final class Model
    {
        final Scenario s;
        final List<Line> expected = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        final long[] openLeft;
        final long[] openRight;
        long lateRows;
        long badInputs;
        long rowsIn;
        private long watermarkLeft = Long.MIN_VALUE;
        private long watermarkRight = Long.MIN_VALUE;
        private long watermark = Long.MIN_VALUE;
        private final TreeMap<BigInteger, List<ModelRow>> windows = new TreeMap<>();
        private final Map<Object, List<Session>> sessions = new HashMap<>();
        private final List<Session> loneSessions = new ArrayList<>();

        Model(final Scenario s)
        {
            this.s = s;
            final int endStep = s.events.size();
            openLeft = new long[endStep + 1];
            openRight = new long[endStep + 1];
            for (int step = 0; step < endStep; step++)
            {
                final Event e = s.events.get(step);
                switch (e.kind())
                {
                    case ROW:
                        rowsIn++;
                        onRow(e, step);
                        break;
                    case WATERMARK_BOTH:
                        advance(e.ts(), e.ts(), step);
                        break;
                    case WATERMARK_LEFT:
                        advance(e.ts(), Long.MIN_VALUE, step);
                        break;
                    default:
                        advance(Long.MIN_VALUE, e.ts(), step);
                }
                countOpen(step);
            }
            fire(endStep, true);
            Collections.sort(expected);
        }

        private boolean due(final long end)
        {
            return watermark != Long.MIN_VALUE && end - 1 <= watermark;
        }

        private void advance(final long left, final long right, final int step)
        {
            watermarkLeft = Math.max(watermarkLeft, left);
            watermarkRight = Math.max(watermarkRight, right);
            final long joined = Math.min(watermarkLeft, watermarkRight);
            if (joined > watermark)
            {
                watermark = joined;
                fire(step, false);
            }
        }

        private void onRow(final Event e, final int step)
        {
            if (e.op() != ChangeKind.INSERT)
            {
                badInputs++;
                deadLetters.add(step + " " + e.side() + " " + e.id() + " " + DeadLetterReason.NOT_APPEND_ONLY);
                return;
            }
            final Filter filter = e.side() == Side.LEFT ? s.leftFilter : s.rightFilter;
            final boolean matchable = hasKey(e) && (filter == null || ScenarioEvents.compare(filter.op(), e.v(), filter.value()));
            final ModelRow row = new ModelRow(e, matchable, step);
            final boolean accepted = s.kind == WindowSpec.Kind.SESSION ? assignToSession(row) : assignToWindows(row);
            if (!accepted)
            {
                lateRows++;
                deadLetters.add(step + " " + e.side() + " " + e.id() + " " + DeadLetterReason.LATE_WINDOW);
            }
        }

        private boolean assignToWindows(final ModelRow row)
        {
            final BigInteger ts = BigInteger.valueOf(row.event().ts());
            final BigInteger size = BigInteger.valueOf(s.size);
            final BigInteger slide = BigInteger.valueOf(s.slide);
            boolean any = false;
            for (BigInteger start = ts.subtract(ts.subtract(BigInteger.valueOf(s.offset)).mod(slide));
                start.compareTo(ts.subtract(size)) > 0; start = start.subtract(slide))
            {
                if (!due(clamp(start.add(size))))
                {
                    windows.computeIfAbsent(start, x -> new ArrayList<>()).add(row);
                    any = true;
                }
            }
            return any;
        }

        private boolean assignToSession(final ModelRow row)
        {
            final long ts = row.event().ts();
            final Session merged = new Session(row);
            if (!hasKey(row.event()))
            {
                if (due(plusGap(ts)))
                {
                    return false;
                }
                loneSessions.add(merged);
                return true;
            }
            final List<Session> ofKey = sessions.computeIfAbsent(row.event().key(), x -> new ArrayList<>());
            final List<Session> touching = new ArrayList<>();
            for (final Session session : ofKey)
            {
                if (ts <= plusGap(session.max) && session.min <= plusGap(ts))
                {
                    touching.add(session);
                    merged.rows.addAll(session.rows);
                    merged.min = Math.min(merged.min, session.min);
                    merged.max = Math.max(merged.max, session.max);
                }
            }
            if (due(plusGap(merged.max)))
            {
                return false;
            }
            ofKey.removeAll(touching);
            ofKey.add(merged);
            return true;
        }

        private void fire(final int step, final boolean all)
        {
            if (s.kind != WindowSpec.Kind.SESSION)
            {
                for (final Iterator<Map.Entry<BigInteger, List<ModelRow>>> it = windows.entrySet().iterator(); it.hasNext(); )
                {
                    final Map.Entry<BigInteger, List<ModelRow>> w = it.next();
                    final long end = clamp(w.getKey().add(BigInteger.valueOf(s.size)));
                    if (all || due(end))
                    {
                        emit(w.getValue(), clamp(w.getKey()), end, step);
                        it.remove();
                    }
                }
                return;
            }
            final List<List<Session>> lists = new ArrayList<>(sessions.values());
            lists.add(loneSessions);
            for (final List<Session> list : lists)
            {
                for (final Iterator<Session> it = list.iterator(); it.hasNext(); )
                {
                    final Session session = it.next();
                    final long end = plusGap(session.max);
                    if (all || due(end))
                    {
                        emit(session.rows, session.min, end, step);
                        it.remove();
                    }
                }
            }
        }

        /** A window fires: its rows grouped (by key; a row that cannot match alone), each group the type calls is called. */
        private void emit(final List<ModelRow> unordered, final long start, final long end, final int step)
        {
            final List<ModelRow> rows = new ArrayList<>(unordered);
            rows.sort(Comparator.comparingInt(ModelRow::seq));
            final Map<Object, List<ModelRow>> byKey = new LinkedHashMap<>();
            final List<List<ModelRow>> groups = new ArrayList<>();
            for (final ModelRow row : rows)
            {
                if (row.matchable())
                {
                    byKey.computeIfAbsent(row.event().key(), x -> new ArrayList<>()).add(row);
                }
                else
                {
                    groups.add(List.of(row));
                }
            }
            groups.addAll(byKey.values());
            final String window = " [" + start + ',' + end + ')';
            for (final List<ModelRow> group : groups)
            {
                final List<ModelRow> left = new ArrayList<>();
                final List<ModelRow> right = new ArrayList<>();
                for (final ModelRow row : group)
                {
                    (row.side() == Side.LEFT ? left : right).add(row);
                }
                final boolean needsLeft = s.type == JoinType.INNER || s.type == JoinType.LEFT;
                final boolean needsRight = s.type == JoinType.INNER || s.type == JoinType.RIGHT;
                if (left.isEmpty() && needsLeft || right.isEmpty() && needsRight)
                {
                    continue;
                }
                switch (s.builtin)
                {
                    case COUNT:
                        final Event keyRow = (left.isEmpty() ? right : left).get(0).event();
                        final String key = keyRow.key() == ABSENT ? "" :
                            "k=" + (keyRow.key() instanceof String ? "\"" + keyRow.key() + "\"" : String.valueOf(keyRow.key())) + ", ";
                        expected.add(new Line(step, "null null {" + key + "leftCount=" + left.size() + ", rightCount=" +
                            right.size() + "}" + window));
                        break;
                    case FIRST:
                        expected.add(new Line(step, id(left, 0) + " " + id(right, 0) + window));
                        break;
                    case LAST:
                        expected.add(new Line(step, id(left, left.size() - 1) + " " + id(right, right.size() - 1) + window));
                        break;
                    default:
                        for (final ModelRow l : left)
                        {
                            expected.add(new Line(step, l.event().id() + " null {matches=" + right.size() + "}" + window));
                        }
                }
            }
        }

        private static String id(final List<ModelRow> rows, final int i)
        {
            return rows.isEmpty() ? "null" : rows.get(i).event().id();
        }

        private void countOpen(final int step)
        {
            final List<List<ModelRow>> held = new ArrayList<>(windows.values());
            for (final List<Session> list : sessions.values())
            {
                list.forEach(session -> held.add(session.rows));
            }
            loneSessions.forEach(session -> held.add(session.rows));
            for (final List<ModelRow> rows : held)
            {
                for (final ModelRow row : rows)
                {
                    if (row.side() == Side.LEFT)
                    {
                        openLeft[step]++;
                    }
                    else
                    {
                        openRight[step]++;
                    }
                }
            }
        }

        private static boolean hasKey(final Event e)
        {
            return e.key() != null && e.key() != ABSENT;
        }

        private long plusGap(final long t)
        {
            return clamp(BigInteger.valueOf(t).add(BigInteger.valueOf(s.gap)));
        }
    }

    static Stream<Arguments> combinations()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final CoGroupBuiltin builtin : CoGroupBuiltin.values())
        {
            for (final JoinType type : TYPES)
            {
                for (final WindowSpec.Kind kind : WindowSpec.Kind.values())
                {
                    all.add(Arguments.of(builtin, type, kind));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("combinations")
    void agreesWithABruteForceModelOfSpec(final CoGroupBuiltin builtin, final JoinType type, final WindowSpec.Kind kind)
    {
        final Long only = Long.getLong("junction.cogroup.sequenceSeed");
        if (only != null)
        {
            for (final IndexKind index : IndexKind.values())
            {
                final String problem = check(new Scenario(only, type, kind, builtin, index), "sequenceSeed=" + only);
                if (problem != null)
                {
                    throw new AssertionError(problem);
                }
            }
            return;
        }
        final long combination = (builtin.ordinal() * 16L + type.ordinal()) * 4 + kind.ordinal() + 1;
        final SplittableRandom seeds = sequenceSeeds(BASE_SEED, combination);
        String first = null;
        final List<Long> failing = new ArrayList<>();
        for (int i = 0; i < SEQUENCES; i++)
        {
            final long seed = seeds.nextLong();
            final IndexKind index = IndexKind.values()[i % IndexKind.values().length];
            final String problem = check(new Scenario(seed, type, kind, builtin, index), "base seed " + BASE_SEED +
                " (-Djunction.cogroup.seed=" + BASE_SEED + "), sequence " + i + " (-Djunction.cogroup.sequenceSeed=" + seed + ")");
            if (problem != null)
            {
                failing.add(seed);
                if (first == null)
                {
                    first = problem;
                }
            }
        }
        if (first != null)
        {
            throw new AssertionError(failing.size() + " of " + SEQUENCES + " sequences of " + builtin + " " + type + " " + kind +
                " disagree with the model (base seed " + BASE_SEED + "); sequence seeds" +
                (failing.size() > MAX_REPORTED ? " (first " + MAX_REPORTED + ")" : "") + ": " +
                failing.subList(0, Math.min(MAX_REPORTED, failing.size())) + "\nfirst failure:\n" + first);
        }
    }

    private static String check(final Scenario s, final String seedText)
    {
        final Model model = new Model(s);
        final List<Line> actual = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final JoinCounters counters;
        try (CoGroupTestHarness h = new CoGroupTestHarness(s.spec(), OperatorTestHarness.SMALL_STATE.withIndex(s.index)))
        {
            for (int step = 0; step < s.events.size(); step++)
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
                final JoinCounters c = (JoinCounters)h.counters();
                if (c.liveLeft > model.openLeft[step] || c.liveRight > model.openRight[step])
                {
                    problems.add("after step " + step + " state holds " + c.liveLeft + " left / " + c.liveRight +
                        " right rows, but unfired windows hold only " + model.openLeft[step] + " / " + model.openRight[step]);
                }
            }
            h.end();
            for (final CoGroupTestHarness.Out o : h.out)
            {
                actual.add(new Line(o.step(), o.text()));
            }
            for (final OperatorTestHarness.Dead d : h.dead)
            {
                deadLetters.add(d.step() + " " + d.side() + " " + d.id() + " " + d.reason());
            }
            counters = (JoinCounters)h.counters();
        }
        Collections.sort(actual);
        if (!model.expected.equals(actual))
        {
            final TreeMap<String, Integer> expectedFinal = multiset(model.expected);
            final TreeMap<String, Integer> actualFinal = multiset(actual);
            problems.add(!expectedFinal.equals(actualFinal) ? "results differ: missing " + difference(expectedFinal, actualFinal) +
                ", unexpected " + difference(actualFinal, expectedFinal) : "same results, but emitted at other steps");
        }
        if (!model.deadLetters.equals(deadLetters))
        {
            problems.add("dead letters differ: expected " + model.deadLetters + ", actual " + deadLetters);
        }
        if (counters.lateRows != model.lateRows || counters.badInputs != model.badInputs || counters.rowsIn != model.rowsIn)
        {
            problems.add("counters: lateRows=" + counters.lateRows + " badInputs=" + counters.badInputs + " rowsIn=" + counters.rowsIn +
                ", expected " + model.lateRows + ", " + model.badInputs + " and " + model.rowsIn);
        }
        if (counters.rowsOut != actual.size() || counters.coGroupFailures != 0)
        {
            problems.add("counters: rowsOut=" + counters.rowsOut + " for " + actual.size() + " outputs, coGroupFailures=" +
                counters.coGroupFailures);
        }
        if (counters.liveLeft != 0 || counters.liveRight != 0 || counters.pendingTimers != 0)
        {
            problems.add("state after the end of input: liveLeft=" + counters.liveLeft + " liveRight=" + counters.liveRight +
                " pendingTimers=" + counters.pendingTimers);
        }
        if (problems.isEmpty())
        {
            return null;
        }
        return "coGroup disagrees with the SEMANTICS 6.4 model, " + s.builtin + " " + s.type + " " + s.window() + ", " + seedText + "\n" +
            String.join("\n", problems) + "\n" + s.describe() +
            "expected (step: output):\n" + lines(model.expected) + "actual:\n" + lines(actual);
    }

    private static long clamp(final BigInteger value)
    {
        return value.max(BigInteger.valueOf(Long.MIN_VALUE)).min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
    }
}
