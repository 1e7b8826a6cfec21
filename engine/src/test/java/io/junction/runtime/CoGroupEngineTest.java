package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.CoGroupFunction;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.join.StateConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.CollectingResultHandler;

/**
 * The window coGroup through the running engine (SEMANTICS 6.4, 8): with 1 and with 4 partitions a random log
 * gives, step by step, the same multiset of outputs (input rows and computed rows) and dead letters; a
 * function that throws is reported to the error handler, its rows dead-lettered, and the partition goes on.
 */
class CoGroupEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "id", "v");
    private static final Schema OUTPUT = Schema.of("k", "left", "right", "firstTs");

    /** Emits the first left and right rows, then a computed row with the key, both counts and the first left ts. */
    private static final CoGroupFunction FUNCTION = (left, right, start, end, out) ->
    {
        final boolean hasLeft = left.next();
        final boolean hasRight = right.next();
        out.emit(hasLeft ? left : null, hasRight ? right : null);
        out.row().putField(0, hasLeft ? left.row() : right.row(), 0)
            .putLong(1, left.count()).putLong(2, right.count()).putLong(3, hasLeft ? left.ts() : Long.MIN_VALUE);
        out.emitRow(null, hasRight ? right : null);
    };

    private static JoinSpec spec(final WindowSpec window, final JoinType type, final CoGroupFunction function)
    {
        return JoinSpec.builder(JoinKind.WINDOW, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .window(window).coGroup(function, OUTPUT).build();
    }

    private record Event(Side side, long ts, Object k, String id, long watermark)
    {
    }

    private static List<Event> log(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<Event> events = new ArrayList<>();
        long cursor = 0;
        for (int i = 0; i < 600; i++)
        {
            cursor += random.nextLong(0, 3);
            if (random.nextInt(10) < 8)
            {
                final int k = random.nextInt(12);
                events.add(new Event(random.nextBoolean() ? Side.LEFT : Side.RIGHT, cursor + random.nextLong(-20, 5),
                    k == 0 ? null : k == 1 ? "s" : (Object)(long)k, "e" + i, 0));
            }
            else
            {
                events.add(new Event(null, 0, null, null, cursor - random.nextLong(0, 10)));
            }
        }
        return events;
    }

    /** Records outputs and dead letters as "step: text"; one per partition, read after the engine closed. */
    private static final class Recorder implements ResultHandler, DeadLetterHandler
    {
        final List<String> lines = new ArrayList<>();

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            lines.add(step + ": no window " + text(left) + " " + text(right));
        }

        @Override
        public void onWindowResult(
            final ChangeKind kind, final RowView left, final RowView right, final long windowStart, final long windowEnd,
            final long step)
        {
            lines.add(step + ": " + kind.shortString() + " " + text(left) + " " + text(right) + " [" + windowStart + "," + windowEnd + ")");
        }

        @Override
        public void onCoGroupResult(
            final RowView left, final RowView right, final RowView row, final long windowStart, final long windowEnd, final long step)
        {
            lines.add(step + ": " + text(left) + " " + text(right) + " " + RowCodec.decode(OUTPUT, row) +
                " [" + windowStart + "," + windowEnd + ")");
        }

        @Override
        public void onDeadLetter(
            final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
        {
            lines.add(step + ": dead " + side + " " + text(row) + " " + reason);
        }

        private static String text(final RowView row)
        {
            return row == null ? "null" : RowCodec.decode(SCHEMA, row).toString();
        }
    }

    private static List<String> run(final JoinSpec spec, final List<Event> events, final int partitions, final List<Throwable> errors)
    {
        final Recorder[] recorders = new Recorder[partitions];
        for (int p = 0; p < partitions; p++)
        {
            recorders[p] = new Recorder();
        }
        final EngineConfig config = EngineConfig.defaults().withPartitions(partitions).withRingSize(1024)
            .withState(StateConfig.defaults().withMaxKeys(4096));
        try (JoinEngine engine = JoinEngine.builder(spec).config(config)
            .resultHandlers(p -> recorders[p]).deadLetterHandlers(p -> recorders[p])
            .errorHandler(t ->
            {
                synchronized (errors)
                {
                    errors.add(t);
                }
            })
            .start())
        {
            final Publisher publisher = engine.publisher();
            long step = 0;
            for (final Event e : events)
            {
                final int code = e.side() == null ? publisher.watermark(e.watermark(), step) :
                    publisher.publish(e.side(), ChangeKind.INSERT, e.k() == null ? Row.of("id", e.id()) : Row.of("k", e.k(), "id", e.id()),
                        e.ts(), step);
                assertEquals(Publisher.PUBLISHED, code);
                step++;
            }
            assertEquals(Publisher.PUBLISHED, publisher.endOfInput(step));
        }
        final List<String> all = new ArrayList<>();
        for (final Recorder r : recorders)
        {
            all.addAll(r.lines);
        }
        Collections.sort(all);
        return all;
    }

    @ParameterizedTest
    @EnumSource(WindowSpec.Kind.class)
    void onePartitionAndFourGiveTheSameOutputStepByStep(final WindowSpec.Kind kind)
    {
        final WindowSpec window = kind == WindowSpec.Kind.TUMBLING ? WindowSpec.tumbling(10, 3) :
            kind == WindowSpec.Kind.SLIDING ? WindowSpec.sliding(12, 4, 0) : WindowSpec.session(3);
        for (final JoinType type : new JoinType[] {JoinType.FULL, JoinType.LEFT, JoinType.INNER})
        {
            final long seed = new SplittableRandom().nextLong();
            final List<Event> events = log(seed);
            final List<Throwable> errors = new ArrayList<>();
            final List<String> one = run(spec(window, type, FUNCTION), events, 1, errors);
            final List<String> four = run(spec(window, type, FUNCTION), events, 4, errors);
            assertEquals(List.of(), errors, "no handler or function failed");
            assertTrue(one.stream().anyMatch(l -> l.contains("{k=")), "computed rows are emitted: " + one.size());
            assertTrue(one.stream().anyMatch(l -> l.contains(" dead ")), "late rows are in the log");
            assertEquals(one, four, kind + " " + type + " seed " + seed);
        }
    }

    @Test
    void aThrowingFunctionIsReportedAndThePartitionGoesOn()
    {
        final CoGroupFunction throwing = (left, right, start, end, out) ->
        {
            FUNCTION.coGroup(left, right, start, end, out);
            left.reset();
            if (left.next() && !left.row().isNull(0) && left.row().getLong(0) == 3)
            {
                throw new IllegalStateException("key 3");
            }
        };
        final List<Event> events = List.of(
            new Event(Side.LEFT, 1, 3L, "L1", 0), new Event(Side.RIGHT, 2, 3L, "R1", 0), new Event(Side.LEFT, 3, 4L, "L2", 0),
            new Event(null, 0, null, null, 9), new Event(Side.LEFT, 11, 3L, "L3", 0), new Event(Side.LEFT, 12, 5L, "L4", 0));
        for (final int partitions : new int[] {1, 4})
        {
            final List<Throwable> errors = new ArrayList<>();
            final List<String> lines = run(spec(WindowSpec.tumbling(10, 0), JoinType.FULL, throwing), events, partitions, errors);
            assertEquals(2, errors.size(), errors.toString());
            assertTrue(errors.stream().allMatch(t -> "key 3".equals(t.getMessage())));
            assertEquals(List.of(
                "3: dead LEFT {k=3, id=\"L1\"} COGROUP_FAILED",
                "3: dead RIGHT {k=3, id=\"R1\"} COGROUP_FAILED",
                "3: null null {k=4, left=1, right=0, firstTs=3} [0,10)",
                "3: +I {k=4, id=\"L2\"} null [0,10)",
                "6: dead LEFT {k=3, id=\"L3\"} COGROUP_FAILED",
                "6: null null {k=5, left=1, right=0, firstTs=12} [10,20)",
                "6: +I {k=5, id=\"L4\"} null [10,20)").stream().sorted().toList(), lines);
        }
    }

    /** The README's example, as written there: views and clicks per user and minute. */
    @Test
    void theReadmeExampleRuns()
    {
        final Schema events = Schema.of("user", "page");
        final JoinSpec spec = JoinSpec.builder(JoinKind.WINDOW, JoinType.LEFT)      // groups with at least one view
            .schemas(events, events).leftKey("user").rightKey("user")
            .window(WindowSpec.tumbling(60_000, 0))
            .coGroup((views, clicks, start, end, out) ->
            {
                views.next();                                                 // a left group has a view
                out.row().putField(0, views.row(), 0)                         // user
                    .putLong(1, views.count()).putLong(2, clicks.count());
                out.emitRow();
            }, Schema.of("user", "views", "clicks"))
            .build();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2).withRingSize(1024)
            .withState(StateConfig.defaults().withMaxKeys(4096))).resultHandler(results).start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("user", "ann", "page", "/a"), 1_000, 0));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("user", "ann", "page", "/b"), 2_000, 1));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("user", "ann", "page", "/b"), 3_000, 2));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("user", "bob", "page", "/a"), 4_000, 3));
            assertEquals(Publisher.PUBLISHED, publisher.endOfInput(4));
        }
        final List<CollectingResultHandler.Result> out = results.results();
        assertEquals(1, out.size(), out.toString());
        assertEquals(Row.of("user", "ann", "views", 2L, "clicks", 1L), out.get(0).row());
        assertEquals(0, out.get(0).windowStart());
        assertEquals(60_000, out.get(0).windowEnd());
    }
}
