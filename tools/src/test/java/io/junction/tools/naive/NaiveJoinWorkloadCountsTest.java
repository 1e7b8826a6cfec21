package io.junction.tools.naive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.junction.tools.workload.Checksum;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The naive joins reproduce the output counts of WORKLOADS.md (and of W1 at a smaller size). */
class NaiveJoinWorkloadCountsTest
{

    private static EventTape w2Scaled()
    {
        final Properties props = new Properties();
        props.setProperty(Workloads.W2_N_PROP_NAME, "100000");
        props.setProperty(Workloads.W2_KEYS_PROP_NAME, "20000");
        final EventTape tape = new EventTape(200_001);
        Workloads.generate(Workload.W2, props, tape);
        return tape;
    }

    private static EventTape w3RunSize()
    {
        final EventTape tape = new EventTape(100_001);
        Workloads.generate(Workload.W3, new Properties(), tape);
        return tape;
    }

    @Test
    void shouldReproduceW2ScaledInnerRows()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.INNER);
        w2Scaled().replay(join);
        assertEquals(500_157L, join.outputRows());
        assertEquals(500_157L, join.pairs());
        assertEquals(0L, join.deletes());
        assertEquals(200_000L, join.liveRows());
    }

    @Test
    void shouldReproduceW2ScaledLeftOuterChangelogRows()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.LEFT);
        w2Scaled().replay(join);
        assertEquals(538_623L, join.outputRows());
        assertEquals(500_157L, join.pairs());
        // each -D retracts an earlier +I(l, null); what stays padded are the never-matched left rows
        assertEquals(500_849L - 500_157L, join.paddedInserts() - join.deletes());
        assertEquals(join.inserts() + join.deletes(), join.outputRows());
    }

    @Test
    void shouldReproduceW3RunSizeInnerRows()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.INNER);
        w3RunSize().replay(join);
        assertEquals(57_123_820L, join.outputRows());
    }

    @Test
    void shouldReproduceW3RunSizeLeftOuterChangelogRows()
    {
        final NaiveRegularJoin join = new NaiveRegularJoin(NaiveJoin.Type.LEFT);
        w3RunSize().replay(join);
        assertEquals(57_140_380L, join.outputRows());
        assertEquals(57_123_820L, join.pairs());
        assertEquals(57_135_066L - 57_123_820L, join.paddedInserts() - join.deletes());
    }

    @Test
    void shouldJoinEveryW1ClickToItsImpressionInAnInnerJoin()
    {
        final Checksum checksum = new Checksum();
        final EventTape tape = new EventTape();
        Workloads.w1(200_000, tape);
        tape.replay(checksum);
        final NaiveIntervalJoin join = NaiveIntervalJoin.symmetric(NaiveJoin.Type.INNER, Workloads.W1_INTERVAL_MS);
        tape.replay(join);
        assertEquals(200_000L, checksum.left());
        assertEquals(checksum.right(), join.outputRows(), "inner = one row per click");
        assertEquals(0L, join.lateRows());
        assertEquals(0L, join.liveRows(), "the end of input empties state");
    }

    @Test
    void shouldEmitEveryW1ImpressionOnceInALeftJoin()
    {
        final EventTape tape = new EventTape();
        Workloads.w1(200_000, tape);
        final NaiveIntervalJoin join = NaiveIntervalJoin.symmetric(NaiveJoin.Type.LEFT, Workloads.W1_INTERVAL_MS);
        tape.replay(join);
        assertEquals(200_000L, join.outputRows());
        assertEquals(tape.rows() - 200_000L, join.pairs());
        assertEquals(0L, join.lateRows());
        assertEquals(0L, join.liveRows());
    }

    @Test
    void shouldGiveTheSameCountsWithPrebuiltRowsAndMaterialisedOutput()
    {
        final Properties props = new Properties();
        props.setProperty(Workloads.W2_N_PROP_NAME, "100000");
        props.setProperty(Workloads.W2_KEYS_PROP_NAME, "20000");
        final EventTape tape = new EventTape();
        Workloads.generate(Workload.W2, props, tape);
        final NaiveRunner.Result built = NaiveRunner.run(Workload.W2, NaiveJoin.Type.LEFT, tape, false, true);
        final NaiveRunner.Result prebuilt = NaiveRunner.run(Workload.W2, NaiveJoin.Type.LEFT, tape, true, false);
        assertEquals(538_623L, built.outputRows());
        assertEquals(538_623L, prebuilt.outputRows());
        assertEquals(built.deletes(), prebuilt.deletes());
        assertEquals(200_000L, built.events());
    }
}
