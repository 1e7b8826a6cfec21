package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.json.RowJson;
import io.junction.json.JoinSpecException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import io.junction.runtime.EngineConfig;

/**
 * Bad input never stops a replay (SEMANTICS 1): each bad line or refused row is one dead-letter line at
 * its step with a reason, the rest of the log runs, and a bad spec runs nothing and names its field.
 */
class BadInputTest
{
    private static final String LEFT_JOIN = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
    private static final String INTERVAL_JOIN = "{\"join\":\"interval\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
        "\"interval\":{\"lower\":-10,\"upper\":10}}";

    private static ReplayResult replay(final String spec, final String... lines)
    {
        return replay(Replay.config(1), spec, lines);
    }

    private static ReplayResult replay(final EngineConfig config, final String spec, final String... lines)
    {
        final ReplayResult result = new Replay(config).run(spec, String.join("\n", lines));
        assertEquals(0, result.errorCount(), () -> "partition errors: " + result.errors());
        return result;
    }

    private static JsonNode json(final StepLine line) throws Exception
    {
        return RowJson.mapper().readTree(line.json());
    }

    private static void assertOutput(final ReplayResult result, final String... expected)
    {
        final ReplayComparison comparison = ReplayComparison.outputs(
            ReplayComparison.Mode.STEP, JoinKind.REGULAR, List.of(expected), result.resultLines());
        assertTrue(comparison.matches(), () -> comparison.describe() + "\nactual:\n" + String.join("\n", result.resultLines()));
    }

    @Test
    void badLinesAreReportedWithStepLineAndReasonAndTheRunGoesOn() throws Exception
    {
        final String[] bad = {
            "{\"side\":\"left\",\"row\":{\"k\":1,",
            "{\"side\":\"left\",\"op\":\"+X\",\"row\":{\"k\":2}}",
            "{\"row\":{\"k\":3}}",
            "{\"side\":\"up\",\"row\":{\"k\":3}}",
            "{\"side\":\"left\",\"row\":{\"k\":3},\"extra\":1}",
            "{\"side\":\"left\",\"row\":{\"k\":{\"a\":1}}}",
            "{\"side\":\"left\",\"ts\":\"100\",\"row\":{\"k\":4}}",
            "{\"side\":\"left\",\"ts\":1e30,\"row\":{\"k\":4}}",
            "{\"side\":\"left\",\"row\":[1]}",
            "[1,2]",
            "{\"watermark\":\"x\"}",
            "{\"watermark\":5,\"op\":\"+I\"}",
            "{\"side\":\"left\"}",
        };
        final String[] reasonWords = {
            "invalid JSON", "'op'", "'side'", "'side'", "'extra'", "'k'", "'ts'", "'ts'", "'row'", "JSON object",
            "'watermark'", "'op'", "not an event"};
        final List<String> lines = new ArrayList<>();
        lines.add("{\"side\":\"left\",\"row\":{\"k\":1,\"v\":\"a\"}}");
        lines.add("   ");
        for (final String line : bad)
        {
            lines.add(line);
        }
        lines.add("{\"side\":\"right\",\"row\":{\"k\":1,\"w\":\"b\"}}");
        final ReplayResult result = replay(LEFT_JOIN, lines.toArray(new String[0]));

        assertEquals(bad.length, result.deadLetters().size(), () -> String.join("\n", result.deadLetterLines()));
        for (int i = 0; i < bad.length; i++)
        {
            final JsonNode deadLetter = json(result.deadLetters().get(i));
            final int step = i + 1;
            final int lineNumber = i + 3; // one row line and one blank line come first
            assertEquals(step, deadLetter.get("step").longValue(), deadLetter.toString());
            assertEquals(bad[i], deadLetter.get("line").textValue());
            final String reason = deadLetter.get("reason").textValue();
            assertTrue(reason.startsWith("line " + lineNumber + ": "), reason);
            assertTrue(reason.contains(reasonWords[i]), "'" + reason + "' should mention " + reasonWords[i]);
        }
        final long last = bad.length + 1;
        assertEquals(last + 1, result.steps());
        assertOutput(result,
            "{\"step\":0,\"op\":\"+I\",\"left\":{\"k\":1,\"v\":\"a\"},\"right\":null}",
            "{\"step\":" + last + ",\"op\":\"-D\",\"left\":{\"k\":1,\"v\":\"a\"},\"right\":null}",
            "{\"step\":" + last + ",\"op\":\"+I\",\"left\":{\"k\":1,\"v\":\"a\"},\"right\":{\"k\":1,\"w\":\"b\"}}");
    }

