package io.junction.tools.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SplitMix64Test
{

    @Test
    void shouldMapZeroToZero()
    {
        assertEquals(0L, SplitMix64.mix64(0));
    }

    @Test
    void shouldMatchTheJdkSplitMixForTheSameSeed()
    {
        // SplittableRandom(seed) uses the same golden gamma, mixer and double derivation
        final SplitMix64 ours = new SplitMix64(Workloads.W1_SEED);
        final SplittableRandom jdk = new SplittableRandom(Workloads.W1_SEED);
        for (int i = 0; i < 10_000; i++)
        {
            assertEquals(jdk.nextLong(), ours.nextLong());
            assertEquals(jdk.nextDouble(), ours.nextDouble());
        }
    }

    @Test
    void shouldFollowTheWorkloadsDefinition()
    {
        final SplitMix64 rng = new SplitMix64(42);
        long s = 42;
        for (int i = 0; i < 1000; i++)
        {
            s += 0x9E3779B97F4A7C15L;
            long z = s;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            assertEquals(z, rng.nextLong());
        }
    }

    @Test
    void shouldDrawDoublesInUnitInterval()
    {
        final SplitMix64 rng = new SplitMix64(7);
        for (int i = 0; i < 100_000; i++)
        {
            final double d = rng.nextDouble();
            assertTrue(d >= 0.0 && d < 1.0, "draw " + d);
        }
    }
}
