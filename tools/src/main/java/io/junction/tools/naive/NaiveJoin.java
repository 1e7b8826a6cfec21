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
public interface NaiveJoin extends WorkloadSink {
    /** The join types the naive joins implement. */
    enum Type {
        /** Inner join. */
        INNER,
        /** Left outer join. */
        LEFT;

        /**
         * @param name "inner" or "left", any case
         * @return the type
         * @throws IllegalArgumentException for any other name
         */
        public static Type parse(final String name) {
            if (name != null) {
                switch (name.trim().toLowerCase(Locale.ROOT)) {
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

    /** @return output rows of kind {@code +I} (pairs and padded rows) */
    long inserts();

    /** @return output rows of kind {@code -D} (retracted padded rows; regular left join only) */
    long deletes();

    /** @return output rows that pair a left and a right row */
    long pairs();

    /** @return output {@code +I} rows with a null side */
    long paddedInserts();

    /** @return input rows dropped as late (interval join only) */
    long lateRows();

    /** @return every output row, of any kind */
    default long outputRows() {
        return inserts() + deletes();
    }

    /** @return rows held in state now, both sides */
    long liveRows();
}
