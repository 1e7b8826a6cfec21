package io.junction.runtime;

import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;

/**
 * One try at claiming the next slot of a partition's ring, shared by the publishers' claim loop
 * ({@link RingWriter}) and the rings' for control events (checkpoint and restore barriers,
 * {@link PartitionRings}), so that the one step that races with other producers on a multi-producer ring
 * ({@code junction.multiProducer}, docs/CONFIGURATION.md) has one definition, which the stress module's
 * {@code RingClaimStress} runs from two threads at once. The loops around it (wait for room, give up when
 * the engine closes or the partition fails) are each caller's.
 */
final class RingClaim
{
    /** {@link #tryClaim}: no slot now (the ring is full, or another producer took the last one). */
    static final long NO_ROOM = -1;

    private RingClaim()
    {
    }

    /**
     * @param ring the ring.
     * @return the claimed sequence (to fill and publish: a claimed slot is always published), or {@link #NO_ROOM}.
     */
    static long tryClaim(final RingBuffer<?> ring)
    {
        // Asking first keeps the exception off the path of a full ring; with one producer (the
        // default) the claim that follows cannot fail, with several it can lose a race.
        if (ring.hasAvailableCapacity(1))
        {
            try
            {
                return ring.tryNext();
            }
            catch (final InsufficientCapacityException e)
            {
                // Disruptor's preallocated singleton: no allocation, no stack trace.
            }
        }
        return NO_ROOM;
    }
}
