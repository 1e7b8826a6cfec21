package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.metrics.OperatorCounters;
import io.junction.testing.Rows;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 21: the regular join ported onto the {@link OperatorDriver} ({@link RegularJoin}, its state views and
 * collaborators) emits exactly what the operator of its own did ({@link RegularJoinBefore}, kept in the test
 * sources for this): the same results, dead letters and expiry reports in the same order, the same counters,
 * and in durable mode the same files, byte for byte; and a state directory either wrote reopens in the other.
 * Random specs (every join type, per-side TTLs, padded-row delays, padOnExpiry, upsert output, every unique-key
 * shape per side, a user condition that sometimes throws, tight live-row caps under REJECT and EXPIRE_OLDEST)
 * and random changelogs (inserts, retractions of live and of absent rows, watermarks per side and both, idle
 * sides, late rows), on both indexes. Seeds are fixed; {@code -Djunction.test.seed} changes the master seed.
 */
class RegularJoinPortTest
{
    static final long SEED = Long.getLong("junction.test.seed", 21L);
    static final int SCENARIOS = Integer.getInteger("junction.test.portScenarios", 120);
    static final Schema LEFT = Schema.of("k", "id", "v");
    static final Schema RIGHT = Schema.of("k", "id", "w");

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void thePortEmitsWhatTheOperatorOfItsOwnDid(final IndexKind index, @TempDir final Path dir) throws IOException
    {
        final Random master = new Random(SEED ^ index.ordinal());
        for (int scenario = 0; scenario < SCENARIOS; scenario++)
        {
            final long seed = master.nextLong();
            final boolean durable = scenario % 6 == 0;
            final Path scenarioDir = dir.resolve("s" + scenario);
            try
            {
                run(seed, index, durable ? scenarioDir : null);
            }
            catch (final AssertionError | RuntimeException e)
            {
                throw new AssertionError("scenario " + scenario + " seed " + seed + " index " + index + ": " + e.getMessage(), e);
            }
        }
    }

    private static void run(final long seed, final IndexKind index, final Path dir) throws IOException
    {
        final Random random = new Random(seed);
        final JoinSpec spec = spec(random);
        StateConfig config = StateConfig.defaults().withMaxKeys(256).withChunkSize(64 * 1024).withIndex(index)
            .withHashSeed(7).withMaxLiveRows(random.nextBoolean() ? 4096 : 4 + random.nextInt(20))
            .withFullPolicy(random.nextBoolean() ? FullPolicy.EXPIRE_OLDEST : FullPolicy.REJECT);
        final List<Event> events = events(random, 40 + random.nextInt(160));
        final Recorder before = new Recorder();
        final Recorder after = new Recorder();
        if (dir == null)
        {
            final JoinOperator old = new RegularJoinBefore(spec, config, before, before);
            final JoinOperator ported = JoinOperators.create(spec, config, after, after);
            replay(events, old, ported, before, after, spec);
            old.onEndOfInput(events.size());
            ported.onEndOfInput(events.size());
            compare(before, after, old, ported, spec, "end of input");
            old.close();
            ported.close();
            return;
        }
        // Durable: the first half, closed; the files compared; each directory reopened by the other class.
        final Path oldDir = dir.resolve("old");
        final Path newDir = dir.resolve("new");
        final List<Event> first = events.subList(0, events.size() / 2);
        final List<Event> second = events.subList(events.size() / 2, events.size());
        JoinOperator old = new RegularJoinBefore(spec, config.withStateDirectory(oldDir), before, before);
        JoinOperator ported = JoinOperators.create(spec, config.withStateDirectory(newDir), after, after);
        replay(first, old, ported, before, after, spec);
        old.close();
        ported.close();
        sameFiles(oldDir, newDir);
        ported = JoinOperators.create(spec, config.withStateDirectory(oldDir), after, after);
        old = new RegularJoinBefore(spec, config.withStateDirectory(newDir), before, before);
        compare(before, after, old, ported, spec, "reopened");
        replay(second, old, ported, before, after, spec);
        old.onEndOfInput(events.size());
        ported.onEndOfInput(events.size());
        compare(before, after, old, ported, spec, "end of input");
        old.close();
        ported.close();
        sameFiles(newDir, oldDir);
    }

