package io.junction.kafka;

import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Side;

import java.util.concurrent.atomic.AtomicLong;

/** {@link KafkaDeadLetterHandler#logging()}: the first few dead letters, then one in a thousand. */
final class LoggingDeadLetterHandler implements KafkaDeadLetterHandler
{
    private static final System.Logger LOG = System.getLogger(KafkaJoinRunner.class.getName());
    private static final long LOG_FIRST = 10;
    private static final long LOG_EVERY = 1000;

    private final AtomicLong seen = new AtomicLong();

    @Override
    public void onDeadLetter(final int partition, final Side side, final long offset, final long timestamp,
        final DeadLetterReason reason, final RowView row)
    {
        final long n = seen.incrementAndGet();
        if (n <= LOG_FIRST || n % LOG_EVERY == 0)
        {
            LOG.log(System.Logger.Level.WARNING, "dead letter #" + n + ": " + side.jsonName() + " partition " + partition +
                " offset " + offset + " ts " + timestamp + ": " + reason.message());
        }
    }
}
