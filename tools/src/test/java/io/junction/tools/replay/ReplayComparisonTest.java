package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import java.util.List;
import org.junit.jupiter.api.Test;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.json.RowJson;

/** The comparison rules of {@code conformance/README.md}, checked on hand-made outputs. */
class ReplayComparisonTest
{
    private static final String A = "{\"step\":1,\"op\":\"+I\",\"left\":{\"k\":1,\"v\":\"a\"},\"right\":null}";

    private static boolean step(final List<String> expected, final List<String> actual)
    {
        return ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.REGULAR, expected, actual).matches();
    }

    private static boolean fin(final JoinKind kind, final List<String> expected, final List<String> actual)
    {
        return ReplayComparison.outputs(ReplayComparison.Mode.FINAL, kind, expected, actual).matches();
    }

    @Test
    void numbersCompareByTheValueTheEngineGivesThem() throws Exception
    {
        final ObjectMapper json = RowJson.mapper();
        assertEquals(ReplayComparison.canonical(json.readTree("9007199254740992")),
            ReplayComparison.canonical(json.readTree("9007199254740992.0")));
        assertEquals("1", ReplayComparison.canonical(json.readTree("1.00000000000000001")));
        assertEquals("9007199254740993", ReplayComparison.canonical(json.readTree("9007199254740993.0")));
        assertEquals("0.5", ReplayComparison.canonical(json.readTree("5e-1")));
    }

    @Test
    void rowsCompareAsJsonValues()
    {
        assertTrue(step(List.of(A), List.of("{\"right\":null,\"left\":{\"v\":\"a\",\"k\":1.0},\"op\":\"+U\",\"step\":1}")),
            "key order, 1 vs 1.0 and +I vs +U do not matter");
        assertFalse(step(List.of(A), List.of(A.replace("\"k\":1", "\"k\":\"1\""))), "\"1\" is not 1");
        assertFalse(step(List.of(A), List.of(A.replace("\"step\":1", "\"step\":2"))), "steps matter in step mode");
        assertFalse(step(List.of(A), List.of(A.replace("+I", "-D"))), "signs matter");
        assertFalse(step(List.of(A, A), List.of(A)), "multiplicity matters");
        assertTrue(step(List.of(A, ""), List.of(A)), "blank lines are ignored");
    }

    @Test
    void windowsAreComparedToo()
    {
        final String w = "{\"step\":7,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":{\"k\":1},\"window\":[0,10]}";
        assertTrue(step(List.of(w), List.of(w)));
        assertFalse(step(List.of(w), List.of(w.replace("[0,10]", "[10,20]"))));
    }

    @Test
    void aCoGroupsComputedRowIsComparedToo()
    {
        final String r = "{\"step\":6,\"op\":\"+I\",\"left\":null,\"right\":null,\"row\":{\"k\":1,\"leftCount\":2},\"window\":[0,10]}";
        assertTrue(step(List.of(r), List.of(r.replace("{\"k\":1,\"leftCount\":2}", "{\"leftCount\":2.0,\"k\":1}"))),
            "a row compares as a JSON value");
        assertFalse(step(List.of(r), List.of(r.replace("\"leftCount\":2", "\"leftCount\":3"))));
        assertFalse(step(List.of(r), List.of(r.replace(",\"row\":{\"k\":1,\"leftCount\":2}", ""))), "a missing row differs");
    }

    @Test
    void finalModeAppliesTheChangelog()
    {
        final String retract = A.replace("+I", "-D").replace("\"step\":1", "\"step\":5");
        final String later = A.replace("\"step\":1", "\"step\":9");
        assertTrue(fin(JoinKind.REGULAR, List.of(A), List.of(A, retract, later)), "net one copy, at a later step");
        assertFalse(fin(JoinKind.REGULAR, List.of(A), List.of(A, retract)));
        assertFalse(fin(JoinKind.INTERVAL, List.of(A), List.of(A, retract, later)), "interval output must be append-only");
    }

    @Test
    void deadLettersCompareStepAndRowOnly()
    {
        final String expected = "{\"step\":3,\"reason\":\"late: whatever\",\"side\":\"left\",\"row\":{\"id\":\"x\",\"k\":1}}";
        final String actual = "{\"step\":3,\"reason\":\"other words\",\"side\":\"left\",\"ts\":140,\"row\":{\"k\":1,\"id\":\"x\"}}";
        assertTrue(ReplayComparison.deadLetters(List.of(expected), List.of(actual)).matches());
        assertFalse(ReplayComparison.deadLetters(List.of(expected), List.of(actual.replace("\"step\":3", "\"step\":4"))).matches());
    }

    @Test
    void describesWhatDiffers()
    {
        final ReplayComparison c = ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.REGULAR,
            List.of(A), List.of(A.replace("\"a\"", "\"b\""), "not json"));
        assertEquals(3, c.differences().size(), c.describe());
        assertTrue(c.describe().contains("missing at step 1"), c.describe());
        assertTrue(c.describe().contains("unexpected at step 1"), c.describe());
        assertTrue(c.describe().contains("not a JSON object"), c.describe());
    }

    @Test
    void readsModes()
    {
        assertEquals(ReplayComparison.Mode.STEP, ReplayComparison.Mode.parse("step\n"));
        assertEquals(ReplayComparison.Mode.FINAL, ReplayComparison.Mode.parse(" final"));
        assertThrows(IllegalArgumentException.class, () -> ReplayComparison.Mode.parse("exact"));
    }
}
