package io.junction.join;

import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.metrics.HotKey;
import io.junction.testing.JoinHarness;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The operators' hot-key report: the keys whose rows the probes visit most come first. */
class HotKeysTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(4096);

    private static JoinSpec regular()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").build();
    }

    @Test
    void aRegularJoinsHotKeyLeadsByVisitedRowsWithItsLiveRows()
    {
        try (JoinHarness h = new JoinHarness(regular(), CONFIG))
        {
            for (long v = 0; v < 40; v++)
            {
                h.left("+I", "k", 7L, "v", v);
            }
            for (long k = 100; k < 130; k++)
            {
                h.left("+I", "k", k, "v", 0L);
                h.right("+I", "k", k, "v", 0L);
            }
            for (long v = 0; v < 3; v++)
            {
                assertEquals(40, h.right("+I", "k", 7L, "v", v).size());
            }
            // A retraction probes too: 40 more rows visited; the retracted row leaves the live count.
            assertEquals(40, h.right("-D", "k", 7L, "v", 0L).size());
            final List<HotKey> report = h.operator().hotKeys();
            assertEquals(CONFIG.hotKeys(), report.size());
            final HotKey hot = report.get(0);
            assertEquals("7", hot.keyText());
            assertEquals(160, hot.visitedRows);
            assertEquals(43, hot.storedRows);
            assertEquals(42, hot.liveRows);
            assertEquals(0, hot.error);
            assertTrue(report.get(1).visitedRows <= 1, report.toString());
        }
    }

    @Test
    void anIntervalJoinCountsRowsVisitedAndStoredAndLiveRowsFallWithExpiry()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
        try (JoinHarness h = new JoinHarness(spec, CONFIG))
        {
            for (long v = 0; v < 20; v++)
            {
                h.leftAt(100, "+I", "k", "hot", "v", v);
            }
            h.leftAt(100, "+I", "k", "cold", "v", 0L);
            assertEquals(20, h.rightAt(101, "+I", "k", "hot", "v", 0L).size());
            assertEquals(1, h.rightAt(101, "+I", "k", "cold", "v", 0L).size());
            List<HotKey> report = h.operator().hotKeys();
            assertEquals(2, report.size());
            assertEquals("\"hot\"", report.get(0).keyText());
            assertEquals(20, report.get(0).visitedRows);
            assertEquals(21, report.get(0).storedRows);
            assertEquals(21, report.get(0).liveRows);
            assertEquals("\"cold\"", report.get(1).keyText());
            assertEquals(1, report.get(1).visitedRows);
            h.watermark(1000);
            report = h.operator().hotKeys();
            assertEquals(0, report.get(0).liveRows, "expired rows leave the live count, not the run's counts");
            assertEquals(20, report.get(0).visitedRows);
        }
    }

    @Test
    void zeroCountersTurnTheReportOff()
    {
        try (JoinHarness h = new JoinHarness(regular(), CONFIG.withHotKeys(0)))
        {
            h.left("+I", "k", 1L, "v", 0L);
            assertEquals(1, h.right("+I", "k", 1L, "v", 0L).size());
            assertEquals(List.of(), h.operator().hotKeys());
        }
        try (JoinHarness h = new JoinHarness(regular(), CONFIG.withHotKeys(1)))
        {
            h.left("+I", "k", 1L, "v", 0L);
            h.left("+I", "k", 2L, "v", 0L);
            assertEquals(1, h.operator().hotKeys().size());
        }
    }
}
