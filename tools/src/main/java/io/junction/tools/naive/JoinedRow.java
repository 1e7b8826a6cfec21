package io.junction.tools.naive;

/**
 * One output row of a naive join: its changelog kind and the two input rows, either of which is
 * {@code null} on the padded side. Allocated per output row (the naive way); handed to the join's
 * downstream consumer, if any.
 *
 * @param kind  {@link Kind#INSERT} (+I) or {@link Kind#DELETE} (-D)
 * @param left  the left row, or null when padded
 * @param right the right row, or null when padded
 */
public record JoinedRow(Kind kind, Row left, Row right) {
    /** Changelog kind of an output row (Flink SQL {@code RowKind}, the two the naive joins emit). */
    public enum Kind {
        /** {@code +I}: the row is added to the result. */
        INSERT,
        /** {@code -D}: an earlier identical row is retracted from the result. */
        DELETE
    }
}
