package io.junction.internal.metrics;

import io.junction.metrics.ExpansionCounts;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An engine's row-expansion counts (docs/SEMANTICS.md 12), summed over its publishers: written by the
 * publishing threads once per expanded input row, read by JMX and Micrometer from any thread.
 */
public final class ExpansionCounters implements ExpansionCounts
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
    @Override
    public long inputs()
    {
        return inputs.get();
    }

    /** @return the rows they made. */
    @Override
    public long rows()
    {
        return rows.get();
    }

    /** @return the input rows that made no row. */
    @Override
    public long empty()
    {
        return empty.get();
    }

    /** @return the input rows refused because their expansion failed. */
    @Override
    public long failed()
    {
        return failed.get();
    }
}
