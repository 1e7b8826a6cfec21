package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.Literal;
import io.junction.api.RowView;

/**
 * The temporal and lookup joins through the runtime's durable path: a run with a state root that takes a
 * checkpoint, crashes (closes without positions: no clean-close record), restarts from the checkpoint and
 * replays from its position, then closes cleanly and restarts from that close, ends, after dropping the
 * output of the steps after each restored position, with exactly the lines of an uninterrupted in-memory
 * run (docs/SEMANTICS.md section 9).
 */
@Timeout(120)
class TemporalDurableEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "id", "v");
    private static final int EVENTS = 3000;

    @TempDir
    Path temp;

    static Stream<Arguments> cases()
    {
        return Stream.of(JoinKind.TEMPORAL, JoinKind.LOOKUP)
            .flatMap(kind -> Stream.of(JoinType.INNER, JoinType.LEFT).map(type -> Arguments.of(kind, type)));
    }

    /** One published event: a row, or a watermark on both sides. */
    private record Event(Side side, ChangeKind op, Row row, long ts)
    {
    }

    private static List<Event> log(final long seed)
    {
        final Random random = new Random(seed);
        final List<Event> events = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < EVENTS; i++)
        {
            now += random.nextInt(3);
            final long ts = now - random.nextInt(30);
            final int dice = random.nextInt(100);
            final Object key = random.nextInt(40) == 0 ? null : (long)random.nextInt(48);
            if (dice < 45)
            {
                events.add(new Event(Side.LEFT, ChangeKind.INSERT, Row.of("k", key, "id", "L" + i, "v", random.nextInt(4)), ts));
            }
            else if (dice < 90)
            {
                final ChangeKind op = dice < 70 ? ChangeKind.INSERT : dice < 80 ? ChangeKind.UPDATE_AFTER :
                    dice < 85 ? ChangeKind.UPDATE_BEFORE : ChangeKind.DELETE;
                events.add(new Event(Side.RIGHT, op, Row.of("k", key, "id", "R" + i, "v", random.nextInt(4)), ts));
            }
            else
            {
                events.add(new Event(null, null, null, now - 40));
            }
        }
        return events;
    }

    private static JoinSpec spec(final JoinKind kind, final JoinType type)
    {
        return JoinSpec.builder(kind, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .rightFilter("v", CompareOp.NE, Literal.of(3))
            .condition("v", CompareOp.LE, "v").build();
    }

    /** Collects output and dead letters as lines that carry their step, from every partition. */
    private static final class Sink
    {
        private final JoinSpec spec;
        final CollectingResultHandler results;
        private final List<String> deadLetters = new ArrayList<>();

        Sink(final JoinSpec spec)
        {
            this.spec = spec;
            this.results = new CollectingResultHandler(spec);
        }

        synchronized void deadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts,
            final long step, final DeadLetterReason reason)
        {
            deadLetters.add(step + " dead " + side + ' ' + kind.shortString() + ' ' +
                RowCodec.decode(side == Side.LEFT ? spec.leftSchema() : spec.rightSchema(), row) + " @" + ts + ' ' + reason);
        }

        /** @return the lines of steps up to {@code lastStep}, sorted (order within a step, and across partitions, is free). */
        synchronized List<String> lines(final long lastStep)
        {
            final List<String> lines = new ArrayList<>();
            for (final CollectingResultHandler.Result r : results.results())
            {
                if (r.step() <= lastStep)
                {
                    lines.add(r.step() + " " + r.kind().shortString() + ' ' + r.left() + ' ' + r.right() + " @" + r.timestamp());
                }
            }
            for (final String line : deadLetters)
            {
                if (Long.parseLong(line.substring(0, line.indexOf(' '))) <= lastStep)
                {
                    lines.add(line);
                }
            }
            lines.sort(null);
            return lines;
        }
    }

    private static JoinEngine start(final JoinSpec spec, final Path root, final Sink sink)
    {
        EngineConfig config = EngineConfig.defaults().withPartitions(2).withRingSize(256)
            .withState(StateConfig.defaults().withMaxKeys(1024).withMaxStateBytes(64L << 20).withChunkSize(64 * 1024)
                .withHashSeed(11));
        if (root != null)
        {
            config = config.withStateRoot(root);
        }
        return JoinEngine.builder(spec).config(config).resultHandlers(p -> sink.results)
            .deadLetterHandlers(p -> sink::deadLetter).start();
    }

    /** Publishes the events of steps {@code [from, to)}; the end of input at step {@code EVENTS} when {@code to} is past the log. */
    private static void publish(final JoinEngine engine, final List<Event> events, final int from, final int to)
    {
        final Publisher p = engine.publisher();
        for (int step = from; step < Math.min(to, events.size()); step++)
        {
            final Event e = events.get(step);
            if (e.side() == null)
            {
                p.watermark(e.ts(), step);
            }
            else
            {
                assertEquals(Publisher.PUBLISHED, p.publish(e.side(), e.op(), e.row(), e.ts(), step));
            }
        }
        if (to > events.size())
        {
            p.endOfInput(events.size());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aCrashAndACleanCloseRestoreToTheOutputOfAnUninterruptedRun(final JoinKind kind, final JoinType type) throws Exception
    {
        final JoinSpec spec = spec(kind, type);
        final List<Event> events = log(0x7E3A + kind.ordinal() * 31L + type.ordinal());
        final int checkpointAt = 1100;
        final int crashAt = 1700;
        final int cleanCloseAt = 2300;

        final Sink reference = new Sink(spec);
        try (JoinEngine engine = start(spec, null, reference))
        {
            publish(engine, events, 0, EVENTS + 1);
        }
        final List<String> expected = reference.lines(Long.MAX_VALUE);
        assertTrue(expected.size() > 200, "output lines: " + expected.size());

        final Path root = temp.resolve("root");
        final List<String> kept = new ArrayList<>();
        final Sink first = new Sink(spec);
        try (JoinEngine engine = start(spec, root, first))
        {
            publish(engine, events, 0, checkpointAt);
            engine.checkpoint(new long[] {checkpointAt - 1}).get(30, TimeUnit.SECONDS);
            publish(engine, events, checkpointAt, crashAt);
            // Closed without positions: a crash as far as the next start is concerned.
        }
        final Sink second = new Sink(spec);
        try (JoinEngine engine = start(spec, root, second))
        {
            assertArrayEquals(new long[] {checkpointAt - 1}, engine.restoredPositions(), "restored from the checkpoint");
            // The sink drops what the crashed run produced after the restored position: it is produced again.
            kept.addAll(first.lines(checkpointAt - 1));
            publish(engine, events, checkpointAt, cleanCloseAt);
            engine.close(new long[] {cleanCloseAt - 1});
        }
        kept.addAll(second.lines(Long.MAX_VALUE));
        final Sink third = new Sink(spec);
        try (JoinEngine engine = start(spec, root, third))
        {
            assertArrayEquals(new long[] {cleanCloseAt - 1}, engine.restoredPositions(), "reopened from the clean close");
            assertEquals(-1, engine.restoredCheckpointId(), "a clean close is reopened in place");
            publish(engine, events, cleanCloseAt, EVENTS + 1);
        }
        kept.addAll(third.lines(Long.MAX_VALUE));
        kept.sort(null);
        assertEquals(expected, kept);
    }
}
