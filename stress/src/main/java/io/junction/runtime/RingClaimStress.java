package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * Two producers claim and publish on one multi-producer ring ({@code EngineConfig} multi-producer: several
 * publishers, or a publisher and the engine's checkpoint barriers), each through {@link RingClaim#tryClaim}, the
 * step of {@link RingWriter}'s claim loop (a publisher's) and {@link JoinEngine}'s for control events, retried
 * as they retry it; then each fills its slot and publishes it, as {@code RingWriter.fill} does.
 *
 * <p>Invariant: the two producers never get the same slot; both events are published (the consumer sees both
 * slots available, the cursor at the second) and each is seen once, in the slot its producer claimed.
 *
 * <p>Result: r1 and r2 the sequences the first and second producer claimed; r3 and r4 the producer (1 or 2) whose
 * event the consumer reads at sequences 0 and 1 (-1: not available).
 */
@JCStressTest
@Outcome(id = "0, 1, 1, 2", expect = Expect.ACCEPTABLE, desc = "The first producer claimed first.")
@Outcome(id = "1, 0, 2, 1", expect = Expect.ACCEPTABLE, desc = "The second producer claimed first.")
@Outcome(expect = Expect.FORBIDDEN, desc = "One slot claimed twice, or an event lost or seen twice.")
@State
public class RingClaimStress
{
    private final RingBuffer<RingSlot> ring = RingClaimFixture.ring(4);

    @Actor
    public void first(final IIII_Result r)
    {
        r.r1 = (int)publish(1);
    }

    @Actor
    public void second(final IIII_Result r)
    {
        r.r2 = (int)publish(2);
    }

    private long publish(final int producer)
    {
        long sequence;
        while ((sequence = RingClaim.tryClaim(ring)) == RingClaim.NO_ROOM)
        {
            Thread.onSpinWait();
        }
        RingClaimFixture.fill(ring, sequence, producer);
        return sequence;
    }

    @Arbiter
    public void consumer(final IIII_Result r)
    {
        final boolean both = ring.getCursor() == 1;
        r.r3 = both ? RingClaimFixture.seen(ring, 0) : -1;
        r.r4 = both ? RingClaimFixture.seen(ring, 1) : -1;
    }
}
