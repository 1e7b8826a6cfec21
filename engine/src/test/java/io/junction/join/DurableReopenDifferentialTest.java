package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.state.MappedFile;
import io.junction.metrics.OperatorCounters;
import io.junction.testing.Rows;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Durable state, differentially: random scenarios run through an in-memory operator, through a durable one
 * uninterrupted, and through durable ones closed and reopened (a new operator instance on the same
 * directory) at random points, with persists between events besides; every run must give the same
 * outputs and dead letters, event by event, and the reopened runs the same counters as the uninterrupted
 * durable one (the in-memory one the same semantic counters). Every join kind (regular with and without
 * TTL and unique keys, interval, tumbling, sliding, session, every type; temporal and lookup, inner and
 * left, over a changelog of versions; ASOF, each direction, both emission modes), both key indexes.
 *
 * <p>Reproducible: the seed is {@value #DEFAULT_SEED} unless {@code -Djunction.test.seed=N} is given; a
 * failure names the scenario's seed and its split points.
 */
class DurableReopenDifferentialTest
{
    static final long DEFAULT_SEED = 0xD0_2AB1EL;
    static final long SEED = Long.getLong("junction.test.seed", DEFAULT_SEED);
    static final int SCENARIOS = Integer.getInteger("junction.test.durableScenarios", 4);

    static final Schema LEFT = Schema.of("k", "id", "v");
    static final Schema RIGHT = Schema.of("k", "id", "v");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(512).withChunkSize(64 * 1024)
        .withMaxStateBytes(64L << 20).withMaxLiveRows(4096).withHashSeed(0x1234_5678L).withWheel(2, 64);

    enum Shape
    {
        REGULAR, REGULAR_TTL, REGULAR_UNIQUE, INTERVAL, TUMBLING, SLIDING, SESSION, TEMPORAL, LOOKUP,
        ASOF_BACKWARD_EAGER, ASOF_FORWARD_FINAL, ASOF_NEAREST_EAGER;

        /** @return true for the joins of a stream with a versioned table (inner and left only). */
        boolean versioned()
        {
            return this == TEMPORAL || this == LOOKUP;
        }

        /** @return true for the ASOF joins (inner and left only, append-only inputs). */
        boolean asof()
        {
            return name().startsWith("ASOF");
        }
    }

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final Shape shape : Shape.values())
        {
            for (final JoinType type : JoinType.values())
            {
                if ((shape.versioned() || shape.asof()) && type != JoinType.INNER && type != JoinType.LEFT)
                {
                    continue;
                }
                for (final IndexKind index : IndexKind.values())
                {
                    cases.add(Arguments.of(shape, type, index));
                }
            }
        }
        return cases.stream();
    }

    static JoinSpec spec(final Shape shape, final JoinType type)
    {
        final JoinKind kind = shape == Shape.INTERVAL ? JoinKind.INTERVAL : shape == Shape.TEMPORAL ? JoinKind.TEMPORAL
            : shape == Shape.LOOKUP ? JoinKind.LOOKUP : shape.name().startsWith("REGULAR") ? JoinKind.REGULAR
            : shape.asof() ? JoinKind.ASOF : JoinKind.WINDOW;
        final JoinSpec.Builder b = JoinSpec.builder(kind, type).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .rightFilter("v", CompareOp.NE, Literal.of(3));
        switch (shape)
        {
            case REGULAR_TTL:
                b.stateTtl(6);
                break;
            case REGULAR_UNIQUE:
                b.leftUniqueKey("id").rightUniqueKey("id");
                break;
            case INTERVAL:
                b.interval(IntervalBounds.inclusive(-3, 2)).allowedLateness(1);
                break;
            case TUMBLING:
                b.window(WindowSpec.tumbling(5, 0));
                break;
            case SLIDING:
                b.window(WindowSpec.sliding(6, 3, 0));
                break;
            case SESSION:
                b.window(WindowSpec.session(3));
                break;
            case ASOF_BACKWARD_EAGER:
                b.asof(AsofSpec.of(AsofSpec.Direction.BACKWARD).withEmit(AsofSpec.Emit.EAGER)).allowedLateness(1);
                break;
            case ASOF_FORWARD_FINAL:
                b.asof(AsofSpec.of(AsofSpec.Direction.FORWARD).withTolerance(6));
                break;
            case ASOF_NEAREST_EAGER:
                b.asof(AsofSpec.of(AsofSpec.Direction.NEAREST).withTolerance(5).withEmit(AsofSpec.Emit.EAGER)).allowedLateness(2);
                break;
            default:
                break;
        }
        if (type != JoinType.SEMI && type != JoinType.ANTI && kind != JoinKind.WINDOW && shape != Shape.ASOF_NEAREST_EAGER)
        {
            b.condition("v", CompareOp.LE, "v");
        }
        return b.build();
    }

    /** One input event. */
    record Event(int what, Side side, ChangeKind op, Map<String, Object> row, long ts)
    {
        static final int ROW = 0;
        static final int WATERMARK_BOTH = 1;
        static final int WATERMARK_SIDE = 2;
        static final int IDLE = 3;
        static final int END = 4;
    }

    static List<Event> scenario(final Shape shape, final SplittableRandom random, final int events)
    {
        final List<Event> out = new ArrayList<>();
        final List<Event> inserted = new ArrayList<>();
        final boolean regular = shape.name().startsWith("REGULAR");
        long time = 0;
        int id = 0;
        for (int i = 0; i < events; i++)
        {
            final int draw = random.nextInt(100);
            if (draw < 70)
            {
                if (regular && !inserted.isEmpty() && random.nextInt(4) == 0)
                {
                    final Event victim = inserted.remove(random.nextInt(inserted.size()));
                    out.add(new Event(Event.ROW, victim.side, ChangeKind.DELETE, victim.row, victim.ts));
                    continue;
                }
                final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                final ChangeKind op = shape.versioned() ? versionedOp(random, side)
                    : shape.asof() && random.nextInt(40) == 0 ? ChangeKind.DELETE : ChangeKind.INSERT;
                final Map<String, Object> row = new TreeMap<>();
                if (random.nextInt(10) != 0)
                {
                    row.put("k", (long)random.nextInt(4));
                }
                row.put("id", (long)id++);
                row.put("v", (long)random.nextInt(4));
                final long ts = Math.max(0, time + random.nextInt(9) - 5);
                final Event e = new Event(Event.ROW, side, op, row, ts);
                out.add(e);
                inserted.add(e);
                time += random.nextInt(3);
            }
            else if (draw < 85)
            {
                out.add(new Event(Event.WATERMARK_BOTH, null, null, null, time - 2));
            }
            else if (draw < 95)
            {
                out.add(new Event(Event.WATERMARK_SIDE, random.nextBoolean() ? Side.LEFT : Side.RIGHT, null, null,
                    time - random.nextInt(4)));
            }
            else
            {
                out.add(new Event(Event.IDLE, random.nextBoolean() ? Side.LEFT : Side.RIGHT, null, null, 0));
            }
        }
        if (random.nextBoolean())
        {
            out.add(new Event(Event.END, null, null, null, 0));
        }
        return out;
    }

    /**
     * A temporal or lookup join's op: the right side a changelog (+I, +U, -D, and -U that is ignored), the
     * left side append-only but for the odd row dead-lettered as not append-only.
     */
    static ChangeKind versionedOp(final SplittableRandom random, final Side side)
    {
        final int draw = random.nextInt(100);
        if (side == Side.LEFT)
        {
            return draw < 4 ? ChangeKind.DELETE : ChangeKind.INSERT;
        }
        return draw < 45 ? ChangeKind.INSERT : draw < 70 ? ChangeKind.UPDATE_AFTER : draw < 88 ? ChangeKind.DELETE
            : ChangeKind.UPDATE_BEFORE;
    }

    /** Records every output and dead letter as text, across the operators of one run. */
    static final class Recorder implements ResultHandler, DeadLetterHandler
    {
        final List<String> lines = new ArrayList<>();

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            lines.add(step + " " + kind.shortString() + ' ' + format(LEFT, left) + ' ' + format(RIGHT, right) + " @" + timestamp);
        }

        @Override
        public void onWindowResult(final ChangeKind kind, final RowView left, final RowView right,
            final long windowStart, final long windowEnd, final long step)
        {
            lines.add(step + " " + kind.shortString() + ' ' + format(LEFT, left) + ' ' + format(RIGHT, right) +
                " [" + windowStart + ", " + windowEnd + ')');
        }

        @Override
        public void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
            final DeadLetterReason reason)
        {
            lines.add(step + " dead " + side + ' ' + kind.shortString() + ' ' + format(side == Side.LEFT ? LEFT : RIGHT, row) +
                " @" + ts + ' ' + reason);
        }

        private static String format(final Schema schema, final RowView row)
        {
            return row == null ? "null" : Rows.format(schema, row);
        }
    }

    /** A run's outputs and its operator's final counters. */
    record Result(List<String> lines, long[] counters)
    {
    }

    static long[] counters(final OperatorCounters c)
    {
        return new long[] {c.rowsIn(), c.rowsOut(), c.lateRows(), c.badInputs(), c.expiredRows(), c.liveLeft(), c.liveRight(),
            c.pendingTimers(), c.watermark(), c.hashCollisions(), c.stateBytes(), c.usedStateBytes(), c.liveStateBytes()};
    }

    /** The counters that mean the same in memory and in files (not the byte counts). */
    static long[] semantic(final long[] counters)
    {
        return Arrays.copyOf(counters, 10);
    }

    static void apply(final JoinOperator op, final Event e, final long step)
    {
        switch (e.what)
        {
            case Event.ROW:
                op.onRow(e.side, e.op, Rows.row(e.side == Side.LEFT ? LEFT : RIGHT, e.row), e.ts, step);
                break;
            case Event.WATERMARK_BOTH:
                op.onWatermark(e.ts, step);
                break;
            case Event.WATERMARK_SIDE:
                op.onWatermark(e.side, e.ts, step);
                break;
            case Event.IDLE:
                op.onIdle(e.side, step);
                break;
            default:
                op.onEndOfInput(step);
                break;
        }
    }

    /**
     * Runs the events, closing the operator and opening a new one on the same configuration before each
     * step in {@code reopenAt}, and persisting (without closing) before each step in {@code persistAt}.
     */
    @SuppressWarnings("try") // a resource held for the duration of the block, not used in it
    static Result run(final JoinSpec spec, final StateConfig config, final List<Event> events, final int[] reopenAt,
        final int[] persistAt) throws IOException
    {
        final Recorder recorder = new Recorder();
        JoinOperator op = JoinOperators.create(spec, config, recorder, recorder);
        try
        {
            for (int i = 0; i < events.size(); i++)
            {
                if (Arrays.binarySearch(reopenAt, i) >= 0)
                {
                    op.close();
                    // The address space the closed state was mapped at is taken meanwhile, so that the
                    // reopened state is mapped elsewhere and must work by offsets, not addresses.
                    final Path placeholder = Files.createTempFile("durable-placeholder", ".dat");
                    Files.delete(placeholder);
                    try (MappedFile taken = MappedFile.create(placeholder, config.maxStateBytes() + (1 << 20), 4096))
                    {
                        op = JoinOperators.create(spec, config, recorder, recorder);
                    }
                    finally
                    {
                        Files.deleteIfExists(placeholder);
                    }
                    assertTrue(op.durable());
                }
                if (Arrays.binarySearch(persistAt, i) >= 0)
                {
                    op.persist();
                }
                apply(op, events.get(i), i);
            }
            return new Result(recorder.lines, counters(op.counters()));
        }
        finally
        {
            op.close();
        }
    }

    static int[] points(final SplittableRandom random, final int events, final int count)
    {
        final int[] points = new int[count];
        for (int i = 0; i < count; i++)
        {
            points[i] = random.nextInt(events + 1);
        }
        Arrays.sort(points);
        return points;
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void reopenedRunsMatchUninterruptedRuns(final Shape shape, final JoinType type, final IndexKind index,
        @TempDir final Path dir) throws IOException
    {
        final JoinSpec spec = spec(shape, type);
        final StateConfig memory = CONFIG.withIndex(index);
        final SplittableRandom master = new SplittableRandom(SEED ^ (shape.ordinal() * 31L + type.ordinal()) * 131 + index.ordinal());
        // The versioned joins get more scenarios: their version wheel and waiting left rows cross each reopen.
        final int scenarios = shape.versioned() || shape.asof() ? 2 * SCENARIOS : SCENARIOS;
        long produced = 0;
        for (int s = 0; s < scenarios; s++)
        {
            final long seed = master.nextLong();
            final SplittableRandom random = new SplittableRandom(seed);
            final List<Event> events = scenario(shape, random, 40 + random.nextInt(80));
            final Result reference = run(spec, memory, events, new int[0], new int[0]);
            final Result whole = run(spec, memory.withStateDirectory(dir.resolve("whole-" + s)), events, new int[0], new int[0]);
            final int[] reopenAt = points(random, events.size(), 1 + random.nextInt(4));
            final int[] persistAt = points(random, events.size(), random.nextInt(3));
            final Result split = run(spec, memory.withStateDirectory(dir.resolve("split-" + s)), events, reopenAt, persistAt);
            final String where = shape + " " + type + " " + index + " scenario seed " + seed + " reopened before events " +
                Arrays.toString(reopenAt) + ", persisted before " + Arrays.toString(persistAt);
            assertEquals(reference.lines, whole.lines, "durable vs in memory: " + where);
            assertArrayEquals(semantic(reference.counters), semantic(whole.counters), "durable counters vs in memory: " + where);
            assertEquals(whole.lines, split.lines, "reopened vs uninterrupted: " + where);
            assertArrayEquals(whole.counters, split.counters, "reopened counters vs uninterrupted: " + where);
            produced += reference.lines.size();
        }
        assertTrue(produced > 0, "the scenarios produced output and dead letters to compare");
    }
}
