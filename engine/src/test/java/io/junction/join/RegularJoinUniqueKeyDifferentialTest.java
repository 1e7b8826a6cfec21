package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.RegularJoin.UniqueKeyShape;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.junction.join.RegularJoinDifferentialTest.ABSENT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomised differential test of declared unique keys: every scenario runs on two
 * operators, one with the unique keys declared and one with the same spec without them, and, where
 * no TTL is set, against the brute-force SQL reference of {@link RegularJoinDifferentialTest}, after
 * every event; for every join type, filter/condition/key variant, key index and state shape.
 * <ul>
 *   <li>{@link Mode#KEEP}: an upsert stream that keeps the promise (a unique key is re-inserted only
 *       after its live row is retracted, as {@code -U/+U} do): both operators must emit the same
 *       outputs and dead letters, event by event, and match the reference.</li>
 *   <li>{@link Mode#VIOLATE}: random input that breaks the promise: each row the model predicts to
 *       be rejected (a null unique-key field; an insert that can match of a unique key live under the
 *       same join key) must be dead-lettered {@code UNIQUE_KEY_VIOLATION} with no output; the plain
 *       operator and the reference are fed the input without those rows and must agree (the
 *       duplicates the rule lets through included).</li>
 *   <li>{@link Mode#KEEP_TTL}: {@link Mode#KEEP} with a state TTL and a live-row cap that evicts
 *       the oldest rows: expiry and eviction must free the unique keys as without the declaration
 *       (compared with the plain operator only: the reference does not model expiry).</li>
 * </ul>
 * Every sequence ends by retracting everything the generator holds and checks that both operators'
 * state, unique-key indexes included, is empty. Reproducible as {@link RegularJoinDifferentialTest}:
 * the master seed is {@code -Djunction.test.seed}; a failure prints it and the events.
 */
class RegularJoinUniqueKeyDifferentialTest
{
    static final long SEED = Long.getLong("junction.test.seed", RegularJoinDifferentialTest.DEFAULT_SEED);
    static final int SEQUENCES = Integer.getInteger("junction.test.ukSequences", 8);

    static final Schema LEFT = Schema.of("id", "v", "u");
    static final Schema RIGHT = Schema.of("w", "id", "u");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withChunkSize(64 * 1024).withMaxLiveRows(4096);
    static final long TTL = 300;
    /** The live-row cap of {@link Mode#KEEP_TTL}: low enough that eviction happens often. */
    static final long TTL_MAX_LIVE_ROWS = 7;

    enum Shape
    {
        /** Both sides' unique keys are within their join keys. */
        IN_JOIN_KEY,
        /** Both sides' unique keys hold a field beyond the join key. */
        INDEXED,
        /** The left side's within its join key, the right side's beyond. */
        MIXED
    }

    enum Mode
    {
        KEEP,
        VIOLATE,
        KEEP_TTL
    }

    static final List<DomainRow> LEFT_ROWS = domain(LEFT, "id", "v");
    static final List<DomainRow> RIGHT_ROWS = domain(RIGHT, "id", "w");

    static List<DomainRow> domain(final Schema schema, final String key, final String value)
    {
        final Object[] keys = {0L, 1L, 2L, 3L, null, ABSENT, "1"};
        final Object[] values = {0L, 1L, 2L, null};
        final Object[] uniques = {0L, 1L, 2L, 3L, 4L, "1", null, ABSENT};
        final List<DomainRow> rows = new ArrayList<>();
        for (final Object k : keys)
        {
            for (final Object v : values)
            {
                for (final Object u : uniques)
                {
                    final Map<String, Object> map = new LinkedHashMap<>();
                    if (k != ABSENT)
                    {
                        map.put(key, k);
                    }
                    map.put(value, v);
                    if (u != ABSENT)
                    {
                        map.put("u", u);
                    }
                    rows.add(new DomainRow(rows.size(), map, Rows.format(map), Rows.row(schema, map)));
                }
            }
        }
        return rows;
    }

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final Mode mode : Mode.values())
        {
            for (final Shape shape : Shape.values())
            {
                for (final JoinType type : JoinType.values())
                {
                    for (final Variant variant : Variant.values())
                    {
                        if (variant.compareTo(Variant.COMPOSITE_KEY) > 0)
                        {
                            // the filter forms after it are the plain differential test's; this one is about unique keys
                            continue;
                        }
                        for (final IndexKind index : IndexKind.values())
                        {
                            cases.add(Arguments.of(mode, shape, type, variant, index));
                        }
                    }
                }
            }
        }
        return cases.stream();
    }

    // ---------------------------------------------------------------- the specs and the model's view of them

    static JoinSpec.Builder base(final JoinType type, final Variant variant, final Mode mode)
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
        if (mode == Mode.KEEP_TTL)
        {
            b.stateTtl(TTL);
        }
        return b;
    }

    /** @return the unique-key fields of a side: within the join key ({@code id}, and {@code v}/{@code w} when composite) or with {@code u}. */
    static List<String> uniqueKey(final Shape shape, final Variant variant, final Side side)
    {
        final boolean composite = variant == Variant.COMPOSITE_KEY;
        final boolean inKey = shape == Shape.IN_JOIN_KEY || shape == Shape.MIXED && side == Side.LEFT;
        if (side == Side.LEFT)
        {
            // composite: all of the join key's fields in another order, or the unique field and a key field
            return inKey ? composite ? List.of("v", "id") : List.of("id") : composite ? List.of("u", "id") : List.of("u");
        }
        // composite: a strict subset of the join key, or a key field and the unique field
        return inKey ? List.of("id") : composite ? List.of("w", "u") : List.of("u");
    }

    static JoinSpec declared(final Shape shape, final JoinType type, final Variant variant, final Mode mode)
    {
        return base(type, variant, mode)
            .leftUniqueKey(uniqueKey(shape, variant, Side.LEFT).toArray(new String[0]))
            .rightUniqueKey(uniqueKey(shape, variant, Side.RIGHT).toArray(new String[0]))
            .build();
    }

    /** @return the values of {@code fields}, or null when one is null or absent (SQL: the tuple is null). */
    static List<Object> tuple(final Map<String, Object> row, final List<String> fields)
    {
        final Object[] values = new Object[fields.size()];
        for (int i = 0; i < values.length; i++)
        {
            values[i] = row.get(fields.get(i));
            if (values[i] == null)
            {
                return null;
            }
        }
        return Arrays.asList(values);
    }

    static List<String> joinKey(final Variant variant, final Side side)
    {
        return variant == Variant.COMPOSITE_KEY ? List.of("id", side == Side.LEFT ? "v" : "w") : List.of("id");
    }

    /** @return true when the row can ever match: a non-null join key and its side's pre-filter. */
    static boolean matchable(final Variant variant, final Side side, final Map<String, Object> row)
    {
        if (tuple(row, joinKey(variant, side)) == null)
        {
            return false;
        }
        if (variant == Variant.FILTERS || variant == Variant.FILTERS_AND_CONDITION)
        {
            return side == Side.LEFT ? RegularJoinDifferentialTest.leftFilter(row) : RegularJoinDifferentialTest.rightFilter(row);
        }
        return true;
    }

    // ---------------------------------------------------------------- the run

    @ParameterizedTest(name = "{0} {1} {2} {3} {4}")
    @MethodSource("cases")
    void shouldAgreeWithTheJoinWithoutDeclarationsAndTheSqlJoin(
        final Mode mode, final Shape shape, final JoinType type, final Variant variant, final IndexKind index)
    {
        final long seed = SEED ^ (mode.ordinal() * 1_000_003L + shape.ordinal() * 100_003L + type.ordinal() * 7919L +
            variant.ordinal() * 131L + index.ordinal());
        final Random random = new Random(seed);
        final StateConfig config = mode == Mode.KEEP_TTL
            ? CONFIG.withIndex(index).withMaxLiveRows(TTL_MAX_LIVE_ROWS).withFullPolicy(FullPolicy.EXPIRE_OLDEST)
            : CONFIG.withIndex(index);
        final JoinSpec declaredSpec = declared(shape, type, variant, mode);
        final JoinSpec plainSpec = base(type, variant, mode).build();
        final RegularJoinDifferentialTest.Reference reference = mode == Mode.KEEP_TTL ? null : new Reference(type, variant);
        try (JoinHarness declared = new JoinHarness(declaredSpec, config);
             JoinHarness plain = new JoinHarness(plainSpec, config))
        {
            final RegularJoin op = (RegularJoin)((OperatorDriver)declared.operator()).algorithm();
            assertEquals(shape == Shape.INDEXED ? UniqueKeyShape.INDEXED : UniqueKeyShape.IN_JOIN_KEY, RegularJoinViews.shape(op, Side.LEFT));
            assertEquals(shape == Shape.IN_JOIN_KEY ? UniqueKeyShape.IN_JOIN_KEY : UniqueKeyShape.INDEXED, RegularJoinViews.shape(op, Side.RIGHT));
            for (int sequence = 0; sequence < SEQUENCES; sequence++)
            {
                final String where = "seed=" + SEED + " (-Djunction.test.seed) " + mode + " " + shape + " " + type + " " +
                    variant + " " + index + " caseSeed=" + seed + " sequence=" + sequence;
                new Run(declared, plain, reference, mode, shape, variant, random, where).sequence(5 + random.nextInt(60));
            }
        }
    }

    /** The SQL reference of {@link RegularJoinDifferentialTest} over this test's domain (its {@code u} field joins nothing). */
    static final class Reference extends RegularJoinDifferentialTest.Reference
    {
        Reference(final JoinType type, final Variant variant)
        {
            super(type, LEFT_ROWS.size(), RIGHT_ROWS.size());
            for (final DomainRow l : LEFT_ROWS)
            {
                for (final DomainRow r : RIGHT_ROWS)
                {
                    match[l.index()][r.index()] = RegularJoinDifferentialTest.on(variant, l.values(), r.values());
                    pairText[l.index()][r.index()] = l.text() + " " + r.text();
                }
                leftText[l.index()] = l.text();
            }
            for (final DomainRow r : RIGHT_ROWS)
            {
                rightText[r.index()] = r.text();
            }
        }
    }

    static final class Run
    {
        final JoinHarness declared;
        final JoinHarness plain;
        final RegularJoinDifferentialTest.Reference reference;
        final Mode mode;
        final Shape shape;
        final Variant variant;
        final Random random;
        final String where;
        /** What the generator holds live per side (counts per domain row): the model when there is no TTL. */
        final int[] liveLeft = new int[LEFT_ROWS.size()];
        final int[] liveRight = new int[RIGHT_ROWS.size()];
        final Map<String, Integer> actual = new TreeMap<>();
        final List<String> log = new ArrayList<>();
        long ts;
        long watermark;

        Run(final JoinHarness declared, final JoinHarness plain, final RegularJoinDifferentialTest.Reference reference,
            final Mode mode, final Shape shape, final Variant variant, final Random random, final String where)
        {
            this.declared = declared;
            this.plain = plain;
            this.reference = reference;
            this.mode = mode;
            this.shape = shape;
            this.variant = variant;
            this.random = random;
            this.where = where;
        }

        static List<DomainRow> rows(final Side side)
        {
            return side == Side.LEFT ? LEFT_ROWS : RIGHT_ROWS;
        }

        int[] live(final Side side)
        {
            return side == Side.LEFT ? liveLeft : liveRight;
        }

        long size(final Side side)
        {
            long n = 0;
            for (final int c : live(side))
            {
                n += c;
            }
            return n;
        }

        List<Object> uniqueKeyOf(final Side side, final DomainRow row)
        {
            return tuple(row.values(), uniqueKey(shape, variant, side));
        }

        /** @return the live row of a side with this unique key, or null. */
        DomainRow liveWithUniqueKey(final Side side, final List<Object> uniqueKey)
        {
            final int[] counts = live(side);
            for (int i = 0; i < counts.length; i++)
            {
                if (counts[i] > 0 && uniqueKey.equals(uniqueKeyOf(side, rows(side).get(i))))
                {
                    return rows(side).get(i);
                }
            }
            return null;
        }

        /**
         * @return true when the declared operator must dead-letter the row as a violation: a null unique
         *         key, or an insert that can match while a live row of its side that can match has the
         *         same unique key and the same join key (what every shape and partitioning sees alike).
         */
        boolean violates(final Side side, final ChangeKind kind, final DomainRow row)
        {
            final List<Object> uniqueKey = uniqueKeyOf(side, row);
            if (uniqueKey == null)
            {
                return true;
            }
            if (!kind.isAccumulate() || !matchable(variant, side, row.values()))
            {
                return false;
            }
            final List<Object> key = tuple(row.values(), joinKey(variant, side));
            final int[] counts = live(side);
            for (int i = 0; i < counts.length; i++)
            {
                final DomainRow other = rows(side).get(i);
                if (counts[i] > 0 && matchable(variant, side, other.values()) && uniqueKey.equals(uniqueKeyOf(side, other)) &&
                    key.equals(tuple(other.values(), joinKey(variant, side))))
                {
                    return true;
                }
            }
            return false;
        }

        void sequence(final int events)
        {
            for (int i = 0; i < events; i++)
            {
                final int dice = random.nextInt(100);
                if (dice < (mode == Mode.KEEP_TTL ? 10 : 4))
                {
                    advanceWatermark();
                    continue;
                }
                final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                if (dice < 65 || size(side) == 0 && random.nextInt(4) != 0)
                {
                    insert(side);
                }
                else
                {
                    final DomainRow row = random.nextInt(8) != 0 && size(side) > 0 ? present(side) : bogus(side);
                    event(side, random.nextInt(3) == 0 ? ChangeKind.UPDATE_BEFORE : ChangeKind.DELETE, row);
                }
            }
            // drain: retract every row left, in random order, down to empty state
            for (Side side = nextNonEmpty(); side != null; side = nextNonEmpty())
            {
                event(side, random.nextBoolean() ? ChangeKind.DELETE : ChangeKind.UPDATE_BEFORE, present(side));
            }
            final RegularJoin withKeys = (RegularJoin)((OperatorDriver)declared.operator()).algorithm();
            final RegularJoin without = (RegularJoin)((OperatorDriver)plain.operator()).algorithm();
            for (final RegularJoin op : new RegularJoin[] {withKeys, without})
            {
                final long uniqueKeys = (RegularJoinViews.uniqueKeys(op, Side.LEFT) == null ? 0 : RegularJoinViews.uniqueKeys(op, Side.LEFT).size()) +
                    (RegularJoinViews.uniqueKeys(op, Side.RIGHT) == null ? 0 : RegularJoinViews.uniqueKeys(op, Side.RIGHT).size());
                if (op.state.store.usedBytes() != 0 || op.state.index.size() != 0 || uniqueKeys != 0)
                {
                    fail(where + ": state not empty after retracting everything: usedBytes=" + op.state.store.usedBytes() +
                        " keys=" + op.state.index.size() + " unique keys=" + uniqueKeys + "\nevents:\n" + String.join("\n", log));
                }
            }
            // (with a TTL, pairs whose row expired stay in the output: expiry retracts nothing)
            if (mode != Mode.KEEP_TTL && !actual.isEmpty())
            {
                fail(where + ": output multiset not empty after retracting everything: " + actual + "\nevents:\n" +
                    String.join("\n", log));
            }
        }

        void advanceWatermark()
        {
            watermark = mode == Mode.KEEP_TTL
                ? Math.max(watermark, ts - random.nextInt((int)(2 * TTL)))
                : watermark + random.nextInt(1000);
            log.add("watermark " + watermark);
            final List<Output> withKeys = declared.watermark(watermark);
            final List<Output> without = plain.watermark(watermark);
            compareOutputs(without, withKeys);
            check(withKeys, false);
        }

        /** An insert: in the modes that keep the promise, an upsert that first retracts the live row of the unique key. */
        void insert(final Side side)
        {
            DomainRow row = pick(side);
            if (mode == Mode.VIOLATE)
            {
                event(side, random.nextInt(5) == 0 ? ChangeKind.UPDATE_AFTER : ChangeKind.INSERT, row);
                return;
            }
            while (uniqueKeyOf(side, row) == null)
            {
                row = pick(side);
            }
            final DomainRow old = liveWithUniqueKey(side, uniqueKeyOf(side, row));
            if (old != null)
            {
                event(side, random.nextInt(4) == 0 ? ChangeKind.DELETE : ChangeKind.UPDATE_BEFORE, old);
                event(side, ChangeKind.UPDATE_AFTER, row);
            }
            else
            {
                event(side, random.nextInt(5) == 0 ? ChangeKind.UPDATE_AFTER : ChangeKind.INSERT, row);
            }
        }

        Side nextNonEmpty()
        {
            final boolean left = size(Side.LEFT) > 0;
            final boolean right = size(Side.RIGHT) > 0;
            if (left && right)
            {
                return random.nextBoolean() ? Side.LEFT : Side.RIGHT;
            }
            return left ? Side.LEFT : right ? Side.RIGHT : null;
        }

        /** A random domain row: mostly keys 0..3, some null, absent and "1" keys; unique keys over a small domain, so they repeat. */
        DomainRow pick(final Side side)
        {
            final int dice = random.nextInt(100);
            final int key = dice < 85 ? random.nextInt(4) : dice < 93 ? 4 : dice < 96 ? 5 : 6;
            final int value = random.nextInt(10) == 0 ? 3 : random.nextInt(3);
            final int unique = random.nextInt(20) == 0 ? 6 + random.nextInt(2) : random.nextInt(6);
            return rows(side).get((key * 4 + value) * 8 + unique);
        }

        /** A row to retract that may not be live; with a non-null unique key unless the mode breaks the promise. */
        DomainRow bogus(final Side side)
        {
            DomainRow row = pick(side);
            while (mode != Mode.VIOLATE && uniqueKeyOf(side, row) == null)
            {
                row = pick(side);
            }
            return row;
        }

        /** A random row the generator holds live, weighted by copies. */
        DomainRow present(final Side side)
        {
            final int[] counts = live(side);
            long n = random.nextInt((int)size(side));
            for (int i = 0; i < counts.length; i++)
            {
                n -= counts[i];
                if (n < 0)
                {
                    return rows(side).get(i);
                }
            }
            throw new AssertionError("unreachable");
        }

        String events()
        {
            return "\nevents:\n" + String.join("\n", log);
        }

        void event(final Side side, final ChangeKind kind, final DomainRow row)
        {
            ts += random.nextInt(100);
            final boolean violation = violates(side, kind, row);
            log.add((side == Side.LEFT ? "left  " : "right ") + kind.shortString() + " " + row.text() + " ts=" + ts +
                (violation ? "  (violation)" : ""));
            if (violation && mode != Mode.VIOLATE)
            {
                fail(where + ": the generator broke the promise it should keep" + events());
            }
            final int declaredDead = declared.deadLetters().size();
            final List<Output> withKeys = declared.row(side, kind, row.view(), ts);
            final List<DeadLetter> dead = declared.deadLetters().deadLetters().subList(declaredDead, declared.deadLetters().size());
            if (violation)
            {
                if (dead.size() != 1 || dead.get(0).reason() != DeadLetterReason.UNIQUE_KEY_VIOLATION || !withKeys.isEmpty())
                {
                    fail(where + ": expected one UNIQUE_KEY_VIOLATION and no output, got " + dead + " and " + withKeys + events());
                }
                return;
            }
            final int[] counts = live(side);
            final boolean bad = !kind.isAccumulate() && counts[row.index()] == 0;
            if (!bad)
            {
                counts[row.index()] += kind.isAccumulate() ? 1 : -1;
            }
            if (reference != null)
            {
                System.arraycopy(counts, 0, reference.rows(side), 0, counts.length);
            }
            final int plainDead = plain.deadLetters().size();
            final List<Output> without = plain.row(side, kind, row.view(), ts);
            final List<DeadLetter> plainLetters = plain.deadLetters().deadLetters().subList(plainDead, plain.deadLetters().size());
            compareOutputs(without, withKeys);
            if (!RegularJoinUniqueKeyTest.letters(plainLetters).equals(RegularJoinUniqueKeyTest.letters(dead)))
            {
                fail(where + ": dead letters differ: without the declaration " + plainLetters + ", with it " + dead + events());
            }
            if (reference != null && (bad ? dead.size() != 1 || dead.get(0).reason() != DeadLetterReason.RETRACTION_NOT_IN_STATE
                : !dead.isEmpty()))
            {
                fail(where + ": expected " + (bad ? "one RETRACTION_NOT_IN_STATE dead letter" : "no dead letter") +
                    ", got " + dead + events());
            }
            check(withKeys, bad);
        }

        /** The same outputs in the same order: kind, rows and timestamp (steps differ once a violation was skipped). */
        void compareOutputs(final List<Output> without, final List<Output> withKeys)
        {
            final List<String> expected = RegularJoinUniqueKeyTest.texts(without);
            final List<String> actualTexts = RegularJoinUniqueKeyTest.texts(withKeys);
            if (!expected.equals(actualTexts))
            {
                fail(where + ": outputs differ from the join without the declaration after event " + (log.size() - 1) +
                    "\nwithout: " + expected + "\nwith:    " + actualTexts + events());
            }
        }

        void check(final List<Output> outputs, final boolean expectNone)
        {
            if (expectNone && !outputs.isEmpty())
            {
                fail(where + ": a dead-lettered event produced output " + outputs + events());
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
                        fail(where + ": output retracts a row not in the output multiset: " + o + events());
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
            if (reference == null)
            {
                return;
            }
            final Map<String, Integer> expected = reference.join();
            if (!expected.equals(actual))
            {
                fail(where + ": output multiset differs from the SQL join after event " + (log.size() - 1) +
                    "\nexpected: " + expected + "\nactual:   " + actual + "\noutputs of the last event: " + outputs + events());
            }
            if (declared.counters().liveLeft() != size(Side.LEFT) || declared.counters().liveRight() != size(Side.RIGHT))
            {
                fail(where + ": live rows " + declared.counters().liveLeft() + "/" + declared.counters().liveRight() +
                    ", model holds " + size(Side.LEFT) + "/" + size(Side.RIGHT) + events());
            }
        }
    }
}
