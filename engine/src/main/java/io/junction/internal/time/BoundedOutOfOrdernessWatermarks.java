package io.junction.internal.time;

/**
 * A watermark generator for one input that has no watermarks of its own: the watermark trails the
 * highest timestamp seen by a fixed delay (the bounded out-of-orderness of Flink's
 * {@code WatermarkStrategy.forBoundedOutOfOrderness}), and is emitted every {@code everyEvents}
 * events or whenever the highest timestamp has moved {@code everyMillis} ms of event time past the
 * last emitted one, whichever comes first. Rows more than {@code delay} ms behind the highest
 * timestamp seen become late.
 *
 * <p>Not thread safe: one per input per publishing thread.
 */
public final class BoundedOutOfOrdernessWatermarks
{
    /** Returned by {@link #onEvent} when no watermark is due. */
    public static final long NONE = Long.MIN_VALUE;

    private final long delay;
    private final long everyEvents;
    private final long everyMillis;
    private long maxTs = Long.MIN_VALUE;
    private long lastEmitted = Long.MIN_VALUE;
    private long eventsSinceEmit;

    /**
     * @param delay       ms of event time the watermark trails the highest timestamp, >= 0.
     * @param everyEvents emit after this many events, >= 1.
     * @param everyMillis emit when the watermark would advance by at least this many ms, >= 1.
     */
    public BoundedOutOfOrdernessWatermarks(final long delay, final long everyEvents, final long everyMillis)
    {
        if (delay < 0 || everyEvents < 1 || everyMillis < 1)
        {
            throw new IllegalArgumentException("delay must be >= 0, everyEvents and everyMillis >= 1: delay=" + delay +
                " everyEvents=" + everyEvents + " everyMillis=" + everyMillis);
        }
        this.delay = delay;
        this.everyEvents = everyEvents;
        this.everyMillis = everyMillis;
    }

    /**
     * Observes one event's timestamp.
     *
     * @return the watermark to emit now, or {@link #NONE}.
     */
    public long onEvent(final long ts)
    {
        if (ts > maxTs)
        {
            maxTs = ts;
        }
        eventsSinceEmit++;
        final long candidate = maxTs < Long.MIN_VALUE + delay ? Long.MIN_VALUE : maxTs - delay;
        if (candidate <= lastEmitted)
        {
            return NONE;
        }
        if (eventsSinceEmit >= everyEvents || lastEmitted == Long.MIN_VALUE || candidate - lastEmitted >= everyMillis)
        {
            eventsSinceEmit = 0;
            lastEmitted = candidate;
            return candidate;
        }
        return NONE;
    }

    /** @return the last watermark emitted, or {@link Long#MIN_VALUE}. */
    public long lastEmitted()
    {
        return lastEmitted;
    }
}
