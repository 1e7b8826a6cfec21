package io.junction.kafka;

import java.util.concurrent.atomic.AtomicReference;

/**
 * The first error that stops a runner. Set by any thread (the consumer thread's parts, the producer's callbacks
 * on a failed output); the consumer thread's loop stops at it and {@link KafkaJoinRunner#run()} throws it.
 */
final class RunnerFailure
{
    private final AtomicReference<KafkaJoinException> fatal = new AtomicReference<>();

    /** Fails the runner with {@code e}, logged, unless it failed already. */
    void fail(final KafkaJoinException e)
    {
        if (fatal.compareAndSet(null, e))
        {
            KafkaJoinRunner.LOG.log(System.Logger.Level.ERROR, e.getMessage(), e.getCause());
        }
    }

    /** Fails the runner with {@code e} unless it failed already; not logged: {@code run()} throws it. */
    void record(final KafkaJoinException e)
    {
        fatal.compareAndSet(null, e);
    }

    /** @return whether the runner failed. */
    boolean failed()
    {
        return fatal.get() != null;
    }

    /** @return the error that failed the runner, or null. */
    KafkaJoinException error()
    {
        return fatal.get();
    }
}