    private static void replay(
        final List<Event> events, final JoinOperator old, final JoinOperator ported, final Recorder before,
        final Recorder after, final JoinSpec spec)
    {
        for (final Event e : events)
        {
            e.apply(old);
            e.apply(ported);
            compare(before, after, old, ported, spec, e.toString());
        }
    }

    private static void compare(
        final Recorder before, final Recorder after, final JoinOperator old, final JoinOperator ported,
        final JoinSpec spec, final String where)
    {
        if (!before.lines.equals(after.lines))
        {
            fail("after " + where + " of " + spec + ":\nbefore: " + before.lines + "\nported: " + after.lines);
        }
        assertEquals(counters(old.counters()), counters(ported.counters()), "counters after " + where + " of " + spec);
    }

    private static String counters(final OperatorCounters c)
    {
        return "in=" + c.rowsIn() + " out=" + c.rowsOut() + " bad=" + c.badInputs() + " expired=" + c.expiredRows() +
            " evicted=" + c.evictedRows() + " live=" + c.liveLeft() + "/" + c.liveRight() + " bytes=" + c.stateBytes() +
            "/" + c.usedStateBytes() + "/" + c.liveStateBytes() + " timers=" + c.pendingTimers() + " wm=" + c.watermark() +
            " failures=" + c.userCodeFailures();
    }

