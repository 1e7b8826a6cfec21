package io.junction.api;

/**
 * Receives the rows a regular join drops from its state without a retraction: state-TTL expiry and
 * {@code expire-oldest} evictions (docs/SEMANTICS.md "Visible expiry"). Optional: a join reports
 * expiry to it when the partition's {@link ResultHandler} also implements this interface; otherwise
 * expiry stays silent apart from the counters. The row is a flyweight valid only during the call.
 *
 * <p>Called on the partition thread, as the result handler.
 */
@FunctionalInterface
public interface ExpiryHandler
{
    /**
     * @param side      the row's input.
     * @param row       the dropped row.
     * @param timestamp the row's event time.
     * @param reason    why it was dropped.
     * @param step      the input sequence number (replay step) whose processing dropped it.
     */
    void onExpired(Side side, RowView row, long timestamp, ExpiryReason reason, long step);
}
