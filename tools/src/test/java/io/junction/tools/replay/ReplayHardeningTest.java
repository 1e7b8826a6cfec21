package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.JoinKind;
import io.junction.api.Schema;
import io.junction.json.RowJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile event logs: bytes that are not UTF-8, a byte order mark, a row that names thousands of
 * fields, numbers on both sides of 2^53. Each bad line is one dead letter; the run goes on and the
 * good rows join as they would without it.
 */
class ReplayHardeningTest
{
    private static final String INNER = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";

    @TempDir
    Path dir;

    private ReplayResult replay(final String spec, final byte[] log) throws IOException
    {
        final ReplayResult result = new Replay(Replay.config(2)).run(
            Files.writeString(dir.resolve("s.join.json"), spec), Files.write(dir.resolve("e.events.jsonl"), log));
        assertEquals(0, result.errorCount(), () -> "partition errors: " + result.errors());
        return result;
    }

    private ReplayResult replay(final String spec, final String... lines) throws IOException
    {
        return replay(spec, String.join("\n", lines).getBytes(StandardCharsets.UTF_8));
    }

    private static void assertOutput(final ReplayResult result, final String... expected)
    {
        final ReplayComparison comparison = ReplayComparison.outputs(
            ReplayComparison.Mode.STEP, JoinKind.REGULAR, List.of(expected), result.resultLines());
        assertTrue(comparison.matches(), () -> comparison.describe() + "\nactual:\n" + String.join("\n", result.resultLines()));
    }

    private static JsonNode json(final StepLine line) throws IOException
    {
        return RowJson.mapper().readTree(line.json());
    }

    @Test
    void aLineThatIsNotUtf8IsOneDeadLetterAndTheRunGoesOn() throws IOException
    {
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        log.writeBytes("{\"side\":\"left\",\"row\":{\"k\":1,\"v\":\"a\"}}\n".getBytes(StandardCharsets.UTF_8));
        log.writeBytes(new byte[] {'{', '"', 's', (byte) 0xFF, (byte) 0xFE, '"', '}', '\n'});
        log.writeBytes("\n{\"side\":\"right\",\"row\":{\"k\":1,\"w\":\"b\"}}\n".getBytes(StandardCharsets.UTF_8));
        final ReplayResult result = replay(INNER, log.toByteArray());

        assertEquals(1, result.deadLetters().size(), () -> String.join("\n", result.deadLetterLines()));
        final JsonNode deadLetter = json(result.deadLetters().get(0));
        assertEquals(1, deadLetter.get("step").longValue());
        final String reason = deadLetter.get("reason").textValue();
        assertTrue(reason.startsWith("line 2: ") && reason.contains("UTF-8"), reason);
        assertEquals(3, result.steps(), "the blank line is no step");
        assertOutput(result, "{\"step\":2,\"op\":\"+I\",\"left\":{\"k\":1,\"v\":\"a\"},\"right\":{\"k\":1,\"w\":\"b\"}}");
    }

