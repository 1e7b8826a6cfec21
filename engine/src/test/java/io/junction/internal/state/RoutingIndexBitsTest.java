package io.junction.internal.state;

import io.junction.internal.row.KeyHash;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One hash routes a row and keys its partition's index, so the two must not use correlated bits: the keys of one
 * partition share what {@link KeyHash#partition} reads of the hash, and {@link HashSlots#home} (Fibonacci hashing:
 * the high bits of a multiplicative mix) must still spread them over the whole table. An index that read the
 * bits routing reads (the same fold of the hash, modulo the table) would leave a partition's keys a fraction of
 * it, one slot in {@code partitions} for a power of two: the test shows that it tells the two apart.
 */
class RoutingIndexBitsTest
{
    private static final int SLOTS_LOG2 = 10;
    private static final int SLOTS = 1 << SLOTS_LOG2;

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 8, 16, 64})
    void onePartitionsKeysReachTheWholeTable(final int partitions)
    {
        final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(9));
        final boolean[] reached = new boolean[SLOTS];
        final boolean[] correlated = new boolean[SLOTS];
        int keys = 0;
        // 4 keys a slot: a uniform spread leaves 1 - e^-4 (98%) of the slots reached.
        for (long k = 0; keys < 4 * SLOTS; k++)
        {
            key.putByte(0, (byte)1);
            key.putLong(1, k, ByteOrder.LITTLE_ENDIAN);
            final long hash = KeyHash.hash(0x1234_5678L, key, 0, 9);
            if (KeyHash.partition(hash, partitions) == 0)
            {
                reached[(int)HashSlots.home(hash, 64 - SLOTS_LOG2)] = true;
                correlated[(int)Long.remainderUnsigned(hash >>> 17 ^ hash, SLOTS)] = true;
                keys++;
            }
        }
        final int count = count(reached);
        assertTrue(count > SLOTS * 95 / 100, "partition 0 of " + partitions + " reached " + count + " of " + SLOTS + " slots");
        if (Integer.bitCount(partitions) == 1)
        {
            assertTrue(count(correlated) <= SLOTS / partitions, "the check would see an index on the routing bits");
        }
    }

    private static int count(final boolean[] reached)
    {
        int count = 0;
        for (final boolean r : reached)
        {
            count += r ? 1 : 0;
        }
        return count;
    }
}
