package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.CoGroupBuiltin;
import io.junction.api.JoinKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SEMANTICS 6.4 and 8 through the replay: a random window coGroup log (keys 0..7, null keys, string
 * keys, a pre-join filter, late rows, watermarks) replayed with 1 and with 4 partitions gives, for
 * every built-in and window kind, the same per-step multisets of output lines (computed rows included)
 * and the same dead letters.
 */
class CoGroupPartitionTest
{
    private static final String[] WINDOWS = {
        "{\"kind\":\"tumbling\",\"size\":20,\"offset\":5}",
        "{\"kind\":\"sliding\",\"size\":30,\"slide\":10}",
        "{\"kind\":\"session\",\"gap\":6}",
    };
    private static final String[] TYPES = {"inner", "left", "right", "full"};

    private static String log(final long seed)
    {
        final Random random = new Random(seed);
        final List<String> lines = new ArrayList<>();
        long cursor = 0;
        for (int i = 0; i < 800; i++)
        {
            cursor += random.nextInt(3);
            if (random.nextInt(10) < 8)
            {
                final int r = random.nextInt(20);
                final String key = r == 0 ? "null" : r == 1 ? "\"3\"" : Integer.toString(random.nextInt(8));
                lines.add("{\"side\":\"" + (random.nextBoolean() ? "left" : "right") + "\",\"ts\":" +
                    (cursor + random.nextInt(30) - 25) + ",\"row\":{\"k\":" + key + ",\"id\":\"e" + i + "\",\"v\":" +
                    random.nextInt(4) + "}}");
            }
            else
            {
                lines.add("{\"watermark\":" + (cursor - random.nextInt(10)) + "}");
            }
        }
        return String.join("\n", lines);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CoGroupBuiltin.class)
    void oneAndFourPartitionsGiveTheSameOutputPerStep(final CoGroupBuiltin builtin)
    {
        for (int w = 0; w < WINDOWS.length; w++)
        {
            final String type = TYPES[(builtin.ordinal() + w) % TYPES.length];
            final String spec = "{\"join\":\"window\",\"type\":\"" + type + "\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
                "\"window\":" + WINDOWS[w] + ",\"rightFilter\":[{\"field\":\"v\",\"op\":\"!=\",\"value\":0}]," +
                "\"coGroup\":\"" + builtin.jsonName() + "\"}";
            final String events = log(0xC0C0L * 31 + builtin.ordinal() * 7L + w);
            final ReplayResult one = new Replay(Replay.config(1)).run(spec, events);
            final ReplayResult four = new Replay(Replay.config(4)).run(spec, events);
            assertEquals(0, one.errorCount(), () -> one.errors().toString());
            assertEquals(0, four.errorCount(), () -> four.errors().toString());
            final ReplayComparison perStep = ReplayComparison.outputs(
                ReplayComparison.Mode.STEP, JoinKind.WINDOW, one.resultLines(), four.resultLines());
            assertTrue(perStep.matches(), () -> spec + ", 1 vs 4 partitions: " + perStep.describe());
            final ReplayComparison deadLetters = ReplayComparison.deadLetters(one.deadLetterLines(), four.deadLetterLines());
            assertTrue(deadLetters.matches(), () -> spec + ", dead letters, 1 vs 4 partitions: " + deadLetters.describe());
            assertTrue(one.resultLines().size() > 20, () -> spec + " should produce real output, got " + one.resultLines().size());
            assertTrue(one.deadLetterLines().size() > 0, () -> spec + ": the log has late rows");
        }
    }
}
