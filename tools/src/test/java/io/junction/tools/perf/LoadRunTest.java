package io.junction.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.AsofSpec;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.W6;
import io.junction.tools.workload.W8;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Loadgen's run on small workloads: the engine's output count is the workload's, changelogs included. */
class LoadRunTest
{

    private static LoadResult run(final Workload w, final JoinType type, final int partitions, final EventTape tape)
    {
        return run(w, type, partitions, false, tape);
    }

    private static LoadResult run(final Workload w, final JoinType type, final int partitions, final boolean uniqueKey,
                                  final EventTape tape)
    {
        final LoadRun.Options options = new LoadRun.Options();
        options.workload = w;
        options.type = type;
        options.partitions = partitions;
        options.uniqueKey = uniqueKey;
        options.warmupEvents = 0;
        options.maxKeysPerPartition = 1 << 14;
        return LoadRun.run(tape, options);
    }

    @ParameterizedTest(name = "W4 {0} p={1} unique key {2}")
    @CsvSource({"INNER, 1, false", "LEFT, 1, false", "INNER, 2, false", "LEFT, 2, false",
        "INNER, 1, true", "LEFT, 1, true", "INNER, 2, true", "LEFT, 2, true"})
    void shouldProduceW4sOutputRowsFromItsUpdates(final JoinType type, final int partitions, final boolean uniqueKey)
    {
        final EventTape tape = new EventTape();
        Workloads.w4(400, Workloads.W4_M_DEFAULT, Workloads.W4_UPDATES, tape);
        final long expected = WorkloadJoin.expectedOutputRows(Workload.W4, type, tape);
        assertTrue(expected > 400 * 2 * 7, "the small W4 still joins its hot key: " + expected);
        final LoadResult result = run(Workload.W4, type, partitions, uniqueKey, tape);
        assertEquals(0L, result.badInputs, "every -U finds the version it retracts, f1 is unique per live row");
        assertEquals(expected, result.outputs);
        assertEquals(800L, result.liveRows, "one live row per id");
        assertEquals(tape.size(), result.events);
    }

    @ParameterizedTest(name = "W5 {0} p={1}")
    @CsvSource({"INNER, 1", "LEFT, 1", "INNER, 2", "LEFT, 2"})
    void shouldJoinEveryW5OrderWithTheRateValidAtItsTime(final JoinType type, final int partitions)
    {
        final EventTape tape = new EventTape();
        Workloads.w5(20_000, 10, tape);
        final long expected = WorkloadJoin.expectedOutputRows(Workload.W5, type, tape);
        assertEquals(20_000L, expected);
        final LoadResult result = run(Workload.W5, type, partitions, tape);
        assertEquals(expected, result.outputs);
        assertEquals(0L, result.padded, "every currency has a rate from ts 0");
        assertEquals(0L, result.lateRows);
        assertEquals(0L, result.badInputs);
        assertEquals(tape.size(), result.events);
        assertTrue(result.liveRows >= Workloads.W5_CURRENCIES && result.liveRows < Workloads.W5_CURRENCIES + 2_000,
            "one rate per currency plus the versions inside the watermark delay: " + result.liveRows);
        assertThrows(IllegalArgumentException.class, () -> WorkloadJoin.spec(Workload.W5, JoinType.LEFT, true));
    }

