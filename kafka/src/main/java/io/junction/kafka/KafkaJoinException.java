package io.junction.kafka;

/**
 * A {@link KafkaJoinRunner} cannot start or cannot go on: the input topics are missing or not
 * co-partitioned, the cluster did not answer in time, a topic was deleted while running, an output could
 * not be written or a checkpoint failed. The message says which and what to do.
 */
public final class KafkaJoinException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what went wrong.
     */
    public KafkaJoinException(final String message)
    {
        super(message);
    }

    /**
     * @param message what went wrong.
     * @param cause   the error underneath.
     */
    public KafkaJoinException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
