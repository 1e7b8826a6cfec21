package io.junction.kafka;

import org.apache.kafka.common.TopicPartition;

/**
 * Partition {@code p} of one input topic as the runner reads it: whether this member holds it, the next offset
 * to read, and what its watermark and idleness are made of. Owned by the consumer thread.
 */
final class InputPartition
{
    /** No timestamp read yet, no watermark sent. */
    static final long NONE = Long.MIN_VALUE;

    final TopicPartition topicPartition;
    /** This member holds it (assigned and neither revoked nor lost). */
    boolean held;
    long nextOffset;
    /** The highest timestamp of a published record, and that record's step. */
    long maxTimestamp;
    long maxTimestampStep;
    long sentWatermark;
    long lastRecordNanos;
    boolean idle;

    InputPartition(final TopicPartition topicPartition)
    {
        this.topicPartition = topicPartition;
    }

    /** A record at {@code offset} was read at {@code now}: the input is not idle. */
    void read(final long offset, final long now)
    {
        nextOffset = offset + 1;
        lastRecordNanos = now;
        idle = false;
    }

    /** A record of timestamp {@code ts} and step {@code step} was published: it may advance the watermark. */
    void published(final long ts, final long step)
    {
        if (ts > maxTimestamp)
        {
            maxTimestamp = ts;
            maxTimestampStep = step;
        }
    }

    /**
     * @return the watermark to send now, {@code delay} ms behind the highest timestamp, or {@link #NONE} when it did
     *         not advance past the one sent last; a returned one counts as sent.
     */
    long advanceWatermark(final long delay)
    {
        final long max = maxTimestamp;
        if (max == NONE)
        {
            return NONE;
        }
        final long watermark = max >= NONE + delay ? max - delay : NONE;
        if (watermark > sentWatermark)
        {
            sentWatermark = watermark;
            return watermark;
        }
        return NONE;
    }

    /** @return whether no record came for {@code timeout} ns before {@code now}, and the input was not marked idle yet. */
    boolean silent(final long now, final long timeout)
    {
        return !idle && now - lastRecordNanos >= timeout;
    }

    /** A take-over: the watermark starts again from the restored state's records. */
    void restart()
    {
        maxTimestamp = NONE;
        maxTimestampStep = 0;
        sentWatermark = NONE;
    }

    /** Reading resumes at {@code position} at {@code now}. */
    void resume(final long position, final long now)
    {
        nextOffset = position;
        lastRecordNanos = now;
        idle = false;
    }
}
