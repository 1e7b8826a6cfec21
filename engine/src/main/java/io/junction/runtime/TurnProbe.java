package io.junction.runtime;

/**
 * TEMPORARY probe (issue 18): log2 histograms of the partition thread's turn times by work kind, printed at shutdown
 * when -Djunction.probe.turns=true. Owned by the partition thread.
 */
final class TurnProbe
{
    static final boolean ON = Boolean.getBoolean("junction.probe.turns");
    static final int ROW = 0;
    static final int ROW_PENDING = 1;
    static final int WATERMARK = 2;
    static final int END_SLICES = 3;
    static final int METRICS = 4;
    static final int HOTKEYS = 5;
    static final int WAIT_ROW = 6;
    static final int GAP = 7;
    static final int OTHER = 8;
    static final int SLICE_END = 9;
    private static final String[] NAMES = {"row", "row+slice", "watermark", "endSlices", "metrics", "hotKeys",
        "queueWait(row)", "gapBetweenEvents", "other", "oneEndSlice"};
    private final long[][] h = new long[NAMES.length][48];
    private final long[] max = new long[NAMES.length];
    private final long[] sum = new long[NAMES.length];

    void record(final int kind, final long nanos)
    {
        final long n = nanos < 1 ? 1 : nanos;
        h[kind][63 - Long.numberOfLeadingZeros(n)]++;
        sum[kind] += n;
        if (n > max[kind])
        {
            max[kind] = n;
        }
    }

    void print(final int partition)
    {
        final StringBuilder b = new StringBuilder("turn probe, partition ").append(partition).append('\n');
        for (int k = 0; k < NAMES.length; k++)
        {
            long count = 0;
            for (final long c : h[k])
            {
                count += c;
            }
            if (count == 0)
            {
                continue;
            }
            b.append(String.format("%-18s n=%,d sum=%,dus max=%,dus p50<=%s p90<=%s p99<=%s p99.9<=%s |", NAMES[k], count,
                sum[k] / 1000, max[k] / 1000, q(k, count, 0.5), q(k, count, 0.9), q(k, count, 0.99), q(k, count, 0.999)));
            for (int i = 0; i < 48; i++)
            {
                if (h[k][i] != 0)
                {
                    b.append(' ').append(i).append(':').append(h[k][i]);
                }
            }
            b.append('\n');
        }
        System.err.print(b);
    }

    private String q(final int k, final long count, final double p)
    {
        long seen = 0;
        for (int i = 0; i < 48; i++)
        {
            seen += h[k][i];
            if (seen >= p * count)
            {
                final long ns = 2L << i;
                return ns >= 1000 ? (ns / 1000) + "us" : ns + "ns";
            }
        }
        return "?";
    }
}
