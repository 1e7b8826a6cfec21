package io.junction.join;

import io.junction.api.FieldType;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.internal.row.KeyHash;
import io.junction.testing.JoinHarness;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Defect 9 (hash flooding): the key hash is invertible for a known seed, so an adversary can craft
 * any number of distinct keys with one hash. Such keys, crafted against the fixed seed that every
 * engine used, must not collide in an engine with a seed of its own.
 */
class HashFloodingTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final int KEYS = 2000;
    private static final long C = 0x9E3779B97F4A7C15L;

    /**
     * 13-byte string keys whose encoded form (tag, 16-bit length, 13 bytes: 16 bytes, two blocks)
     * all hash to one value under {@link KeyHash#DEFAULT_SEED}: the second block cancels the state the
     * first left behind, so both blocks leave one state.
     */
    private static byte[][] craftedKeys()
    {
        final byte[][] keys = new byte[KEYS][];
        final UnsafeBuffer encoded = new UnsafeBuffer(new byte[16]);
        for (int i = 0; i < KEYS; i++)
        {
            encoded.putByte(0, FieldType.STRING);
            encoded.putShort(1, (short)13, ByteOrder.LITTLE_ENDIAN);
            encoded.putByte(3, (byte)'a');
            encoded.putInt(4, i, ByteOrder.LITTLE_ENDIAN);
            final long state = KeyHash.mix((KeyHash.DEFAULT_SEED ^ 16) ^ encoded.getLong(0, ByteOrder.LITTLE_ENDIAN)) * C;
            encoded.putLong(8, state ^ 0x0123456789ABCDEFL, ByteOrder.LITTLE_ENDIAN);
            final byte[] key = new byte[13];
            encoded.getBytes(3, key);
            keys[i] = key;
        }
        return keys;
    }

    private static Set<Long> hashes(final long seed, final byte[][] keys)
    {
        final Set<Long> hashes = new HashSet<>();
        final UnsafeBuffer encoded = new UnsafeBuffer(new byte[16]);
        for (final byte[] key : keys)
        {
            encoded.putByte(0, FieldType.STRING);
            encoded.putShort(1, (short)13, ByteOrder.LITTLE_ENDIAN);
            encoded.putBytes(3, key);
            hashes.add(KeyHash.hash(seed, encoded, 0, 16));
        }
        return hashes;
    }

    @Test
    void keysCraftedForTheFixedSeedCollideOnlyUnderIt()
    {
        final byte[][] keys = craftedKeys();
        assertEquals(1, hashes(KeyHash.DEFAULT_SEED, keys).size(), "the attack works on the old fixed seed");
        assertEquals(KEYS, hashes(42, keys).size());
        assertEquals(KEYS, hashes(StateConfig.defaults().withResolvedHashSeed().hashSeed(), keys).size());
    }

    private static long bucketsAfter(final StateConfig config, final byte[][] keys)
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").build();
        try (JoinHarness h = new JoinHarness(spec, config))
        {
            for (int i = 0; i < keys.length; i++)
            {
                h.left("+I", "k", keys[i], "v", (long)i);
            }
            assertEquals(keys.length, h.counters().liveLeft());
            return ((OperatorDriver)h.operator()).state.index.size();
        }
    }

    /** @return stored rows skipped on key bytes by one right row probing each of the first 50 crafted keys. */
    private static long collisionsWalked(final StateConfig config, final byte[][] keys)
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").build();
        try (JoinHarness h = new JoinHarness(spec, config))
        {
            for (int i = 0; i < keys.length; i++)
            {
                h.left("+I", "k", keys[i], "v", (long)i);
            }
            for (int i = 0; i < 50; i++)
            {
                assertEquals(1, h.right("+I", "k", keys[i], "v", (long)i).size());
            }
            return h.counters().hashCollisions();
        }
    }

    @Test
    void probesWalkNoCollidingKeysUnderAnEngineSeed()
    {
        final byte[][] keys = craftedKeys();
        final StateConfig config = StateConfig.defaults().withMaxKeys(4096);
        assertEquals(50L * (KEYS - 1), collisionsWalked(config.withHashSeed(KeyHash.DEFAULT_SEED), keys));
        assertEquals(0, collisionsWalked(config, keys));
    }

    @Test
    void anOperatorWithItsOwnSeedSpreadsCraftedKeysOverOneBucketEach()
    {
        final byte[][] keys = craftedKeys();
        final StateConfig config = StateConfig.defaults().withMaxKeys(4096);
        // Under the old fixed seed every crafted key lands in one bucket: each probe walks them all.
        assertEquals(1, bucketsAfter(config.withHashSeed(KeyHash.DEFAULT_SEED), keys));
        assertEquals(KEYS, bucketsAfter(config, keys));
        assertEquals(KEYS, bucketsAfter(config.withIndex(IndexKind.HASH), keys));
        assertEquals(KEYS, bucketsAfter(config.withHashSeed(7), keys));
    }
}
