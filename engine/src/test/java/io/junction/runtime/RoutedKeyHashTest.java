package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyHash;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.testing.ForwardingOperator;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The key is hashed once per row, in the publisher: the partition hands each row's routed hash (its ring slot's)
 * to the operator with the row, so that the operator's index takes it instead of hashing the key again. Every
 * row reaches the operator through the entry that carries the hash, with the hash of its key under the engine's
 * seed, and the join's output is what it is without it.
 */
class RoutedKeyHashTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
    private static final StateConfig STATE = StateConfig.defaults().withMaxKeys(1024).withHashSeed(777);
    private static final int KEYS = 40;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView view = new RowView();

    private RowView row(final long k, final long v)
    {
        return view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v).finish());
    }

    private static long keyHash(final RowView row)
    {
        final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int length = CompiledJoin.of(SPEC).key(Side.LEFT).extract(row, key, 0, key.capacity());
        return KeyHash.hash(STATE.hashSeed(), key, 0, length);
    }

    @Test
    @Timeout(60)
    void everyRowReachesTheOperatorWithItsRoutedHash() throws Exception
    {
        final AtomicInteger results = new AtomicInteger();
        final AtomicInteger withoutHash = new AtomicInteger();
        final AtomicInteger wrongHash = new AtomicInteger();
        final Map<Long, Long> hashes = new ConcurrentHashMap<>();
        final JoinEngine engine = JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(4).withRingSize(64).withState(STATE))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .stateOperatorFactory(EngineOperators.ignoringState((handler, deadLetters) ->
                new ForwardingOperator(JoinOperators.create(SPEC, STATE, handler, deadLetters))
            {
                @Override
                public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
                {
                    withoutHash.incrementAndGet();
                    super.onRow(side, kind, row, ts, step);
                }

                @Override
                public void onRow(
                    final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
                {
                    if (keyHash != keyHash(row))
                    {
                        wrongHash.incrementAndGet();
                    }
                    hashes.put(row.getLong(0), keyHash);
                    delegate.onRow(side, kind, row, ts, step, keyHash);
                }
            }))
            .start();
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            long step = 0;
            for (int k = 0; k < KEYS; k++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, 1), step, step++));
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(k, 2), step, step++));
            }
            assertEquals(Publisher.PUBLISHED, publisher.endOfInput(step));
        }
        assertEquals(0, withoutHash.get(), "no row came without its hash");
        assertEquals(0, wrongHash.get(), "each came with its key's hash under the engine's seed");
        assertEquals(KEYS, hashes.size());
        assertEquals(KEYS, results.get(), "one pair per key, as without the hash");
    }
}