    @Test
    void aLineLongerThanTheBoundIsOneDeadLetterAndIsNeverHeldWhole() throws IOException
    {
        final String huge = "{\"side\":\"left\",\"row\":{\"k\":2,\"s\":\"" + "x".repeat(EventLines.MAX_LINE_BYTES) + "\"}}";
        final ReplayResult result = replay(INNER,
            "{\"side\":\"left\",\"row\":{\"k\":1}}", huge, "{\"side\":\"right\",\"row\":{\"k\":1}}");
        assertEquals(1, result.deadLetters().size(), () -> String.join("\n", result.deadLetterLines()));
        final JsonNode deadLetter = json(result.deadLetters().get(0));
        assertEquals(1, deadLetter.get("step").longValue());
        assertTrue(deadLetter.get("reason").textValue().startsWith("line 2: line longer than"), deadLetter.get("reason").textValue());
        assertTrue(deadLetter.get("line").textValue().length() < 1_000, "the echo is a prefix");
        assertOutput(result, "{\"step\":2,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":{\"k\":1}}");
    }

    @Test
    void aByteOrderMarkBeforeTheFirstLineIsSkipped() throws IOException
    {
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        log.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        log.writeBytes("{\"side\":\"left\",\"row\":{\"k\":1}}\r\n{\"side\":\"right\",\"row\":{\"k\":1}}\r\n"
            .getBytes(StandardCharsets.UTF_8));
        final ReplayResult result = replay(INNER, log.toByteArray());
        assertEquals(List.of(), result.deadLetterLines());
        assertOutput(result, "{\"step\":1,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":{\"k\":1}}");
    }

    @Test
    void aRefusedRowWithThousandsOfFieldNamesTakesNoRoomFromLaterRows() throws IOException
    {
        final StringBuilder wide = new StringBuilder("{\"side\":\"left\",\"row\":{\"k\":0");
        for (int i = 0; i < 5_000; i++)
        {
            wide.append(",\"f").append(i).append("\":1");
        }
        wide.append("}}");
        final ReplayResult result = replay(INNER,
            wide.toString(),
            "{\"side\":\"left\",\"row\":{\"k\":1,\"late_left\":\"a\"}}",
            "{\"side\":\"right\",\"row\":{\"k\":1,\"late_right\":\"b\"}}");
        assertEquals(1, result.deadLetters().size(), () -> String.join("\n", result.deadLetterLines()));
        final JsonNode deadLetter = json(result.deadLetters().get(0));
        assertEquals(0, deadLetter.get("step").longValue());
        assertTrue(deadLetter.get("reason").textValue().contains("schema is full"), deadLetter.get("reason").textValue());
        assertOutput(result,
            "{\"step\":2,\"op\":\"+I\",\"left\":{\"k\":1,\"late_left\":\"a\"},\"right\":{\"k\":1,\"late_right\":\"b\"}}");
    }

    @Test
    void rowsUpToTheFieldCapAreKeptAndOnlyTheRowThatCrossesItIsRefused() throws IOException
    {
        final StringBuilder nearlyFull = new StringBuilder("{\"side\":\"left\",\"row\":{\"k\":0");
        for (int i = 0; i < Schema.MAX_FIELDS - 2; i++)
        {
            nearlyFull.append(",\"f").append(i).append("\":1");
        }
        nearlyFull.append("}}");
        // names so far: k and 4094 others; one more fits, two more do not
        final ReplayResult result = new Replay(Replay.config(1).withSlotCapacity(0xFFFF)).run(INNER, String.join("\n",
            nearlyFull.toString(),
            "{\"side\":\"left\",\"row\":{\"k\":1,\"x\":1,\"y\":2}}",
            "{\"side\":\"left\",\"row\":{\"k\":1,\"x\":1}}",
            "{\"side\":\"right\",\"row\":{\"k\":1}}"));
        assertEquals(1, result.deadLetters().size(), () -> String.join("\n", result.deadLetterLines()));
        assertEquals(1, json(result.deadLetters().get(0)).get("step").longValue());
        assertOutput(result, "{\"step\":3,\"op\":\"+I\",\"left\":{\"k\":1,\"x\":1},\"right\":{\"k\":1}}");
    }

    @Test
    void numbersOnBothSidesOfTwoToThe53AreOneKey() throws IOException
    {
        final ReplayResult result = replay("{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}",
            "{\"side\":\"left\",\"row\":{\"k\":9007199254740992}}",
            "{\"side\":\"right\",\"row\":{\"k\":9007199254740992.0}}",
            "{\"side\":\"right\",\"op\":\"-D\",\"row\":{\"k\":9.007199254740992e15}}",
            "{\"side\":\"left\",\"row\":{\"k\":1e0}}",
            "{\"side\":\"right\",\"row\":{\"k\":1.00000000000000001}}");
        assertEquals(List.of(), result.deadLetterLines(), "the retraction finds the equal row");
        assertOutput(result,
            "{\"step\":0,\"op\":\"+I\",\"left\":{\"k\":9007199254740992},\"right\":null}",
            "{\"step\":1,\"op\":\"-D\",\"left\":{\"k\":9007199254740992},\"right\":null}",
            "{\"step\":1,\"op\":\"+I\",\"left\":{\"k\":9007199254740992},\"right\":{\"k\":9007199254740992}}",
            "{\"step\":2,\"op\":\"-D\",\"left\":{\"k\":9007199254740992},\"right\":{\"k\":9007199254740992}}",
            "{\"step\":2,\"op\":\"+I\",\"left\":{\"k\":9007199254740992},\"right\":null}",
            "{\"step\":3,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":null}",
            "{\"step\":4,\"op\":\"-D\",\"left\":{\"k\":1},\"right\":null}",
            "{\"step\":4,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":{\"k\":1}}");
    }

    @Test
    void aFilterLiteralAboveTwoToThe53MatchesTheEqualInteger() throws IOException
    {
        final ReplayResult result = replay("{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
                "\"leftFilter\":[{\"field\":\"v\",\"op\":\"==\",\"value\":9007199254740993.0}]}",
            "{\"side\":\"left\",\"row\":{\"k\":1,\"v\":9007199254740993}}",
            "{\"side\":\"right\",\"row\":{\"k\":1}}");
        assertOutput(result, "{\"step\":1,\"op\":\"+I\",\"left\":{\"k\":1,\"v\":9007199254740993},\"right\":{\"k\":1}}");
    }
}
