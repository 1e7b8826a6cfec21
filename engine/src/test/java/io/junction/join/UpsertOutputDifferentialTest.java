package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.ResultKey;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomised differential test of upsert output (SEMANTICS 4.5-4.7): on random streams that keep their declared
 * unique keys (inserts of new keys, deletes, {@code -U}/{@code +U} updates as two steps), for every join
 * type and three unique-key shapes (both unique keys outside the join key; the right one in it; the left
 * one in it), the output applied as a table keyed by the result key (computed here from the rows and
 * {@link JoinSpec#resultKey()}, independently of the fold) must equal the SQL join of the inputs after
 * every event; each step has at most one line per key; only upserts and deletes appear; a delete names a
 * key present and carries its row. With a padded-row delay (outer joins) the table must equal the SQL
 * join at the end of input.
 */
class UpsertOutputDifferentialTest
{
    static final Schema LEFT = Schema.of("lid", "k", "v");
    static final Schema RIGHT = Schema.of("rid", "k", "w");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withChunkSize(64 * 1024);
    static final int SEQUENCES = 30;

    enum Keys
    {
        /** leftUniqueKey lid, rightUniqueKey rid. */
        OUTSIDE,
        /** leftUniqueKey lid, rightUniqueKey k (the right join key). */
        RIGHT_IN_JOIN_KEY,
        /** leftUniqueKey k, rightUniqueKey rid. */
        LEFT_IN_JOIN_KEY
    }

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final JoinType type : JoinType.values())
        {
            for (final Keys keys : Keys.values())
            {
                for (final boolean condition : new boolean[] {false, true})
                {
                    cases.add(Arguments.of(type, keys, condition, -1L));
                    if (type.isOuter(Side.LEFT) || type.isOuter(Side.RIGHT))
                    {
                        cases.add(Arguments.of(type, keys, condition, 30L));
                    }
                }
            }
        }
        return cases.stream();
    }

    static String leftUniqueKey(final Keys keys)
    {
        return keys == Keys.LEFT_IN_JOIN_KEY ? "k" : "lid";
    }

    static String rightUniqueKey(final Keys keys)
    {
        return keys == Keys.RIGHT_IN_JOIN_KEY ? "k" : "rid";
    }

    static JoinSpec spec(final JoinType type, final Keys keys, final boolean condition, final long delay)
    {
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .leftUniqueKey(leftUniqueKey(keys)).rightUniqueKey(rightUniqueKey(keys)).output(OutputMode.UPSERT);
        if (condition)
        {
            b.condition("v", CompareOp.LE, "w");
        }
        if (delay >= 0)
        {
            b.paddedDelay(delay);
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} {1} condition={2} delay={3}")
    @MethodSource("cases")
    void upsertTableEqualsSqlJoin(final JoinType type, final Keys keys, final boolean condition, final long delay)
    {
        final JoinSpec spec = spec(type, keys, condition, delay);
        final Random random = new Random(0xC0FFEEL ^ (type.ordinal() * 131L + keys.ordinal() * 17L + (condition ? 7 : 0) + delay));
        for (int sequence = 0; sequence < SEQUENCES; sequence++)
        {
            new Run(spec, condition, delay >= 0, new Random(random.nextLong()),
                type + " " + keys + " condition=" + condition + " delay=" + delay + " sequence=" + sequence).run();
        }
    }

    @org.junit.jupiter.api.Test
    void resultKeyFollowsTheUniqueKeys()
    {
        assertEquals(ResultKey.BOTH, spec(JoinType.LEFT, Keys.OUTSIDE, false, -1).resultKey());
        assertEquals(ResultKey.LEFT, spec(JoinType.LEFT, Keys.RIGHT_IN_JOIN_KEY, false, -1).resultKey());
        assertEquals(ResultKey.LEFT, spec(JoinType.INNER, Keys.RIGHT_IN_JOIN_KEY, false, -1).resultKey());
        assertEquals(ResultKey.RIGHT, spec(JoinType.RIGHT, Keys.LEFT_IN_JOIN_KEY, false, -1).resultKey());
        assertEquals(ResultKey.BOTH, spec(JoinType.INNER, Keys.LEFT_IN_JOIN_KEY, false, -1).resultKey());
        assertEquals(ResultKey.BOTH, spec(JoinType.RIGHT, Keys.RIGHT_IN_JOIN_KEY, false, -1).resultKey());
        assertEquals(ResultKey.BOTH, spec(JoinType.FULL, Keys.RIGHT_IN_JOIN_KEY, false, -1).resultKey());
        assertEquals(ResultKey.LEFT, spec(JoinType.SEMI, Keys.OUTSIDE, false, -1).resultKey());
        assertEquals(ResultKey.LEFT, spec(JoinType.ANTI, Keys.LEFT_IN_JOIN_KEY, false, -1).resultKey());
    }

    static final class Run
    {
        final JoinSpec spec;
        final JoinType type;
        final boolean condition;
        final boolean delayed;
        final Random random;
        final String where;
        final ResultKey resultKey;
        /** Live rows per side by unique-key value. */
        final Map<Object, Map<String, Object>> left = new LinkedHashMap<>();
        final Map<Object, Map<String, Object>> right = new LinkedHashMap<>();
        /** The output applied: result key to "left right" text. */
        final Map<String, String> table = new HashMap<>();
        final List<String> log = new ArrayList<>();
        long ts = 1000;

        Run(final JoinSpec spec, final boolean condition, final boolean delayed, final Random random, final String where)
        {
            this.spec = spec;
            this.type = spec.type();
            this.condition = condition;
            this.delayed = delayed;
            this.random = random;
            this.where = where;
            this.resultKey = spec.resultKey();
        }

        void run()
        {
            try (JoinHarness h = new JoinHarness(spec, CONFIG))
            {
                final int events = 10 + random.nextInt(50);
                for (int i = 0; i < events; i++)
                {
                    final int dice = random.nextInt(100);
                    if (dice < 12)
                    {
                        final long watermark = ts - random.nextInt(60);
                        log.add("watermark " + watermark);
                        apply(h.watermark(watermark), !delayed);
                        continue;
                    }
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final Map<Object, Map<String, Object>> live = side == Side.LEFT ? left : right;
                    ts += random.nextInt(20);
                    if (dice < 60 || live.isEmpty())
                    {
                        final Map<String, Object> row = fresh(side);
                        if (row == null)
                        {
                            continue;
                        }
                        event(h, side, ChangeKind.INSERT, row);
                    }
                    else
                    {
                        final List<Object> keys = new ArrayList<>(live.keySet());
                        final Object key = keys.get(random.nextInt(keys.size()));
                        final Map<String, Object> old = live.get(key);
                        if (dice < 80)
                        {
                            event(h, side, ChangeKind.DELETE, old);
                        }
                        else
                        {
                            event(h, side, ChangeKind.UPDATE_BEFORE, old);
                            final Map<String, Object> updated = new LinkedHashMap<>(old);
                            updated.put(side == Side.LEFT ? "v" : "w", (long)random.nextInt(2));
                            if (!uniqueField(side).equals("k"))
                            {
                                updated.put("k", joinKey());
                            }
                            event(h, side, ChangeKind.UPDATE_AFTER, updated);
                        }
                    }
                }
                log.add("end of input");
                apply(h.endOfInput(), true);
            }
        }

        String uniqueField(final Side side)
        {
            return side == Side.LEFT ? spec.leftUniqueKey().get(0) : spec.rightUniqueKey().get(0);
        }

        Object joinKey()
        {
            return random.nextInt(8) == 0 ? null : (Object)(long)random.nextInt(3);
        }

        /** @return a row whose unique key is not live, or null when none is free. */
        Map<String, Object> fresh(final Side side)
        {
            final Map<Object, Map<String, Object>> live = side == Side.LEFT ? left : right;
            final String unique = uniqueField(side);
            final Map<String, Object> row = new LinkedHashMap<>();
            final Object id = (long)random.nextInt(4);
            row.put(side == Side.LEFT ? "lid" : "rid", id);
            // a unique key that is the join key is never null (a null unique-key field is a dead letter)
            final Object k = unique.equals("k") ? (Object)(long)random.nextInt(3) : joinKey();
            row.put("k", k);
            row.put(side == Side.LEFT ? "v" : "w", (long)random.nextInt(2));
            final Object uk = row.get(unique);
            return live.containsKey(uk) ? null : row;
        }

        void event(final JoinHarness h, final Side side, final ChangeKind kind, final Map<String, Object> row)
        {
            final Map<Object, Map<String, Object>> live = side == Side.LEFT ? left : right;
            final Object uk = row.get(uniqueField(side));
            if (kind.isAccumulate())
            {
                live.put(uk, row);
            }
            else
            {
                live.remove(uk);
            }
            log.add(side + " " + kind.shortString() + " " + Rows.format(row) + " ts=" + ts);
            final List<Output> out = h.row(side, kind, Rows.row(side == Side.LEFT ? LEFT : RIGHT, row), ts);
            if (h.deadLetters().size() != 0)
            {
                fail(where + ": dead letters " + h.deadLetters().deadLetters() + "\nevents:\n" + String.join("\n", log));
            }
            apply(out, !delayed);
        }

        String key(final Output o)
        {
            final StringBuilder sb = new StringBuilder();
            if (resultKey.includes(Side.LEFT))
            {
                sb.append("L=").append(o.left() == null ? "null" : String.valueOf(o.left().get(spec.leftUniqueKey().get(0))));
            }
            if (resultKey.includes(Side.RIGHT))
            {
                sb.append(" R=").append(o.right() == null ? "null" : String.valueOf(o.right().get(spec.rightUniqueKey().get(0))));
            }
            return sb.toString();
        }

        void apply(final List<Output> out, final boolean check)
        {
            final Set<String> keys = new HashSet<>();
            for (final Output o : out)
            {
                final String key = key(o);
                final String rows = Rows.format(o.left()) + " " + Rows.format(o.right());
                if (!keys.add(key))
                {
                    fail(where + ": two lines of key " + key + " in one step: " + out + "\nevents:\n" + String.join("\n", log));
                }
                if (o.kind() == ChangeKind.UPDATE_AFTER)
                {
                    table.put(key, rows);
                }
                else if (o.kind() == ChangeKind.DELETE)
                {
                    final String was = table.remove(key);
                    if (!rows.equals(was))
                    {
                        fail(where + ": delete of " + key + " carries " + rows + ", the table held " + was +
                            "\nevents:\n" + String.join("\n", log));
                    }
                }
                else
                {
                    fail(where + ": upsert output carries " + o.kind() + ": " + o);
                }
            }
            if (check)
            {
                final Map<String, Integer> actual = new TreeMap<>();
                for (final String rows : table.values())
                {
                    actual.merge(rows, 1, Integer::sum);
                }
                final Map<String, Integer> expected = join();
                if (!expected.equals(actual))
                {
                    fail(where + ": upsert table differs from the SQL join after event " + (log.size() - 1) +
                        "\nexpected: " + expected + "\nactual:   " + actual + "\noutputs: " + out +
                        "\nevents:\n" + String.join("\n", log));
                }
            }
        }

        boolean matches(final Map<String, Object> l, final Map<String, Object> r)
        {
            final Object lk = l.get("k");
            if (lk == null || !lk.equals(r.get("k")))
            {
                return false;
            }
            return !condition || (Long)l.get("v") <= (Long)r.get("w");
        }

        Map<String, Integer> join()
        {
            final Map<String, Integer> result = new TreeMap<>();
            final Set<Object> rightMatched = new HashSet<>();
            for (final Map<String, Object> l : left.values())
            {
                boolean matched = false;
                for (final Map.Entry<Object, Map<String, Object>> r : right.entrySet())
                {
                    if (matches(l, r.getValue()))
                    {
                        matched = true;
                        rightMatched.add(r.getKey());
                        if (!type.isSemiOrAnti())
                        {
                            result.merge(Rows.format(l) + " " + Rows.format(r.getValue()), 1, Integer::sum);
                        }
                    }
                }
                if (matched ? type == JoinType.SEMI : type == JoinType.ANTI || type.isOuter(Side.LEFT))
                {
                    result.merge(Rows.format(l) + " null", 1, Integer::sum);
                }
            }
            if (type.isOuter(Side.RIGHT))
            {
                for (final Map.Entry<Object, Map<String, Object>> r : right.entrySet())
                {
                    if (!rightMatched.contains(r.getKey()))
                    {
                        result.merge("null " + Rows.format(r.getValue()), 1, Integer::sum);
                    }
                }
            }
            return result;
        }
    }
}
