package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import io.junction.join.IndexKind;
import io.junction.runtime.EngineConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Partitioning changes nothing for the ASOF join (SEMANTICS 11, 3): a random log of two append-only streams
 * (rows out of order, several rows of a key at one ts, late rows of both sides, the odd non-insert, per-side
 * and joint watermarks, null and string-typed keys) is replayed through the runtime with 1 and with 4
 * partitions, over each direction and emission mode, with a tolerance or none, a right filter, a condition
 * and allowed lateness; output and dead letters must be equal step by step, on both key indexes.
 */
class AsofPartitionEquivalenceTest
{
    private static final int EVENTS = 1500;
    private static final int KEYS = 10;

    private static List<String> generate(final long seed)
    {
        final Random random = new Random(seed);
        final List<String> lines = new ArrayList<>();
        long now = 0;
        for (int i = 0; i < EVENTS; i++)
        {
            now += random.nextInt(4);
            final int dice = random.nextInt(100);
            final int r = random.nextInt(30);
            final String key = r == 0 ? "null" : r == 1 ? "\"7\"" : Integer.toString(random.nextInt(KEYS));
            final long ts = now - random.nextInt(40);
            final String op = random.nextInt(60) == 0 ? "-D" : "+I";
            if (dice < 40)
            {
                lines.add("{\"side\":\"left\",\"op\":\"" + op + "\",\"ts\":" + ts + ",\"row\":{\"k\":" + key + ",\"id\":" + i +
                    ",\"amount\":" + random.nextInt(10) + "}}");
            }
            else if (dice < 88)
            {
                lines.add("{\"side\":\"right\",\"op\":\"" + op + "\",\"ts\":" + ts + ",\"row\":{\"k\":" + key + ",\"quote\":" + i +
                    ",\"limit\":" + random.nextInt(10) + ",\"open\":" + (random.nextInt(8) != 0) + "}}");
            }
            else
            {
                final int which = random.nextInt(3);
                final long watermark = now - 20 - random.nextInt(30);
                lines.add("{\"watermark\":" + watermark + (which == 0 ? "" : which == 1 ? ",\"side\":\"left\"" : ",\"side\":\"right\"") + "}");
            }
        }
        return lines;
    }

    @ParameterizedTest(name = "{0} {1} {2} tolerance {3} condition {4}")
    @CsvSource({
        "backward, final, left, -1, false",
        "backward, eager, inner, 40, true",
        "forward, final, inner, -1, false",
        "forward, eager, left, 40, true",
        "nearest, final, left, 12, false",
        "nearest, eager, left, -1, true",
    })
    void oneAndFourPartitionsGiveTheSameOutputPerStep(final String direction, final String emit, final String type,
        final long tolerance, final boolean condition)
    {
        final String spec = "{\"join\":\"asof\",\"type\":\"" + type + "\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"asof\":{\"direction\":\"" + direction + "\",\"emit\":\"" + emit + "\"" +
            (tolerance >= 0 ? ",\"tolerance\":" + tolerance : "") + "},\"allowedLateness\":3," +
            "\"rightFilter\":[{\"field\":\"open\",\"op\":\"==\",\"value\":true}]" +
            (condition ? ",\"condition\":[{\"left\":\"amount\",\"op\":\"<=\",\"right\":\"limit\"}]" : "") + "}";
        final String events = String.join("\n", generate(0xA50F0000L + (direction + emit + type).hashCode()));
        final ReplayResult one = new Replay(Replay.config(1)).run(spec, events);
        final EngineConfig four = Replay.config(4);
        final ReplayResult fourChronicle = new Replay(four).run(spec, events);
        final ReplayResult fourHash = new Replay(four.withState(four.state().withIndex(IndexKind.HASH))).run(spec, events);
        for (final ReplayResult result : List.of(one, fourChronicle, fourHash))
        {
            assertEquals(0, result.errorCount(), () -> result.errors().toString());
        }
        for (final ReplayResult other : List.of(fourChronicle, fourHash))
        {
            final ReplayComparison perStep = ReplayComparison.outputs(
                ReplayComparison.Mode.STEP, JoinKind.ASOF, one.resultLines(), other.resultLines());
            assertTrue(perStep.matches(), () -> "1 vs 4 partitions: " + perStep.describe());
            final ReplayComparison deadLetters = ReplayComparison.deadLetters(one.deadLetterLines(), other.deadLetterLines());
            assertTrue(deadLetters.matches(), () -> "dead letters, 1 vs 4 partitions: " + deadLetters.describe());
        }
        // The log must exercise what it claims: pairs, late rows, and corrections in eager mode.
        assertTrue(one.resultLines().stream().filter(l -> !l.contains("\"right\":null")).count() > 100,
            () -> "pairs: " + one.resultLines().size() + " lines");
        assertTrue(one.deadLetterLines().stream().filter(l -> l.contains("late")).count() > 10, "late rows");
        if ("eager".equals(emit))
        {
            assertTrue(one.resultLines().stream().filter(l -> l.contains("\"-U\"")).count() > 10,
                () -> "eager corrections: " + one.resultLines().stream().filter(l -> l.contains("\"-U\"")).count() + " of " + one.resultLines().size() + " lines, e.g. " + one.resultLines().subList(0, Math.min(5, one.resultLines().size())));
        }
        else
        {
            assertTrue(one.resultLines().stream().allMatch(l -> l.contains("\"+I\"")), "final mode is append-only");
        }
    }
}
