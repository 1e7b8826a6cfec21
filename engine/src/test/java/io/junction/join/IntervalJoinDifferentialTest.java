package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.join.ScenarioEvents.Event;
import io.junction.join.ScenarioEvents.EventKind;
import io.junction.join.ScenarioEvents.Filter;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.metrics.OperatorCounters;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
import static io.junction.join.ScenarioEvents.randomOp;
import static io.junction.join.ScenarioEvents.randomRowOp;
import static io.junction.join.ScenarioEvents.randomValue;
import static io.junction.join.ScenarioEvents.randomWatermarkKind;
import static io.junction.join.ScenarioEvents.sequenceSeeds;

/**
 * The interval join against a brute-force model of SEMANTICS 5, over thousands of short random logs per
 * join type: random bounds (inclusive or exclusive, negative or positive), allowed lateness, few keys
 * (including a string key and null / absent keys), out-of-order rows, watermarks per side and on both
 * (sometimes going backwards), optional pre-filters and post-join condition, the odd non-insert row.
 *
 * <p>The model tracks the join watermark to tell late rows (dead-lettered, then ignored), then joins
 * every non-late left row with every non-late right row of the whole log; a pair is due at the step of
 * whichever row came later, a padded (or anti) row at the step of the first watermark that closes it,
 * at its own step when it is unmatchable or closed on arrival, else at the end of input; a semi row at
 * its first match. The engine must agree, step by step.
 *
 * <p>Seeded: the base seed is random unless {@code -Djunction.interval.seed=N} is given; a failure
 * prints it, the sequence's own seed ({@code -Djunction.interval.sequenceSeed=N} reruns just that one),
 * the join and the log in the replay format.
 */
class IntervalJoinDifferentialTest
{
    private static final int SEQUENCES_PER_TYPE = Integer.getInteger("junction.interval.sequences", 1000);
    private static final Object ABSENT = IntervalTestRows.ABSENT;

    // ---------------------------------------------------------------------------------------------
    // Scenario

    private static final class Scenario
    {
        final long seed;
        final JoinType type;
        final long lower;
        final long upper;
        final boolean lowerInclusive;
        final boolean upperInclusive;
        final long lateness;
        final Filter leftFilter;
        final Filter rightFilter;
        final CompareOp condition;
        final List<Event> events = new ArrayList<>();

        Scenario(final long seed, final JoinType type)
        {
            this.seed = seed;
            this.type = type;
            final SplittableRandom random = new SplittableRandom(seed);
            // Mostly small bounds and timestamps around 0; sometimes bounds at the ends of the long range,
            // or every timestamp and watermark shifted next to Long.MIN_VALUE or Long.MAX_VALUE.
            final boolean wide = random.nextInt(100) < 12;
            final int shift = random.nextInt(100);
            final long offset = shift < 8 ? Long.MAX_VALUE - 300 : shift < 16 ? Long.MIN_VALUE + 300 : 0;
            long lo;
            long hi;
            boolean loIn;
            boolean hiIn;
            do
            {
                lo = random.nextLong(-15, 16);
                hi = lo + random.nextLong(0, 26);
                if (wide)
                {
                    final int which = random.nextInt(4);
                    lo = which == 0 ? lo : random.nextBoolean() ? Long.MIN_VALUE : Long.MIN_VALUE + random.nextLong(1, 30);
                    hi = which == 1 ? hi : which == 3 ? lo + random.nextLong(0, 30) :
                        random.nextBoolean() ? Long.MAX_VALUE : Long.MAX_VALUE - random.nextLong(1, 30);
                }
                loIn = random.nextInt(4) != 0;
                hiIn = random.nextInt(4) != 0;
            }
            while (BigInteger.valueOf(lo).add(loIn ? BigInteger.ZERO : BigInteger.ONE)
                .compareTo(BigInteger.valueOf(hi).subtract(hiIn ? BigInteger.ZERO : BigInteger.ONE)) > 0);
            lower = lo;
            upper = hi;
            lowerInclusive = loIn;
            upperInclusive = hiIn;
            lateness = random.nextBoolean() ? 0 : random.nextLong(1, 9);
            leftFilter = randomFilter(random, 3);
            rightFilter = randomFilter(random, 3);
            condition = random.nextInt(10) < 3 ? randomOp(random) : null;

            final int length = random.nextInt(5, 41);
            long cursor = offset + random.nextLong(-50, 51);
            int ids = 0;
            for (int i = 0; i < length; i++)
            {
                cursor += random.nextLong(0, 5);
                final int dice = random.nextInt(100);
                if (dice < 65)
                {
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final ChangeKind op = randomRowOp(random);
                    final long ts = offset == 0 && random.nextInt(100) < 3 ?
                        (random.nextBoolean() ? Long.MIN_VALUE + random.nextLong(0, 20) : Long.MAX_VALUE - random.nextLong(0, 20)) :
                        cursor + random.nextLong(-25, 9);
                    events.add(new Event(EventKind.ROW, side, op, ts, randomKey(random, 8), randomValue(random),
                        (side == Side.LEFT ? "L" : "R") + ids++));
                }
                else
                {
                    final long watermark = random.nextInt(10) == 0 ? cursor - random.nextLong(20, 61) : cursor - random.nextLong(0, 16);
                    final EventKind kind = randomWatermarkKind(random);
                    events.add(new Event(kind, null, null, watermark, null, null, null));
                }
            }
        }

