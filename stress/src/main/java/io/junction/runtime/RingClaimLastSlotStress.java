package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Two producers race for the last free slot of a multi-producer ring (two slots, one published and not yet
 * consumed), each with one {@link RingClaim#tryClaim}, the step {@code tryPublish} takes once and the claim loops
 * repeat: the race a full ring's producers run, where {@code tryNext} throws for the loser.
 *
 * <p>Invariant: exactly one producer gets the slot (never both: the consumer's unconsumed event would be
 * overwritten; never neither: a free slot refused), and its event is the one published there.
 *
 * <p>Result: r1 and r2 the sequence each producer claimed (-1: no room); r3 the producer whose event sits at
 * sequence 1 (-1: not published).
 */
@JCStressTest
@Outcome(id = "1, -1, 1", expect = Expect.ACCEPTABLE, desc = "The first producer took the last slot; the second found no room.")
@Outcome(id = "-1, 1, 2", expect = Expect.ACCEPTABLE, desc = "The second producer took the last slot; the first found no room.")
@Outcome(expect = Expect.FORBIDDEN, desc = "The slot claimed twice, or by neither, or its event lost.")
@State
public class RingClaimLastSlotStress
{
    private final RingBuffer<RingSlot> ring = RingClaimFixture.ring(2);

    public RingClaimLastSlotStress()
    {
        RingClaimFixture.fill(ring, ring.next(), 0);
    }

    @Actor
    public void first(final III_Result r)
    {
        r.r1 = (int)publish(1);
    }

    @Actor
    public void second(final III_Result r)
    {
        r.r2 = (int)publish(2);
    }

    private long publish(final int producer)
    {
        final long sequence = RingClaim.tryClaim(ring);
        if (sequence != RingClaim.NO_ROOM)
        {
            RingClaimFixture.fill(ring, sequence, producer);
        }
        return sequence;
    }

    @Arbiter
    public void consumer(final III_Result r)
    {
        r.r3 = ring.getCursor() == 1 ? RingClaimFixture.seen(ring, 1) : -1;
    }
}
