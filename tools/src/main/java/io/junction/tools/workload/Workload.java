package io.junction.tools.workload;

import java.util.Locale;

/**
 * The benchmark workloads of WORKLOADS.md.
 * <p>
 * {@link #W1_BIG} is the W1 generator with N = 10,000,000 impressions; its longer join interval
 * ({@link Workloads#w1IntervalMillis(Workload)}) is a join parameter, not a generator change.
 */
public enum Workload
{
    /** Show-click interval join, 2,000,000 impressions, +/-30 s. */
    W1("W1"),
    /** W1 generator with 10,000,000 impressions, joined with a +/-1 h interval. */
    W1_BIG("W1-big"),
    /** Orders-payments regular join, uniform keys. */
    W2("W2"),
    /** Skewed (Zipf s = 1.1) regular join. */
    W3("W3"),
    /** Orders and payments as upsert streams: W3's skewed keys, every row updated with -U/+U (a changelog). */
    W4("W4"),
    /** Orders (Zipf currencies) joined with a currency-rate table updated every N ms: a temporal join. */
    W5("W5"),
    /** Trades joined ASOF (backward, tolerance 1 s) with out-of-order quotes over Zipf-hot symbols ({@link W6}). */
    W6("W6"),
    /** Shows carrying 1-8 ad ids, unnested before an interval left join to the ads' clicks ({@link W8}). */
    W8("W8"),
    /** W8's events with each show pre-expanded into one row per ad: the same join without the expansion ({@link W8#flatten}). */
    W8_FLAT("W8-flat");

    private final String displayName;

    Workload(final String displayName)
    {
        this.displayName = displayName;
    }

    /**
     * @return the name used on command lines and in reports: "W1", "W1-big", "W2", "W3", "W4", "W5", "W6", "W8", "W8-flat"
     */
    public String displayName()
    {
        return displayName;
    }

    /**
     * Parses a workload name, case-insensitively; accepts the display names ("W1-big") and the constant
     * names ("W1_BIG").
     *
     * @param name the name
     * @return the workload
     * @throws IllegalArgumentException if the name is not one of W1, W1-big, W2, W3, W4, W5, W6, W8, W8-flat
     */
    public static Workload parse(final String name)
    {
        if (name != null)
        {
            final String n = name.trim();
            for (final Workload w : values())
            {
                if (w.displayName.equalsIgnoreCase(n) || w.name().equalsIgnoreCase(n))
                {
                    return w;
                }
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "', expected one of W1, W1-big, W2, W3, W4, W5, W6, W8, W8-flat");
    }

    /** @return whether the workload is a changelog with retractions (W4), not insert-only (W1-W3; W5's rate updates are {@code +U} only) */
    public boolean isChangelog()
    {
        return this == W4;
    }

    @Override
    public String toString()
    {
        return displayName;
    }

    /** @return the display name lower-cased, convenient for file names */
    public String fileName()
    {
        return displayName.toLowerCase(Locale.ROOT);
    }
}