        BigInteger inclusiveLower()
        {
            return BigInteger.valueOf(lower).add(lowerInclusive ? BigInteger.ZERO : BigInteger.ONE);
        }

        BigInteger inclusiveUpper()
        {
            return BigInteger.valueOf(upper).subtract(upperInclusive ? BigInteger.ZERO : BigInteger.ONE);
        }

        JoinSpec spec()
        {
            final JoinSpec.Builder builder = IntervalTestHarness.spec(type, new IntervalBounds(lower, upper, lowerInclusive, upperInclusive))
                .allowedLateness(lateness);
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
            sb.append("join: {\"join\":\"interval\",\"type\":\"").append(type.name().toLowerCase())
                .append("\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"interval\":{\"lower\":").append(lower)
                .append(",\"upper\":").append(upper).append(",\"lowerInclusive\":").append(lowerInclusive)
                .append(",\"upperInclusive\":").append(upperInclusive).append("},\"allowedLateness\":").append(lateness);
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
        final int step;
        boolean matchable;
        int closeStep;
        final List<ModelRow> matches = new ArrayList<>();

        ModelRow(final Event event, final int step)
        {
            this.event = event;
            this.step = step;
        }

        Side side()
        {
            return event.side();
        }

        long ts()
        {
            return event.ts();
        }
    }

    /** One expected or actual output: what a step emits. */
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

    private static final class Model
    {
        final List<ModelRow> left = new ArrayList<>();
        final List<ModelRow> right = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        final List<Line> expected = new ArrayList<>();
        /** Rows of each side that the engine may still hold after each step (not closed yet). */
        final long[] openLeft;
        final long[] openRight;
        final int endStep;
        /** The non-late rows by id. */
        final Map<String, ModelRow> byId = new HashMap<>();

