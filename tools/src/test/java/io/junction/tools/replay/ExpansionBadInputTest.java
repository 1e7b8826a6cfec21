package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Bad input around row expansion and arrays (docs/SEMANTICS.md 12): one dead letter per input row with a
 * code and nothing of it emitted or stored; a bad spec rejected naming the field.
 */
final class ExpansionBadInputTest
{
    private static ReplayResult run(final int partitions, final String spec, final String... lines) throws Exception
    {
        final byte[] bytes = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
        return new Replay(Replay.config(partitions)).run(JoinSpecJson.parse(spec), () -> new ByteArrayInputStream(bytes));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aFailedExpansionIsOneDeadLetterAndLeavesNothingInState(final int partitions) throws Exception
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"full\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"leftExpand\":{\"unnest\":\"ks\",\"as\":\"k\",\"maxExpansion\":2}}";
        final ReplayResult result = run(partitions, spec,
            "{\"side\":\"left\",\"row\":{\"id\":1,\"ks\":\"a\"}}",
            "{\"side\":\"left\",\"row\":{\"id\":2,\"ks\":[\"a\",\"b\",\"c\"]}}",
            "{\"side\":\"left\",\"row\":{\"id\":3,\"ks\":[\"a\"],\"k\":\"a\"}}",
            "{\"side\":\"right\",\"row\":{\"k\":\"a\"}}");
        assertEquals(Map.of("expansion_failed", 3L), result.deadLettersByCode());
        // Nothing of the refused rows was stored: the right row meets no left row.
        assertEquals(List.of("{\"step\":3,\"op\":\"+I\",\"left\":null,\"right\":{\"k\":\"a\"}}"), result.resultLines());
        assertTrue(result.deadLetterLines().get(0).contains("field 'ks' is a string, not an array"), result.deadLetterLines().get(0));
        assertTrue(result.deadLetterLines().get(1).contains("more than maxExpansion 2"), result.deadLetterLines().get(1));
        assertTrue(result.deadLetterLines().get(2).contains("field 'k' is already in the row"), result.deadLetterLines().get(2));
    }

    @Test
    void anArrayWhereAKeyOrAFilterIsReadIsABadInput() throws Exception
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"rightFilter\":[{\"field\":\"s\",\"op\":\"==\",\"value\":\"x\"}]}";
        final ReplayResult result = run(1, spec,
            "{\"side\":\"left\",\"row\":{\"k\":[\"a\"]}}",
            "{\"side\":\"right\",\"row\":{\"k\":\"a\",\"s\":[\"x\"]}}",
            "{\"side\":\"left\",\"row\":{\"k\":\"a\",\"tags\":[{\"t\":1},null]}}",
            "{\"side\":\"right\",\"row\":{\"k\":\"a\",\"s\":\"x\"}}",
            "{\"side\":\"left\",\"row\":{\"k\":\"a\",\"tags\":[{\"t\":1},\"mixed\"]}}",
            "{\"side\":\"left\",\"row\":{\"k\":\"a\",\"tags\":[[1]]}}");
        assertEquals(2L, result.deadLettersByCode().get("schema_mismatch"));
        assertEquals(2L, result.deadLettersByCode().get("bad_input"));
        assertTrue(result.deadLetterLines().get(0).contains("field 'k' holds an array"), result.deadLetterLines().get(0));
        // The row that carries a (well-formed) array joins, and its array comes out as it went in.
        assertEquals(List.of("{\"step\":3,\"op\":\"+I\",\"left\":{\"k\":\"a\",\"tags\":[{\"t\":1},null]},\"right\":{\"k\":\"a\",\"s\":\"x\"}}"),
            result.resultLines());
    }

    @Test
    void aRetractionFindsTheRowWhoseArrayIsEqualAsAValue() throws Exception
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
        final ReplayResult result = run(1, spec,
            "{\"side\":\"left\",\"row\":{\"k\":1,\"a\":[{\"x\":1,\"y\":\"b\"},{\"x\":2.0}]}}",
            "{\"side\":\"left\",\"op\":\"-D\",\"row\":{\"k\":1,\"a\":[{\"y\":\"b\",\"x\":1.0},{\"x\":2}]}}",
            "{\"side\":\"left\",\"op\":\"-D\",\"row\":{\"k\":1,\"a\":[{\"x\":2},{\"y\":\"b\",\"x\":1.0}]}}");
        assertEquals(2, result.resultLines().size());
        assertEquals(Map.of("retraction_not_in_state", 1L), result.deadLettersByCode());
    }

    @Test
    void badSpecsAreRejectedNamingTheField()
    {
        assertRejected("expand.outer", "{\"join\":\"expand\",\"type\":\"left\",\"expand\":{\"unnest\":\"a\",\"as\":\"x\",\"outer\":true}}");
        assertRejected("expand.function", "{\"join\":\"expand\",\"type\":\"left\",\"expand\":{\"function\":\"explode\",\"args\":[\"a\",\",\"],\"as\":\"x\"}}");
        assertRejected("expand.as", "{\"join\":\"expand\",\"type\":\"left\",\"expand\":{\"unnest\":\"a\"}}");
        assertRejected("type", "{\"join\":\"expand\",\"type\":\"full\",\"expand\":{\"unnest\":\"a\",\"as\":\"x\"}}");
        assertRejected("rightExpand", "{\"join\":\"temporal\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"rightExpand\":{\"unnest\":\"a\",\"as\":\"x\"}}");
        assertRejected("leftExpand.as", "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"leftExpand\":{\"unnest\":\"a\",\"as\":\"a\"}}");
        assertRejected("schema", "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"leftExpand\":{\"unnest\":\"a\",\"as\":\"x\"},\"schema\":[{\"name\":\"k\"},{\"name\":\"a\",\"type\":\"array\"},{\"name\":\"x\"}]}");
        assertRejected("leftKey", "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"a\"],\"rightKey\":[\"a\"]," +
            "\"schema\":[{\"name\":\"a\",\"type\":\"array\"}]}");
        assertRejected("leftExpand", "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"leftExpand\":{\"unnest\":\"a\",\"as\":\"x\"},\"schema\":[{\"name\":\"k\"},{\"name\":\"a\",\"type\":\"string\"}]}");
    }

    private static void assertRejected(final String field, final String spec)
    {
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(spec), spec);
        assertTrue(e.getMessage().startsWith(field), () -> "expected a message about " + field + ": " + e.getMessage());
    }
}
