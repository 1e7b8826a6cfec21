package io.junction.tools.perf;

import io.junction.metrics.CheckpointPausePart;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The pause-parts lines of {@code loadgen --state} and {@code junction durability}: each part's median, and its names. */
class PausePartsTest
{
    @Test
    void eachPartsMedianIsItsOwn()
    {
        final int n = CheckpointPausePart.values().length;
        final long[][] parts = new long[3][n];
        for (int p = 0; p < 3; p++)
        {
            for (int i = 0; i < n; i++)
            {
                parts[p][i] = (i % 2 == 0 ? p : 2 - p) * 1_000_000L + i;
            }
        }
        final long[] medians = PauseParts.medians(parts);
        for (int i = 0; i < n; i++)
        {
            assertEquals(1_000_000L + i, medians[i], "part " + i);
        }
        assertArrayEquals(new long[n], PauseParts.medians(new long[0][]));
    }

    @Test
    void describesEveryPartInMilliseconds()
    {
        final long[] parts = new long[CheckpointPausePart.values().length];
        parts[CheckpointPausePart.HEAP_IMAGE.ordinal()] = 2_265_000;
        parts[CheckpointPausePart.WATERMARK_WORK.ordinal()] = 10_000;
        assertEquals("watermark work 0.010, wait 0.000, install 0.000, flush 0.000, collect 0.000, freeze 0.000, " +
            "heap image 2.265, other 0.000 ms", PauseParts.describe(parts));
    }
}
