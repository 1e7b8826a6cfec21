package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.ResultKey;
import io.junction.api.Side;
import io.junction.join.UpsertOutputDifferentialTest.Keys;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import io.junction.testing.Rows;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static io.junction.join.UpsertPassThroughTest.LEFT;
import static io.junction.join.UpsertPassThroughTest.RIGHT;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomised differential test of the upsert fold (SEMANTICS 4.5-4.7) step by step against a brute-force model: the
 * retraction changelog of {@link ShapingModel} (padded-row delay, state TTL) folded per step by result key,
 * the last line of a key winning (an accumulating one an upsert of its rows, a retracting one a delete
 * carrying them). On random streams that keep their unique keys (inserts, deletes, {@code -U}/{@code +U}
 * pairs as two steps, rows expired on arrival, per-side and both-side watermarks), for inner, left, right
 * and full joins, the three unique-key shapes, no delay / delay 0 / 20, no TTL / TTL 35, every step's upsert
 * output must be the model's fold: the same keys, one line each. Most steps make one line (the fold's
 * pass-through), some two of one key (a click replacing a padded show), some many (watermarks padding, a
 * row joining several). Where a watermark step pads two rows of one result key (an expired row's copy and a
 * new row of its unique key) the order of the model and the wheel may differ: any of the model's lines of
 * that key is accepted there.
 *
 * <p>Reproducible: fixed seeds; a failure prints the case and the events.
 */
