package io.junction.runtime;

import io.junction.testing.ForwardingOperator;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.metrics.OperatorCounters;
import io.junction.metrics.PartitionSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.DeadLetterReason;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Partitions whose own error path fails, engines closed from their handlers or while a handler never
 * returns, and a partition thread that dies anyway: nothing hangs, nothing is silently lost.
 */
class PartitionFailureTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final StateConfig SMALL_STATE = StateConfig.defaults().withMaxKeys(4096);
    private static final JoinSpec LEFT_JOIN =
        JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").build();

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();

    private RowView row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    private static EngineConfig config()
    {
        return EngineConfig.defaults().withPartitions(1).withRingSize(16).withState(SMALL_STATE);
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldKeepThePartitionRunningWhenTheErrorHandlerThrows()
    {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger reported = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(LEFT_JOIN).config(config())
            .resultHandler((kind, left, right, ts, step) ->
            {
                calls.incrementAndGet();
                throw new IllegalStateException("result handler failure");
            })
            .errorHandler(t ->
            {
                reported.incrementAndGet();
                throw new IllegalStateException("error handler failure");
            })
            .start();
        final Publisher publisher = engine.publisher();
        for (int i = 0; i < 100; i++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(i, 0), 0, i));
        }
        engine.close();
        final PartitionSnapshot snapshot = engine.metrics().get(0);
        assertEquals(100, calls.get(), "every row reached the handler");
        assertEquals(100, reported.get(), "every failure reached the error handler");
        assertEquals(100, snapshot.rowsIn);
        assertTrue(snapshot.handlerErrors >= 100, "failures are counted: " + snapshot.handlerErrors);
        assertFalse(snapshot.failed, "the partition survived its own error path");
    }

    /**
     * A throwing user filter dead-letters its row (PREDICATE_FAILED, counted) and a throwing user
     * condition drops that pair; both reach the error handler and the partition goes on.
     */
    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldDeadLetterAThrowingRowFilterAndReportAThrowingCondition()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .leftFilter(r ->
            {
                if (r.getLong(1) < 0)
                {
                    throw new IllegalStateException("filter");
                }
                return true;
            })
            .condition((l, r) ->
            {
                if (r.getLong(1) == 7)
                {
                    throw new IllegalStateException("condition");
                }
                return true;
            })
            .build();
        final AtomicInteger results = new AtomicInteger();
        final AtomicInteger reported = new AtomicInteger();
        final List<DeadLetterReason> dead = new CopyOnWriteArrayList<>();
        final JoinEngine engine = JoinEngine.builder(spec).config(config())
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .deadLetterHandler((side, kind, r, ts, step, reason) -> dead.add(reason))
            .errorHandler(t -> reported.incrementAndGet())
            .start();
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1, 7), 0, 0));
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1, 8), 0, 1));
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, -1), 0, 2));
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 1), 0, 3));
        engine.close();
        final PartitionSnapshot snapshot = engine.metrics().get(0);
        // The filter's row, and the row for one of whose pairs the condition threw: dead-lettered whole.
        assertEquals(List.of(DeadLetterReason.PREDICATE_FAILED,
            DeadLetterReason.PREDICATE_FAILED), dead);
        assertEquals(2, snapshot.deadLetters(DeadLetterReason.PREDICATE_FAILED));
        assertEquals(0, results.get(), "the left row 1 is refused whole: no pair with the right row 8 either");
        assertEquals(2, reported.get(), "the filter's and the condition's exceptions");
        assertEquals(2, snapshot.handlerErrors);
        assertFalse(snapshot.failed);
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldCloseFromInsideAResultHandler() throws Exception
    {
        final AtomicReference<JoinEngine> engineRef = new AtomicReference<>();
        final CountDownLatch closeReturned = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(LEFT_JOIN).config(config())
            .resultHandler((kind, left, right, ts, step) ->
            {
                if (calls.incrementAndGet() == 1)
                {
                    engineRef.get().close();
                    closeReturned.countDown();
                }
            })
            .start();
        engineRef.set(engine);
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 0));
        assertTrue(closeReturned.await(20, TimeUnit.SECONDS), "close() called on a partition thread returns");
        assertEquals(Publisher.CLOSED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(2, 0), 0, 1));
        engine.close();
        assertEquals(1, engine.metrics().get(0).rowsIn, "the closing partition finished its event");
        assertEquals(1, calls.get());
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldCloseFromInsideTheErrorHandler() throws Exception
    {
        final AtomicReference<JoinEngine> engineRef = new AtomicReference<>();
        final CountDownLatch closeReturned = new CountDownLatch(1);
        final JoinEngine engine = JoinEngine.builder(LEFT_JOIN).config(config())
            .resultHandler((kind, left, right, ts, step) ->
            {
                throw new IllegalStateException("fatal for this service");
            })
            .errorHandler(t ->
            {
                engineRef.get().close();
                closeReturned.countDown();
            })
            .start();
        engineRef.set(engine);
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 0));
        assertTrue(closeReturned.await(20, TimeUnit.SECONDS), "close() called in the error handler returns");
        engine.close();
        assertEquals(Publisher.CLOSED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(2, 0), 0, 1));
        assertFalse(engine.metrics().get(0).failed, "a partition stopped by close has not failed");
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldReturnFromCloseAfterItsTimeoutWhenAHandlerNeverReturns() throws Exception
    {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final JoinEngine engine = JoinEngine.builder(LEFT_JOIN).config(config().withCloseTimeoutMillis(50))
            .resultHandler((kind, left, right, ts, step) ->
            {
                entered.countDown();
                try
                {
                    release.await();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            })
            .start();
        final Publisher publisher = engine.publisher();
        for (int i = 0; i < 3; i++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(i, 0), 0, i));
        }
        assertTrue(entered.await(10, TimeUnit.SECONDS));
        try
        {
            assertFalse(engine.closeCompletely(), "a close that gave up says so");
            assertTrue(engine.closeShortfall().contains("partition 0: 3 events not processed"), engine.closeShortfall());
            assertEquals(Publisher.CLOSED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(9, 0), 0, 9));
        }
        finally
        {
            release.countDown();
        }
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeWaitsPastItsTimeoutWhileAPartitionIsStillEmitting()
    {
        // One right row matches 300 stored left rows; each pair takes the handler 2 ms: the partition
        // emits for about 600 ms, far past the 50 ms close timeout, but never stops making progress.
        final AtomicInteger pairs = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(LEFT_JOIN).config(config().withRingSize(1024).withCloseTimeoutMillis(50))
            .resultHandler((kind, left, right, ts, step) ->
            {
                if (right != null && kind == ChangeKind.INSERT)
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                    pairs.incrementAndGet();
                }
            })
            .start();
        final Publisher publisher = engine.publisher();
        for (int i = 0; i < 300; i++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, i), 0, i));
        }
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1, 0), 0, 300));
        assertTrue(engine.closeCompletely(), () -> "close gave up: " + engine.closeShortfall());
        assertEquals(300, pairs.get(), "every pair was emitted before close returned");
        assertEquals(null, engine.closeShortfall());
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldReportADeadPartitionAndRefuseToPublishToIt() throws Exception
    {
        final CountDownLatch died = new CountDownLatch(1);
        final AtomicReference<Throwable> reported = new AtomicReference<>();
        final JoinEngine engine = JoinEngine.builder(LEFT_JOIN).config(config())
            .resultHandler((kind, left, right, ts, step) -> { })
            .errorHandler(t ->
            {
                if (t instanceof PartitionFailedException)
                {
                    reported.set(t);
                    died.countDown();
                }
            })
            .stateOperatorFactory(EngineOperators.ignoringState((results, deadLetters) -> new BrokenCountersOperator(
                JoinOperators.create(LEFT_JOIN, SMALL_STATE, results, deadLetters))))
            .start();
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 0), 0, 0));
        assertTrue(died.await(20, TimeUnit.SECONDS), "the death of the partition thread is reported");
        assertTrue(reported.get().getCause() instanceof AssertionError, String.valueOf(reported.get()));
        assertTrue(engine.metrics().get(0).failed, "the snapshot shows the dead partition");
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        assertEquals(Boolean.TRUE, server.getAttribute(new ObjectName(
            "io.junction:type=JoinPartition,name=" + engine.name() + ",partition=0"), "Failed"), "JMX shows it too");
        assertEquals(1, server.getAttribute(new ObjectName(
            "io.junction:type=JoinEngine,name=" + engine.name()), "FailedPartitions"));
        assertEquals(Publisher.PARTITION_FAILED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(2, 0), 0, 1));
        assertEquals(Publisher.PARTITION_FAILED, publisher.tryPublish(Side.LEFT, ChangeKind.INSERT, buffer, 0,
            row(3, 0).length(), 0, 2, System.nanoTime()));
        assertEquals(Publisher.PARTITION_FAILED, publisher.watermark(10, 3));
        engine.close();
    }

    /** An operator whose counters fail once it has seen a row: an error no guard inside the worker expects. */
    private static final class BrokenCountersOperator extends ForwardingOperator
    {
        private boolean broken;

        BrokenCountersOperator(final JoinOperator delegate)
        {
            super(delegate);
        }

        @Override
        public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            broken = true;
            delegate.onRow(side, kind, row, ts, step);
        }

        @Override
        public OperatorCounters counters()
        {
            if (broken)
            {
                throw new AssertionError("counters broken");
            }
            return delegate.counters();
        }
    }
}
