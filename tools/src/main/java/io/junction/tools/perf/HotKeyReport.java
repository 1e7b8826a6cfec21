package io.junction.tools.perf;

import io.junction.join.StateConfig;
import io.junction.metrics.HotKey;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The hot-key report as text, for {@code loadgen --hot-keys} and {@code replay --stats}: per partition,
 * the keys its sketch tracks ranked by rows visited by probes (probe work) and by live rows.
 */
public final class HotKeyReport
{
    /** Keys listed per partition and ranking. */
    public static final int TOP = 5;

    private HotKeyReport()
    {
    }

    /**
     * @param perPartition each partition's report ({@code JoinEngine.hotKeys(p)}), in partition order
     * @param top          keys listed per partition and ranking
     * @return the report, one line per key, ending in a newline; a line saying so when no partition has one
     */
    public static String format(final List<List<HotKey>> perPartition, final int top)
    {
        final StringBuilder text = new StringBuilder();
        text.append("hot keys: Space-Saving over the key hash per partition (").append(StateConfig.HOT_KEYS_PROP_NAME)
            .append("); visited = stored rows its probes visited, stored = rows stored, live = live rows now; ")
            .append("counts are since the key entered the sketch, the true count is at most count + error\n");
        boolean any = false;
        for (int p = 0; p < perPartition.size(); p++)
        {
            final List<HotKey> keys = perPartition.get(p);
            if (keys.isEmpty())
            {
                continue;
            }
            any = true;
            text.append(String.format(Locale.ROOT, "partition %d, by rows visited:%n", p));
            append(text, keys, top);
            final List<HotKey> byLive = new ArrayList<>(keys);
            byLive.sort(Comparator.comparingLong((HotKey k) -> k.liveRows).reversed());
            text.append(String.format(Locale.ROOT, "partition %d, by live rows:%n", p));
            append(text, byLive, top);
        }
        if (!any)
        {
            text.append("  (none: the report is off, or the join keeps none)\n");
        }
        return text.toString();
    }

    private static void append(final StringBuilder text, final List<HotKey> keys, final int top)
    {
        for (int i = 0; i < Math.min(top, keys.size()); i++)
        {
            text.append(String.format(Locale.ROOT, "  %2d  %s%n", i + 1, keys.get(i)));
        }
    }

    /** @return the hottest key of all partitions by rows visited, or null when none reported one */
    public static HotKey hottest(final List<List<HotKey>> perPartition)
    {
        HotKey hottest = null;
        for (final List<HotKey> keys : perPartition)
        {
            if (!keys.isEmpty() && (hottest == null || keys.get(0).visitedRows > hottest.visitedRows))
            {
                hottest = keys.get(0);
            }
        }
        return hottest;
    }
}
