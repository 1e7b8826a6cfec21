package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;

/**
 * Turns a join result into the key and value of its output record. Called on the engine's partition
 * threads, concurrently: an encoder must be thread safe (stateless, or with per-thread scratch state).
 * The rows are flyweights valid only during the call.
 */
public interface ResultEncoder
{
    /**
     * @param kind      the result's change kind.
     * @param left      the left row, or null when padded.
     * @param right     the right row, or null when padded (always null for semi and anti joins).
     * @param timestamp the result's event time, ms.
     * @return the output record's key, or null for none.
     */
    byte[] key(ChangeKind kind, RowView left, RowView right, long timestamp);

    /**
     * @param kind      the result's change kind.
     * @param left      the left row, or null when padded.
     * @param right     the right row, or null when padded.
     * @param timestamp the result's event time, ms.
     * @return the output record's value.
     */
    byte[] value(ChangeKind kind, RowView left, RowView right, long timestamp);

    /**
     * A multi-way join's result's key (SEMANTICS 10). The default forwards a two-input join's result to
     * {@link #key(ChangeKind, RowView, RowView, long)} and throws {@link UnsupportedOperationException} for more
     * inputs: an encoder for a join of three or more inputs must override it ({@link #binary} does).
     *
     * @param kind      the result's change kind ({@code +I} or {@code -D}).
     * @param rows      one row per input in the spec's order, null for a padded one; valid only during the call.
     * @param timestamp the result's event time, ms.
     * @return the output record's key, or null for none.
     */
    default byte[] key(final ChangeKind kind, final RowView[] rows, final long timestamp)
    {
        if (rows.length == 2)
        {
            return key(kind, rows[0], rows[1], timestamp);
        }
        throw new UnsupportedOperationException("this ResultEncoder takes no multi-way results: override " +
            "ResultEncoder.key/value(ChangeKind, RowView[], long) (" + getClass().getName() + ")");
    }

    /**
     * A multi-way join's result's value; the default as {@link #key(ChangeKind, RowView[], long)}.
     *
     * @param kind      the result's change kind ({@code +I} or {@code -D}).
     * @param rows      one row per input in the spec's order, null for a padded one; valid only during the call.
     * @param timestamp the result's event time, ms.
     * @return the output record's value.
     */
    default byte[] value(final ChangeKind kind, final RowView[] rows, final long timestamp)
    {
        if (rows.length == 2)
        {
            return value(kind, rows[0], rows[1], timestamp);
        }
        throw new UnsupportedOperationException("this ResultEncoder takes no multi-way results: override " +
            "ResultEncoder.key/value(ChangeKind, RowView[], long) (" + getClass().getName() + ")");
    }

    /**
     * The default encoding ({@link BinaryResult} reads it back; a multi-way join's, {@link BinaryMultiResult}).. Value, big-endian:
     * <pre>
     *   +---------+---------------------+-----------+----------------------+------------+----------+
     *   | kind u8 | left length i32|-1  | left row  | right length i32|-1  | right row  | ts i64   |
     *   +---------+---------------------+-----------+----------------------+------------+----------+
     *   kind: the ChangeKind's ordinal (0 +I, 1 -U, 2 +U, 3 -D); a length of -1: that side is padded (no bytes).
     *   rows: binary rows (io.junction.api.RowFormat) as the engine holds them.
     * </pre>
     * Key: a binary row of the join key's values, field {@code i} holding the {@code i}-th key field of the
     * left row (of the right row when the left is padded), so that equal join keys have equal record keys.
     * A multi-way join's value is {@link BinaryMultiResult}'s layout (one length and row per input); its key the
     * common key's values of the first input that is not padded.
     * With upsert output ({@code JoinSpec.output() == UPSERT}, SEMANTICS 4.5-4.7) the key is the result key instead:
     * a binary row of the left unique key's fields then the right's, as {@code JoinSpec.resultKey()} names
     * them (a padded side's fields null), and a delete's value is null: a tombstone, so that a compacted
     * topic keeps the last result row per result key.
     *
     * @param spec the join, for its key fields.
     * @return the binary encoder.
     */
    static ResultEncoder binary(final JoinSpec spec)
    {
        return new BinaryResultEncoder(spec);
    }
}