    @ParameterizedTest(name = "W6 {0} {1} p={2} direct {3}")
    @CsvSource({"INNER, FINAL, 1, false", "LEFT, FINAL, 1, false", "INNER, EAGER, 1, false", "LEFT, EAGER, 1, false",
        "LEFT, FINAL, 2, false", "LEFT, EAGER, 2, false", "INNER, FINAL, 1, true", "LEFT, EAGER, 1, true"})
    void shouldJoinW6sTradesAsofTheirQuotesAsItsModelCounts(final JoinType type, final AsofSpec.Emit emit, final int partitions,
                                                             final boolean direct)
    {
        final EventTape tape = new EventTape();
        W6.generate(3_000, tape);
        final long expected = WorkloadJoin.w6ExpectedOutputRows(type, emit, tape);
        assertTrue(expected > 1_000, "the small W6 still matches: " + expected);
        final LoadRun.Options options = new LoadRun.Options();
        options.workload = Workload.W6;
        options.type = type;
        options.partitions = partitions;
        options.warmupEvents = 0;
        options.maxKeysPerPartition = 1 << 14;
        options.spec = WorkloadJoin.w6Spec(type, emit);
        final LoadResult result = direct ? DirectRun.run(tape, options) : LoadRun.run(tape, options);
        assertEquals(expected, result.outputs);
        assertEquals(0L, result.lateRows, "quotes are out of order within the watermark's lag");
        assertEquals(0L, result.badInputs);
        assertEquals(0L, result.liveRows, "every trade is final at the end of input, every quote freed");
        assertEquals(tape.size(), result.events);
        if (emit == AsofSpec.Emit.FINAL)
        {
            assertEquals(expected, WorkloadJoin.expectedOutputRows(Workload.W6, type, tape), "W6's own join is the final one");
        }
        assertThrows(IllegalArgumentException.class, () -> WorkloadJoin.spec(Workload.W6, JoinType.LEFT, true));
    }

    @ParameterizedTest(name = "{0} {1} p={2} direct {3}")
    @CsvSource({"W8, INNER, 1, false", "W8, LEFT, 1, false", "W8, LEFT, 2, false", "W8, INNER, 3, false",
        "W8, LEFT, 1, true", "W8_FLAT, LEFT, 1, false", "W8_FLAT, INNER, 2, false", "W8_FLAT, LEFT, 1, true"})
    void shouldJoinW8sUnnestedAdsToTheirClicksAsItsModelCounts(final Workload w, final JoinType type, final int partitions,
                                                              final boolean direct)
    {
        final EventTape shows = new EventTape();
        W8.generate(2_000, shows);
        final W8.Counts counts = new W8.Counts();
        shows.replay(counts);
        assertTrue(counts.clicks() > 1_000 && counts.ads() > 8_000, "the small W8 still has its ads and clicks");
        final EventTape tape;
        if (w == Workload.W8_FLAT)
        {
            tape = new EventTape();
            W8.flatten(shows, tape);
        }
        else
        {
            tape = shows;
        }
        final LoadRun.Options options = new LoadRun.Options();
        options.workload = w;
        options.type = type;
        options.partitions = partitions;
        options.warmupEvents = 0;
        options.maxKeysPerPartition = 1 << 15;
        final LoadResult result = direct ? DirectRun.run(tape, options) : LoadRun.run(tape, options);
        // Inner: each click meets its own ad; left: each ad once, padded when it had no click.
        assertEquals(type == JoinType.INNER ? counts.clicks() : counts.ads(), result.outputs);
        assertEquals(WorkloadJoin.expectedOutputRows(w, type, tape), result.outputs);
        assertEquals(type == JoinType.INNER ? 0 : counts.ads() - counts.clicks(), result.padded);
        assertEquals(0L, result.lateRows);
        assertEquals(0L, result.badInputs);
        assertEquals(0L, result.liveRows, "every show and click expired by the end of input");
        assertEquals(tape.size(), result.events);
        assertThrows(IllegalArgumentException.class, () -> WorkloadJoin.spec(w, JoinType.LEFT, true));
    }

