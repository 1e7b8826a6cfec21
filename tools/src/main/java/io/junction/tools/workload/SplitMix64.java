package io.junction.tools.workload;

/**
 * SplitMix64 pseudo-random generator, exactly as defined in WORKLOADS.md ("Common definitions / PRNG").
 * <p>
 * Not thread safe: owned by the generating thread.
 * <p>
 * The benchmark workloads were run through Flink and Kafka Streams with this generator, so every draw
 * must be bit-identical to the reference: {@code nextLong(): s += 0x9E3779B97F4A7C15; return mix64(s)},
 * {@code nextDouble() = (nextLong() >>> 11) * 2^-53}. Do not replace it with {@link java.util.SplittableRandom}
 * (same mixer, but a different seeding and double derivation would change the event sequences).
 */
public final class SplitMix64
{
    /** The golden-gamma increment added to the state before each output. */
    public static final long GAMMA = 0x9E3779B97F4A7C15L;

    private static final double DOUBLE_UNIT = 0x1.0p-53;

    private long state;

    /**
     * @param seed the initial state (the workload seed, e.g. {@code 0x5EED0001} for W1)
     */
    public SplitMix64(final long seed)
    {
        this.state = seed;
    }

    /**
     * @return the next 64 random bits: advance the state by {@link #GAMMA} and mix it
     */
    public long nextLong()
    {
        state += GAMMA;
        return mix64(state);
    }

    /**
     * @return a uniform double in [0, 1): the top 53 bits of {@link #nextLong()} times 2^-53
     */
    public double nextDouble()
    {
        return (nextLong() >>> 11) * DOUBLE_UNIT;
    }

    /**
     * A uniform int in [0, bound) by multiply-shift of the top 32 bits (one draw, no rejection; the bias is
     * below bound / 2^32). Used by the Nexmark generator, never by W1-W3.
     *
     * @param bound exclusive upper bound, at least 1
     * @return a value in [0, bound)
     */
    public int nextInt(final int bound)
    {
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    /**
     * The SplitMix64 finalizer (a bijection on 64-bit values, so distinct inputs give distinct outputs;
     * W1 relies on this for unique impression keys, with {@code mix64(0) == 0}).
     *
     * @param z the value to mix
     * @return the mixed value
     */
    public static long mix64(long z)
    {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
