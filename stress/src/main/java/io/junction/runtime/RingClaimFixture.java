package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;

/** The ring of the ring-claim stress tests: the engine's slot type on a multi-producer ring, its consumer at rest. */
final class RingClaimFixture
{
    /** A slot's row capacity: the tests publish no row. */
    private static final int SLOT_BYTES = 8;

    private RingClaimFixture()
    {
    }

    /**
     * @param size the ring's slots, a power of two.
     * @return a multi-producer ring whose one consumer has consumed nothing (its sequence gates the producers).
     */
    static RingBuffer<RingSlot> ring(final int size)
    {
        final RingBuffer<RingSlot> ring = RingBuffer.createMultiProducer(() -> new RingSlot(SLOT_BYTES), size);
        ring.addGatingSequences(new Sequence(-1));
        return ring;
    }

    /** A producer's event in its claimed slot, then published (a claimed slot is always published). */
    static void fill(final RingBuffer<RingSlot> ring, final long sequence, final int producer)
    {
        final RingSlot slot = ring.get(sequence);
        slot.type = RingSlot.WATERMARK;
        slot.step = producer;
        ring.publish(sequence);
    }

    /** @return the producer whose event the consumer reads at {@code sequence}, or -1 when it is not published. */
    static int seen(final RingBuffer<RingSlot> ring, final long sequence)
    {
        return ring.isAvailable(sequence) ? (int)ring.get(sequence).step : -1;
    }
}
