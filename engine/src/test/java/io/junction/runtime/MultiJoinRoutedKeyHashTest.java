package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.internal.row.KeyExtractor;
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
 * The multi-way join's key is hashed once per row, in the publisher, as the binary kinds' ({@link RoutedKeyHashTest}):
 * the partition hands each input row's routed hash (its ring slot's) to the operator with the row, through
 * {@code onInputRow} with a key hash; every row reaches the operator through that entry, with the hash of its
 * input's key under the engine's seed, and the join's output is what it is without it.
 */
class MultiJoinRoutedKeyHashTest
{
    /** Input 0 keyed on its first field, inputs 1 and 2 on their second: the key extractors differ per input. */
    private static final Schema SCHEMA = Schema.of("id", "ref", "v");
    private static final JoinSpec SPEC = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA)
        .input("orders", "id")
        .input("payments", JoinType.INNER, "ref")
        .input("shipments", JoinType.LEFT, "ref")
        .build());
    private static final StateConfig STATE = StateConfig.defaults().withMaxKeys(1024).withHashSeed(777);
    private static final int KEYS = 40;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));

    private int row(final long id, final long ref, final long v)
    {
        return new RowWriter().wrap(buffer, 0, buffer.capacity(), 3).putLong(0, id).putLong(1, ref).putLong(2, v).finish();
    }

    private static long keyHash(final int input, final RowView row)
    {
        final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int length = new KeyExtractor(new int[] {input == 0 ? 0 : 1}).extract(row, key, 0, key.capacity());
        return KeyHash.hash(STATE.hashSeed(), key, 0, length);
    }

    @Test
    @Timeout(60)
    void everyInputRowReachesTheOperatorWithItsRoutedHash() throws Exception
    {
        final AtomicInteger results = new AtomicInteger();
        final AtomicInteger withoutHash = new AtomicInteger();
        final AtomicInteger wrongHash = new AtomicInteger();
        final Map<Long, Long> hashes = new ConcurrentHashMap<>();
        final JoinEngine engine = JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(4).withRingSize(64).withState(STATE))
            .resultHandler(new ResultHandler()
            {
                @Override
                public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
                {
                    throw new AssertionError("a multi-way join's results are multi results");
                }

                @Override
                public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long ts, final long step)
                {
                    results.incrementAndGet();
                }
            })
            .stateOperatorFactory(EngineOperators.ignoringState((handler, deadLetters) ->
                new ForwardingOperator(JoinOperators.create(SPEC, STATE, handler, deadLetters))
            {
                @Override
                public void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
                {
                    withoutHash.incrementAndGet();
                    delegate.onInputRow(input, kind, row, ts, step);
                }

                @Override
                public void onInputRow(
                    final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
                {
                    if (keyHash != keyHash(input, row))
                    {
                        wrongHash.incrementAndGet();
                    }
                    hashes.put(row.getLong(input == 0 ? 0 : 1), keyHash);
                    delegate.onInputRow(input, kind, row, ts, step, keyHash);
                }
            }))
            .start();
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            long step = 0;
            for (int k = 0; k < KEYS; k++)
            {
                // The order's id is the key; the payment's and shipment's ref is, their id another number.
                int length = row(k, 1000 + k, 1);
                assertEquals(Publisher.PUBLISHED, publisher.publishInput(0, ChangeKind.INSERT, buffer, 0, length, step, step++, 0));
                length = row(2000 + k, k, 2);
                assertEquals(Publisher.PUBLISHED, publisher.publishInput(1, ChangeKind.INSERT, buffer, 0, length, step, step++, 0));
                if (k % 2 == 0)
                {
                    length = row(3000 + k, k, 3);
                    assertEquals(Publisher.PUBLISHED, publisher.publishInput(2, ChangeKind.INSERT, buffer, 0, length, step, step++, 0));
                }
            }
            assertEquals(Publisher.PUBLISHED, publisher.endOfInput(step));
        }
        assertEquals(0, withoutHash.get(), "no row came without its hash");
        assertEquals(0, wrongHash.get(), "each came with its input's key's hash under the engine's seed");
        assertEquals(KEYS, hashes.size());
        // Per key: the padded pair, then (for even keys) its retraction and the triple.
        assertEquals(KEYS + KEYS, results.get(), "as without the hash");
    }
}
