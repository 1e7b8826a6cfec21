package io.junction.tools.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Writes the expected output of the multi-way conformance cases ({@code conformance/cases/multi_*} other than
 * the shared worked case) from the brute-force model {@link MultiJoinModel}, when run with
 * {@code -Djunction.writeMultiCases=true}; skipped otherwise ({@code CasesTest} then checks the engine
 * against the files).
 */
class MultiJoinCasesWriter
{
    static final List<String> CASES = List.of(
        "multi_four_inputs_left_chain", "multi_conditions_filters", "multi_ttl_watermarks", "multi_two_field_key");

    @Test
    @EnabledIfSystemProperty(named = "junction.writeMultiCases", matches = "true")
    void writeExpectedOutputs() throws IOException
    {
        for (final String name : CASES)
        {
            final String spec = Files.readString(Cases.file(name, "join.json"), StandardCharsets.UTF_8);
            final String events = Files.readString(Cases.file(name, "events.jsonl"), StandardCharsets.UTF_8);
            final MultiJoinModel.Expected expected = new MultiJoinModel(spec).run(events);
            Files.write(Cases.file(name, "expected.jsonl"), expected.results(), StandardCharsets.UTF_8);
            Files.write(Cases.file(name, "deadletter.jsonl"), expected.deadLetters(), StandardCharsets.UTF_8);
            Files.writeString(Cases.file(name, "mode"), "step\n", StandardCharsets.UTF_8);
        }
    }
}
