package io.junction.tools.naive;

import io.junction.tools.workload.WorkloadSink;

import java.util.Locale;

/**
 * A naive on-heap reference join over a workload event sequence: {@link #row} builds an on-heap
 * {@link Row} and hands it to {@link #onRow}; output rows are counted by kind and, when the join has
 * a downstream consumer, materialised as {@link JoinedRow}s.
 * <p>
 * Not thread safe: driven by one thread.
 */
public interface NaiveJoin extends WorkloadSink
{
    /** The join types the naive joins implement. */
    enum Type
    {
        /** Inner join. */
        INNER,
        /** Left outer join. */
        LEFT;

        /**
         * @param name "inner" or "left", any case
         * @return the type
         * @throws IllegalArgumentException for any other name
         */
        public static Type parse(final String name)
        {
            if (name != null)
            {
                switch (name.trim().toLowerCase(Locale.ROOT))
                {
                    case "inner":
                        return INNER;
                    case "left":
                    case "left-outer":
                    case "left_outer":
                        return LEFT;
                    default:
                        break;
                }
            }
            throw new IllegalArgumentException("unknown join type '" + name + "', expected inner or left");
        }
    }

    /**
     * Processes one row already built (lets a driver build the rows before timing).
     *
     * @param row the row; stored by the join
     */
    void onRow(Row row);

    /**
     * Processes one changelog row already built: {@link #onRow} for {@code +I}. The default takes inserts only.
     *
     * @param kind the row's change kind
     * @param row  the row; stored by the join when it adds a row, else only compared with the stored rows
     * @throws UnsupportedOperationException for a kind other than {@code +I}, unless overridden
     */
    default void onChange(final JoinedRow.Kind kind, final Row row)
    {
        if (kind != JoinedRow.Kind.INSERT)
        {
            throw new UnsupportedOperationException(getClass().getSimpleName() + " takes insert-only input, got " + kind.shortString());
        }
        onRow(row);
    }

    /** @return output rows of kind {@code +I} (pairs and padded rows) */
    long inserts();

    /** @return output rows of kind {@code -D} (retracted padded rows; regular left join only) */
    long deletes();

    /** @return output rows of kind {@code -U} or {@code +U} (an inner regular join forwards its input's updates) */
    default long updates()
    {
        return 0;
    }

    /** @return input retractions that found no equal stored row (dead letters: no output) */
    default long deadLetters()
    {
        return 0;
    }

    /** @return output rows that pair a left and a right row */
    long pairs();

    /** @return output {@code +I} rows with a null side */
    long paddedInserts();

    /** @return input rows dropped as late (interval join only) */
    long lateRows();

    /** @return every output row, of any kind */
    default long outputRows()
    {
        return inserts() + deletes() + updates();
    }

    /** @return rows held in state now, both sides */
    long liveRows();
}
