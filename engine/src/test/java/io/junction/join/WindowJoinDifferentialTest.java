package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.join.ScenarioEvents.Event;
import io.junction.join.ScenarioEvents.EventKind;
import io.junction.join.ScenarioEvents.Filter;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.metrics.OperatorCounters;
import io.junction.internal.state.KeyIndex;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.junction.join.ScenarioEvents.difference;
import static io.junction.join.ScenarioEvents.lines;
import static io.junction.join.ScenarioEvents.multiset;
import static io.junction.join.ScenarioEvents.randomFilter;
import static io.junction.join.ScenarioEvents.randomKey;
import static io.junction.join.ScenarioEvents.randomOp;
import static io.junction.join.ScenarioEvents.randomRowOp;
import static io.junction.join.ScenarioEvents.randomValue;
import static io.junction.join.ScenarioEvents.randomWatermarkKind;
import static io.junction.join.ScenarioEvents.sequenceSeeds;

/**
 * The window join against a brute-force model of SEMANTICS 6, over thousands of short random logs for
 * every join type and window family: tumbling windows of random size and offset, sliding windows of
 * random size, slide ({@code <= size}) and offset, sessions of random gap; few keys (0..3, the string
 * "1", null, absent), out-of-order rows, watermarks per side and on both (sometimes going backwards),
 * optional pre-filters (more often for sessions, where a filtered row still shapes its key's sessions)
 * and post-join condition, the odd non-insert row; time scaled so that windows span many timer-wheel
 * ticks (and sometimes more than one turn of the wheel) or sit next to zero; sometimes everything sits
 * at an end of the long range (timestamps and watermarks clamped to {@code Long.MIN_VALUE} /
 * {@code Long.MAX_VALUE}, sizes, slides, gaps and offsets up to {@code Long.MAX_VALUE}, slides larger
 * than the size); each combination splits its sequences between the off-heap hash index and Chronicle Map.
 *
 * <p>The model follows SEMANTICS 6 literally: it tracks the join watermark (the minimum of both inputs,
 * never backwards; nothing is due before both inputs have one), assigns each row to its windows that
 * have not fired (tumbling / sliding arithmetic in exact integers; sessions by merging, per key, the
 * row's {@code [ts, ts + gap)} with every unfired session of either side that overlaps or touches it,
 * a row that fails its pre-filter included: it shapes sessions but matches nothing; a null-key row is
 * alone), tells late rows (no unfired window, or a merged session that is already due), and when the
 * watermark reaches a window's {@code end - 1} (or at the end of input) joins that window's rows by
 * brute force. Windows are reported, and fire, with their start and end clamped to the long range.
 * The engine must agree step by step: the multiset of (left, right, window) per step, the dead letters
 * with their steps and reasons, the counters, and empty state at the end.
 *
 * <p>Seeded: the base seed is random unless {@code -Djunction.window.seed=N} is given; a failure
 * prints it, the sequence's own seed ({@code -Djunction.window.sequenceSeed=N} reruns just that one,
 * in each combination of type and window), the join and the event log in the replay format.
 * {@code -Djunction.window.sequences=N} sets the sequences per combination; {@code -Djunction.window.wheel=S,N}
 * runs on a timer wheel of N slots of 2^S ms instead of the default.
 */
class WindowJoinDifferentialTest
{
    private static final int SEQUENCES = Integer.getInteger("junction.window.sequences", 400);
    private static final Object ABSENT = IntervalTestRows.ABSENT;
    private static final int MAX_REPORTED = 10;
    /** One base seed for the whole run: every combination's message names the same one. */
    private static final long BASE_SEED = Long.getLong("junction.window.seed", new SplittableRandom().nextLong());
    /** {@code -Djunction.window.wheel=tickShift,slots} overrides the default timer wheel (for diagnosis). */
    private static final String WHEEL = System.getProperty("junction.window.wheel");

    // ---------------------------------------------------------------------------------------------
    // Scenario

