package io.junction.kafka;

import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Side;

/**
 * Receives the input records a {@link KafkaJoinRunner} did not join, with the reason: values the decoder
 * could not read or the engine refused at the door (on the runner's consumer thread, {@code row} null), and
 * rows the engine did not process (late rows and the like, on the partition's thread, with the row). Every
 * one is counted ({@link KafkaJoinRunner#deadLetters()}) whatever the handler does; a handler that throws
 * is logged and ignored. Must be thread safe.
 */
@FunctionalInterface
public interface KafkaDeadLetterHandler
{
    /**
     * @param partition the input partition.
     * @param side      the input (left or right topic).
     * @param offset    the record's offset in that topic's partition.
     * @param timestamp the record's timestamp (its event time), ms.
     * @param reason    why it was not joined.
     * @param row       the decoded row, valid only during the call, or null when there is none (not
     *                  decodable, or refused before the engine took it).
     */
    void onDeadLetter(int partition, Side side, long offset, long timestamp, DeadLetterReason reason, RowView row);

    /**
     * A dead letter of a multi-way join's input (SEMANTICS 10). The default forwards it to {@link #onDeadLetter} with
     * input 0 as {@link Side#LEFT} and every other input as {@link Side#RIGHT}: override it to tell the inputs apart.
     *
     * @param partition the input partition.
     * @param input     the input's index in the spec (and in {@link KafkaJoinConfig#inputTopics()}).
     * @param offset    the record's offset in that topic's partition.
     * @param timestamp the record's timestamp (its event time), ms.
     * @param reason    why it was not joined.
     * @param row       the decoded row, valid only during the call, or null when there is none.
     */
    default void onMultiDeadLetter(final int partition, final int input, final long offset, final long timestamp,
        final DeadLetterReason reason, final RowView row)
    {
        onDeadLetter(partition, input == 0 ? Side.LEFT : Side.RIGHT, offset, timestamp, reason, row);
    }

    /**
     * The default: a warning through {@link System.Logger} for the first dead letters, then every
     * thousandth (they are all counted).
     *
     * @return a logging handler.
     */
    static KafkaDeadLetterHandler logging()
    {
        return new LoggingDeadLetterHandler();
    }
}
