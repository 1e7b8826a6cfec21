package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import java.util.List;
import org.junit.jupiter.api.Test;
import io.junction.metrics.PartitionSnapshot;
import java.util.Random;

/** The replay extension of SEMANTICS 10: {@code side} names an input, output {@code "rows"}, and their comparison. */
class MultiJoinReplayTest
{
    private static final String SPEC = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"orders\",\"key\":[\"id\"]}," +
        "{\"name\":\"payments\",\"key\":[\"order_id\"],\"type\":\"left\"}]}";

    @Test
    void eventsNameTheirInputAndUnknownInputsAreBadLines()
    {
        final ReplayResult result = new Replay(Replay.config(2)).run(SPEC, String.join("\n",
            "{\"side\":\"orders\",\"row\":{\"id\":1}}",
            "{\"side\":\"left\",\"row\":{\"id\":2}}",
            "{\"side\":\"payments\",\"op\":\"+U\",\"ts\":5,\"row\":{\"order_id\":1,\"p\":\"x\"}}",
            "{\"watermark\":10,\"side\":\"refunds\"}",
            "{\"watermark\":10,\"side\":\"payments\"}",
            "{\"side\":\"payments\",\"op\":\"-D\",\"row\":{\"order_id\":1,\"p\":\"y\"}}",
            "{\"side\":\"orders\",\"op\":\"+X\",\"row\":{\"id\":1}}"));
        assertEquals(List.of(
            "{\"step\":0,\"op\":\"+I\",\"rows\":{\"orders\":{\"id\":1},\"payments\":null}}"), result.resultLines().subList(0, 1));
        final ReplayComparison output = ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI, List.of(
            "{\"step\":0,\"op\":\"+I\",\"rows\":{\"orders\":{\"id\":1},\"payments\":null}}",
            "{\"step\":2,\"op\":\"-D\",\"rows\":{\"orders\":{\"id\":1}}}",
            "{\"step\":2,\"op\":\"+I\",\"rows\":{\"payments\":{\"order_id\":1.0,\"p\":\"x\"},\"orders\":{\"id\":1}}}"),
            result.resultLines());
        assertTrue(output.matches(), output.describe());
        final List<String> dead = result.deadLetterLines();
        assertEquals(4, dead.size(), dead.toString());
        assertTrue(dead.get(0).startsWith("{\"step\":1,") && dead.get(0).contains("expected one of the inputs"), dead.get(0));
        assertTrue(dead.get(1).startsWith("{\"step\":3,"), dead.get(1));
        assertTrue(dead.get(2).startsWith("{\"step\":5,") && dead.get(2).contains("\"side\":\"payments\"") &&
            dead.get(2).contains("not in state"), dead.get(2));
        assertTrue(dead.get(3).startsWith("{\"step\":6,"), dead.get(3));
        assertEquals(0, result.errorCount(), result.errors().toString());
        // the engine's metrics count the operator's rows: rows in, rows out, bad inputs, live rows per side
        long rowsIn = 0;
        long rowsOut = 0;
        long badInputs = 0;
        long live = 0;
        for (final PartitionSnapshot p : result.metrics())
        {
            rowsIn += p.rowsIn;
            rowsOut += p.rowsOut;
            badInputs += p.badInputs;
            live += p.liveLeft + p.liveRight;
        }
        assertEquals(3, rowsIn, "the rows that reached the operator");
        assertEquals(3, rowsOut);
        assertEquals(1, badInputs);
        assertEquals(2, live, "one order, one payment");
    }

    @Test
    void rowsCompareAsOneValueAndASignDifferenceIsFound()
    {
        final List<String> a = List.of("{\"step\":1,\"op\":\"+I\",\"rows\":{\"x\":{\"k\":1},\"y\":null}}");
        assertTrue(ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI, a,
            List.of("{\"step\":1,\"op\":\"+U\",\"rows\":{\"y\":null,\"x\":{\"k\":1.0}}}")).matches());
        assertTrue(ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI, a,
            List.of("{\"step\":1,\"op\":\"+I\",\"rows\":{\"x\":{\"k\":1}}}")).matches(), "a padded input may be absent");
        assertFalse(ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI, a,
            List.of("{\"step\":1,\"op\":\"-D\",\"rows\":{\"x\":{\"k\":1},\"y\":null}}")).matches());
        assertFalse(ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI, a,
            List.of("{\"step\":1,\"op\":\"+I\",\"rows\":{\"x\":{\"k\":1},\"y\":{\"k\":1}}}")).matches());
        assertFalse(ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI, a,
            List.of("{\"step\":1,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":null}")).matches(), "rows are not left/right");
        // final mode: a multi-way join's changelog retracts, as a regular join's
        assertTrue(ReplayComparison.outputs(ReplayComparison.Mode.FINAL, JoinKind.MULTI, List.of(), List.of(
            "{\"step\":1,\"op\":\"+I\",\"rows\":{\"x\":{\"k\":1}}}", "{\"step\":2,\"op\":\"-D\",\"rows\":{\"x\":{\"k\":1}}}")).matches());
    }

    @Test
    void onePartitionAndFourGiveTheSameStepsOnAWideJoin()
    {
        final StringBuilder spec = new StringBuilder("{\"join\":\"multi\",\"inputs\":[{\"name\":\"i0\",\"key\":[\"k\"]}");
        for (int i = 1; i < 16; i++)
        {
            spec.append(",{\"name\":\"i").append(i).append("\",\"key\":[\"k\"],\"type\":\"").append(i == 8 || i == 15 ? "inner" : "left").append("\"}");
        }
        spec.append("]}");
        final StringBuilder events = new StringBuilder();
        for (int k = 0; k < 12; k++)
        {
            for (final int input : new int[] {0, 8, 15})
            {
                events.append("{\"side\":\"i").append(input).append("\",\"row\":{\"k\":").append(k).append(",\"v\":9}}\n");
            }
        }
        final Random random = new Random(16);
        for (int e = 0; e < 100; e++)
        {
            final int input = random.nextInt(16);
            events.append("{\"side\":\"i").append(input).append("\",\"op\":\"").append(random.nextInt(6) == 0 ? "-D" : "+I")
                .append("\",\"row\":{\"k\":").append(random.nextInt(12)).append(",\"v\":").append(random.nextInt(2)).append("}}\n");
        }
        final ReplayResult one = new Replay(Replay.config(1)).run(spec.toString(), events.toString());
        final ReplayResult four = new Replay(Replay.config(4)).run(spec.toString(), events.toString());
        final MultiJoinModel.Expected model = new MultiJoinModel(spec.toString()).run(events.toString());
        assertTrue(model.results().size() > 100, () -> "the model emits " + model.results().size() + " lines");
        for (final ReplayResult result : List.of(one, four))
        {
            final ReplayComparison output = ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI, model.results(),
                result.resultLines());
            assertTrue(output.matches(), output.describe());
            assertTrue(ReplayComparison.deadLetters(model.deadLetters(), result.deadLetterLines()).matches());
        }
    }
}
