package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SEMANTICS 8: partitioning loses and duplicates nothing. A random regular-join changelog (inserts,
 * updates, retractions of live rows, retractions of rows never inserted, duplicates, null and
 * string-typed keys, watermarks) is replayed with 1 and with 4 partitions; the per-step multisets
 * must be equal. Both runs are also checked against a brute-force model of SEMANTICS 4's last rule:
 * applying the output to an empty multiset gives the SQL join of the final inputs.
 */
class PartitionEquivalenceTest
{
    private static final int EVENTS = 1000;
    private static final int KEYS = 24;

    /** A generated log with what a model needs to know about it. */
    private record Log(List<String> lines, List<String> liveLeft, List<String> liveRight, int ghostRetractions)
    {
    }

    private static Log generate(final long seed)
    {
        final Random random = new Random(seed);
        final List<String> lines = new ArrayList<>();
        final List<String> left = new ArrayList<>();
        final List<String> right = new ArrayList<>();
        int ghosts = 0;
        for (int i = 0; i < EVENTS; i++)
        {
            final double u = random.nextDouble();
            final boolean isLeft = random.nextBoolean();
            final String side = isLeft ? "left" : "right";
            final List<String> live = isLeft ? left : right;
            if (u < 0.62)
            {
                final String row = row(random, isLeft);
                live.add(row);
                lines.add("{\"side\":\"" + side + "\",\"op\":\"" + (random.nextInt(4) == 0 ? "+U" : "+I") +
                    "\",\"ts\":" + i + ",\"row\":" + row + "}");
            }
            else if (u < 0.9 && !live.isEmpty())
            {
                final String row = live.remove(random.nextInt(live.size()));
                lines.add("{\"side\":\"" + side + "\",\"op\":\"" + (random.nextBoolean() ? "-D" : "-U") +
                    "\",\"row\":" + row + "}");
            }
            else if (u < 0.95)
            {
                ghosts++;
                lines.add("{\"side\":\"" + side + "\",\"op\":\"-D\",\"row\":{\"k\":" + random.nextInt(KEYS) + ",\"v\":99}}");
            }
            else
            {
                lines.add("{\"watermark\":" + i + "}");
            }
        }
        return new Log(lines, left, right, ghosts);
    }

    private static String row(final Random random, final boolean isLeft)
    {
        final int r = random.nextInt(20);
        final String key = r == 0 ? "null" : r == 1 ? "\"3\"" : Integer.toString(random.nextInt(KEYS));
        // few distinct values, so that equal rows (duplicates) are common; 2.0 must equal 2
        final int v = random.nextInt(3);
        final String value = v == 2 && random.nextBoolean() ? "2.0" : Integer.toString(v);
        return r == 2 ? "{\"v\":" + value + (isLeft ? ",\"l\":true" : "") + "}"
            : "{\"k\":" + key + ",\"v\":" + value + (isLeft ? ",\"l\":true" : "") + "}";
    }

    /** @return the join key of a generated row as comparable text, or null when it never matches */
    private static String keyOf(final String row)
    {
        final int at = row.indexOf("\"k\":");
        if (at < 0)
        {
            return null;
        }
        final String rest = row.substring(at + 4);
        final String key = rest.substring(0, rest.indexOf(','));
        return "null".equals(key) ? null : key;
    }

    /** The SQL join of the final inputs, as output lines at step 0 (final mode ignores steps). */
    private static List<String> model(final String type, final Log log)
    {
        final List<String> out = new ArrayList<>();
        final boolean leftOuter = "left".equals(type) || "full".equals(type);
        final boolean rightOuter = "right".equals(type) || "full".equals(type);
        for (final String l : log.liveLeft())
        {
            int matches = 0;
            for (final String r : log.liveRight())
            {
                if (keyOf(l) != null && keyOf(l).equals(keyOf(r)))
                {
                    matches++;
                    if (!"semi".equals(type) && !"anti".equals(type))
                    {
                        out.add(line(l, r));
                    }
                }
            }
            if ("semi".equals(type) && matches > 0 || "anti".equals(type) && matches == 0 || leftOuter && matches == 0)
            {
                out.add(line(l, "null"));
            }
        }
        if (rightOuter)
        {
            for (final String r : log.liveRight())
            {
                boolean matched = false;
                for (final String l : log.liveLeft())
                {
                    matched |= keyOf(r) != null && keyOf(r).equals(keyOf(l));
                }
                if (!matched)
                {
                    out.add(line("null", r));
                }
            }
        }
        return out;
    }

    private static String line(final String left, final String right)
    {
        return "{\"step\":0,\"op\":\"+I\",\"left\":" + left + ",\"right\":" + right + "}";
    }

    @ParameterizedTest(name = "{0} join")
    @ValueSource(strings = {"inner", "left", "right", "full", "semi", "anti"})
    void oneAndFourPartitionsGiveTheSameOutputPerStep(final String type)
    {
        final Log log = generate(0x5EED0000L + type.hashCode());
        final String spec = "{\"join\":\"regular\",\"type\":\"" + type + "\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
        final String events = String.join("\n", log.lines());
        final ReplayResult one = new Replay(Replay.config(1)).run(spec, events);
        final ReplayResult four = new Replay(Replay.config(4)).run(spec, events);
        assertEquals(0, one.errorCount(), () -> one.errors().toString());
        assertEquals(0, four.errorCount(), () -> four.errors().toString());

        final ReplayComparison perStep = ReplayComparison.outputs(
            ReplayComparison.Mode.STEP, JoinKind.REGULAR, one.resultLines(), four.resultLines());
        assertTrue(perStep.matches(), () -> "1 vs 4 partitions: " + perStep.describe());
        final ReplayComparison deadLetters = ReplayComparison.deadLetters(one.deadLetterLines(), four.deadLetterLines());
        assertTrue(deadLetters.matches(), () -> "dead letters, 1 vs 4 partitions: " + deadLetters.describe());
        assertEquals(log.ghostRetractions(), one.deadLetters().size(), () -> String.join("\n", one.deadLetterLines()));

        final ReplayComparison model = ReplayComparison.outputs(
            ReplayComparison.Mode.FINAL, JoinKind.REGULAR, model(type, log), one.resultLines());
        assertTrue(model.matches(), () -> "changelog applied vs the SQL join of the final inputs: " + model.describe());
        assertTrue(one.resultLines().size() > 100, "the log should produce real output, got " + one.resultLines().size());
    }
}