    @Test
    void reportsTheResultsOfWatermarkWorkApart()
    {
        final EventTape w1 = new EventTape();
        Workloads.w1(20_000, w1);
        final LoadResult left = run(Workload.W1, JoinType.LEFT, 1, w1);
        // W1 left pads every impression without a click when a watermark closes it; its matches come at their click
        assertTrue(left.watermarkLatency().getTotalCount() > 0, "padded rows closed by watermarks");
        assertEquals(left.latency.getTotalCount(), left.watermarkLatency().getTotalCount() + left.ownEventLatency().getTotalCount());
        final EventTape w2 = new EventTape();
        Workloads.w2(2_000, 500, w2);
        final LoadResult regular = run(Workload.W2, JoinType.INNER, 1, w2);
        assertEquals(0, regular.watermarkLatency().getTotalCount(), "a regular join without TTL has no watermark work");
        assertEquals(regular.latency.getTotalCount(), regular.ownEventLatency().getTotalCount());
    }

    @ParameterizedTest(name = "W2 {0}")
    @CsvSource({"INNER", "LEFT"})
    void shouldProduceW2sOutputRows(final JoinType type)
    {
        final EventTape tape = new EventTape();
        Workloads.w2(2_000, 500, tape);
        final LoadResult result = run(Workload.W2, type, 1, tape);
        assertEquals(WorkloadJoin.expectedOutputRows(Workload.W2, type, tape), result.outputs);
    }

    @Test
    void shouldDeclareF1AsBothSidesUniqueKeyOnRequest()
    {
        final JoinSpec spec = WorkloadJoin.spec(Workload.W4, JoinType.LEFT, true);
        assertEquals(List.of("f1"), spec.leftUniqueKey());
        assertEquals(List.of("f1"), spec.rightUniqueKey());
        assertTrue(WorkloadJoin.spec(Workload.W4, JoinType.LEFT).leftUniqueKey().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> WorkloadJoin.spec(Workload.W1, JoinType.INNER, true));
    }

    @ParameterizedTest(name = "W1 {0}")
    @CsvSource({"INNER", "LEFT"})
    void shouldExpectOneRowPerClickOrImpressionInW1(final JoinType type)
    {
        final EventTape tape = new EventTape();
        Workloads.w1(5_000, tape);
        final long expected = WorkloadJoin.expectedOutputRows(Workload.W1, type, tape);
        assertEquals(type == JoinType.INNER ? tape.rows() - 5_000 : 5_000, expected);
        assertEquals(expected, run(Workload.W1, type, 1, tape).outputs);
        assertEquals(-1L, WorkloadJoin.expectedOutputRows(Workload.W1, JoinType.FULL, tape));
    }

    @ParameterizedTest(name = "direct {0} {1} unique key {2}")
    @CsvSource({"W1, INNER, false", "W1, LEFT, false", "W2, INNER, false", "W2, LEFT, false", "W4, INNER, true", "W4, LEFT, false"})
    void shouldRunTheOperatorDirectlyWithTheSameOutput(final Workload w, final JoinType type, final boolean uniqueKey)
    {
        final EventTape tape = new EventTape();
        switch (w)
        {
            case W1:
                Workloads.w1(5_000, tape);
                break;
            case W2:
                Workloads.w2(2_000, 500, tape);
                break;
            default:
                Workloads.w4(400, Workloads.W4_M_DEFAULT, Workloads.W4_UPDATES, tape);
        }
        final LoadRun.Options options = new LoadRun.Options();
        options.workload = w;
        options.type = type;
        options.uniqueKey = uniqueKey;
        options.maxKeysPerPartition = 1 << 14;
        final LoadResult result = DirectRun.run(tape, options);
        assertEquals(WorkloadJoin.expectedOutputRows(w, type, tape), result.outputs);
        assertEquals(0L, result.badInputs);
        assertEquals(tape.size(), result.events);
        assertTrue(result.label.endsWith("direct"), result.label);
        assertEquals(tape.size(), result.measuredEvents, "every event of the tape is in the measured pass");
        if (w != Workload.W1)
        {
            // Regular joins keep every live row to the end; the footprint is taken just before the end of input.
            assertEquals(result.liveRows, result.peakLiveRows);
            assertTrue(result.bytesPerLiveRow() > 100, "a row with its record and share of its key: " + result.bytesPerLiveRow());
        }
    }
}