    private static void sameFiles(final Path a, final Path b) throws IOException
    {
        final String[] names;
        try (Stream<Path> files = Files.list(a))
        {
            names = files.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new);
        }
        try (Stream<Path> files = Files.list(b))
        {
            assertArrayEquals(names, files.map(p -> p.getFileName().toString()).sorted().toArray(String[]::new));
        }
        for (final String name : names)
        {
            if (!Arrays.equals(Files.readAllBytes(a.resolve(name)), Files.readAllBytes(b.resolve(name))))
            {
                fail("durable file " + name + " differs");
            }
        }
    }

    /** @return a random valid regular-join spec. */
    private static JoinSpec spec(final Random random)
    {
        while (true)
        {
            final JoinType type = JoinType.values()[random.nextInt(JoinType.values().length)];
            final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT).leftKey("k").rightKey("k");
            uniqueKey(random, b, Side.LEFT);
            uniqueKey(random, b, Side.RIGHT);
            for (final Side side : Side.values())
            {
                if (random.nextInt(3) > 0)
                {
                    b.stateTtl(side, 20 + random.nextInt(200));
                }
            }
            if (random.nextInt(3) == 0)
            {
                b.paddedDelay(random.nextInt(80));
            }
            if (random.nextInt(3) == 0)
            {
                b.padOnExpiry(true);
            }
            if (random.nextInt(3) == 0)
            {
                b.output(OutputMode.UPSERT);
            }
            if (random.nextInt(3) == 0)
            {
                b.condition((l, r) ->
                {
                    final long v = l.isNull(2) ? -1 : l.getLong(2);
                    final long w = r.isNull(2) ? -1 : r.getLong(2);
                    if (v == 3 && w == 3)
                    {
                        throw new IllegalStateException("a user condition that throws");
                    }
                    return v <= w + 1;
                });
            }
            try
            {
                return b.build();
            }
            catch (final IllegalArgumentException e)
            {
                // an invalid combination: draw again
            }
        }
    }

    private static void uniqueKey(final Random random, final JoinSpec.Builder b, final Side side)
    {
        final int shape = random.nextInt(3);
        if (shape == 0)
        {
            return;
        }
        final String[] fields = shape == 1 ? new String[] {"k"} : new String[] {"id"};
        if (side == Side.LEFT)
        {
            b.leftUniqueKey(fields);
        }
        else
        {
            b.rightUniqueKey(fields);
        }
    }

    private static List<Event> events(final Random random, final int count)
    {
        final List<Event> events = new ArrayList<>();
        final List<Event> live = new ArrayList<>();
        long time = 0;
        for (int step = 0; step < count; step++)
        {
            final int what = random.nextInt(100);
            final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
            if (what < 50 || live.isEmpty() && what < 70)
            {
                final Event e = Event.row(side, random.nextInt(4) == 0 ? ChangeKind.UPDATE_AFTER : ChangeKind.INSERT,
                    row(random, side), time - 50 + random.nextInt(120), step);
                events.add(e);
                live.add(e);
            }
            else if (what < 70)
            {
                final Event inserted = live.remove(random.nextInt(live.size()));
                events.add(Event.row(inserted.side, random.nextBoolean() ? ChangeKind.DELETE : ChangeKind.UPDATE_BEFORE,
                    inserted.values, inserted.ts, step));
            }
            else if (what < 75)
            {
                events.add(Event.row(side, ChangeKind.DELETE, row(random, side), time, step));
            }
            else if (what < 88)
            {
                time += random.nextInt(60);
                events.add(Event.watermark(side, time, step));
            }
            else if (what < 95)
            {
                time += random.nextInt(60);
                events.add(Event.watermark(null, time, step));
            }
            else
            {
                events.add(Event.idle(side, step));
            }
        }
        return events;
    }

    private static Map<String, Object> row(final Random random, final Side side)
    {
        final Map<String, Object> values = new LinkedHashMap<>();
        final int k = random.nextInt(6);
        values.put("k", k == 5 ? null : (long)k);
        final int id = random.nextInt(7);
        values.put("id", id == 6 ? null : (long)id);
        final int v = random.nextInt(5);
        values.put(side == Side.LEFT ? "v" : "w", v == 4 ? null : (long)v);
        return values;
    }

    /** One input event, applied alike to both operators. */
    static final class Event
    {
        final int what;
        final Side side;
        final ChangeKind kind;
        final Map<String, Object> values;
        final RowView row;
        final long ts;
        final long step;

        private Event(
            final int what, final Side side, final ChangeKind kind, final Map<String, Object> values, final long ts,
            final long step)
        {
            this.what = what;
            this.side = side;
            this.kind = kind;
            this.values = values;
            this.row = values == null ? null : Rows.row(side == Side.LEFT ? LEFT : RIGHT, values);
            this.ts = ts;
            this.step = step;
        }

        static Event row(final Side side, final ChangeKind kind, final Map<String, Object> values, final long ts, final long step)
        {
            return new Event(0, side, kind, values, ts, step);
        }

        static Event watermark(final Side side, final long watermark, final long step)
        {
            return new Event(1, side, null, null, watermark, step);
        }

        static Event idle(final Side side, final long step)
        {
            return new Event(2, side, null, null, 0, step);
        }

        void apply(final JoinOperator op)
        {
            switch (what)
            {
                case 0:
                    op.onRow(side, kind, row, ts, step);
                    break;
                case 1:
                    if (side == null)
                    {
                        op.onWatermark(ts, step);
                    }
                    else
                    {
                        op.onWatermark(side, ts, step);
                    }
                    break;
                default:
                    op.onIdle(side, step);
                    break;
            }
        }

        @Override
        public String toString()
        {
            return "step " + step + (what == 0 ? " " + side + " " + kind + " " + Rows.format(values) + " ts=" + ts
                : what == 1 ? " watermark " + (side == null ? "both" : side) + " " + ts : " idle " + side);
        }
    }

    /** Records everything an operator tells its handlers, in order. */
    static final class Recorder implements ResultHandler, ExpiryHandler, DeadLetterHandler
    {
        final List<String> lines = new ArrayList<>();

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            lines.add(kind + " " + (left == null ? "null" : Rows.format(LEFT, left)) + " " +
                (right == null ? "null" : Rows.format(RIGHT, right)) + " @" + timestamp + " #" + step);
        }

        @Override
        public void onExpired(final Side side, final RowView row, final long timestamp, final ExpiryReason reason, final long step)
        {
            lines.add("expired " + side + " " + Rows.format(side == Side.LEFT ? LEFT : RIGHT, row) + " @" + timestamp + " " + reason + " #" + step);
        }

        @Override
        public void onDeadLetter(
            final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
        {
            lines.add("dead " + side + " " + kind + " " + Rows.format(side == Side.LEFT ? LEFT : RIGHT, row) + " @" + ts + " " + reason + " #" + step);
        }
    }
}
