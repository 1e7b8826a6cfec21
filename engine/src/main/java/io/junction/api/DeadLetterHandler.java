package io.junction.api;

/**
 * Receives input rows that were not processed, with the reason: late rows, bad retractions,
 * oversized or malformed rows. Called on the partition thread (or the publishing thread for rows
 * refused at the door); the row is valid only during the call.
 */
@FunctionalInterface
public interface DeadLetterHandler
{
    /** A handler that drops dead letters; they are still counted in the metrics. */
    DeadLetterHandler NONE = (side, kind, row, ts, step, reason) -> {};

    /**
     * @param side   the input the row came from.
     * @param kind   its change kind.
     * @param row    the row, or null when it could not be read.
     * @param ts     its event time.
     * @param step   its input sequence number.
     * @param reason why it was not processed.
     */
    void onDeadLetter(Side side, ChangeKind kind, RowView row, long ts, long step, DeadLetterReason reason);
}
