package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.join.IndexKind;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import io.junction.api.RowView;

/**
 * Fuzzes the publisher's binary-row entry point, the door every embedding service uses: well-formed
 * rows, rows with bytes flipped in their headers, offset tables and payloads, random bytes, offsets
 * and lengths that are negative, overflowing or past the caller's buffer, null sides and kinds,
 * extreme timestamps and watermarks, every change kind, through small rings that fill up, into every
 * join kind and both key indexes.
 *
 * <p>Every call must return one of the documented codes; no partition may report an error or die;
 * and nothing is lost: after close, the rows the partitions received equal the rows the publisher
 * said it {@link Publisher#PUBLISHED published}, and the engine's refused count equals the calls the
 * publisher refused. Seeded ({@code -Djunction.fuzz.seed}) and bounded in time
 * ({@code -Djunction.fuzz.seconds}, default 20).
 */
final class PublisherFuzzTest
{
    private static final long SEED = Long.getLong("junction.fuzz.seed", 0x5EED_F00DL);
    private static final long BUDGET_NANOS = Duration.ofSeconds(Long.getLong("junction.fuzz.seconds", 20)).toNanos();
    private static final int CALLS_PER_ENGINE = 20_000;
    private static final long[] TIMESTAMPS = {
        Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, 1_000, Long.MAX_VALUE - 1, Long.MAX_VALUE,
    };

    @Test
    void hostileCallsNeverCrashNorLoseRows()
    {
        final Random random = new Random(SEED);
        final long deadline = System.nanoTime() + BUDGET_NANOS;
        int engines = 0;
        long calls = 0;
        while (engines < 4 || System.nanoTime() - deadline < 0)
        {
            final int round = engines;
            calls += assertTimeoutPreemptively(Duration.ofSeconds(120), () -> fuzzOneEngine(random, round),
                () -> "engine " + round + " of seed " + SEED + " hung");
            engines++;
        }
        System.out.printf("publisher fuzz: seed %d, %d engines, %d calls%n", SEED, engines, calls);
    }

    @SuppressWarnings("try") // closed early on purpose, to read what it left, inside its try block
    private static long fuzzOneEngine(final Random random, final int round)
    {
        final Schema schema = Schema.of("k", "v", "s");
        final JoinSpec spec = spec(random, schema);
        final AtomicLong handlerErrors = new AtomicLong();
        final EngineConfig config = EngineConfig.defaults()
            .withPartitions(1 + random.nextInt(3))
            .withRingSize(random.nextBoolean() ? 8 : 256)
            .withSlotCapacity(64 + random.nextInt(512))
            .withState(StateConfig.defaults().withMaxKeys(1 << 12)
                .withIndex(random.nextBoolean() ? IndexKind.HASH : IndexKind.CHRONICLE));
        final String where = "seed " + SEED + ", engine " + round + ", " + spec + ", " + config;
        long published = 0;
        long refused = 0;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        final RowWriter writer = new RowWriter();
        try (JoinEngine engine = JoinEngine.builder(spec)
            .config(config)
            .resultHandler((kind, left, right, ts, step) -> touch(left, right))
            .deadLetterHandler((side, kind, row, ts, step, reason) -> { })
            .errorHandler(t -> handlerErrors.incrementAndGet())
            .start())
        {
            final Publisher publisher = engine.publisher();
            for (int call = 0; call < CALLS_PER_ENGINE; call++)
            {
                final int choice = random.nextInt(100);
                final long step = call;
                final long ts = random.nextInt(4) == 0 ? TIMESTAMPS[random.nextInt(TIMESTAMPS.length)] : random.nextInt(10_000);
                if (choice < 4)
                {
                    assertCode(publisher.watermark(ts, step), where);
                    continue;
                }
                if (choice < 8)
                {
                    final Side side = random.nextInt(5) == 0 ? null : random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final int code = publisher.watermark(side, ts, step);
                    assertTrue(code == Publisher.PUBLISHED || (side == null && code == Publisher.INVALID_ARGUMENT),
                        () -> "watermark returned " + code + ": " + where);
                    continue;
                }
                int length = row(random, writer, buffer);
                int offset = 0;
                if (choice < 30)
                {
                    flipBytes(random, buffer, length);
                }
                else if (choice < 35)
                {
                    length = random.nextInt(buffer.capacity());
                    for (int i = 0; i < length; i++)
                    {
                        buffer.putByte(i, (byte)random.nextInt(256));
                    }
                }
                if (choice >= 35 && choice < 42)
                {
                    // Arguments that do not describe a row inside the buffer.
                    offset = random.nextBoolean() ? -1 - random.nextInt(1_000) : buffer.capacity() - random.nextInt(8);
                    length = random.nextBoolean() ? length : random.nextBoolean() ? -1 : Integer.MAX_VALUE - random.nextInt(8);
                }
                final Side side = choice == 42 ? null : random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                final ChangeKind kind = choice == 43 ? null : ChangeKind.values()[random.nextInt(ChangeKind.values().length)];
                final int code = random.nextBoolean()
                    ? publisher.tryPublish(side, kind, buffer, offset, length, ts, step, System.nanoTime())
                    : publisher.publish(side, kind, buffer, offset, length, ts, step, System.nanoTime());
                switch (code)
                {
                    case Publisher.PUBLISHED -> published++;
                    case Publisher.BACK_PRESSURED -> { }
                    // SCHEMA_MISMATCH: random bytes that happen to be a well-formed row with an array in a key field.
                    case Publisher.ROW_TOO_LARGE, Publisher.MALFORMED_ROW, Publisher.INVALID_ARGUMENT, Publisher.SCHEMA_MISMATCH -> refused++;
                    default -> fail("publish returned " + code + ": " + where);
                }
                if (choice >= 35 && choice < 44)
                {
                    assertEquals(Publisher.INVALID_ARGUMENT, code, () -> "bad arguments were not refused: " + where);
                }
            }
            assertCode(publisher.endOfInput(CALLS_PER_ENGINE), where);
            engine.close();
            long rowsIn = 0;
            for (final PartitionSnapshot snapshot : engine.metrics())
            {
                assertFalse(snapshot.failed, () -> "a partition died: " + where);
                assertEquals(0, snapshot.handlerErrors, () -> "handler errors: " + where);
                rowsIn += snapshot.rowsIn;
            }
            assertEquals(0, handlerErrors.get(), () -> "errors reported: " + where);
            assertEquals(published, rowsIn, () -> "rows published vs received: " + where);
            assertEquals(refused, engine.refusedRows(), () -> "rows refused vs counted: " + where);
        }
        return CALLS_PER_ENGINE;
    }

