package io.junction.runtime;

import io.junction.api.Side;

/**
 * A publisher's part of the engine's idle timeout ({@link EngineConfig#idleTimeout()}) for the binary kinds:
 * it tells every partition when an input has become idle, and when an idle input is active again (any
 * watermark of it says so) before that input's next row. The timing itself is the engine-wide
 * {@link InputIdleness}, which several publishers share; a transition one broadcast could not send is
 * handed back to it, to be made by a later event. Without waiting ({@code tryPublish}) a transition goes out
 * only when every live partition's ring has room for it, so that no partition hears it without the others.
 * Owned by the publisher's thread; exists only with the idle timeout on.
 */
final class IdlenessBroadcast
{
    private final InputIdleness idleness;
    private final RingWriter rings;
    private final GeneratedWatermarks watermarks;

    IdlenessBroadcast(final InputIdleness idleness, final RingWriter rings, final GeneratedWatermarks watermarks)
    {
        this.idleness = idleness;
        this.rings = rings;
        this.watermarks = watermarks;
    }

    /** @return the idleness clock's time, to hand to the calls below. */
    long now()
    {
        return idleness.now();
    }

    /**
     * A row of {@code side} is about to be published: when the input was idle, every partition first hears
     * that it is back.
     *
     * @return false when not every partition could hear it (the transition is handed back; the caller retries
     *         the row).
     */
    boolean beforeRow(final int side, final long now, final long step, final boolean wait)
    {
        if (idleness.onEvent(side, now) &&
            !broadcastTransition(RingSlot.WATERMARK, side, Long.MIN_VALUE, step, wait))
        {
            idleness.retry(side, false);
            return false;
        }
        return true;
    }

    /** A watermark of both inputs: it tells every partition that both are active. */
    void onWatermarkOfBoth()
    {
        final long now = idleness.now();
        idleness.onEvent(0, now);
        idleness.onEvent(1, now);
    }

    /**
     * Broadcasts a watermark of one input (an event of that input: it is active), then checks whether the
     * other input has become idle.
     *
     * @return as {@link GeneratedWatermarks#broadcast}.
     */
    int watermark(final Side side, final long watermark, final long step)
    {
        final long now = idleness.now();
        idleness.onEvent(side.ordinal(), now);
        final int result = watermarks.broadcast(RingSlot.WATERMARK, (byte)side.ordinal(), watermark, step);
        markIdle(side.other().ordinal(), now, step, true);
        return result;
    }

    /** @return the number of inputs newly marked idle ({@link Publisher#checkIdle}). */
    int checkIdle(final long step)
    {
        final long now = idleness.now();
        int marked = 0;
        for (int side = 0; side < 2; side++)
        {
            if (markIdle(side, now, step, true))
            {
                marked++;
            }
        }
        return marked;
    }

    /** Marks the input other than {@code side} idle if it has just become so. */
    void markOtherIdle(final Side side, final long step, final boolean wait)
    {
        markIdle(side.other().ordinal(), idleness.now(), step, wait);
    }

    /** Marks an input idle in every partition when it has just become idle; @return whether it did. */
    boolean markIdle(final int side, final long now, final long step, final boolean wait)
    {
        if (!idleness.becameIdle(side, now))
        {
            return false;
        }
        if (!broadcastTransition(RingSlot.IDLE, side, 0, step, wait))
        {
            idleness.retry(side, true);
            return false;
        }
        return true;
    }

    /**
     * Broadcasts an idleness transition; without {@code wait}, only when every live partition's ring
     * has room for it after the generated watermarks still pending (the broadcast sends those first),
     * so that no partition hears it without the others and nothing waits. A dead partition hears
     * nothing more: the transition is made when every live one has it.
     */
    private boolean broadcastTransition(final byte type, final int side, final long value, final long step, final boolean wait)
    {
        if (!wait)
        {
            if (watermarks.hasPending())
            {
                watermarks.sendPendingWatermarks(false);
                if (watermarks.hasPending())
                {
                    return false;
                }
            }
            for (int p = 0; p < rings.partitions(); p++)
            {
                if (!rings.isFailed(p) && !rings.hasRoom(p))
                {
                    return false;
                }
            }
        }
        final int result = watermarks.broadcast(type, (byte)side, value, step);
        return result == Publisher.PUBLISHED || result == Publisher.PARTITION_FAILED;
    }
}
