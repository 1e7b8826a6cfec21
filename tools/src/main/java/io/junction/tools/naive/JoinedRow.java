package io.junction.tools.naive;

/**
 * One output row of a naive join: its changelog kind and the two input rows, either of which is
 * {@code null} on the padded side. Allocated per output row (the naive way); handed to the join's
 * downstream consumer, if any.
 *
 * @param kind  the changelog kind: {@link Kind#INSERT} (+I) or {@link Kind#DELETE} (-D); an inner regular join
 *              forwards {@link Kind#UPDATE_BEFORE} (-U) and {@link Kind#UPDATE_AFTER} (+U) input rows' kinds
 * @param left  the left row, or null when padded
 * @param right the right row, or null when padded
 */
public record JoinedRow(Kind kind, Row left, Row right)
{
    /** Changelog kind of an output row (Flink SQL {@code RowKind}, in its order). */
    public enum Kind
    {
        /** {@code +I}: the row is added to the result. */
        INSERT("+I"),
        /** {@code -U}: an earlier identical row is retracted, its update follows. */
        UPDATE_BEFORE("-U"),
        /** {@code +U}: the row is added to the result as an update. */
        UPDATE_AFTER("+U"),
        /** {@code -D}: an earlier identical row is retracted from the result. */
        DELETE("-D");

        private static final Kind[] VALUES = values();

        private final String shortString;

        Kind(final String shortString)
        {
            this.shortString = shortString;
        }

        /** @return {@code +I}, {@code -U}, {@code +U} or {@code -D} */
        public String shortString()
        {
            return shortString;
        }

        /** @return whether the kind adds a row ({@code +I}, {@code +U}) */
        public boolean isAccumulate()
        {
            return this == INSERT || this == UPDATE_AFTER;
        }

        /**
         * @param kind a change kind of {@link io.junction.tools.workload.WorkloadSink} (0 .. 3)
         * @return the kind with that number
         */
        public static Kind of(final byte kind)
        {
            if (kind < 0 || kind >= VALUES.length)
            {
                throw new IllegalArgumentException("change kind " + kind + " is none of +I (0), -U (1), +U (2), -D (3)");
            }
            return VALUES[kind];
        }
    }
}