        Model(final Scenario s)
        {
            final List<Event> events = s.events;
            endStep = events.size();
            final long[] joinWatermarkAfter = new long[endStep + 1];
            final long[] joinWatermarkBefore = new long[endStep + 1];
            long wl = Long.MIN_VALUE;
            long wr = Long.MIN_VALUE;
            for (int step = 0; step < endStep; step++)
            {
                final Event e = events.get(step);
                final long before = Math.min(wl, wr);
                joinWatermarkBefore[step] = before;
                switch (e.kind())
                {
                    case ROW:
                        if (e.op() != ChangeKind.INSERT)
                        {
                            deadLetters.add(step + " " + DeadLetterReason.NOT_APPEND_ONLY);
                        }
                        else if (big(e.ts()).compareTo(big(before).subtract(big(s.lateness))) < 0)
                        {
                            deadLetters.add(step + " " + DeadLetterReason.LATE);
                        }
                        else
                        {
                            final ModelRow row = new ModelRow(e, step);
                            (e.side() == Side.LEFT ? left : right).add(row);
                            byId.put(e.id(), row);
                        }
                        break;
                    case WATERMARK_BOTH:
                        wl = Math.max(wl, e.ts());
                        wr = Math.max(wr, e.ts());
                        break;
                    case WATERMARK_LEFT:
                        wl = Math.max(wl, e.ts());
                        break;
                    default:
                        wr = Math.max(wr, e.ts());
                }
                joinWatermarkAfter[step] = Math.min(wl, wr);
            }

            final BigInteger lo = s.inclusiveLower();
            final BigInteger hi = s.inclusiveUpper();
            for (final ModelRow l : left)
            {
                l.matchable = matchable(l.event, s.leftFilter);
            }
            for (final ModelRow r : right)
            {
                r.matchable = matchable(r.event, s.rightFilter);
            }
            for (final ModelRow l : left)
            {
                for (final ModelRow r : right)
                {
                    final BigInteger diff = big(r.ts()).subtract(big(l.ts()));
                    if (l.matchable && r.matchable && l.event.key().equals(r.event.key()) &&
                        condition(s.condition, l.event.v(), r.event.v()) && diff.compareTo(lo) >= 0 && diff.compareTo(hi) <= 0)
                    {
                        l.matches.add(r);
                        r.matches.add(l);
                    }
                }
            }

            // Closing: a left row when watermark - lateness > ts + upper, a right row when > ts - lower.
            for (final List<ModelRow> rows : List.of(left, right))
            {
                for (final ModelRow x : rows)
                {
                    final BigInteger lastMatch = x.side() == Side.LEFT ? big(x.ts()).add(hi) : big(x.ts()).subtract(lo);
                    final BigInteger deadline = lastMatch.add(big(s.lateness));   // closed once the join watermark > deadline
                    if (!x.matchable || closedBy(joinWatermarkBefore[x.step], deadline))
                    {
                        x.closeStep = x.step;
                        continue;
                    }
                    x.closeStep = endStep;
                    for (int step = x.step + 1; step < endStep; step++)
                    {
                        if (events.get(step).kind() != EventKind.ROW && closedBy(joinWatermarkAfter[step], deadline))
                        {
                            x.closeStep = step;
                            break;
                        }
                    }
                }
            }

            openLeft = open(left);
            openRight = open(right);

            final boolean padLeft = s.type == JoinType.LEFT || s.type == JoinType.FULL;
            final boolean padRight = s.type == JoinType.RIGHT || s.type == JoinType.FULL;
            switch (s.type)
            {
                case SEMI:
                    for (final ModelRow l : left)
                    {
                        if (!l.matches.isEmpty())
                        {
                            int first = Integer.MAX_VALUE;
                            for (final ModelRow r : l.matches)
                            {
                                first = Math.min(first, Math.max(l.step, r.step));
                            }
                            expected.add(new Line(first, "+I " + l.event.id() + " null", l.ts()));
                        }
                    }
                    break;
                case ANTI:
                    for (final ModelRow l : left)
                    {
                        if (l.matches.isEmpty())
                        {
                            expected.add(new Line(l.closeStep, "+I " + l.event.id() + " null", l.ts()));
                        }
                    }
                    break;
                default:
                    for (final ModelRow l : left)
                    {
                        for (final ModelRow r : l.matches)
                        {
                            expected.add(new Line(Math.max(l.step, r.step), "+I " + l.event.id() + " " + r.event.id(),
                                Math.max(l.ts(), r.ts())));
                        }
                        if (padLeft && l.matches.isEmpty())
                        {
                            expected.add(new Line(l.closeStep, "+I " + l.event.id() + " null", l.ts()));
                        }
                    }
                    if (padRight)
                    {
                        for (final ModelRow r : right)
                        {
                            if (r.matches.isEmpty())
                            {
                                expected.add(new Line(r.closeStep, "+I null " + r.event.id(), r.ts()));
                            }
                        }
                    }
            }
            Collections.sort(expected);
        }

        private long[] open(final List<ModelRow> rows)
        {
            final long[] open = new long[endStep + 1];
            for (final ModelRow x : rows)
            {
                for (int step = x.step; step < x.closeStep; step++)
                {
                    open[step]++;
                }
            }
            return open;
        }

        /** Long.MIN_VALUE is "no watermark yet" (before both inputs have one): it closes nothing. */
        private static boolean closedBy(final long joinWatermark, final BigInteger deadline)
        {
            return joinWatermark != Long.MIN_VALUE && big(joinWatermark).compareTo(deadline) > 0;
        }

        private static BigInteger big(final long value)
        {
            return BigInteger.valueOf(value);
        }

        private static boolean matchable(final Event e, final Filter filter)
        {
            if (e.key() == null || e.key() == ABSENT)
            {
                return false;
            }
            return filter == null || ScenarioEvents.compare(filter.op(), e.v(), filter.value());
        }

        private static boolean condition(final CompareOp op, final Object leftV, final Object rightV)
        {
            return op == null || ScenarioEvents.compare(op, leftV, rightV);
        }

        /** SEMANTICS 1: numbers compare as numbers, null compares false with everything. */
    }

    // ---------------------------------------------------------------------------------------------
    // The test

