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
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The partition thread reads ahead for the rows waiting in its ring: while a row blocks the partition,
 * ten more are published; they then arrive as one batch, and the operator is told each coming row's key
 * hash (the one routing used) before the row itself, at most {@link PartitionWorker#PREFETCH_AHEAD} ahead.
 */
class ReadAheadTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
    private static final StateConfig STATE = StateConfig.defaults().withMaxKeys(1024).withHashSeed(12345);

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView view = new RowView();

    private RowView row(final long k)
    {
        return view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, k).finish());
    }

    private long keyHash(final long k)
    {
        final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int length = CompiledJoin.of(SPEC).key(Side.LEFT).extract(row(k), key, 0, key.capacity());
        return KeyHash.hash(STATE.hashSeed(), key, 0, length);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    @Timeout(30)
    void waitingRowsAreAnnouncedBeforeTheyAreProcessed(final boolean readAhead) throws Exception
    {
        final Queue<String> calls = new ConcurrentLinkedQueue<>();
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final JoinEngine engine = JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(64).withState(STATE).withReadAhead(readAhead))
            .resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory(EngineOperators.ignoringState((results, deadLetters) ->
                new ForwardingOperator(JoinOperators.create(SPEC, STATE, results, deadLetters))
            {
                @Override
                public void prefetch(final long keyHash)
                {
                    calls.add("prefetch " + keyHash);
                    super.prefetch(keyHash);
                }

                @Override
                public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
                {
                    calls.add("row " + step);
                    if (step == 0)
                    {
                        blocked.countDown();
                        try
                        {
                            release.await(20, TimeUnit.SECONDS);
                        }
                        catch (final InterruptedException e)
                        {
                            Thread.currentThread().interrupt();
                        }
                    }
                    super.onRow(side, kind, row, ts, step);
                }
            }))
            .start();
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(100), 0, 0));
            assertTrue(blocked.await(20, TimeUnit.SECONDS));
            for (int i = 1; i <= 10; i++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(100 + i), i, i));
            }
            release.countDown();
        }
        final List<String> expected = new ArrayList<>();
        expected.add("row 0");
        if (readAhead)
        {
            // The batch of rows 1..10 starts: before row 1, rows 2..9 (eight ahead) are announced; before
            // row 9, row 10.
            for (int i = 2; i <= 9; i++)
            {
                expected.add("prefetch " + keyHash(100 + i));
            }
            for (int i = 1; i <= 8; i++)
            {
                expected.add("row " + i);
            }
            expected.add("prefetch " + keyHash(110));
            expected.add("row 9");
            expected.add("row 10");
        }
        else
        {
            for (int i = 1; i <= 10; i++)
            {
                expected.add("row " + i);
            }
        }
        assertEquals(expected, new ArrayList<>(calls));
    }
}
