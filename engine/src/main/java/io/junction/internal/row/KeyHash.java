package io.junction.internal.row;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * A 64-bit hash of key bytes, used both to route a row to its partition and as the key of the
 * partition's index. Equal keys hash equal; distinct keys that collide are told apart by comparing
 * the key bytes kept with each stored row. In the runtime a row's key is hashed once, by the publisher that
 * routes it: the ring slot carries the hash to the partition's operator, whose index takes it as it is; an
 * operator given a row without it hashes the key with this same function and seed.
 *
 * <p>The hash is seeded, and every engine uses one seed for routing and for its indexes: the
 * function is invertible for a known seed, so with a fixed public seed an adversary can craft any
 * number of distinct keys with one hash and pile them into one bucket (each probe then walks them
 * all). With a secret random seed (the default) such keys cannot be precomputed.
 *
 * <p>The index reads other bits than routing ({@link #partition} folds the hash modulo the partition count; the
 * hash index takes the high bits of a multiplicative mix), so one partition's keys still spread over its table.
 */
public final class KeyHash
{
    /** The seed of the unseeded {@link #hash(DirectBuffer, int, int)}, for tools and tests only. */
    public static final long DEFAULT_SEED = 0x9E3779B97F4A7C15L;

    private KeyHash()
    {
    }

    /** @return the hash of {@code length} bytes at {@code offset} with {@link #DEFAULT_SEED}. */
    public static long hash(final DirectBuffer buffer, final int offset, final int length)
    {
        return hash(DEFAULT_SEED, buffer, offset, length);
    }

    /** @return the hash of {@code length} bytes at {@code offset} under {@code seed}. */
    public static long hash(final long seed, final DirectBuffer buffer, final int offset, final int length)
    {
        // The seed enters before the first block, so the non-linear mixing of every block depends on
        // it: inputs that collide under one seed are scattered under another.
        long h = seed ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8)
        {
            h = mix(h ^ buffer.getLong(offset + i, ByteOrder.LITTLE_ENDIAN)) * 0x9E3779B97F4A7C15L;
        }
        long tail = 0;
        for (int shift = 0; i < length; i++, shift += 8)
        {
            tail |= (buffer.getByte(offset + i) & 0xFFL) << shift;
        }
        return mix(h ^ tail);
    }

    /** SplitMix64's finaliser: a bijection, so distinct inputs stay distinct. */
    public static long mix(final long z0)
    {
        long z = (z0 ^ (z0 >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** @return the partition of a key hash among {@code partitions}. */
    public static int partition(final long hash, final int partitions)
    {
        return (int)Long.remainderUnsigned(hash >>> 17 ^ hash, partitions);
    }
}