    static Stream<Arguments> typesAndIndexes()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final JoinType type : JoinType.values())
        {
            for (final IndexKind index : IndexKind.values())
            {
                all.add(Arguments.of(type, index));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("typesAndIndexes")
    void agreesWithABruteForceModelOfSpec(final JoinType type, final IndexKind index)
    {
        // Both key indexes must agree with the model: each runs its share of the type's sequences.
        final StateConfig config = IntervalTestHarness.SMALL_STATE.withIndex(index);
        final Long only = Long.getLong("junction.interval.sequenceSeed");
        if (only != null)
        {
            check(new Scenario(only, type), config, "sequenceSeed=" + only + ", index " + index);
            return;
        }
        final long base = Long.getLong("junction.interval.seed", new SplittableRandom().nextLong());
        final long combination = type.ordinal() * (long)IndexKind.values().length + index.ordinal() + 1;
        final SplittableRandom seeds = sequenceSeeds(base, combination);
        final int sequences = SEQUENCES_PER_TYPE / IndexKind.values().length;
        for (int i = 0; i < sequences; i++)
        {
            final long seed = seeds.nextLong();
            check(new Scenario(seed, type), config, "base seed " + base + " (-Djunction.interval.seed=" + base + "), index " +
                index + ", sequence " + i + " (-Djunction.interval.sequenceSeed=" + seed + ")");
        }
    }

    private static void check(final Scenario s, final StateConfig config, final String seedText)
    {
        final Model model = new Model(s);
        final List<Line> actual = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final OperatorCounters counters;
        try (IntervalTestHarness h = new IntervalTestHarness(s.spec(), config))
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
                        " right rows, but only " + model.openLeft[step] + " / " + model.openRight[step] + " can still match or be padded");
                }
            }
            h.end();
            for (final IntervalTestHarness.Out o : h.out)
            {
                actual.add(new Line(o.step(), o.text(), o.ts()));
                if (o.kind() != ChangeKind.INSERT)
                {
                    problems.add("not append-only: " + o);
                }
            }
            for (final IntervalTestHarness.Dead d : h.dead)
            {
                deadLetters.add(d.step() + " " + d.reason());
            }
            counters = h.counters();
        }
        Collections.sort(actual);

        checkInvariants(s, model, actual, problems);

        // Final results: the multisets, ignoring steps.
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
        if (counters.liveLeft() != 0 || counters.liveRight() != 0 || counters.pendingTimers() != 0)
        {
            problems.add("state after the end of input: liveLeft=" + counters.liveLeft() + " liveRight=" + counters.liveRight() +
                " pendingTimers=" + counters.pendingTimers());
        }
        if (!problems.isEmpty())
        {
            throw new AssertionError("Interval join disagrees with the SEMANTICS 5 model, " + s.type + ", " + seedText + "\n" +
                String.join("\n", problems) + "\n" + s.describe() +
                "expected:\n" + lines(model.expected) + "actual:\n" + lines(actual));
        }
    }

    /** The properties of SEMANTICS 5 that every output must have, checked on their own for clearer messages. */
    private static void checkInvariants(final Scenario s, final Model model, final List<Line> actual, final List<String> problems)
    {
        final Map<String, Integer> padded = new HashMap<>();
        for (final Line line : actual)
        {
            final String[] parts = line.text().split(" ");
            final ModelRow l = "null".equals(parts[1]) ? null : model.byId.get(parts[1]);
            final ModelRow r = "null".equals(parts[2]) ? null : model.byId.get(parts[2]);
            if ((!"null".equals(parts[1]) && l == null) || (!"null".equals(parts[2]) && r == null))
            {
                problems.add("output of a late or bad row: " + line);
                continue;
            }
            if (l != null && l.side() != Side.LEFT || r != null && r.side() != Side.RIGHT)
            {
                problems.add("sides swapped: " + line);
                continue;
            }
            if (l != null && r != null)
            {
                if (line.step() < Math.max(l.step, r.step))
                {
                    problems.add("pair before both its rows arrived: " + line);
                }
                if (!l.matches.contains(r))
                {
                    problems.add("pair that does not match (key, filters, condition or interval): " + line);
                }
                if (line.ts() != Math.max(l.ts(), r.ts()))
                {
                    problems.add("pair timestamp is not max(left.ts, right.ts): " + line);
                }
                continue;
            }
            final ModelRow alone = l != null ? l : r;
            if (line.step() < alone.step)
            {
                problems.add("output before its row arrived: " + line);
            }
            if (line.ts() != alone.ts())
            {
                problems.add("padded row does not carry its own timestamp: " + line);
            }
            padded.merge(alone.event.id(), 1, Integer::sum);
            if (s.type == JoinType.SEMI)
            {
                if (alone.matches.isEmpty())
                {
                    problems.add("semi join emitted a left row that never matched: " + line);
                }
                continue;
            }
            if (!alone.matches.isEmpty())
            {
                problems.add("padded row that matched: " + line);
            }
            if (line.step() < alone.closeStep)
            {
                problems.add("padded row emitted before the step that closes it (" + alone.closeStep + "): " + line);
            }
        }
        for (final Map.Entry<String, Integer> e : padded.entrySet())
        {
            if (e.getValue() > 1)
            {
                problems.add(e.getKey() + " emitted alone " + e.getValue() + " times");
            }
        }
    }
}
