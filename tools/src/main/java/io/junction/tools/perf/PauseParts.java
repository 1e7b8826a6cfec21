package io.junction.tools.perf;

import io.junction.metrics.CheckpointPausePart;
import io.junction.metrics.PartitionSnapshot;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The lines {@code loadgen --state} and {@code junction durability} print about the parts of a checkpoint's
 * partition pause ({@link CheckpointPausePart}, docs/DURABILITY.md "What a checkpoint costs, measured").
 */
public final class PauseParts
{
    private static final CheckpointPausePart[] PARTS = CheckpointPausePart.values();

    private PauseParts()
    {
    }

    /**
     * @param parts ns by {@link CheckpointPausePart} ordinal.
     * @return "watermark work 0.01, wait 0.00, ... ms": every part, in ms.
     */
    public static String describe(final long[] parts)
    {
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < PARTS.length; i++)
        {
            out.append(i == 0 ? "" : ", ").append(PARTS[i].name().toLowerCase(Locale.ROOT).replace('_', ' ')).append(' ')
                .append(String.format(Locale.ROOT, "%.3f", (i < parts.length ? parts[i] : 0) / 1e6));
        }
        return out.append(" ms").toString();
    }

    /**
     * @param parts each pause's parts (ns by ordinal).
     * @return the median of each part over the pauses (each part's own median: they need not add up).
     */
    public static long[] medians(final long[][] parts)
    {
        final long[] medians = new long[PARTS.length];
        if (parts.length == 0)
        {
            return medians;
        }
        final long[] column = new long[parts.length];
        for (int i = 0; i < PARTS.length; i++)
        {
            for (int p = 0; p < parts.length; p++)
            {
                column[p] = i < parts[p].length ? parts[p][i] : 0;
            }
            Arrays.sort(column);
            medians[i] = column[parts.length / 2];
        }
        return medians;
    }

    /**
     * @param snapshots every partition's metrics, after a checkpoint.
     * @return the parts of the longest last pause among them.
     */
    public static long[] ofLongest(final List<PartitionSnapshot> snapshots)
    {
        final long[] parts = new long[PARTS.length];
        long longest = -1;
        for (final PartitionSnapshot s : snapshots)
        {
            if (s.lastCheckpointPauseNanos > longest)
            {
                longest = s.lastCheckpointPauseNanos;
                for (int i = 0; i < PARTS.length; i++)
                {
                    parts[i] = s.lastCheckpointPauseNanos(PARTS[i]);
                }
            }
        }
        return parts;
    }
}
