package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import io.junction.api.OutputMode;
import io.junction.api.ResultKey;
import io.junction.tools.JunctionCli;
import io.junction.tools.cli.ReplayCommand;
import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;

/**
 * SEMANTICS 4.5-4.7 through replay: the spec fields ({@code paddedDelay}, {@code output}, {@code padOnExpiry}) and
 * their rejections (exit status 2 on the command line), random scenarios with a padded-row delay and with
 * upsert output giving the same lines per step with 1 and 4 partitions, and {@code --expired}.
 */
class ShapingReplayTest
{
    @TempDir
    Path tmp;

    private static final String LEFT_PADDED = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]";

    @Test
    void parsesTheShapingFields()
    {
        final JoinSpecJson.Parsed parsed = JoinSpecJson.parse("{\"join\":\"regular\",\"type\":\"full\",\"leftKey\":[\"k\"]," +
            "\"rightKey\":[\"k\"],\"leftUniqueKey\":[\"id\"],\"rightUniqueKey\":[\"id\"],\"paddedDelay\":50,\"output\":\"upsert\"," +
            "\"stateTtl\":100,\"padOnExpiry\":true}");
        assertEquals(50, parsed.spec().paddedDelay());
        assertEquals(OutputMode.UPSERT, parsed.spec().output());
        assertEquals(ResultKey.BOTH, parsed.spec().resultKey());
        assertTrue(parsed.spec().padOnExpiry());
        assertEquals(-1, JoinSpecJson.parse(LEFT_PADDED + "}").spec().paddedDelay());
        assertEquals(0, JoinSpecJson.parse(LEFT_PADDED + ",\"paddedDelay\":0,\"output\":\"retract\"}").spec().paddedDelay());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "paddedDelay|{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"paddedDelay\":5}",
        "paddedDelay|{\"join\":\"regular\",\"type\":\"semi\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"paddedDelay\":5}",
        "paddedDelay|" + LEFT_PADDED + ",\"paddedDelay\":-1}",
        "paddedDelay|" + LEFT_PADDED + ",\"paddedDelay\":\"5\"}",
        "paddedDelay|{\"join\":\"interval\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"interval\":{\"lower\":0,\"upper\":1},\"paddedDelay\":5}",
        "output|" + LEFT_PADDED + ",\"output\":\"changelog\"}",
        "output|" + LEFT_PADDED + ",\"output\":\"upsert\"}",
        "output|" + LEFT_PADDED + ",\"output\":\"upsert\",\"leftUniqueKey\":[\"id\"]}",
        "output|{\"join\":\"regular\",\"type\":\"semi\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"output\":\"upsert\",\"rightUniqueKey\":[\"id\"]}",
        "output|{\"join\":\"regular\",\"type\":\"full\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"output\":\"upsert\",\"leftUniqueKey\":[\"k\"],\"rightUniqueKey\":[\"k\"],\"x\":1}",
        "padOnExpiry|" + LEFT_PADDED + ",\"padOnExpiry\":true}",
        "padOnExpiry|" + LEFT_PADDED + ",\"padOnExpiry\":true,\"rightStateTtl\":10}",
        "padOnExpiry|{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"padOnExpiry\":true,\"stateTtl\":10}",
    })
    void rejectsSpecsNamingTheField(final String testCase) throws IOException
    {
        final int bar = testCase.indexOf('|');
        final String field = testCase.substring(0, bar);
        final String json = testCase.substring(bar + 1);
        if (!json.contains("\"x\":1"))
        {
            final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(json));
            assertTrue(e.getMessage().startsWith(field), e.getMessage());
        }
        final Path spec = Files.writeString(tmp.resolve("s.join.json"), json);
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), "{\"side\":\"left\",\"row\":{\"k\":1}}\n");
        final StringWriter err = new StringWriter();
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        assertEquals(ReplayCommand.EXIT_SPEC, cli.execute("replay", spec.toString(), events.toString()), err.toString());
    }

    /** Random show/click-like logs: rows of keys 0..5, retractions of earlier rows, per-side watermarks. */
    static String randomLog(final Random random, final boolean uniqueLeft, final boolean uniqueRight)
    {
        final StringBuilder sb = new StringBuilder();
        final List<String> liveLeft = new ArrayList<>();
        final List<String> liveRight = new ArrayList<>();
        final Set<Long> leftIds = new HashSet<>();
        final Set<Long> rightIds = new HashSet<>();
        long ts = 100;
        long id = 0;
        final int events = 20 + random.nextInt(60);
        for (int i = 0; i < events; i++)
        {
            final int dice = random.nextInt(100);
            if (dice < 15)
            {
                final String side = dice < 4 ? ",\"side\":\"left\"" : dice < 8 ? ",\"side\":\"right\"" : "";
                sb.append("{\"watermark\":").append(ts - random.nextInt(60)).append(side).append("}\n");
                continue;
            }
            ts += random.nextInt(20);
            final boolean left = random.nextBoolean();
            final List<String> live = left ? liveLeft : liveRight;
            final String side = left ? "left" : "right";
            if (dice < 75 || live.isEmpty())
            {
                final long k = random.nextInt(6);
                final Set<Long> ids = left ? leftIds : rightIds;
                final long rowId = (left ? uniqueLeft : uniqueRight) ? k : id++;
                if (!ids.add(rowId))
                {
                    continue;
                }
                final String row = "{\"k\":" + k + ",\"id\":" + rowId + ",\"" + (left ? "show" : "click") + "\":\"" +
                    side.charAt(0) + i + "\"}";
                live.add(row);
                sb.append("{\"side\":\"").append(side).append("\",\"ts\":").append(ts - random.nextInt(30))
                    .append(",\"row\":").append(row).append("}\n");
            }
            else
            {
                final String row = live.remove(random.nextInt(live.size()));
                final long rowId = Long.parseLong(row.replaceAll(".*\"id\":(\\d+).*", "$1"));
                (left ? leftIds : rightIds).remove(rowId);
                sb.append("{\"side\":\"").append(side).append("\",\"op\":\"-D\",\"ts\":").append(ts)
                    .append(",\"row\":").append(row).append("}\n");
            }
        }
        return sb.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"paddedDelay\":30}",
        "{\"join\":\"regular\",\"type\":\"right\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"paddedDelay\":0}",
        "{\"join\":\"regular\",\"type\":\"full\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"paddedDelay\":40,\"stateTtl\":60}",
        "{\"join\":\"regular\",\"type\":\"full\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"stateTtl\":50,\"padOnExpiry\":true}",
        "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"leftUniqueKey\":[\"id\"],\"rightUniqueKey\":[\"id\"],\"output\":\"upsert\"}",
        "{\"join\":\"regular\",\"type\":\"full\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"leftUniqueKey\":[\"id\"],\"rightUniqueKey\":[\"id\"],\"output\":\"upsert\",\"paddedDelay\":25}",
        "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"leftUniqueKey\":[\"id\"],\"rightUniqueKey\":[\"k\"],\"output\":\"upsert\"}",
        "{\"join\":\"regular\",\"type\":\"anti\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"leftUniqueKey\":[\"id\"],\"output\":\"upsert\"}",
    })
    void onePartitionAndFourGiveTheSameLinesPerStep(final String spec)
    {
        final Random random = new Random(spec.hashCode());
        final boolean uniqueRightByKey = spec.contains("\"rightUniqueKey\":[\"k\"]");
        for (int run = 0; run < 8; run++)
        {
            final String log = randomLog(random, false, uniqueRightByKey);
            final ReplayResult one = new Replay(Replay.config(1)).run(spec, log);
            final ReplayResult four = new Replay(Replay.config(4)).run(spec, log);
            assertEquals(0, one.errorCount() + four.errorCount(), () -> one.errors() + " " + four.errors());
            final ReplayComparison c = ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.REGULAR,
                one.resultLines(), four.resultLines());
            assertTrue(c.matches(), () -> spec + "\n" + log + "\n" + c.describe());
            assertTrue(ReplayComparison.deadLetters(one.deadLetterLines(), four.deadLetterLines()).matches());
            if (spec.contains("upsert"))
            {
                assertTrue(one.resultLines().stream().allMatch(l -> l.contains("\"op\":\"upsert\"") || l.contains("\"op\":\"delete\"")),
                    () -> String.join("\n", one.resultLines()));
                assertEquals(List.of(), one.deadLetterLines(), log);
            }
        }
    }

    @Test
    void upsertLinesCompareByOpKeyAndRows()
    {
        final String a = "{\"step\":1,\"op\":\"upsert\",\"key\":{\"left\":{\"id\":1}},\"left\":{\"id\":1,\"s\":\"a\"},\"right\":null}";
        final String aReordered = "{\"op\":\"upsert\",\"step\":1,\"right\":null,\"left\":{\"s\":\"a\",\"id\":1.0},\"key\":{\"left\":{\"id\":1}}}";
        final String otherKey = a.replace("\"key\":{\"left\":{\"id\":1}}", "\"key\":{\"left\":{\"id\":2}}");
        final String delete = "{\"step\":2,\"op\":\"delete\",\"key\":{\"left\":{\"id\":1}},\"left\":{\"id\":1,\"s\":\"a\"},\"right\":null}";
        final ReplayComparison.Mode step = ReplayComparison.Mode.STEP;
        assertTrue(ReplayComparison.outputs(step, JoinKind.REGULAR, List.of(a), List.of(aReordered)).matches());
        assertTrue(!ReplayComparison.outputs(step, JoinKind.REGULAR, List.of(a), List.of(otherKey)).matches());
        assertTrue(!ReplayComparison.outputs(step, JoinKind.REGULAR, List.of(a), List.of(a.replace("upsert", "delete"))).matches());
        // final mode: the table the lines leave
        final ReplayComparison.Mode last = ReplayComparison.Mode.FINAL;
        assertTrue(ReplayComparison.outputs(last, JoinKind.REGULAR, List.of(a, delete), List.of()).matches());
        assertTrue(ReplayComparison.outputs(last, JoinKind.REGULAR, List.of(a), List.of(a.replace("\"step\":1", "\"step\":7"))).matches());
        assertTrue(!ReplayComparison.outputs(last, JoinKind.REGULAR, List.of(a), List.of(a, delete)).matches());
    }

    @Test
    void expiredRowsGoToTheExpiredFile() throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"stateTtl\":10,\"padOnExpiry\":true}");
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), String.join("\n",
            "{\"side\":\"left\",\"ts\":100,\"row\":{\"k\":1,\"s\":\"a\"}}",
            "{\"side\":\"right\",\"ts\":105,\"row\":{\"k\":2,\"c\":\"x\"}}",
            "{\"watermark\":110}",
            "{\"watermark\":111}",
            "{\"watermark\":200}") + "\n");
        final Path out = tmp.resolve("out.jsonl");
        final Path expired = tmp.resolve("expired.jsonl");
        final StringWriter err = new StringWriter();
        final CommandLine cli = JunctionCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(0, cli.execute("replay", spec.toString(), events.toString(), "--partitions", "2",
            "--out", out.toString(), "--expired", expired.toString()), err.toString());
        // the left row waits for its expiry (padOnExpiry without a delay): padded at step 3, when the watermark passes 110
        assertEquals(List.of("{\"step\":3,\"op\":\"+I\",\"left\":{\"k\":1,\"s\":\"a\"},\"right\":null}"),
            Files.readAllLines(out, StandardCharsets.UTF_8));
        final List<String> lines = Files.readAllLines(expired, StandardCharsets.UTF_8);
        assertEquals(List.of(
            "{\"step\":3,\"side\":\"left\",\"reason\":\"state-ttl\",\"ts\":100,\"row\":{\"k\":1,\"s\":\"a\"}}",
            "{\"step\":4,\"side\":\"right\",\"reason\":\"state-ttl\",\"ts\":105,\"row\":{\"k\":2,\"c\":\"x\"}}"), lines);
        // counted per side in the partitions' metrics (what JMX reads)
        final ReplayResult result = new Replay(Replay.config(2)).run(JoinSpecJson.read(spec), Replay.events(events));
        assertEquals(1, result.metrics().stream().mapToLong(m -> m.expiredLeft).sum());
        assertEquals(1, result.metrics().stream().mapToLong(m -> m.expiredRight).sum());
        assertEquals(0, result.metrics().stream().mapToLong(m -> m.evictedRows).sum());
        assertEquals(lines, result.expiredLines());
    }
}
