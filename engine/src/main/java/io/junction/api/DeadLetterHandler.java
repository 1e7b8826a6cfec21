package io.junction.api;

/**
 * Receives input rows that a partition did not process, with the reason: late rows, bad retractions,
 * rows over a state limit. Called on the partition thread; the row is valid only during the call. A row
 * refused at the door (too large, malformed, not fitting its schema) never reaches a partition nor this
 * handler: the publisher answers it with a code on the publishing thread, where the caller still holds
 * the row, and {@code Publisher.lastRefusal()} says which field and why (docs/JAVA_API.md).
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

    /**
     * A dead letter of a multi-way join's input ({@link JoinKind#MULTI}). The default forwards it to
     * {@link #onDeadLetter} with input 0 as {@link Side#LEFT} and every other input as {@link Side#RIGHT}.
     * @param input  the index of the input the row came from.
     * @param kind   its change kind.
     * @param row    the row, or null when it could not be read.
     * @param ts     its event time.
     * @param step   its input sequence number.
     * @param reason why it was not processed.
     */
    default void onMultiDeadLetter(final int input, final ChangeKind kind, final RowView row, final long ts, final long step,
        final DeadLetterReason reason)
    {
        onDeadLetter(Side.of(input), kind, row, ts, step, reason);
    }
}
