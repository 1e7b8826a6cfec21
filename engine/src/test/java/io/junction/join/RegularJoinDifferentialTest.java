package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.FieldFilter;
import io.junction.api.FieldType;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.testing.DeadLetter;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomised differential test of the regular join against a brute-force SQL reference (SEMANTICS 4: "applying
 * all output lines in order to an empty multiset gives exactly the SQL join of the current contents of both
 * inputs"), checked after every event, for every join type and several filter/condition/key variants.
 *
 * <p>Reproducible: the master seed is {@value #DEFAULT_SEED} unless {@code -Djunction.test.seed=N} is given;
 * a failure prints the seed, the batch and the events of the failing sequence.
 */
class RegularJoinDifferentialTest
{
    static final long DEFAULT_SEED = 0x5EED_1234_ABCDL;
    static final long SEED = Long.getLong("junction.test.seed", DEFAULT_SEED);
    static final int BATCHES = Integer.getInteger("junction.test.batches", 12);
    static final int SEQUENCES_PER_BATCH = 10;

    static final Schema LEFT = Schema.of("id", "v");
    static final Schema RIGHT = Schema.of("w", "id");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withChunkSize(64 * 1024);

    /** Marks an absent field in the domain of values. */
    static final Object ABSENT = new Object()
    {
        @Override
        public String toString()
        {
            return "<absent>";
        }
    };

    enum Variant
    {
        PLAIN,
        FILTERS,
        CONDITION,
        FILTERS_AND_CONDITION,
        COMPOSITE_KEY,
        /** {@code v IN (0, 2, NULL)} and {@code w = 0 OR w > 1}. */
        IN_AND_ANY,
        /** A user RowFilter {@code v <> 1} and a user PairCondition {@code v + w <= 2}. */
        USER_PREDICATES,
        /** The condition {@code left.v + 1 <= right.w}. */
        CONDITION_OFFSET
    }

    /** A row of the domain: its values, canonical text and bytes. */
    record DomainRow(int index, Map<String, Object> values, String text, RowView view)
    {
    }

    static final List<DomainRow> LEFT_ROWS = domain(LEFT, "id", "v");
    static final List<DomainRow> RIGHT_ROWS = domain(RIGHT, "id", "w");

    static List<DomainRow> domain(final Schema schema, final String key, final String value)
    {
        final Object[] keys = {0L, 1L, 2L, 3L, null, ABSENT, "1"};
        final Object[] values = {0L, 1L, 2L, null};
        final List<DomainRow> rows = new ArrayList<>();
        for (final Object k : keys)
        {
            for (final Object v : values)
            {
                final Map<String, Object> map = new LinkedHashMap<>();
                if (k != ABSENT)
                {
                    map.put(key, k);
                }
                map.put(value, v);
                rows.add(new DomainRow(rows.size(), map, Rows.format(map), Rows.row(schema, map)));
            }
        }
        return rows;
    }

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final JoinType type : JoinType.values())
        {
            for (final Variant variant : Variant.values())
            {
                for (final IndexKind index : IndexKind.values())
                {
                    cases.add(Arguments.of(type, variant, index));
                }
            }
        }
        return cases.stream();
    }

    // ---------------------------------------------------------------- the reference

    static JoinSpec spec(final JoinType type, final Variant variant)
    {
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT).leftKey("id").rightKey("id");
        if (variant == Variant.FILTERS || variant == Variant.FILTERS_AND_CONDITION)
        {
            b.leftFilter("v", CompareOp.GE, Literal.of(1)).rightFilter("w", CompareOp.NE, Literal.of(2));
        }
        if (variant == Variant.CONDITION || variant == Variant.FILTERS_AND_CONDITION)
        {
            b.condition("v", CompareOp.LE, "w");
        }
        if (variant == Variant.COMPOSITE_KEY)
        {
            b.leftKey("v").rightKey("w");
        }
        if (variant == Variant.IN_AND_ANY)
        {
            b.leftFilter(FieldFilter.in("v", Literal.of(0), Literal.of(2), Literal.ofNull()))
                .rightFilter(FieldFilter.any(new FieldFilter("w", CompareOp.EQ, Literal.of(0)), new FieldFilter("w", CompareOp.GT, Literal.of(1))));
        }
        if (variant == Variant.CONDITION_OFFSET)
        {
            b.condition("v", 1, CompareOp.LE, "w");
        }
        if (variant == Variant.USER_PREDICATES)
        {
            final int v = LEFT.indexOf("v");
            final int w = RIGHT.indexOf("w");
            b.leftFilter(row -> row.type(v) == FieldType.LONG && row.getLong(v) != 1)
                .condition((l, r) -> l.type(v) == FieldType.LONG && r.type(w) == FieldType.LONG && l.getLong(v) + r.getLong(w) <= 2);
        }
        return b.build();
    }

    /** The SQL ON clause, written independently of the engine. */
    static boolean on(final Variant variant, final Map<String, Object> l, final Map<String, Object> r)
    {
        if (!sqlEquals(l.get("id"), r.get("id")))
        {
            return false;
        }
        switch (variant)
        {
            case PLAIN:
                return true;
            case FILTERS:
                return leftFilter(l) && rightFilter(r);
            case CONDITION:
                return condition(l, r);
            case FILTERS_AND_CONDITION:
                return leftFilter(l) && rightFilter(r) && condition(l, r);
            case IN_AND_ANY:
            {
                final Object v = l.get("v");
                final Object w = r.get("w");
                return v != null && ((Long)v == 0 || (Long)v == 2) && w != null && ((Long)w == 0 || (Long)w > 1);
            }
            case CONDITION_OFFSET:
            {
                final Object v = l.get("v");
                final Object w = r.get("w");
                return v != null && w != null && (Long)v + 1 <= (Long)w;
            }
            case USER_PREDICATES:
            {
                final Object v = l.get("v");
                final Object w = r.get("w");
                return v != null && (Long)v != 1 && w != null && (Long)v + (Long)w <= 2;
            }
            default:
                return sqlEquals(l.get("v"), r.get("w"));
        }
    }

    /** Key equality: null never equal; values of different types ("1" and 1) never equal. */
    static boolean sqlEquals(final Object a, final Object b)
    {
        return a != null && b != null && a.equals(b);
    }

    /** {@code v >= 1}; null is false. */
    static boolean leftFilter(final Map<String, Object> l)
    {
        final Object v = l.get("v");
        return v != null && (Long)v >= 1;
    }

    /** {@code w != 2}; null is false. */
    static boolean rightFilter(final Map<String, Object> r)
    {
        final Object w = r.get("w");
        return w != null && (Long)w != 2;
    }

    /** {@code left.v <= right.w}; null is false. */
    static boolean condition(final Map<String, Object> l, final Map<String, Object> r)
    {
        final Object v = l.get("v");
        final Object w = r.get("w");
        return v != null && w != null && (Long)v <= (Long)w;
    }

    static class Reference
    {
        final JoinType type;
        final boolean[][] match;
        final String[][] pairText;
        final String[] leftText;
        final String[] rightText;
        final int[] left;
        final int[] right;

        Reference(final JoinType type, final Variant variant)
        {
            this(type, LEFT_ROWS.size(), RIGHT_ROWS.size());
            for (final DomainRow l : LEFT_ROWS)
            {
                for (final DomainRow r : RIGHT_ROWS)
                {
                    match[l.index()][r.index()] = on(variant, l.values(), r.values());
                    pairText[l.index()][r.index()] = l.text() + " " + r.text();
                }
                leftText[l.index()] = l.text();
            }
            for (final DomainRow r : RIGHT_ROWS)
            {
                rightText[r.index()] = r.text();
            }
        }

        /** An empty reference over another domain of rows: the caller fills match, pairText and the texts. */
        Reference(final JoinType type, final int leftRows, final int rightRows)
        {
            this.type = type;
            match = new boolean[leftRows][rightRows];
            pairText = new String[leftRows][rightRows];
            leftText = new String[leftRows];
            rightText = new String[rightRows];
            left = new int[leftRows];
            right = new int[rightRows];
        }

        int[] rows(final Side side)
        {
            return side == Side.LEFT ? left : right;
        }

        long size(final Side side)
        {
            long n = 0;
            for (final int c : rows(side))
            {
                n += c;
            }
            return n;
        }

        /** @return the SQL join of the current contents, as a multiset of "left right" texts. */
        Map<String, Integer> join()
        {
            final Map<String, Integer> result = new TreeMap<>();
            final boolean[] rightMatched = new boolean[right.length];
            for (int i = 0; i < left.length; i++)
            {
                if (left[i] == 0)
                {
                    continue;
                }
                boolean matched = false;
                for (int j = 0; j < right.length; j++)
                {
                    if (right[j] == 0 || !match[i][j])
                    {
                        continue;
                    }
                    matched = true;
                    rightMatched[j] = true;
                    if (!type.isSemiOrAnti())
                    {
                        add(result, pairText[i][j], left[i] * right[j]);
                    }
                }
                final String padded = leftText[i] + " null";
                if (matched ? type == JoinType.SEMI : type == JoinType.ANTI || type.isOuter(Side.LEFT))
                {
                    add(result, padded, left[i]);
                }
            }
            if (type.isOuter(Side.RIGHT))
            {
                for (int j = 0; j < right.length; j++)
                {
                    if (right[j] != 0 && !rightMatched[j])
                    {
                        add(result, "null " + rightText[j], right[j]);
                    }
                }
            }
            return result;
        }

        static void add(final Map<String, Integer> multiset, final String key, final int copies)
        {
            if (copies != 0)
            {
                multiset.merge(key, copies, Integer::sum);
            }
        }
    }

    // ---------------------------------------------------------------- the run

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cases")
    void shouldMatchSqlJoinAfterEveryEvent(final JoinType type, final Variant variant, final IndexKind index)
    {
        final JoinSpec spec = spec(type, variant);
        final Random batchSeeds = new Random(SEED ^ (type.ordinal() * 1_000_003L + variant.ordinal() * 7919L));
        // The batches are split between the key indexes, both of which must agree with the model: each
        // index runs every other batch of the one seed sequence, so a batch number names one scenario.
        for (int batch = 0; batch < BATCHES; batch++)
        {
            final long batchSeed = batchSeeds.nextLong();
            if (batch % IndexKind.values().length == index.ordinal())
            {
                runBatch(spec, type, variant, index, batch, batchSeed);
            }
        }
    }

    /** One operator, {@link #SEQUENCES_PER_BATCH} sequences; each ends by retracting everything left. */
    static void runBatch(final JoinSpec spec, final JoinType type, final Variant variant, final IndexKind index,
        final int batch, final long batchSeed)
    {
        final Random random = new Random(batchSeed);
        try (JoinHarness h = new JoinHarness(spec, CONFIG.withIndex(index)))
        {
            for (int sequence = 0; sequence < SEQUENCES_PER_BATCH; sequence++)
            {
                final Run run = new Run(h, type, variant, random,
                    "seed=" + SEED + " (-Djunction.test.seed) " + type + " " + variant + " " + index + " batch=" + batch +
                        " batchSeed=" + batchSeed + " sequence=" + sequence);
                run.sequence(5 + random.nextInt(60));
            }
        }
    }

    static final class Run
    {
        final JoinHarness h;
        final Reference reference;
        final Random random;
        final String where;
        final Map<String, Integer> actual = new TreeMap<>();
        final List<String> log = new ArrayList<>();
        long ts;
        long watermark;

        Run(final JoinHarness h, final JoinType type, final Variant variant, final Random random, final String where)
        {
            this.h = h;
            this.reference = new Reference(type, variant);
            this.random = random;
            this.where = where;
        }

        void sequence(final int events)
        {
            for (int i = 0; i < events; i++)
            {
                final int dice = random.nextInt(100);
                if (dice < 4)
                {
                    watermark += random.nextInt(1000);
                    log.add("watermark " + watermark);
                    final List<Output> outputs = h.watermark(watermark);
                    check(outputs, false);
                    continue;
                }
                final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                if (dice < 65 || reference.size(side) == 0 && random.nextInt(4) != 0)
                {
                    final DomainRow row = pick(side);
                    event(side, random.nextInt(5) == 0 ? ChangeKind.UPDATE_AFTER : ChangeKind.INSERT, row);
                }
                else
                {
                    final DomainRow row = random.nextInt(8) != 0 && reference.size(side) > 0 ? present(side) : pick(side);
                    event(side, random.nextInt(3) == 0 ? ChangeKind.UPDATE_BEFORE : ChangeKind.DELETE, row);
                }
            }
            // drain: retract every row left, in random order, checking all the way down to empty state
            for (Side side = nextNonEmpty(); side != null; side = nextNonEmpty())
            {
                event(side, random.nextBoolean() ? ChangeKind.DELETE : ChangeKind.UPDATE_BEFORE, present(side));
            }
            final RegularJoin op = (RegularJoin)((OperatorDriver)h.operator()).algorithm();
            if (op.state.store.usedBytes() != 0 || op.state.index.size() != 0 || !actual.isEmpty())
            {
                fail(where + ": state not empty after retracting everything: usedBytes=" + op.state.store.usedBytes() +
                    " keys=" + op.state.index.size() + " output multiset=" + actual + "\nevents:\n" + String.join("\n", log));
            }
        }

        Side nextNonEmpty()
        {
            final boolean left = reference.size(Side.LEFT) > 0;
            final boolean right = reference.size(Side.RIGHT) > 0;
            if (left && right)
            {
                return random.nextBoolean() ? Side.LEFT : Side.RIGHT;
            }
            return left ? Side.LEFT : right ? Side.RIGHT : null;
        }

        /** A random domain row: mostly keys 0..3, some null, absent and "1" keys. */
        DomainRow pick(final Side side)
        {
            final List<DomainRow> rows = side == Side.LEFT ? LEFT_ROWS : RIGHT_ROWS;
            final int dice = random.nextInt(100);
            final int key = dice < 85 ? random.nextInt(4) : dice < 93 ? 4 : dice < 96 ? 5 : 6;
            final int value = random.nextInt(10) == 0 ? 3 : random.nextInt(3);
            return rows.get(key * 4 + value);
        }

        /** A random row present in the model, weighted by copies. */
        DomainRow present(final Side side)
        {
            final int[] counts = reference.rows(side);
            long n = random.nextInt((int)reference.size(side));
            for (int i = 0; i < counts.length; i++)
            {
                n -= counts[i];
                if (n < 0)
                {
                    return (side == Side.LEFT ? LEFT_ROWS : RIGHT_ROWS).get(i);
                }
            }
            throw new AssertionError("unreachable");
        }

        void event(final Side side, final ChangeKind kind, final DomainRow row)
        {
            ts += random.nextInt(100);
            log.add((side == Side.LEFT ? "left  " : "right ") + kind.shortString() + " " + row.text() + " ts=" + ts);
            final int[] counts = reference.rows(side);
            final boolean bad = !kind.isAccumulate() && counts[row.index()] == 0;
            if (!bad)
            {
                counts[row.index()] += kind.isAccumulate() ? 1 : -1;
            }
            final int deadBefore = h.deadLetters().size();
            final List<Output> outputs = h.row(side, kind, row.view(), ts);
            final List<DeadLetter> dead = h.deadLetters().deadLetters().subList(deadBefore, h.deadLetters().size());
            if (bad ? dead.size() != 1 || dead.get(0).reason() != DeadLetterReason.RETRACTION_NOT_IN_STATE : !dead.isEmpty())
            {
                fail(where + ": expected " + (bad ? "one RETRACTION_NOT_IN_STATE dead letter" : "no dead letter") +
                    ", got " + dead + "\nevents:\n" + String.join("\n", log));
            }
            check(outputs, bad);
        }

        void check(final List<Output> outputs, final boolean expectNone)
        {
            if (expectNone && !outputs.isEmpty())
            {
                fail(where + ": a dead-lettered event produced output " + outputs + "\nevents:\n" + String.join("\n", log));
            }
            for (final Output o : outputs)
            {
                final String key = Rows.format(o.left()) + " " + Rows.format(o.right());
                if (o.sign() == '+')
                {
                    actual.merge(key, 1, Integer::sum);
                }
                else
                {
                    final Integer copies = actual.get(key);
                    if (copies == null)
                    {
                        fail(where + ": output retracts a row not in the output multiset: " + o +
                            "\noutputs of the last event: " + outputs + "\nevents:\n" + String.join("\n", log));
                    }
                    if (copies == 1)
                    {
                        actual.remove(key);
                    }
                    else
                    {
                        actual.put(key, copies - 1);
                    }
                }
            }
            final Map<String, Integer> expected = reference.join();
            if (!expected.equals(actual))
            {
                fail(where + ": output multiset differs from the SQL join after event " + (log.size() - 1) +
                    "\nexpected: " + expected + "\nactual:   " + actual + "\noutputs of the last event: " + outputs +
                    "\nevents:\n" + String.join("\n", log));
            }
            final long liveLeft = h.counters().liveLeft();
            final long liveRight = h.counters().liveRight();
            if (liveLeft != reference.size(Side.LEFT) || liveRight != reference.size(Side.RIGHT))
            {
                fail(where + ": live rows " + liveLeft + "/" + liveRight + ", model holds " + reference.size(Side.LEFT) +
                    "/" + reference.size(Side.RIGHT) + "\nevents:\n" + String.join("\n", log));
            }
        }
    }
}
