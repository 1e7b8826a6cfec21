package io.junction.api;

/**
 * A {@link ResultHandler} for a join with upsert output ({@link OutputMode#UPSERT}, SEMANTICS 4.5-4.7): each
 * result arrives as an upsert or a delete of its result key ({@link JoinSpec#resultKey()}: the
 * declared unique-key fields of the row(s) named there). Per step and result key at most one call.
 * The upsert output reaches a plain ResultHandler as {@link ChangeKind#UPDATE_AFTER} (upsert) and
 * {@link ChangeKind#DELETE} (delete), which the default {@link #onResult} turns into these calls.
 *
 * <p>Called on the partition thread, as any result handler.
 */
public interface UpsertHandler extends ResultHandler
{
    /**
     * The result row of its key is now {@code (left, right)}.
     *
     * @param left      the left row, or null when padded.
     * @param right     the right row, or null when padded (always null for semi and anti joins).
     * @param timestamp event time of the result.
     * @param step      the input sequence number whose processing produced it.
     */
    void onUpsert(RowView left, RowView right, long timestamp, long step);

    /**
     * The result row of its key is gone; {@code (left, right)} is the deleted row, which names the key.
     *
     * @param left      the left row, or null when padded.
     * @param right     the right row, or null when padded.
     * @param timestamp event time of the deleted result.
     * @param step      the input sequence number whose processing produced it.
     */
    void onDelete(RowView left, RowView right, long timestamp, long step);

    @Override
    default void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        if (kind.isAccumulate())
        {
            onUpsert(left, right, timestamp, step);
        }
        else
        {
            onDelete(left, right, timestamp, step);
        }
    }
}
