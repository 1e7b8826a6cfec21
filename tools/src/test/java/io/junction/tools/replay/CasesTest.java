package io.junction.tools.replay;

import io.junction.join.IndexKind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.runtime.EngineConfig;
import io.junction.json.JoinSpecJson;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Runs every worked case of {@code conformance/cases} through the engine by {@link Replay}, with one and
 * with four partitions, and compares output and dead letters as the cases' README defines. A case
 * whose join kind the engine does not implement yet is skipped by an assumption that says so, so it
 * shows up in the report instead of silently disappearing.
 */
class CasesTest
{

    static Stream<Arguments> cases()
    {
        final List<Arguments> arguments = new ArrayList<>();
        for (final String name : Cases.names())
        {
            arguments.add(Arguments.of(name, 1, IndexKind.CHRONICLE));
            arguments.add(Arguments.of(name, 4, IndexKind.CHRONICLE));
            arguments.add(Arguments.of(name, 3, IndexKind.HASH));
        }
        assertFalse(arguments.isEmpty(), "no cases found in " + Cases.dir().toAbsolutePath());
        return arguments.stream();
    }

    @ParameterizedTest(name = "{0}, {1} partition(s), {2} index")
    @MethodSource("cases")
    void replayMatchesExpectedOutput(final String name, final int partitions, final IndexKind index) throws Exception
    {
        final JoinSpecJson.Parsed spec = JoinSpecJson.read(Cases.file(name, "join.json"));
        final EngineConfig config = Replay.config(partitions);
        final ReplayResult result = new Replay(config.withState(config.state().withIndex(index)))
            .run(spec, Replay.events(Cases.file(name, "events.jsonl")));

        assertEquals(0, result.errorCount(), () -> "partition threads reported errors: " + result.errors());
        final ReplayComparison.Mode mode = ReplayComparison.Mode.parse(String.join("", Cases.lines(name, "mode")));
        final ReplayComparison output = ReplayComparison.outputs(mode, spec.kind(),
            Cases.lines(name, "expected.jsonl"), result.resultLines());
        assertTrue(output.matches(), () -> name + " output (" + mode + " mode): " + output.describe() +
            "\nactual output:\n" + String.join("\n", result.resultLines()));
        final ReplayComparison deadLetters = ReplayComparison.deadLetters(
            Cases.lines(name, "deadletter.jsonl"), result.deadLetterLines());
        assertTrue(deadLetters.matches(), () -> name + " dead letters: " + deadLetters.describe() +
            "\nactual dead letters:\n" + String.join("\n", result.deadLetterLines()));
    }
}
