package io.junction.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinType;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Loadgen's run on small workloads: the engine's output count is the workload's, changelogs included. */
class LoadRunTest {

    private static LoadResult run(final Workload w, final JoinType type, final int partitions, final EventTape tape) {
        final LoadRun.Options options = new LoadRun.Options();
        options.workload = w;
        options.type = type;
        options.partitions = partitions;
        options.warmupEvents = 0;
        options.maxKeysPerPartition = 1 << 14;
        return LoadRun.run(tape, options);
    }

    @ParameterizedTest(name = "W4 {0} p={1}")
    @CsvSource({"INNER, 1", "LEFT, 1", "INNER, 2", "LEFT, 2"})
    void shouldProduceW4sOutputRowsFromItsUpdates(final JoinType type, final int partitions) {
        final EventTape tape = new EventTape();
        Workloads.w4(400, Workloads.W4_M_DEFAULT, Workloads.W4_UPDATES, tape);
        final long expected = WorkloadJoin.expectedOutputRows(Workload.W4, type, tape);
        assertTrue(expected > 400 * 2 * 7, "the small W4 still joins its hot key: " + expected);
        final LoadResult result = run(Workload.W4, type, partitions, tape);
        assertEquals(0L, result.badInputs, "every -U finds the version it retracts");
        assertEquals(expected, result.outputs);
        assertEquals(800L, result.liveRows, "one live row per id");
        assertEquals(tape.size(), result.events);
    }

    @ParameterizedTest(name = "W2 {0}")
    @CsvSource({"INNER", "LEFT"})
    void shouldProduceW2sOutputRows(final JoinType type) {
        final EventTape tape = new EventTape();
        Workloads.w2(2_000, 500, tape);
        final LoadResult result = run(Workload.W2, type, 1, tape);
        assertEquals(WorkloadJoin.expectedOutputRows(Workload.W2, type, tape), result.outputs);
    }

    @ParameterizedTest(name = "W1 {0}")
    @CsvSource({"INNER", "LEFT"})
    void shouldExpectOneRowPerClickOrImpressionInW1(final JoinType type) {
        final EventTape tape = new EventTape();
        Workloads.w1(5_000, tape);
        final long expected = WorkloadJoin.expectedOutputRows(Workload.W1, type, tape);
        assertEquals(type == JoinType.INNER ? tape.rows() - 5_000 : 5_000, expected);
        assertEquals(expected, run(Workload.W1, type, 1, tape).outputs);
        assertEquals(-1L, WorkloadJoin.expectedOutputRows(Workload.W1, JoinType.FULL, tape));
    }
}
