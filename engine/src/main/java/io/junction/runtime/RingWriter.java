package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import io.junction.api.ChangeKind;
import org.agrona.DirectBuffer;

import java.util.concurrent.locks.LockSupport;

/**
 * A publisher's writing end of the partitions' rings: the claim loop around {@link RingClaim#tryClaim}
 * (wait for room or give up, and stop waiting when the engine closes or the partition dies), the filling
 * of control and row slots, and the broadcast of a control event to every live partition. A claimed slot is
 * always published. Owned by the publisher's thread. The engine's own claim loop for barriers
 * ({@link JoinEngine}) waits longer between tries (a barrier is rare, a row is not) and stays its own.
 */
final class RingWriter
{
    private final JoinEngine engine;
    private final RingBuffer<RingSlot>[] rings;

    RingWriter(final JoinEngine engine, final RingBuffer<RingSlot>[] rings)
    {
        this.engine = engine;
        this.rings = rings;
    }

    int partitions()
    {
        return rings.length;
    }

    boolean isClosed()
    {
        return engine.isClosed();
    }

    boolean isFailed(final int partition)
    {
        return engine.isFailed(partition);
    }

    /** @return whether a partition's ring has room for one more event now. */
    boolean hasRoom(final int partition)
    {
        return rings[partition].hasAvailableCapacity(1);
    }

    /** As {@link #claim}, and {@link Publisher#PARTITION_FAILED} at once for a dead partition. */
    long claimLive(final int partition, final boolean wait)
    {
        return engine.isFailed(partition) ? Publisher.PARTITION_FAILED : claim(partition, wait);
    }

    /**
     * Claims the next slot of a ring: waits for room when asked to (unless the engine closes or the
     * partition dies meanwhile), otherwise gives up at once.
     *
     * @return the sequence, or a negative code.
     */
    long claim(final int partition, final boolean wait)
    {
        final RingBuffer<RingSlot> ring = rings[partition];
        while (true)
        {
            final long sequence = RingClaim.tryClaim(ring);
            if (sequence != RingClaim.NO_ROOM)
            {
                return sequence;
            }
            if (!wait)
            {
                return Publisher.BACK_PRESSURED;
            }
            if (engine.isFailed(partition))
            {
                return Publisher.PARTITION_FAILED;
            }
            if (engine.isClosed())
            {
                return Publisher.CLOSED;
            }
            LockSupport.parkNanos(1);
        }
    }

    /**
     * Sends an event to every partition that is alive.
     *
     * @return {@link Publisher#PUBLISHED}, {@link Publisher#CLOSED}, or {@link Publisher#PARTITION_FAILED}
     *         when a partition is dead (the others got the event).
     */
    int broadcast(final byte type, final byte side, final long value, final long step)
    {
        final long now = System.nanoTime();
        int result = Publisher.PUBLISHED;
        for (int p = 0; p < rings.length; p++)
        {
            final long sequence = claimLive(p, true);
            if (sequence < 0)
            {
                if (sequence == Publisher.CLOSED)
                {
                    return Publisher.CLOSED;
                }
                result = Publisher.PARTITION_FAILED;
                continue;
            }
            fill(p, sequence, type, side, value, step, now);
        }
        return result;
    }

    /** Fills a claimed slot with a control event (a watermark, idleness, the end of input) and publishes it. */
    void fill(
        final int partition, final long sequence, final byte type, final byte side, final long value,
        final long step, final long ingestNanos)
    {
        final RingBuffer<RingSlot> ring = rings[partition];
        final RingSlot slot = ring.get(sequence);
        slot.type = type;
        slot.side = side;
        slot.timestamp = value;
        slot.step = step;
        slot.ingestNanos = ingestNanos;
        slot.rowLength = 0;
        ring.publish(sequence);
    }

    /**
     * Fills the claimed slot with a row and publishes it. Until it is whole the slot says SKIP: whatever fails
     * here, the claimed slot is published and the partition passes over it instead of stalling or processing a
     * stale row (counted as refused).
     */
    void fillRow(
        final int partition, final long sequence, final byte type, final byte side, final ChangeKind kind,
        final long ts, final long step, final long ingestNanos, final long hash, final DirectBuffer row, final int offset,
        final int length)
    {
        final RingBuffer<RingSlot> ring = rings[partition];
        final RingSlot slot = ring.get(sequence);
        slot.type = RingSlot.SKIP;
        boolean filled = false;
        try
        {
            slot.side = side;
            slot.kind = (byte)kind.ordinal();
            slot.timestamp = ts;
            slot.step = step;
            slot.ingestNanos = ingestNanos;
            slot.keyHash = hash;
            slot.rowLength = length;
            slot.row.putBytes(0, row, offset, length);
            slot.type = type;
            filled = true;
        }
        finally
        {
            ring.publish(sequence);
            if (!filled)
            {
                engine.countRefused();
            }
        }
    }
}
