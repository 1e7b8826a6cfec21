package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.OutputMode;
import io.junction.api.ResultKey;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomised differential test of upsert output on input that breaks its unique keys, against a brute-force
 * model of the rule (docs/SEMANTICS.md 4.4, 4.6): an insert ({@code +I}/{@code +U}) whose unique key is null, or
 * live on its side in any row (whatever the join keys, null join keys and pre-join filters), is dead-lettered
 * {@code UNIQUE_KEY_VIOLATION}; a retraction with a null unique key too; a retraction of no live equal row is
 * {@code RETRACTION_NOT_IN_STATE}; everything else is applied. The output applied as a table keyed by the result
 * key must equal the SQL join of the rows the model holds, after every event (with a padded-row delay, at the end
 * of input), with at most one line per key and step; every dead letter is the model's, with its reason. Both
 * unique keys outside the join key, and within it (join key {@code u, k}), for every join type.
 */
class UpsertUniqueKeyDifferentialTest
{
    static final Schema LEFT = Schema.of("u", "k", "v");
    static final Schema RIGHT = Schema.of("u", "k", "w");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withChunkSize(64 * 1024).withMaxLiveRows(4096);
    static final int SEQUENCES = 25;

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final JoinType type : JoinType.values())
        {
            for (final boolean inJoinKey : new boolean[] {false, true})
            {
                cases.add(Arguments.of(type, inJoinKey, -1L));
                if (type.isOuter(Side.LEFT) || type.isOuter(Side.RIGHT))
                {
                    cases.add(Arguments.of(type, inJoinKey, 20L));
                }
            }
        }
        return cases.stream();
    }

    static JoinSpec spec(final JoinType type, final boolean inJoinKey, final long delay)
    {
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT)
            .leftUniqueKey("u").rightUniqueKey("u").output(OutputMode.UPSERT)
            .leftFilter("v", CompareOp.NE, Literal.of(2)).rightFilter("w", CompareOp.NE, Literal.of(2));
        if (inJoinKey)
        {
            b.leftKey("u", "k").rightKey("u", "k");
        }
        else
        {
            b.leftKey("k").rightKey("k");
        }
        if (delay >= 0)
        {
            b.paddedDelay(delay);
        }
        return b.build();
    }

    @ParameterizedTest(name = "{0} uniqueKeyInJoinKey={1} delay={2}")
    @MethodSource("cases")
    void upsertTableEqualsTheModelOnInputThatBreaksItsUniqueKeys(final JoinType type, final boolean inJoinKey, final long delay)
    {
        final JoinSpec spec = spec(type, inJoinKey, delay);
        final Random random = new Random(0x5EEDL + type.ordinal() * 31L + (inJoinKey ? 7 : 0) + delay);
        for (int sequence = 0; sequence < SEQUENCES; sequence++)
        {
            new Run(spec, inJoinKey, delay >= 0, new Random(random.nextLong()),
                type + " inJoinKey=" + inJoinKey + " delay=" + delay + " sequence=" + sequence).run();
        }
    }

    static final class Run
    {
        final JoinSpec spec;
        final JoinType type;
        final boolean inJoinKey;
        final boolean delayed;
        final Random random;
        final String where;
        final ResultKey resultKey;
        /** The model: live rows per side, in arrival order. */
        final List<Map<String, Object>> left = new ArrayList<>();
        final List<Map<String, Object>> right = new ArrayList<>();
        /** The output applied: result key to "left right" text. */
        final Map<String, String> table = new HashMap<>();
        final List<String> log = new ArrayList<>();
        long ts = 1000;

        Run(final JoinSpec spec, final boolean inJoinKey, final boolean delayed, final Random random, final String where)
        {
            this.spec = spec;
            this.type = spec.type();
            this.inJoinKey = inJoinKey;
            this.delayed = delayed;
            this.random = random;
            this.where = where;
            this.resultKey = spec.resultKey();
        }

        List<Map<String, Object>> live(final Side side)
        {
            return side == Side.LEFT ? left : right;
        }

        void run()
        {
            try (JoinHarness h = new JoinHarness(spec, CONFIG))
            {
                final int events = 10 + random.nextInt(60);
                for (int i = 0; i < events; i++)
                {
                    final int dice = random.nextInt(100);
                    if (dice < 10)
                    {
                        final long watermark = ts - random.nextInt(40);
                        log.add("watermark " + watermark);
                        apply(h.watermark(watermark), !delayed);
                        continue;
                    }
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    ts += random.nextInt(15);
                    final List<Map<String, Object>> live = live(side);
                    if (dice < 70 || live.isEmpty() && dice < 90)
                    {
                        event(h, side, random.nextInt(5) == 0 ? ChangeKind.UPDATE_AFTER : ChangeKind.INSERT, row(side));
                    }
                    else
                    {
                        final Map<String, Object> row = live.isEmpty() || random.nextInt(6) == 0
                            ? row(side) : live.get(random.nextInt(live.size()));
                        event(h, side, random.nextBoolean() ? ChangeKind.DELETE : ChangeKind.UPDATE_BEFORE, row);
                    }
                }
                log.add("end of input");
                apply(h.endOfInput(), true);
            }
        }

        /** A random row over a small domain: unique keys repeat, join keys are sometimes null, filters sometimes fail. */
        Map<String, Object> row(final Side side)
        {
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("u", random.nextInt(25) == 0 ? null : (Object)(long)random.nextInt(4));
            row.put("k", random.nextInt(6) == 0 ? null : (Object)(long)random.nextInt(3));
            row.put(side == Side.LEFT ? "v" : "w", (long)random.nextInt(3));
            return row;
        }

        /** @return the reason the model refuses the event, or null when it is applied (and the model changed). */
        DeadLetterReason model(final Side side, final ChangeKind kind, final Map<String, Object> row)
        {
            final List<Map<String, Object>> live = live(side);
            if (row.get("u") == null)
            {
                return DeadLetterReason.UNIQUE_KEY_VIOLATION;
            }
            if (kind.isAccumulate())
            {
                for (final Map<String, Object> other : live)
                {
                    if (row.get("u").equals(other.get("u")))
                    {
                        return DeadLetterReason.UNIQUE_KEY_VIOLATION;
                    }
                }
                live.add(row);
                return null;
            }
            return live.remove(row) ? null : DeadLetterReason.RETRACTION_NOT_IN_STATE;
        }

        void event(final JoinHarness h, final Side side, final ChangeKind kind, final Map<String, Object> row)
        {
            final DeadLetterReason expected = model(side, kind, row);
            log.add(side + " " + kind.shortString() + " " + Rows.format(row) + " ts=" + ts + (expected == null ? "" : "  (" + expected + ")"));
            final int dead = h.deadLetters().size();
            final List<Output> out = h.row(side, kind, Rows.row(side == Side.LEFT ? LEFT : RIGHT, row), ts);
            final List<DeadLetter> letters = h.deadLetters().deadLetters().subList(dead, h.deadLetters().size());
            if (expected == null ? !letters.isEmpty() : letters.size() != 1 || letters.get(0).reason() != expected || !out.isEmpty())
            {
                fail(where + ": expected " + (expected == null ? "no dead letter" : "one " + expected + " and no output") +
                    ", got " + letters + " and " + out + events());
            }
            apply(out, !delayed);
        }

        String events()
        {
            return "\nevents:\n" + String.join("\n", log);
        }

        String key(final Output o)
        {
            return (resultKey.includes(Side.LEFT) ? "L=" + (o.left() == null ? "null" : String.valueOf(o.left().get("u"))) : "") +
                (resultKey.includes(Side.RIGHT) ? " R=" + (o.right() == null ? "null" : String.valueOf(o.right().get("u"))) : "");
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
                    fail(where + ": two lines of key " + key + " in one step: " + out + events());
                }
                if (o.kind() == ChangeKind.UPDATE_AFTER)
                {
                    table.put(key, rows);
                }
                else if (o.kind() != ChangeKind.DELETE || !rows.equals(table.remove(key)))
                {
                    fail(where + ": " + o + " is not an upsert nor the delete of what the table holds under " + key + events());
                }
            }
            if (!check)
            {
                return;
            }
            final Map<String, Integer> actual = new TreeMap<>();
            for (final String rows : table.values())
            {
                actual.merge(rows, 1, Integer::sum);
            }
            final Map<String, Integer> expected = join();
            if (!expected.equals(actual))
            {
                fail(where + ": upsert table differs from the SQL join after event " + (log.size() - 1) +
                    "\nexpected: " + expected + "\nactual:   " + actual + "\noutputs: " + out + events());
            }
        }

        boolean matches(final Map<String, Object> l, final Map<String, Object> r)
        {
            if (l.get("k") == null || !l.get("k").equals(r.get("k")) || inJoinKey && !Objects.equals(l.get("u"), r.get("u")))
            {
                return false;
            }
            return (Long)l.get("v") != 2 && (Long)r.get("w") != 2;
        }

        /** The SQL join of the model's rows. */
        Map<String, Integer> join()
        {
            final Map<String, Integer> result = new TreeMap<>();
            final Set<Integer> rightMatched = new HashSet<>();
            for (final Map<String, Object> l : left)
            {
                boolean matched = false;
                for (int i = 0; i < right.size(); i++)
                {
                    if (matches(l, right.get(i)))
                    {
                        matched = true;
                        rightMatched.add(i);
                        if (!type.isSemiOrAnti())
                        {
                            result.merge(Rows.format(l) + " " + Rows.format(right.get(i)), 1, Integer::sum);
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
                for (int i = 0; i < right.size(); i++)
                {
                    if (!rightMatched.contains(i))
                    {
                        result.merge("null " + Rows.format(right.get(i)), 1, Integer::sum);
                    }
                }
            }
            return result;
        }
    }
}
