package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Partitioning changes nothing for the temporal and lookup joins either: a random log (an append-only
 * left stream of orders, a rate table's changelog with {@code +I}/{@code +U}/{@code -U}/{@code -D} out of
 * order, late left rows and right rows below the watermark, per-side and joint watermarks, null and string-typed keys, a right
 * filter and a condition) is replayed through the runtime with 1 and with 4 partitions; output and
 * dead letters must be equal step by step.
 */
class VersionedPartitionEquivalenceTest
{
    private static final int EVENTS = 3000;
    private static final int KEYS = 40;

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
            if (dice < 45)
            {
                final String op = random.nextInt(50) == 0 ? "-D" : "+I";
                lines.add("{\"side\":\"left\",\"op\":\"" + op + "\",\"ts\":" + ts + ",\"row\":{\"k\":" + key + ",\"id\":" + i +
                    ",\"amount\":" + random.nextInt(10) + "}}");
            }
            else if (dice < 88)
            {
                final int o = random.nextInt(10);
                final String op = o < 5 ? "+I" : o < 7 ? "+U" : o < 8 ? "-U" : "-D";
                lines.add("{\"side\":\"right\",\"op\":\"" + op + "\",\"ts\":" + ts + ",\"row\":{\"k\":" + key + ",\"rate\":" + i +
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

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"temporal, inner", "temporal, left", "lookup, inner", "lookup, left"})
    void oneAndFourPartitionsGiveTheSameOutputPerStep(final String kind, final String type)
    {
        final String spec = "{\"join\":\"" + kind + "\",\"type\":\"" + type + "\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"rightFilter\":[{\"field\":\"open\",\"op\":\"==\",\"value\":true}]," +
            "\"condition\":[{\"left\":\"amount\",\"op\":\"<=\",\"right\":\"limit\"}]}";
        final String events = String.join("\n", generate(0x7E3F0000L + (kind + type).hashCode()));
        final ReplayResult one = new Replay(Replay.config(1)).run(spec, events);
        final ReplayResult four = new Replay(Replay.config(4)).run(spec, events);
        assertEquals(0, one.errorCount(), () -> one.errors().toString());
        assertEquals(0, four.errorCount(), () -> four.errors().toString());
        final JoinKind joinKind = JoinKind.fromName(kind);
        final ReplayComparison perStep = ReplayComparison.outputs(
            ReplayComparison.Mode.STEP, joinKind, one.resultLines(), four.resultLines());
        assertTrue(perStep.matches(), () -> "1 vs 4 partitions: " + perStep.describe());
        final ReplayComparison deadLetters = ReplayComparison.deadLetters(one.deadLetterLines(), four.deadLetterLines());
        assertTrue(deadLetters.matches(), () -> "dead letters, 1 vs 4 partitions: " + deadLetters.describe());
        // The log must exercise what it claims: pairs, and (for temporal) late left rows dead-lettered.
        assertTrue(one.resultLines().stream().filter(l -> !l.contains("\"right\":null")).count() > 100,
            () -> "pairs: " + one.resultLines().size() + " lines");
        if (joinKind == JoinKind.TEMPORAL)
        {
            assertTrue(one.deadLetterLines().stream().filter(l -> l.contains("late")).count() > 10, "late left rows");
        }
    }
}