    @Test
    void aRowLargerThanASlotIsADeadLetterAndTheRunGoesOn() throws Exception
    {
        final String big = "x".repeat(200);
        final ReplayResult result = replay(Replay.config(2).withSlotCapacity(64), LEFT_JOIN,
            "{\"side\":\"left\",\"row\":{\"k\":1,\"v\":\"" + big + "\"}}",
            "{\"side\":\"left\",\"row\":{\"k\":2}}");
        assertEquals(1, result.deadLetters().size());
        final JsonNode deadLetter = json(result.deadLetters().get(0));
        assertEquals(0, deadLetter.get("step").longValue());
        assertEquals("left", deadLetter.get("side").textValue());
        assertEquals(big, deadLetter.get("row").get("v").textValue());
        assertTrue(deadLetter.get("reason").textValue().startsWith(DeadLetterReason.ROW_TOO_LARGE.message()),
            deadLetter.toString());
        assertOutput(result, "{\"step\":1,\"op\":\"+I\",\"left\":{\"k\":2},\"right\":null}");
    }

    @Test
    void aRetractionOfARowNeverInsertedIsADeadLetterWithNoOutput() throws Exception
    {
        final ReplayResult result = replay(Replay.config(4), LEFT_JOIN,
            "{\"side\":\"left\",\"op\":\"-D\",\"row\":{\"k\":9,\"v\":\"ghost\"}}",
            "{\"side\":\"left\",\"row\":{\"k\":9,\"v\":\"real\"}}",
            "{\"side\":\"right\",\"op\":\"-U\",\"row\":{\"k\":9,\"w\":\"ghost\"}}",
            "{\"side\":\"left\",\"op\":\"-D\",\"row\":{\"k\":9,\"v\":\"real\"}}",
            "{\"side\":\"left\",\"op\":\"-D\",\"row\":{\"k\":9,\"v\":\"real\"}}");
        assertEquals(3, result.deadLetters().size(), () -> String.join("\n", result.deadLetterLines()));
        final long[] steps = {0, 2, 4};
        final String[] sides = {"left", "right", "left"};
        for (int i = 0; i < steps.length; i++)
        {
            final JsonNode deadLetter = json(result.deadLetters().get(i));
            assertEquals(steps[i], deadLetter.get("step").longValue());
            assertEquals(sides[i], deadLetter.get("side").textValue());
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE.message(), deadLetter.get("reason").textValue());
            assertTrue(deadLetter.get("row").isObject());
        }
        assertOutput(result,
            "{\"step\":1,\"op\":\"+I\",\"left\":{\"k\":9,\"v\":\"real\"},\"right\":null}",
            "{\"step\":3,\"op\":\"-D\",\"left\":{\"k\":9,\"v\":\"real\"},\"right\":null}");
    }

    @Test
    void intervalJoinsNeedTsAndAppendOnlyInput() throws Exception
    {
        final ReplayResult result = replay(INTERVAL_JOIN,
            "{\"side\":\"left\",\"row\":{\"k\":1}}",
            "{\"side\":\"left\",\"ts\":5,\"op\":\"-D\",\"row\":{\"k\":1}}",
            "{\"side\":\"left\",\"ts\":5,\"row\":{\"k\":1}}",
            "{\"side\":\"right\",\"ts\":7,\"row\":{\"k\":1}}");
        assertEquals(2, result.deadLetters().size(), () -> String.join("\n", result.deadLetterLines()));
        final JsonNode missingTs = json(result.deadLetters().get(0));
        assertEquals(0, missingTs.get("step").longValue());
        assertTrue(missingTs.get("reason").textValue().contains("'ts'"), missingTs.toString());
        final JsonNode retraction = json(result.deadLetters().get(1));
        assertEquals(1, retraction.get("step").longValue());
        assertEquals(DeadLetterReason.NOT_APPEND_ONLY.message(), retraction.get("reason").textValue());
        assertOutput(result, "{\"step\":3,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":{\"k\":1}}");
    }

    @Test
    void aRejectedSpecRunsNothingAndNamesTheField()
    {
        final JoinSpecException arity = assertThrows(JoinSpecException.class, () -> new Replay(Replay.config(1)).run(
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"a\"],\"rightKey\":[\"a\",\"b\"]}",
            "{\"side\":\"left\",\"row\":{\"a\":1}}"));
        assertEquals("rightKey", arity.field());
        assertTrue(arity.getMessage().contains("arity"), arity.getMessage());
        final JoinSpecException unknown = assertThrows(JoinSpecException.class, () -> new Replay(Replay.config(1)).run(
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"a\"],\"rightKey\":[\"a\"],\"leftFiltr\":[]}",
            "{\"side\":\"left\",\"row\":{\"a\":1}}"));
        assertEquals("leftFiltr", unknown.field());
    }
}
