package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import io.junction.join.RegularJoinDifferentialTest.DomainRow;
import io.junction.join.RegularJoinDifferentialTest.Variant;
import io.junction.testing.DeadLetter;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.junction.join.RegularJoinDifferentialTest.LEFT;
import static io.junction.join.RegularJoinDifferentialTest.LEFT_ROWS;
import static io.junction.join.RegularJoinDifferentialTest.RIGHT;
import static io.junction.join.RegularJoinDifferentialTest.RIGHT_ROWS;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomised differential test of the padded-row delay (SEMANTICS 4.5-4.7) against {@link ShapingModel}: for
 * left, right and full joins, delays 0, 20 and 50 ms, with and without state TTL (below and above the
 * delay), per-side watermarks, inserts, retractions and retractions of rows not stored, the operator's
 * output at every step must be the model's (as a multiset of signed lines), and dead letters must be the
 * model's. Without TTL, the whole output applied in order must at the end of input equal the SQL join of
 * what is stored (2.1's final result), and the operator must write fewer lines than the same events without
 * the delay whenever the model pads any row late.
 *
 * <p>Reproducible: fixed seeds; a failure prints the case and the events.
 */
class PaddedDelayDifferentialTest
{
    static final int SEQUENCES = Integer.getInteger("junction.test.shapingSequences", 24);
    static final StateConfig CONFIG = RegularJoinDifferentialTest.CONFIG;

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final JoinType type : new JoinType[] {JoinType.LEFT, JoinType.RIGHT, JoinType.FULL})
        {
            for (final Variant variant : new Variant[] {Variant.PLAIN, Variant.FILTERS, Variant.CONDITION, Variant.COMPOSITE_KEY})
            {
                for (final long delay : new long[] {0, 20, 50})
                {
                    for (final long ttl : new long[] {0, 35, 120})
                    {
                        cases.add(Arguments.of(type, variant, delay, ttl));
                    }
                }
            }
        }
        return cases.stream();
    }

    /** The row can match at all: its key fields are non-null and its own pre-filter passes. */
    static boolean matchable(final Variant variant, final Side side, final Map<String, Object> row)
    {
        if (row.get("id") == null)
        {
            return false;
        }
        final Object value = row.get(side == Side.LEFT ? "v" : "w");
        switch (variant)
        {
            case FILTERS:
                return side == Side.LEFT ? RegularJoinDifferentialTest.leftFilter(row) : RegularJoinDifferentialTest.rightFilter(row);
            case COMPOSITE_KEY:
                return value != null;
            default:
                return true;
        }
    }

    static JoinSpec spec(final JoinType type, final Variant variant, final long delay, final long ttl)
    {
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT).leftKey("id").rightKey("id");
        if (variant == Variant.FILTERS)
        {
            b.leftFilter("v", CompareOp.GE, Literal.of(1)).rightFilter("w", CompareOp.NE, Literal.of(2));
        }
        if (variant == Variant.CONDITION)
        {
            b.condition("v", CompareOp.LE, "w");
        }
        if (variant == Variant.COMPOSITE_KEY)
        {
            b.leftKey("v").rightKey("w");
        }
        if (delay >= 0)
        {
            b.paddedDelay(delay);
        }
        return b.stateTtl(ttl).build();
    }

    @ParameterizedTest(name = "{0} {1} delay={2} ttl={3}")
    @MethodSource("cases")
    void shouldEmitTheModelsChangelogAtEveryStep(final JoinType type, final Variant variant, final long delay, final long ttl)
    {
        final Random random = new Random(0x5AD_DE1AL ^ (type.ordinal() * 1_000_003L + variant.ordinal() * 7919L + delay * 31 + ttl));
        long delayedLines = 0;
        long plainLines = 0;
        for (int sequence = 0; sequence < SEQUENCES; sequence++)
        {
            final long seed = random.nextLong();
            final long[] lines = runSequence(type, variant, delay, ttl, seed,
                type + " " + variant + " delay=" + delay + " ttl=" + ttl + " seed=" + seed);
            delayedLines += lines[0];
            plainLines += lines[1];
        }
        if (ttl == 0 && delay > 0)
        {
            assertTrue(delayedLines < plainLines, "a delay must write fewer lines: " + delayedLines + " vs " + plainLines);
        }
    }

    /** @return the lines written with the delay and without it, for the same events. */
    static long[] runSequence(
        final JoinType type, final Variant variant, final long delay, final long ttl, final long seed, final String where)
    {
        final Random random = new Random(seed);
        final ShapingModel model = new ShapingModel(type, delay, ttl, ttl,
            (l, r) -> RegularJoinDifferentialTest.on(variant, LEFT_ROWS.get(l).values(), RIGHT_ROWS.get(r).values()),
            l -> matchable(variant, Side.LEFT, LEFT_ROWS.get(l).values()),
            r -> matchable(variant, Side.RIGHT, RIGHT_ROWS.get(r).values()));
        final List<String> log = new ArrayList<>();
        final Map<String, Integer> applied = new TreeMap<>();
        long delayedLines = 0;
        long plainLines = 0;
        try (JoinHarness h = new JoinHarness(spec(type, variant, delay, ttl), CONFIG);
             JoinHarness plain = new JoinHarness(spec(type, variant, -1, ttl), CONFIG))
        {
            long ts = 1000;
            final int events = 10 + random.nextInt(50);
            for (int i = 0; i <= events; i++)
            {
                final List<Output> actual;
                final List<Output> plainOut;
                final List<String> expected;
                final int dice = random.nextInt(100);
                if (i == events)
                {
                    log.add("end of input");
                    actual = h.endOfInput();
                    plainOut = plain.endOfInput();
                    expected = model.endOfInput();
                }
                else if (dice < 18)
                {
                    final Side side = dice < 4 ? Side.LEFT : dice < 8 ? Side.RIGHT : null;
                    final long watermark = ts - random.nextInt(80);
                    log.add("watermark " + (side == null ? "" : side + " ") + watermark);
                    actual = side == null ? h.watermark(watermark) : h.watermark(side, watermark);
                    plainOut = side == null ? plain.watermark(watermark) : plain.watermark(side, watermark);
                    expected = model.watermark(side, watermark);
                }
                else
                {
                    ts += random.nextInt(25);
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final List<DomainRow> rows = side == Side.LEFT ? LEFT_ROWS : RIGHT_ROWS;
                    final boolean accumulate = dice < 70 || model.stored(side) == 0 && random.nextInt(4) != 0;
                    final DomainRow row;
                    if (accumulate || model.stored(side) == 0 || random.nextInt(8) == 0)
                    {
                        final int key = random.nextInt(100) < 88 ? random.nextInt(3) : 4 + random.nextInt(3);
                        row = rows.get(key * 4 + random.nextInt(random.nextInt(6) == 0 ? 4 : 3));
                    }
                    else
                    {
                        row = rows.get(model.storedRow(side, random.nextInt(1000)));
                    }
                    final ChangeKind kind = accumulate ? ChangeKind.INSERT : ChangeKind.DELETE;
                    final long rowTs = ts - random.nextInt(40);
                    log.add(side + " " + kind.shortString() + " " + row.text() + " ts=" + rowTs);
                    final int deadBefore = h.deadLetters().size();
                    actual = h.row(side, kind, row.view(), rowTs);
                    plainOut = plain.row(side, kind, row.view(), rowTs);
                    expected = model.row(side, accumulate, row.index(), row.text(), rowTs);
                    final List<DeadLetter> dead = h.deadLetters().deadLetters().subList(deadBefore, h.deadLetters().size());
                    if (expected == null ? dead.size() != 1 || dead.get(0).reason() != DeadLetterReason.RETRACTION_NOT_IN_STATE
                        : !dead.isEmpty())
                    {
                        fail(where + ": dead letters " + dead + ", model says " + (expected == null ? "one" : "none") +
                            "\nevents:\n" + String.join("\n", log));
                    }
                }
                delayedLines += actual.size();
                plainLines += plainOut.size();
                final Map<String, Integer> actualLines = multiset(actual);
                final Map<String, Integer> expectedLines = new TreeMap<>();
                if (expected != null)
                {
                    for (final String line : expected)
                    {
                        expectedLines.merge(line, 1, Integer::sum);
                    }
                }
                if (!actualLines.equals(expectedLines))
                {
                    fail(where + ": step " + (log.size() - 1) + " output " + actualLines + ", model " + expectedLines +
                        "\nevents:\n" + String.join("\n", log));
                }
                for (final Output o : actual)
                {
                    applied.merge(Rows.format(o.left()) + " " + Rows.format(o.right()), o.sign() == '+' ? 1 : -1, Integer::sum);
                }
            }
            if (ttl == 0)
            {
                // 2.1's final result: the plain operator's output applied in order.
                final Map<String, Integer> plainApplied = new TreeMap<>();
                for (final Output o : plain.results().outputs())
                {
                    plainApplied.merge(Rows.format(o.left()) + " " + Rows.format(o.right()), o.sign() == '+' ? 1 : -1, Integer::sum);
                }
                plainApplied.values().removeIf(c -> c == 0);
                applied.values().removeIf(c -> c == 0);
                if (!applied.equals(plainApplied))
                {
                    fail(where + ": at end of input the delayed changelog applied is " + applied + ", 2.1's is " + plainApplied +
                        "\nevents:\n" + String.join("\n", log));
                }
            }
        }
        return new long[] {delayedLines, plainLines};
    }

    static Map<String, Integer> multiset(final List<Output> outputs)
    {
        final Map<String, Integer> lines = new TreeMap<>();
        for (final Output o : outputs)
        {
            lines.merge(o.sign() + " " + Rows.format(o.left()) + " " + Rows.format(o.right()), 1, Integer::sum);
        }
        return lines;
    }
}