    private static final class Scenario
    {
        final long seed;
        final JoinType type;
        final WindowSpec.Kind kind;
        final long size;
        final long slide;
        final long offset;
        final long gap;
        final Filter leftFilter;
        final Filter rightFilter;
        final CompareOp condition;
        final IndexKind index;
        final List<Event> events = new ArrayList<>();

        Scenario(final long seed, final JoinType type, final WindowSpec.Kind kind, final IndexKind index)
        {
            this.seed = seed;
            this.type = type;
            this.kind = kind;
            this.index = index;
            final SplittableRandom random = new SplittableRandom(seed);
            // Time unit: 1 ms (windows around zero, crossing the wheel's first tick boundary at 0), 37 ms or
            // 1000 ms (windows over several 1024 ms wheel ticks), 300000 ms (the log spans several turns
            // of the default wheel, 4096 ticks of 1024 ms). Sometimes everything sits near +-10^12.
            final int scaleDice = random.nextInt(100);
            final long scale = scaleDice < 55 ? 1 : scaleDice < 75 ? 37 : scaleDice < 92 ? 1000 : 300_000;
            final int placeDice = random.nextInt(100);
            // Near an end of the long range, timestamps and watermarks are clamped to it, so that some land on it.
            final boolean nearMin = placeDice < 6;
            final boolean nearMax = placeDice >= 6 && placeDice < 12;
            final long shift = nearMin ? Long.MIN_VALUE + random.nextLong(0, 40) * scale :
                nearMax ? Long.MAX_VALUE - random.nextLong(100, 250) * scale :
                placeDice < 22 ? (random.nextBoolean() ? 1_000_000_000_000L : -1_000_000_000_000L) + random.nextLong(-5000, 5001) : 0;
            // Sometimes windows as large as the long range allows, at either end of it or around zero.
            final boolean huge = random.nextInt(100) < 8;
            switch (kind)
            {
                case TUMBLING:
                    size = huge ? hugeLength(random) : random.nextLong(1, 13) * scale + jitter(random, scale);
                    slide = size;
                    offset = huge ? random.nextLong() : random.nextLong(-30, 31) * scale + jitter(random, scale);
                    gap = 0;
                    break;
                case SLIDING:
                    size = huge ? hugeLength(random) : random.nextLong(1, 16) * scale + jitter(random, scale);
                    final int slideDice = random.nextInt(100);
                    // At most 6 windows per row; sometimes a slide larger than the size (rows between windows are in none).
                    slide = slideDice < 10 ? size + Math.min(Long.MAX_VALUE - size, random.nextLong(1, 3 * scale + 1)) :
                        slideDice < 20 || size < 2 ? size : random.nextLong((size - 1) / 6 + 1, size);
                    offset = huge ? random.nextLong() : random.nextLong(-30, 31) * scale + jitter(random, scale);
                    gap = 0;
                    break;
                default:
                    size = 0;
                    slide = 0;
                    offset = 0;
                    gap = huge ? hugeLength(random) : random.nextLong(1, 11) * scale + jitter(random, scale);
            }
            // Sessions get a filter more often: a filtered row still opens, extends and bridges its key's sessions.
            final int filterChance = kind == WindowSpec.Kind.SESSION ? 5 : 3;
            leftFilter = randomFilter(random, filterChance);
            rightFilter = randomFilter(random, filterChance);
            condition = random.nextInt(10) < 3 ? randomOp(random) : null;

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
                    final EventKind wk = randomWatermarkKind(random);
                    events.add(new Event(wk, null, null, watermark, null, null, null));
                }
            }
        }

        /** @return a window length from the top of the long range: {@code Long.MAX_VALUE}, a little less, or a large fraction of it. */
        private static long hugeLength(final SplittableRandom random)
        {
            final int dice = random.nextInt(3);
            return dice == 0 ? Long.MAX_VALUE : dice == 1 ? Long.MAX_VALUE - random.nextLong(1, 1000) : random.nextLong(Long.MAX_VALUE / 4, Long.MAX_VALUE);
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
            final JoinSpec.Builder builder = WindowTestHarness.spec(type, window());
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

        String windowJson()
        {
            switch (kind)
            {
                case TUMBLING:
                    return "{\"kind\":\"tumbling\",\"size\":" + size + ",\"offset\":" + offset + "}";
                case SLIDING:
                    return "{\"kind\":\"sliding\",\"size\":" + size + ",\"slide\":" + slide + ",\"offset\":" + offset + "}";
                default:
                    return "{\"kind\":\"session\",\"gap\":" + gap + "}";
            }
        }

        String describe()
        {
            final StringBuilder sb = new StringBuilder();
            sb.append("index: ").append(index).append('\n');
            sb.append("join: {\"join\":\"window\",\"type\":\"").append(type.name().toLowerCase())
                .append("\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"window\":").append(windowJson());
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

    // ---------------------------------------------------------------------------------------------
    // Reference model

    /** A non-late input row, as the model sees it. */
    private static final class ModelRow
    {
        final Event event;
        final boolean matchable;

        ModelRow(final Event event, final boolean matchable)
        {
            this.event = event;
            this.matchable = matchable;
        }

        Side side()
        {
            return event.side();
        }

        long ts()
        {
            return event.ts();
        }

        String id()
        {
            return event.id();
        }
    }

    /** An unfired session: its rows, and {@code [min, max + gap)}. */
    private static final class Session
    {
        final List<ModelRow> rows = new ArrayList<>();
        long min;
        long max;

        Session(final ModelRow row)
        {
            rows.add(row);
            min = row.ts();
            max = row.ts();
        }
    }

    /** One expected or actual output line: the step and {@link WindowTestHarness.Out#text()}. */
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
        /** Rows of each side held in windows that have not fired after each step (a row counts once per window). */
        final long[] openLeft;
        final long[] openRight;
        long lateRows;
        long badInputs;
        long rowsIn;

        private long watermarkLeft = Long.MIN_VALUE;
        private long watermarkRight = Long.MIN_VALUE;
        private long watermark = Long.MIN_VALUE;
        /** Tumbling and sliding: the rows of each window that has not fired, by window start (exact, maybe beyond the long range). */
        private final TreeMap<BigInteger, List<ModelRow>> windows = new TreeMap<>();
        /** Sessions: the unfired sessions of each key, and the sessions of rows that can never match. */
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

        /** SEMANTICS 6: a window fires when the join watermark reaches end - 1 (never before both inputs have one). */
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
            final ModelRow row = new ModelRow(e, matchable);
            final boolean accepted = s.kind == WindowSpec.Kind.SESSION ? assignToSession(row) : assignToWindows(row);
            if (!accepted)
            {
                lateRows++;
                deadLetters.add(step + " " + e.side() + " " + e.id() + " " + DeadLetterReason.LATE_WINDOW);
            }
        }

        /**
         * Tumbling and sliding: every window of {@code size} starting at offset + n * slide that holds ts,
         * in exact integers; it is due when the watermark reaches its end, clamped to the long range, - 1.
         */
        private boolean assignToWindows(final ModelRow row)
        {
            final BigInteger ts = BigInteger.valueOf(row.ts());
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

        /**
         * Sessions: the row's {@code [ts, ts + gap)} merges with every unfired session of its key (either
         * side) that overlaps or touches it; the row is late when the merged session is already due.
         */
        private boolean assignToSession(final ModelRow row)
        {
            final long ts = row.ts();
            final Session merged = new Session(row);
            if (!hasKey(row.event))
            {
                // Only a null-key row is alone: a row that fails its filter still shapes its key's sessions.
                if (due(plusGap(ts)))
                {
                    return false;
                }
                loneSessions.add(merged);
                return true;
            }
            final List<Session> ofKey = sessions.computeIfAbsent(row.event.key(), x -> new ArrayList<>());
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

        /** One window of rows fires: brute-force join of its left and right rows. */
        private void emit(final List<ModelRow> rows, final long start, final long end, final int step)
        {
            final String window = " [" + start + ',' + end + ')';
            final boolean padLeft = s.type == JoinType.LEFT || s.type == JoinType.FULL;
            final boolean padRight = s.type == JoinType.RIGHT || s.type == JoinType.FULL;
            final Set<ModelRow> matchedRight = new HashSet<>();
            for (final ModelRow l : rows)
            {
                if (l.side() != Side.LEFT)
                {
                    continue;
                }
                boolean matched = false;
                for (final ModelRow r : rows)
                {
                    if (r.side() == Side.RIGHT && l.matchable && r.matchable && l.event.key().equals(r.event.key()) &&
                        (s.condition == null || ScenarioEvents.compare(s.condition, l.event.v(), r.event.v())))
                    {
                        matched = true;
                        matchedRight.add(r);
                        if (!s.type.isSemiOrAnti())
                        {
                            expected.add(new Line(step, "+I " + l.id() + ' ' + r.id() + window));
                        }
                    }
                }
                if (s.type == JoinType.SEMI ? matched : !matched && (padLeft || s.type == JoinType.ANTI))
                {
                    expected.add(new Line(step, "+I " + l.id() + " null" + window));
                }
            }
            if (padRight)
            {
                for (final ModelRow r : rows)
                {
                    if (r.side() == Side.RIGHT && !matchedRight.contains(r))
                    {
                        expected.add(new Line(step, "+I null " + r.id() + window));
                    }
                }
            }
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

        /** @return {@code t + gap}, clamped to the long range: a session's end. */
        private long plusGap(final long t)
        {
            return clamp(BigInteger.valueOf(t).add(BigInteger.valueOf(s.gap)));
        }

        /** SEMANTICS 1: numbers compare as numbers, null (or absent) compares false with everything. */
    }

    // ---------------------------------------------------------------------------------------------
    // The test

    static Stream<Arguments> typesAndWindows()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final JoinType type : JoinType.values())
        {
            for (final WindowSpec.Kind kind : WindowSpec.Kind.values())
            {
                for (final IndexKind index : IndexKind.values())
                {
                    all.add(Arguments.of(type, kind, index));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("typesAndWindows")
    void agreesWithABruteForceModelOfSpec(final JoinType type, final WindowSpec.Kind kind, final IndexKind index)
    {
        final Long only = Long.getLong("junction.window.sequenceSeed");
        if (only != null)
        {
            final String problem = check(new Scenario(only, type, kind, index), "sequenceSeed=" + only);
            if (problem != null)
            {
                throw new AssertionError(problem);
            }
            return;
        }
        final long base = BASE_SEED;
        final long combination = (type.ordinal() * 3L + kind.ordinal()) * IndexKind.values().length + index.ordinal() + 1;
        // Both key indexes must agree with the model: each runs its share of the combination's sequences.
        final int sequences = SEQUENCES / IndexKind.values().length;
        final SplittableRandom seeds = sequenceSeeds(base, combination);
        String first = null;
        final List<Long> failing = new ArrayList<>();
        for (int i = 0; i < sequences; i++)
        {
            final long seed = seeds.nextLong();
            final String problem = check(new Scenario(seed, type, kind, index), "base seed " + base + " (-Djunction.window.seed=" + base +
                "), sequence " + i + " (-Djunction.window.sequenceSeed=" + seed + ")");
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
            throw new AssertionError(failing.size() + " of " + sequences + " sequences of " + type + " " + kind + " on " + index +
                " disagree with the model (base seed " + base + "); sequence seeds" +
                (failing.size() > MAX_REPORTED ? " (first " + MAX_REPORTED + ")" : "") + ": " +
                failing.subList(0, Math.min(MAX_REPORTED, failing.size())) + "\nfirst failure:\n" + first);
        }
    }

    /** @return null when the engine agrees with the model, else a report. */
    private static String check(final Scenario s, final String seedText)
    {
        final Model model = new Model(s);
        final List<Line> actual = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final OperatorCounters counters;
        StateConfig config = WindowTestHarness.SMALL_STATE.withIndex(s.index);
        if (WHEEL != null)
        {
            final String[] shiftAndSlots = WHEEL.split(",");
            config = config.withWheel(Integer.parseInt(shiftAndSlots[0].trim()), Integer.parseInt(shiftAndSlots[1].trim()));
        }
        try (WindowTestHarness h = new WindowTestHarness(s.spec(), config))
        {
            for (int step = 0; step < s.events.size(); step++)
            {
                final Event e = s.events.get(step);
                final long at;
                switch (e.kind())
                {
                    case ROW:
                        at = h.row(e.side(), e.op(), e.ts(), e.key(), e.id(), e.v());
                        break;
                    case WATERMARK_BOTH:
                        at = h.watermark(e.ts());
                        break;
                    case WATERMARK_LEFT:
                        at = h.watermark(Side.LEFT, e.ts());
                        break;
                    default:
                        at = h.watermark(Side.RIGHT, e.ts());
                }
                if (at != step)
                {
                    throw new IllegalStateException("harness step " + at + " != " + step);
                }
                final OperatorCounters c = h.counters();
                if (c.liveLeft() > model.openLeft[step] || c.liveRight() > model.openRight[step])
                {
                    problems.add("after step " + step + " state holds " + c.liveLeft() + " left / " + c.liveRight() +
                        " right rows, but unfired windows hold only " + model.openLeft[step] + " / " + model.openRight[step]);
                }
            }
            h.end();
            for (final WindowTestHarness.Out o : h.out)
            {
                actual.add(new Line(o.step(), o.text()));
            }
            for (final WindowTestHarness.Dead d : h.dead)
            {
                deadLetters.add(d.step() + " " + d.side() + " " + d.id() + " " + d.reason());
            }
            counters = h.counters();
        }
        Collections.sort(actual);

        if (!model.expected.equals(actual))
        {
            final TreeMap<String, Integer> expectedFinal = multiset(model.expected);
            final TreeMap<String, Integer> actualFinal = multiset(actual);
            if (!expectedFinal.equals(actualFinal))
            {
                problems.add("results differ: missing " + difference(expectedFinal, actualFinal) +
                    ", unexpected " + difference(actualFinal, expectedFinal));
            }
            else
            {
                problems.add("same results, but emitted at other steps");
            }
        }
        if (!model.deadLetters.equals(deadLetters))
        {
            problems.add("dead letters differ: expected " + model.deadLetters + ", actual " + deadLetters);
        }
        if (counters.lateRows() != model.lateRows || counters.badInputs() != model.badInputs || counters.rowsIn() != model.rowsIn)
        {
            problems.add("counters: lateRows=" + counters.lateRows() + " badInputs=" + counters.badInputs() + " rowsIn=" + counters.rowsIn() +
                ", expected " + model.lateRows + ", " + model.badInputs + " and " + model.rowsIn);
        }
        if (counters.rowsOut() != actual.size())
        {
            problems.add("counters: rowsOut=" + counters.rowsOut() + " but " + actual.size() + " rows were output");
        }
        if (counters.liveLeft() != 0 || counters.liveRight() != 0 || counters.pendingTimers() != 0)
        {
            problems.add("state after the end of input: liveLeft=" + counters.liveLeft() + " liveRight=" + counters.liveRight() +
                " pendingTimers=" + counters.pendingTimers());
        }
        if (problems.isEmpty())
        {
            return null;
        }
        return "Window join disagrees with the SEMANTICS 6 model, " + s.type + " " + s.window() + ", " + seedText + "\n" +
            String.join("\n", problems) + "\n" + s.describe() +
            "expected (step: output):\n" + lines(model.expected) + "actual:\n" + lines(actual);
    }

    /** @return {@code value} clamped to the long range. */
    private static long clamp(final BigInteger value)
    {
        return value.max(BigInteger.valueOf(Long.MIN_VALUE)).min(BigInteger.valueOf(Long.MAX_VALUE)).longValueExact();
    }
}
