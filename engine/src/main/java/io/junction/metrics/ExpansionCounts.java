package io.junction.metrics;

/**
 * An engine's row-expansion counts (docs/SEMANTICS.md 12), summed over its publishers: read from any thread.
 */
public interface ExpansionCounts
{
    /**
     * @return input rows the publishers expanded before the join (the standalone kind's: checked) and routed; 0 for a
     *         join that expands nothing.
     */
    long inputs();

    /** @return the rows those input rows made (an outer expansion's padded row counts one). */
    long rows();

    /** @return the expanded input rows that made no row. */
    long empty();

    /** @return input rows refused because their expansion failed ({@code Publisher.EXPANSION_FAILED}). */
    long failed();
}
