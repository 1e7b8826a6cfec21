package io.junction.join;

import io.junction.api.AsofSpec;
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
import java.util.Iterator;
import java.util.List;
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
import java.math.BigInteger;

/**
 * The ASOF join against a brute-force model of SEMANTICS 11 (docs/SEMANTICS.md section 11), over many short
 * random logs per direction, emission mode and type: random tolerance (or none), allowed lateness,
 * pre-filters and a condition, rows out of order, several rows of a key at one ts, late rows of both
 * sides, watermarks per side and on both (sometimes going backwards), few keys (a string key, null and
 * absent keys), the odd non-insert row, timestamps next to the ends of the long range.
 *
 * <p>The model keeps every accepted right row forever and computes each waiting left row's best
 * candidate and its {@code F} from scratch after every event, straight from the SPEC's words; eager
 * output is the difference between the best before and after each event. So it also checks that the
 * operator's freeing of right rows is invisible. Besides output and dead letters step by step, and the
 * number of waiting left rows after every step, each scenario checks two end-of-input identities: the
 * eager changelog, applied, equals the final output; and the final output equals a batch
 * {@code merge_asof} of all rows that were not dead letters.
 *
 * <p>Seeded: the base seed is random unless {@code -Djunction.asof.seed=N} is given; a failure prints it,
 * the sequence's own seed ({@code -Djunction.asof.sequenceSeed=N} reruns just that one), the join and the
 * log in the replay format.
 */
class AsofJoinDifferentialTest
{
    private static final int SEQUENCES = Integer.getInteger("junction.asof.sequences", 100);
    /** Long logs per shape and combination ({@link #longLogsOfAFewKeysAgreeWithTheModel}). */
    private static final int LONG_SEQUENCES = Integer.getInteger("junction.asof.longSequences", 12);

    private static final class Scenario
    {
        final long seed;
        final AsofSpec.Direction direction;
        final AsofSpec.Emit emit;
        final JoinType type;
        final long tolerance;
        final long lateness;
        final Filter leftFilter;
        final Filter rightFilter;
        final CompareOp condition;
        final List<Event> events = new ArrayList<>();

        Scenario(final long seed, final AsofSpec.Direction direction, final AsofSpec.Emit emit, final JoinType type)
        {
            this(seed, direction, emit, type, Shape.MIXED);
        }

