package io.junction.internal.metrics;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An engine's row-expansion counts (docs/SEMANTICS.md 12), summed over its publishers: written by the
 * publishing threads once per expanded input row, read by JMX and Micrometer from any thread.
 */
public final class ExpansionCounters
{
    private final AtomicLong inputs = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong empty = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /**
     * Counts one expanded input row.
     *
     * @param made the rows it made (0: none).
     */
    public void expanded(final int made)
    {
        inputs.incrementAndGet();
        if (made == 0)
        {
            empty.incrementAndGet();
        }
        else
        {
            rows.addAndGet(made);
        }
    }

    /** Counts one input row refused because its expansion failed. */
    public void refused()
    {
        failed.incrementAndGet();
    }

    /** @return the input rows expanded and published. */
    public long inputs()
    {
        return inputs.get();
    }

    /** @return the rows they made. */
    public long rows()
    {
        return rows.get();
    }

    /** @return the input rows that made no row. */
    public long empty()
    {
        return empty.get();
    }

    /** @return the input rows refused because their expansion failed. */
    public long failed()
    {
        return failed.get();
    }
}
