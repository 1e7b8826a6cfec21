package io.junction.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinType;
import io.junction.metrics.HotKey;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Loadgen's hot-key report on W3 (Zipf keys, WORKLOADS.md): it names the hottest key, 1. */
class HotKeyReportTest
{

    @Test
    void namesW3sHottestKeyAtRunSize()
    {
        final EventTape tape = new EventTape();
        Workloads.w3(Workloads.W3_N_DEFAULT, Workloads.W3_M_DEFAULT, tape);
        final LoadRun.Options options = new LoadRun.Options();
        options.workload = Workload.W3;
        options.type = JoinType.INNER;
        options.partitions = 2;
        options.warmupEvents = 0;
        options.maxKeysPerPartition = 1 << 15;
        final LoadResult result = LoadRun.run(tape, options);
        assertEquals(2, result.hotKeys.size());
        final HotKey hottest = HotKeyReport.hottest(result.hotKeys);
        assertNotNull(hottest);
        assertEquals("1", hottest.keyText());
        // WORKLOADS.md: key 1 has 6,136 left and 6,237 right rows, every one stored and live at the end.
        assertEquals(6_136 + 6_237, hottest.liveRows);
        assertTrue(hottest.storedRows <= hottest.liveRows && hottest.liveRows <= hottest.storedRows + hottest.error,
            hottest.toString());
        // Each of its rows probes the other side's rows stored before it: one pair visited per output pair.
        assertTrue(hottest.visitedRows + hottest.error >= 6_136L * 6_237, hottest.toString());
        final String text = HotKeyReport.format(result.hotKeys, HotKeyReport.TOP);
        assertTrue(text.contains(", by rows visited:\n   1  key=1 visited="), text);
        assertTrue(text.contains(", by live rows:\n   1  key=1 visited="), text);
    }

    @Test
    void saysSoWhenNoPartitionReported()
    {
        assertTrue(HotKeyReport.format(List.of(List.of(), List.of()), 5).contains("(none:"));
    }
}