        Scenario(final long seed, final AsofSpec.Direction direction, final AsofSpec.Emit emit, final JoinType type,
            final Shape shape)
        {
            this.seed = seed;
            this.direction = direction;
            this.emit = emit;
            this.type = type;
            final SplittableRandom random = new SplittableRandom(seed);
            final int shift = random.nextInt(100);
            final long offset = shift < 6 ? Long.MAX_VALUE - 200 : shift < 12 ? Long.MIN_VALUE + 200 : 0;
            tolerance = random.nextBoolean() ? AsofSpec.UNBOUNDED : random.nextLong(0, 12);
            lateness = random.nextInt(10) < 3 ? random.nextLong(0, 6) : 0;
            leftFilter = randomFilter(random, 2);
            rightFilter = randomFilter(random, 2);
            condition = random.nextInt(10) < 3 ? randomOp(random) : null;
            if (shape != Shape.MIXED)
            {
                longLog(random, shape);
                return;
            }
            final int length = random.nextInt(5, 51);
            long cursor = offset + random.nextLong(-50, 51);
            int ids = 0;
            for (int i = 0; i < length; i++)
            {
                cursor += random.nextLong(0, 4);
                final int dice = random.nextInt(100);
                if (dice < 72)
                {
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final ChangeKind op = random.nextInt(100) < 4 ? ChangeKind.values()[1 + random.nextInt(3)] : ChangeKind.INSERT;
                    // Few distinct timestamps, so that several rows of one key at one ts happen.
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

        /**
         * A long log of one key mostly (a second one, the odd null key), whose right rows are many: in decreasing
         * time order (older than every stored one, the odd one in between), or in order within a bound with
         * watermarks that now and then jump ahead, past many turns of a small wheel.
         */
        private void longLog(final SplittableRandom random, final Shape shape)
        {
            final int length = random.nextInt(80, 161);
            // Next to the ends of the long range now and then: decreasing from its top, increasing from its bottom.
            final boolean edge = random.nextInt(4) == 0;
            final long top = edge && shape == Shape.DECREASING ? Long.MAX_VALUE - 100 : 0;
            long cursor = shape == Shape.DECREASING ? top : edge ? Long.MIN_VALUE + 100 : 0;
            final long lowest = top - 4 * length - 100;
            int ids = 0;
            for (int i = 0; i < length; i++)
            {
                final int dice = random.nextInt(100);
                final Object key = random.nextInt(10) < 8 ? (Object)0L : random.nextInt(4) == 0 ? null : (Object)1L;
                if (dice < 92)
                {
                    final boolean right = dice < 60;
                    final long ts;
                    if (shape == Shape.DECREASING)
                    {
                        if (right)
                        {
                            cursor -= random.nextLong(0, 4);
                        }
                        // The odd right row lands between the stored ones; left rows around and above the newest.
                        ts = right ? (random.nextInt(10) == 0 ? cursor + random.nextLong(0, top - cursor + 1) : cursor)
                            : cursor + random.nextLong(-10, Math.min(60, top - cursor + 1));
                    }
                    else
                    {
                        cursor += random.nextLong(0, 4);
                        ts = cursor - random.nextLong(0, right ? 9 : 21);
                    }
                    events.add(new Event(EventKind.ROW, right ? Side.RIGHT : Side.LEFT, ChangeKind.INSERT, ts, key,
                        randomValue(random), (right ? "R" : "L") + ids++));
                }
                else if (shape == Shape.DECREASING)
                {
                    // Mostly below every row to come; now and then in between, which makes the older rows late.
                    final long watermark = random.nextInt(4) == 0 ? cursor - random.nextLong(0, 30) : lowest - random.nextLong(0, 20);
                    events.add(new Event(randomWatermarkKind(random), null, null, watermark, null, null, null));
                }
                else
                {
                    long watermark = cursor - random.nextLong(0, 30);
                    if (random.nextInt(3) == 0)
                    {
                        // A jump: rows go on above it.
                        watermark = cursor + random.nextLong(30, 200);
                        cursor = watermark + 10;
                    }
                    events.add(new Event(EventKind.WATERMARK_BOTH, null, null, watermark, null, null, null));
                }
            }
        }

        AsofSpec asof(final AsofSpec.Emit mode)
        {
            final AsofSpec base = AsofSpec.of(direction).withEmit(mode);
            return tolerance == AsofSpec.UNBOUNDED ? base : base.withTolerance(tolerance);
        }

        JoinSpec spec(final AsofSpec.Emit mode)
        {
            final JoinSpec.Builder builder = VersionedTestHarness.spec(JoinKind.ASOF, type).asof(asof(mode)).allowedLateness(lateness);
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
            sb.append("join: {\"join\":\"asof\",\"type\":\"").append(type.name().toLowerCase())
                .append("\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"asof\":{\"direction\":\"").append(direction.jsonName())
                .append('"');
            if (tolerance != AsofSpec.UNBOUNDED)
            {
                sb.append(",\"tolerance\":").append(tolerance);
            }
            sb.append(",\"emit\":\"").append(emit.jsonName()).append("\"}");
            if (lateness != 0)
            {
                sb.append(",\"allowedLateness\":").append(lateness);
            }
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

    /** How a scenario's log is made: short mixed logs, or long ones of a few keys with many right rows. */
    enum Shape
    {
        MIXED,
        DECREASING,
        MANY_ROWS
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

    /** An accepted right row with its arrival order. */
    private record Right(Event event, int arrival)
    {
    }

    /** A waiting left row and, in eager mode, what it has emitted so far (null: nothing; NONE: padded). */
    private static final class Waiting
    {
        final Event event;
        Right emitted;
        boolean padded;

        Waiting(final Event event)
        {
            this.event = event;
        }
    }

    /** SEMANTICS 11 by brute force. */
    static final class Model
    {
        final List<Line> expected = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        /** The left and right rows that were not dead letters, for the batch merge_asof. */
        final List<Event> acceptedLeft = new ArrayList<>();
        final List<Event> acceptedRight = new ArrayList<>();
        /** Waiting left rows after each step (the end of input included). */
        final long[] liveLeft;
        private final Scenario s;
        private final AsofSpec.Emit mode;
        private final List<Right> rights = new ArrayList<>();
        private final List<Waiting> waiting = new ArrayList<>();

        Model(final Scenario s, final AsofSpec.Emit mode)
        {
            this.s = s;
            this.mode = mode;
            final int end = s.events.size();
            liveLeft = new long[end + 1];
            long wl = Long.MIN_VALUE;
            long wr = Long.MIN_VALUE;
            long joined = Long.MIN_VALUE;
            for (int step = 0; step <= end; step++)
            {
                if (step == end)
                {
                    for (final Waiting w : waiting)
                    {
                        finish(w, step);
                    }
                    waiting.clear();
                }
                else
                {
                    final Event e = s.events.get(step);
                    if (e.kind() == EventKind.ROW)
                    {
                        row(e, step, joined);
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
                            fire(joined, step);
                        }
                    }
                }
                liveLeft[step] = waiting.size();
            }
            Collections.sort(expected);
        }

        private void row(final Event e, final int step, final long watermark)
        {
            if (e.op() != ChangeKind.INSERT)
            {
                deadLetters.add(step + " " + DeadLetterReason.NOT_APPEND_ONLY);
                return;
            }
            if (watermark != Long.MIN_VALUE && e.ts() < TimeMath.saturatedSubtract(watermark, s.lateness))
            {
                deadLetters.add(step + " " + DeadLetterReason.LATE);
                return;
            }
            if (e.side() == Side.LEFT)
            {
                acceptedLeft.add(e);
                if (nullKey(e) || !passes(s.leftFilter, e))
                {
                    pad(e, step, "+I");
                    return;
                }
                final Waiting w = new Waiting(e);
                waiting.add(w);
                if (mode == AsofSpec.Emit.EAGER)
                {
                    final Right best = best(e, rights);
                    if (best != null)
                    {
                        expected.add(new Line(step, "+I " + e.id() + " " + best.event().id(), e.ts()));
                        w.emitted = best;
                    }
                    else if (s.type == JoinType.LEFT)
                    {
                        pad(e, step, "+I");
                        w.padded = true;
                    }
                }
                return;
            }
            acceptedRight.add(e);
            if (nullKey(e) || !passes(s.rightFilter, e))
            {
                return;
            }
            rights.add(new Right(e, rights.size()));
            if (mode != AsofSpec.Emit.EAGER)
            {
                return;
            }
            for (final Waiting w : waiting)
            {
                final Right best = best(w.event, rights);
                if (best == null || best == w.emitted)
                {
                    continue;
                }
                final String l = w.event.id();
                if (w.emitted != null)
                {
                    expected.add(new Line(step, "-U " + l + " " + w.emitted.event().id(), w.event.ts()));
                    expected.add(new Line(step, "+U " + l + " " + best.event().id(), w.event.ts()));
                }
                else if (w.padded)
                {
                    expected.add(new Line(step, "-U " + l + " null", w.event.ts()));
                    expected.add(new Line(step, "+U " + l + " " + best.event().id(), w.event.ts()));
                }
                else
                {
                    expected.add(new Line(step, "+I " + l + " " + best.event().id(), w.event.ts()));
                }
                w.emitted = best;
                w.padded = false;
            }
        }

        /** Every waiting left row whose F is below {@code W - A} is final. */
        private void fire(final long watermark, final int step)
        {
            final long h = TimeMath.saturatedSubtract(watermark, s.lateness);
            for (final Iterator<Waiting> it = waiting.iterator(); it.hasNext(); )
            {
                final Waiting w = it.next();
                final Right best = best(w.event, rights);
                final Long f = finalTs(w.event.ts(), best);
                if (f != null && h > f)
                {
                    finish(w, step);
                    it.remove();
                }
            }
        }

        private void finish(final Waiting w, final int step)
        {
            if (mode == AsofSpec.Emit.EAGER)
            {
                return;
            }
            final Right best = best(w.event, rights);
            if (best != null)
            {
                expected.add(new Line(step, "+I " + w.event.id() + " " + best.event().id(), w.event.ts()));
            }
            else
            {
                pad(w.event, step, "+I");
            }
        }

        /** @return F (SEMANTICS 11) as an exact number, or null for "+infinity" (no tolerance, no candidate). */
        private Long finalTs(final long lts, final Right best)
        {
            final BigInteger l = BigInteger.valueOf(lts);
            BigInteger f;
            switch (s.direction)
            {
                case BACKWARD:
                    return lts;
                case FORWARD:
                    if (best != null)
                    {
                        return best.event().ts();
                    }
                    if (s.tolerance == AsofSpec.UNBOUNDED)
                    {
                        return null;
                    }
                    f = l.add(BigInteger.valueOf(s.tolerance));
                    break;
                default:
                    if (best != null)
                    {
                        f = l.add(l.subtract(BigInteger.valueOf(best.event().ts())).abs());
                    }
                    else if (s.tolerance == AsofSpec.UNBOUNDED)
                    {
                        return null;
                    }
                    else
                    {
                        f = l.add(BigInteger.valueOf(s.tolerance));
                    }
            }
            // Beyond the long range: no watermark can pass it before the end of input.
            return f.bitLength() < 64 ? f.longValueExact() : null;
        }

        private void pad(final Event l, final int step, final String op)
        {
            if (s.type == JoinType.LEFT)
            {
                expected.add(new Line(step, op + " " + l.id() + " null", l.ts()));
            }
        }

        /** @return the best candidate of a left row among {@code rights} (in arrival order), or null. */
        Right best(final Event l, final List<Right> rights)
        {
            Right best = null;
            for (final Right r : rights)
            {
                if (!candidate(l, r.event()))
                {
                    continue;
                }
                if (best == null || better(l.ts(), r, best))
                {
                    best = r;
                }
            }
            return best;
        }

        private boolean candidate(final Event l, final Event r)
        {
            if (nullKey(l) || nullKey(r) || !l.key().equals(r.key()) || !passes(s.leftFilter, l) || !passes(s.rightFilter, r))
            {
                return false;
            }
            if (s.condition != null && !ScenarioEvents.compare(s.condition, l.v(), r.v()))
            {
                return false;
            }
            final BigInteger d = BigInteger.valueOf(r.ts()).subtract(BigInteger.valueOf(l.ts()));
            final boolean within = s.tolerance == AsofSpec.UNBOUNDED || d.abs().compareTo(BigInteger.valueOf(s.tolerance)) <= 0;
            switch (s.direction)
            {
                case BACKWARD:
                    return d.signum() <= 0 && within;
                case FORWARD:
                    return d.signum() >= 0 && within;
                default:
                    return within;
            }
        }

        /** @return true when {@code r} (arrived after {@code best}) is the better match. */
        private boolean better(final long lts, final Right r, final Right best)
        {
            final long rts = r.event().ts();
            final long bts = best.event().ts();
            if (rts == bts)
            {
                return r.arrival() > best.arrival();
            }
            switch (s.direction)
            {
                case BACKWARD:
                    return rts > bts;
                case FORWARD:
                    return rts < bts;
                default:
                    final BigInteger l = BigInteger.valueOf(lts);
                    final int c = BigInteger.valueOf(rts).subtract(l).abs()
                        .compareTo(BigInteger.valueOf(bts).subtract(l).abs());
                    return c < 0 || c == 0 && rts < bts;
            }
        }

        /** @return the batch merge_asof of every accepted row: one line per left row, its match or null (left). */
        TreeMap<String, Integer> mergeAsof()
        {
            final List<Right> all = new ArrayList<>();
            for (final Event r : acceptedRight)
            {
                all.add(new Right(r, all.size()));
            }
            final TreeMap<String, Integer> out = new TreeMap<>();
            for (final Event l : acceptedLeft)
            {
                final Right best = best(l, all);
                if (best != null)
                {
                    out.merge("+ " + l.id() + " " + best.event().id(), 1, Integer::sum);
                }
                else if (s.type == JoinType.LEFT)
                {
                    out.merge("+ " + l.id() + " null", 1, Integer::sum);
                }
            }
            return out;
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

    /** @return the multiset a changelog leaves when applied in order: "+ L R" per live pair. */
    private static TreeMap<String, Integer> applied(final List<Line> changelog)
    {
        final TreeMap<String, Integer> state = new TreeMap<>();
        for (final Line line : changelog)
        {
            final String body = line.text().substring(3);
            final boolean add = line.text().charAt(0) == '+';
            state.merge("+ " + body, add ? 1 : -1, Integer::sum);
            if (state.get("+ " + body) == 0)
            {
                state.remove("+ " + body);
            }
        }
        return state;
    }

    static Stream<Arguments> combinations()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final AsofSpec.Direction direction : AsofSpec.Direction.values())
        {
            for (final AsofSpec.Emit emit : AsofSpec.Emit.values())
            {
                for (final JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT})
                {
                    for (final IndexKind index : IndexKind.values())
                    {
                        all.add(Arguments.of(direction, emit, type, index));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @MethodSource("combinations")
    void agreesWithABruteForceModel(final AsofSpec.Direction direction, final AsofSpec.Emit emit, final JoinType type,
        final IndexKind index)
    {
        final StateConfig config = OperatorTestHarness.SMALL_STATE.withIndex(index);
        final Long only = Long.getLong("junction.asof.sequenceSeed");
        if (only != null)
        {
            check(new Scenario(only, direction, emit, type), config, "sequenceSeed=" + only + ", index " + index);
            return;
        }
        final long base = Long.getLong("junction.asof.seed", new SplittableRandom().nextLong());
        final long combination = ((direction.ordinal() * 2L + emit.ordinal()) * 8 + type.ordinal()) * IndexKind.values().length +
            index.ordinal() + 1;
        final SplittableRandom seeds = sequenceSeeds(base, combination);
        for (int i = 0; i < SEQUENCES; i++)
        {
            final long seed = seeds.nextLong();
            check(new Scenario(seed, direction, emit, type), config, "base seed " + base + " (-Djunction.asof.seed=" + base +
                "), index " + index + ", sequence " + i + " (-Djunction.asof.sequenceSeed=" + seed + ")");
        }
    }

    static Stream<Arguments> longLogs()
    {
        final List<Arguments> all = new ArrayList<>();
        for (final Shape shape : new Shape[] {Shape.DECREASING, Shape.MANY_ROWS})
        {
            for (final AsofSpec.Direction direction : AsofSpec.Direction.values())
            {
                for (final AsofSpec.Emit emit : AsofSpec.Emit.values())
                {
                    for (final JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT})
                    {
                        all.add(Arguments.of(shape, direction, emit, type));
                    }
                }
            }
        }
        return all.stream();
    }

    /**
     * Long logs whose right rows of a key are many and come in decreasing time order, or in order with the
     * watermark jumping ahead: with the default wheel, and with one of 8 slots of 1 ms, whose turn every jump and
     * the end of input outrun, so that it hands the right rows to free over out of their time order.
     */
    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @MethodSource("longLogs")
    void longLogsOfAFewKeysAgreeWithTheModel(final Shape shape, final AsofSpec.Direction direction, final AsofSpec.Emit emit,
        final JoinType type)
    {
        final StateConfig[] configs = {OperatorTestHarness.SMALL_STATE, OperatorTestHarness.SMALL_STATE.withWheel(0, 8)};
        final Long only = Long.getLong("junction.asof.sequenceSeed");
        if (only != null)
        {
            for (final StateConfig config : configs)
            {
                check(new Scenario(only, direction, emit, type, shape), config, "sequenceSeed=" + only + ", " + shape +
                    ", wheel of " + config.wheelSlots() + " slots");
            }
            return;
        }
        final long base = Long.getLong("junction.asof.seed", new SplittableRandom().nextLong());
        final long combination = (((shape.ordinal() * 3L + direction.ordinal()) * 2 + emit.ordinal()) * 8 + type.ordinal()) + 1000;
        final SplittableRandom seeds = sequenceSeeds(base, combination);
        for (int i = 0; i < LONG_SEQUENCES; i++)
        {
            final long seed = seeds.nextLong();
            final Scenario s = new Scenario(seed, direction, emit, type, shape);
            for (final StateConfig config : configs)
            {
                check(s, config, "base seed " + base + " (-Djunction.asof.seed=" + base + "), " + shape + ", wheel of " +
                    config.wheelSlots() + " slots, sequence " + i + " (-Djunction.asof.sequenceSeed=" + seed + ")");
            }
        }
    }

    private static void check(final Scenario s, final StateConfig config, final String seedText)
    {
        final Model model = new Model(s, s.emit);
        final List<Line> actual = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        final OperatorCounters counters;
        try (VersionedTestHarness h = new VersionedTestHarness(s.spec(s.emit), config))
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
                if (c.liveLeft() != model.liveLeft[step])
                {
                    problems.add("after step " + step + " state holds " + c.liveLeft() + " left rows, the model " +
                        model.liveLeft[step] + " waiting");
                }
            }
            for (final VersionedTestHarness.Out o : h.out)
            {
                actual.add(new Line(o.step(), o.text(), o.ts()));
                if (s.emit == AsofSpec.Emit.FINAL && o.kind() != ChangeKind.INSERT)
                {
                    problems.add("final mode, not append-only: " + o);
                }
            }
            for (final OperatorTestHarness.Dead d : h.dead)
            {
                deadLetters.add(d.step() + " " + d.reason());
            }
            counters = h.counters();
        }
        Collections.sort(actual);
        if (!model.expected.equals(actual))
        {
            final TreeMap<String, Integer> expectedAll = multiset(model.expected);
            final TreeMap<String, Integer> actualAll = multiset(actual);
            problems.add(expectedAll.equals(actualAll) ? "same outputs, but emitted at other steps (or with other timestamps)"
                : "outputs differ: missing " + difference(expectedAll, actualAll) + ", unexpected " + difference(actualAll, expectedAll));
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
        // End of input: the eager changelog applied is the final output, and both are the batch merge_asof.
        final TreeMap<String, Integer> finalOutput = applied(new Model(s, AsofSpec.Emit.FINAL).expected);
        final TreeMap<String, Integer> eagerOutput = applied(new Model(s, AsofSpec.Emit.EAGER).expected);
        if (!finalOutput.equals(eagerOutput))
        {
            problems.add("model: the eager changelog applied " + eagerOutput + " is not the final output " + finalOutput);
        }
        final TreeMap<String, Integer> batch = model.mergeAsof();
        if (!batch.equals(finalOutput))
        {
            problems.add("model: the final output " + finalOutput + " is not the batch merge_asof " + batch);
        }
        if (!applied(actual).equals(batch))
        {
            problems.add("the output applied " + applied(actual) + " is not the batch merge_asof " + batch);
        }
        if (!problems.isEmpty())
        {
            throw new AssertionError("asof " + s.direction + " " + s.emit + " " + s.type + " join disagrees with the model, " +
                seedText + "\n" + String.join("\n", problems) + "\n" + s.describe() + "expected:\n" + lines(model.expected) +
                "actual:\n" + lines(actual));
        }
    }
}