class UpsertFoldDifferentialTest
{
    static final int SEQUENCES = 20;

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL})
        {
            for (final Keys keys : Keys.values())
            {
                for (final long delay : type == JoinType.INNER ? new long[] {-1} : new long[] {-1, 0, 20})
                {
                    for (final long ttl : new long[] {0, 35})
                    {
                        cases.add(Arguments.of(type, keys, delay, ttl));
                    }
                }
            }
        }
        return cases.stream();
    }

    static JoinSpec spec(final JoinType type, final Keys keys, final long delay, final long ttl)
    {
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .leftUniqueKey(UpsertOutputDifferentialTest.leftUniqueKey(keys)).rightUniqueKey(UpsertOutputDifferentialTest.rightUniqueKey(keys))
            .output(OutputMode.UPSERT).stateTtl(ttl);
        if (delay >= 0)
        {
            b.paddedDelay(delay);
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} {1} delay={2} ttl={3}")
    @MethodSource("cases")
    void everyStepIsTheModelsFold(final JoinType type, final Keys keys, final long delay, final long ttl)
    {
        final Random random = new Random(0xF01D_0000L ^ (type.ordinal() * 1_000_003L + keys.ordinal() * 7919L + delay * 31 + ttl));
        for (int sequence = 0; sequence < SEQUENCES; sequence++)
        {
            final long seed = random.nextLong();
            new Run(spec(type, keys, delay, ttl), delay, ttl, new Random(seed),
                type + " " + keys + " delay=" + delay + " ttl=" + ttl + " seed=" + seed).run();
        }
    }

    static final class Run
    {
        final JoinSpec spec;
        final Random random;
        final String where;
        final ResultKey resultKey;
        final String leftUnique;
        final String rightUnique;
        /** Every row made, by index; the model names them "L<i>" and "R<i>". */
        final List<Map<String, Object>> lefts = new ArrayList<>();
        final List<Map<String, Object>> rights = new ArrayList<>();
        final ShapingModel model;
        final List<String> log = new ArrayList<>();

        Run(final JoinSpec spec, final long delay, final long ttl, final Random random, final String where)
        {
            this.spec = spec;
            this.random = random;
            this.where = where;
            this.resultKey = spec.resultKey();
            this.leftUnique = spec.leftUniqueKey().get(0);
            this.rightUnique = spec.rightUniqueKey().get(0);
            this.model = new ShapingModel(spec.type(), delay, ttl, ttl,
                (l, r) -> lefts.get(l).get("k") != null && lefts.get(l).get("k").equals(rights.get(r).get("k")),
                l -> lefts.get(l).get("k") != null, r -> rights.get(r).get("k") != null);
        }

        void run()
        {
            try (JoinHarness h = new JoinHarness(spec, UpsertOutputDifferentialTest.CONFIG))
            {
                long ts = 1000;
                final int events = 10 + random.nextInt(60);
                for (int i = 0; i < events; i++)
                {
                    final int dice = random.nextInt(100);
                    if (dice < 16)
                    {
                        final Side side = dice < 4 ? Side.LEFT : dice < 8 ? Side.RIGHT : null;
                        final long watermark = ts - random.nextInt(70);
                        log.add("watermark " + (side == null ? "" : side + " ") + watermark);
                        check(side == null ? h.watermark(watermark) : h.watermark(side, watermark), model.watermark(side, watermark), true);
                        continue;
                    }
                    ts += random.nextInt(20);
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    final long rowTs = ts - random.nextInt(40);
                    if (dice < 65 || model.stored(side) == 0)
                    {
                        final int row = fresh(side);
                        if (row >= 0)
                        {
                            event(h, side, ChangeKind.INSERT, row, rowTs);
                        }
                        continue;
                    }
                    final int stored = model.storedRow(side, random.nextInt(1000));
                    if (dice < 85)
                    {
                        event(h, side, ChangeKind.DELETE, stored, rowTs);
                    }
                    else
                    {
                        // an update of a row: -U and +U, two steps, the same unique key
                        event(h, side, ChangeKind.UPDATE_BEFORE, stored, rowTs);
                        final Map<String, Object> updated = new LinkedHashMap<>(rows(side).get(stored));
                        updated.put(side == Side.LEFT ? "v" : "w", (long)random.nextInt(3));
                        if (!unique(side).equals("k"))
                        {
                            updated.put("k", joinKey());
                        }
                        rows(side).add(updated);
                        event(h, side, ChangeKind.UPDATE_AFTER, rows(side).size() - 1, rowTs);
                    }
                }
                log.add("end of input");
                check(h.endOfInput(), model.endOfInput(), true);
            }
        }

        List<Map<String, Object>> rows(final Side side)
        {
            return side == Side.LEFT ? lefts : rights;
        }

        String unique(final Side side)
        {
            return side == Side.LEFT ? leftUnique : rightUnique;
        }

        Object joinKey()
        {
            return random.nextInt(8) == 0 ? null : (Object)(long)random.nextInt(3);
        }

        /** @return the index of a new row whose unique key is not stored, or -1 when the one drawn is. */
        int fresh(final Side side)
        {
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put(side == Side.LEFT ? "lid" : "rid", (long)random.nextInt(4));
            // a unique key that is the join key is never null (a null unique-key field is a dead letter)
            row.put("k", unique(side).equals("k") ? (Object)(long)random.nextInt(3) : joinKey());
            row.put(side == Side.LEFT ? "v" : "w", (long)random.nextInt(3));
            final Object uk = row.get(unique(side));
            for (int i = 0; i < model.stored(side); i++)
            {
                if (uk.equals(rows(side).get(model.storedRow(side, i)).get(unique(side))))
                {
                    return -1;
                }
            }
            rows(side).add(row);
            return rows(side).size() - 1;
        }

        void event(final JoinHarness h, final Side side, final ChangeKind kind, final int row, final long ts)
        {
            final Map<String, Object> values = rows(side).get(row);
            log.add(side + " " + kind.shortString() + " " + Rows.format(values) + " ts=" + ts);
            final int deadBefore = h.deadLetters().size();
            final List<Output> out = h.row(side, kind, Rows.row(side == Side.LEFT ? LEFT : RIGHT, values), ts);
            final List<String> expected = model.row(side, kind.isAccumulate(), row, (side == Side.LEFT ? "L" : "R") + row, ts);
            if (expected == null || h.deadLetters().size() != deadBefore)
            {
                fail(where + ": dead letters " + h.deadLetters().deadLetters() + ", model " + expected + "\nevents:\n" + String.join("\n", log));
            }
            check(out, expected, false);
        }

        Map<String, Object> row(final String name)
        {
            if (name.equals("null"))
            {
                return null;
            }
            return (name.charAt(0) == 'L' ? lefts : rights).get(Integer.parseInt(name.substring(1)));
        }

        String key(final Map<String, Object> left, final Map<String, Object> right)
        {
            return (resultKey.includes(Side.LEFT) ? "L=" + (left == null ? "null" : left.get(leftUnique)) : "") +
                (resultKey.includes(Side.RIGHT) ? " R=" + (right == null ? "null" : right.get(rightUnique)) : "");
        }

        /** Checks a step's upsert output against the model's retraction lines folded by result key. */
        void check(final List<Output> actual, final List<String> modelLines, final boolean anyOfAKey)
        {
            // key -> the model's folded lines of that key: the last one, or (anyOfAKey) each one
            final Map<String, List<String>> expected = new LinkedHashMap<>();
            for (final String line : modelLines)
            {
                final String[] parts = line.split(" ");
                final Map<String, Object> left = row(parts[1]);
                final Map<String, Object> right = row(parts[2]);
                final String folded = (parts[0].equals("+") ? "upsert " : "delete ") + Rows.format(left) + " " + Rows.format(right);
                final List<String> lines = expected.computeIfAbsent(key(left, right), k -> new ArrayList<>());
                if (!anyOfAKey)
                {
                    lines.clear();
                }
                lines.add(folded);
            }
            final Set<String> keys = new HashSet<>();
            final Map<String, String> actualLines = new TreeMap<>();
            for (final Output o : actual)
            {
                final String key = key(o.left(), o.right());
                if (!keys.add(key))
                {
                    fail(where + ": two lines of key " + key + " in one step: " + actual + "\nevents:\n" + String.join("\n", log));
                }
                if (o.kind() != ChangeKind.UPDATE_AFTER && o.kind() != ChangeKind.DELETE)
                {
                    fail(where + ": upsert output carries " + o.kind() + ": " + o);
                }
                actualLines.put(key, (o.kind() == ChangeKind.UPDATE_AFTER ? "upsert " : "delete ") + Rows.format(o.left()) + " " +
                    Rows.format(o.right()));
            }
            boolean same = actualLines.keySet().equals(expected.keySet());
            for (final Map.Entry<String, String> e : actualLines.entrySet())
            {
                same &= expected.containsKey(e.getKey()) && expected.get(e.getKey()).contains(e.getValue());
            }
            if (!same)
            {
                fail(where + ": step " + (log.size() - 1) + " output " + actualLines + "\nmodel's fold " + expected +
                    "\nmodel's lines " + modelLines + "\nevents:\n" + String.join("\n", log));
            }
        }
    }
}