    private static void assertCode(final int code, final String where)
    {
        assertEquals(Publisher.PUBLISHED, code, () -> "broadcast returned " + code + ": " + where);
    }

    /** Reads every field of both rows, as a real handler would: a torn or stale row would fail here. */
    private static void touch(final RowView left, final RowView right)
    {
        if (left != null && left.validate() != null)
        {
            throw new IllegalStateException("left row handed to the result handler is malformed: " + left.validate());
        }
        if (right != null && right.validate() != null)
        {
            throw new IllegalStateException("right row handed to the result handler is malformed: " + right.validate());
        }
    }

    private static JoinSpec spec(final Random random, final Schema schema)
    {
        final JoinType type = JoinType.values()[random.nextInt(JoinType.values().length)];
        final int kind = random.nextInt(4);
        final JoinSpec.Builder builder = JoinSpec.builder(
            kind == 0 ? JoinKind.REGULAR : kind == 1 ? JoinKind.INTERVAL : JoinKind.WINDOW, type)
            .schemas(schema, schema)
            .leftKey("k").rightKey("k");
        if (random.nextBoolean())
        {
            builder.rightFilter("v", CompareOp.GT, Literal.of(3));
        }
        if (kind == 1)
        {
            builder.interval(IntervalBounds.inclusive(-random.nextInt(1_000), random.nextInt(1_000)));
        }
        else if (kind == 2)
        {
            builder.window(WindowSpec.tumbling(1 + random.nextInt(1_000), 0));
        }
        else if (kind == 3)
        {
            builder.window(random.nextBoolean() ? WindowSpec.session(1 + random.nextInt(500)) :
                WindowSpec.sliding(100 + random.nextInt(900), 100, 0));
        }
        return builder.build();
    }

    /** A well-formed row: key of several types or null, a number, sometimes a string. */
    private static int row(final Random random, final RowWriter writer, final UnsafeBuffer buffer)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 3);
        switch (random.nextInt(6))
        {
            case 0 -> writer.putNull(0);
            case 1 -> writer.putAscii(0, "k" + random.nextInt(50));
            case 2 -> writer.putDouble(0, random.nextInt(50) + 0.5);
            case 3 -> writer.putBoolean(0, random.nextBoolean());
            default -> writer.putLong(0, random.nextInt(50));
        }
        writer.putLong(1, random.nextInt(8));
        if (random.nextBoolean())
        {
            writer.putAscii(2, "x".repeat(random.nextInt(random.nextInt(8) == 0 ? 1_500 : 40)));
        }
        return writer.finish();
    }

    private static void flipBytes(final Random random, final UnsafeBuffer buffer, final int length)
    {
        final int flips = 1 + random.nextInt(3);
        for (int f = 0; f < flips && length > 0; f++)
        {
            buffer.putByte(random.nextInt(length), (byte)random.nextInt(256));
        }
    }
}
