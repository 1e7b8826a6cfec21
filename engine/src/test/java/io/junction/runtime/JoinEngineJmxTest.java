package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** The engine's metrics as a JMX client sees them: read by ObjectName through the platform MBean server. */
class JoinEngineJmxTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();

    private RowView row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    private static JoinSpec spec(final JoinKind kind)
    {
        final JoinSpec.Builder builder = JoinSpec.builder(kind, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k");
        if (kind == JoinKind.INTERVAL)
        {
            builder.interval(IntervalBounds.inclusive(-5, 5));
        }
        return builder.build();
    }

    private static EngineConfig config(final int partitions)
    {
        return EngineConfig.defaults().withPartitions(partitions).withRingSize(1024)
            .withState(StateConfig.defaults().withMaxKeys(4096)).withWaitStrategy(WaitStrategyKind.BLOCKING);
    }

    private static ObjectName engineBean(final String name) throws JMException
    {
        return new ObjectName("io.junction:type=JoinEngine,name=" + name);
    }

    private static ObjectName partitionBean(final String name, final int partition) throws JMException
    {
        return new ObjectName("io.junction:type=JoinPartition,name=" + name + ",partition=" + partition);
    }

    private static Object attribute(final ObjectName bean, final String attribute) throws JMException
    {
        return SERVER.getAttribute(bean, attribute);
    }

    private static long reason(final ObjectName bean, final DeadLetterReason reason) throws JMException
    {
        final TabularData table = (TabularData)attribute(bean, "DeadLettersByReason");
        final CompositeData entry = table.get(new Object[] {reason.name()});
        return (Long)entry.get("value");
    }

    /** Metrics are published at the end of each batch: wait until every partition has published this many events. */
    private static void awaitEvents(final ObjectName bean, final long events) throws JMException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((Long)attribute(bean, "Events") < events)
        {
            if (System.nanoTime() > deadline)
            {
                fail("the partitions published " + attribute(bean, "Events") + " events, expected " + events);
            }
            LockSupport.parkNanos(100_000);
        }
    }

    @Test
    void inspectIsAnOperationReturningJson() throws Exception
    {
        final String name = "jmx-inspect";
        try (JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR)).name(name).config(config(2))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher publisher = engine.publisher();
            publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 10), 5, 0);
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1, 30), 6, 1);
            awaitEvents(engineBean(name), 2);
            final String answer = (String)SERVER.invoke(engineBean(name), "inspect", new Object[] {"left", "{\"k\": 1}"},
                new String[] {String.class.getName(), String.class.getName()});
            assertTrue(answer.startsWith("{\"left\":[{\"partition\":") && answer.contains("\"row\":{\"k\":1,\"v\":10}") &&
                answer.contains("\"row\":{\"k\":1,\"v\":30}") && answer.endsWith("\"moreRight\":0}"), answer);
            final String none = (String)SERVER.invoke(engineBean(name), "inspect", new Object[] {"right", "{\"k\": 2}"},
                new String[] {String.class.getName(), String.class.getName()});
            assertEquals("{\"left\":[],\"moreLeft\":0,\"right\":[],\"moreRight\":0}", none);
            final String why = (String)SERVER.invoke(engineBean(name), "explain", new Object[] {"left", "{\"k\": 1, \"v\": 11}", 7L},
                new String[] {String.class.getName(), String.class.getName(), long.class.getName()});
            assertTrue(why.contains("\"code\":\"MATCHED\"") && why.contains("\"fate\":\"MATCHED\""), why);
            final Exception bad = assertThrows(Exception.class, () -> SERVER.invoke(engineBean(name), "inspect",
                new Object[] {"left", "{\"k\": [1]}"}, new String[] {String.class.getName(), String.class.getName()}));
            assertTrue(String.valueOf(bad.getCause()).contains("scalar"), String.valueOf(bad.getCause()));
        }
    }

    @Test
    void regularJoinMetricsAreReadByNameAndGoneAfterClose() throws Exception
    {
        final String name = "jmx-regular";
        final CountDownLatch results = new CountDownLatch(1);
        final CountDownLatch deadLetters = new CountDownLatch(1);
        final JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR)).name(name).config(config(2))
            .resultHandler((kind, left, right, ts, step) -> results.countDown())
            .deadLetterHandler((side, kind, r, ts, step, reason) -> deadLetters.countDown())
            .start();
        final ObjectName engineBean = engineBean(name);
        try
        {
            assertEquals(name, engine.name());
            assertTrue(SERVER.isRegistered(engineBean));
            assertTrue(SERVER.isRegistered(partitionBean(name, 0)));
            assertTrue(SERVER.isRegistered(partitionBean(name, 1)));
            assertFalse(SERVER.isRegistered(partitionBean(name, 2)));

            final Publisher publisher = engine.publisher();
            publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 10), 0, 0);
            publisher.publish(Side.LEFT, ChangeKind.INSERT, row(2, 20), 0, 1);
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1, 30), 0, 2);
            publisher.publish(Side.RIGHT, ChangeKind.DELETE, row(99, 0), 0, 3); // never inserted: a dead letter
            assertTrue(results.await(30, TimeUnit.SECONDS));
            assertTrue(deadLetters.await(30, TimeUnit.SECONDS));
            awaitEvents(engineBean, 4);

            assertEquals(name, attribute(engineBean, "Name"));
            assertEquals("regular inner", attribute(engineBean, "Operator"));
            assertEquals(2, attribute(engineBean, "Partitions"));
            assertEquals(4L, attribute(engineBean, "RowsIn"));
            assertEquals(1L, attribute(engineBean, "RowsOut"));
            assertEquals(2L, attribute(engineBean, "LiveLeftRows"));
            assertEquals(1L, attribute(engineBean, "LiveRightRows"));
            assertEquals(0L, attribute(engineBean, "LateRows"));
            assertEquals(1L, attribute(engineBean, "BadInputs"));
            assertEquals(1L, attribute(engineBean, "DeadLetters"));
            assertEquals(1L, reason(engineBean, DeadLetterReason.RETRACTION_NOT_IN_STATE));
            assertEquals(0L, reason(engineBean, DeadLetterReason.LATE));
            assertEquals(0L, attribute(engineBean, "RefusedRows"));
            assertEquals(0L, attribute(engineBean, "HandlerErrors"));
            assertEquals(0L, attribute(engineBean, "RingOccupancy"));
            assertEquals(2048L, attribute(engineBean, "RingCapacity"));
            assertTrue((Long)attribute(engineBean, "StateBytes") > 0);
            assertTrue((Long)attribute(engineBean, "UsedStateBytes") > 0);
            assertTrue((Long)attribute(engineBean, "UsedStateBytes") <= (Long)attribute(engineBean, "StateBytes"));
            assertTrue((Long)attribute(engineBean, "LiveStateBytes") > 0);
            assertTrue((Long)attribute(engineBean, "LiveStateBytes") <= (Long)attribute(engineBean, "UsedStateBytes"));
            // Every row is processed (awaitEvents above) and nothing else changes the state, so the bean and the
            // snapshots read the same settled counters: the engine's figure is the sum of its partitions'.
            long snapshotLiveStateBytes = 0;
            for (final PartitionSnapshot snapshot : engine.metrics())
            {
                snapshotLiveStateBytes += snapshot.liveStateBytes;
            }
            assertEquals(snapshotLiveStateBytes, (Long)attribute(engineBean, "LiveStateBytes"));
            assertEquals(0L, attribute(engineBean, "HashCollisions"), "a secret seed: no collisions among a few keys");

            // the one result's latency, in the first interval (everything since the start)
            assertEquals(1L, attribute(engineBean, "LatencyCount"));
            final double p50 = (Double)attribute(engineBean, "LatencyP50Micros");
            final double max = (Double)attribute(engineBean, "LatencyMaxMicros");
            assertTrue(p50 > 0 && p50 <= max, p50 + " " + max);
            assertEquals(max, (Double)attribute(engineBean, "LatencyP999Micros"));

            long rowsIn = 0;
            long live = 0;
            long retractions = 0;
            for (int p = 0; p < 2; p++)
            {
                final ObjectName partition = partitionBean(name, p);
                assertEquals(name, attribute(partition, "EngineName"));
                assertEquals(p, attribute(partition, "Partition"));
                assertEquals(1024L, attribute(partition, "RingCapacity"));
                rowsIn += (Long)attribute(partition, "RowsIn");
                live += (Long)attribute(partition, "LiveLeftRows") + (Long)attribute(partition, "LiveRightRows");
                retractions += reason(partition, DeadLetterReason.RETRACTION_NOT_IN_STATE);
            }
            assertEquals(4, rowsIn);
            assertEquals(3, live);
            assertEquals(1, retractions);

            long snapshotDeadLetters = 0;
            for (final PartitionSnapshot snapshot : engine.metrics())
            {
                snapshotDeadLetters += snapshot.deadLetters(DeadLetterReason.RETRACTION_NOT_IN_STATE);
                assertEquals(snapshot.deadLetters(DeadLetterReason.RETRACTION_NOT_IN_STATE), snapshot.deadLetters());
            }
            assertEquals(1, snapshotDeadLetters);
        }
        finally
        {
            engine.close();
        }
        assertFalse(SERVER.isRegistered(engineBean));
        assertFalse(SERVER.isRegistered(partitionBean(name, 0)));
        assertFalse(SERVER.isRegistered(partitionBean(name, 1)));
    }

    @Test
    void lateRowsAreCountedByReason() throws Exception
    {
        final CountDownLatch results = new CountDownLatch(1);
        try (JoinEngine engine = JoinEngine.builder(spec(JoinKind.INTERVAL)).config(config(1))
            .resultHandler((kind, left, right, ts, step) -> results.countDown())
            .start())
        {
            assertTrue(engine.name().matches("join-[0-9]+"), engine.name());
            final ObjectName engineBean = engineBean(engine.name());
            final ObjectName partition = partitionBean(engine.name(), 0);
            final Publisher publisher = engine.publisher();
            publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 10), 100, 0);
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(1, 30), 103, 1);
            publisher.watermark(1000, 2);
            publisher.publish(Side.LEFT, ChangeKind.INSERT, row(2, 20), 10, 3); // behind the watermark: late
            assertTrue(results.await(30, TimeUnit.SECONDS));
            awaitEvents(engineBean, 4);

            assertEquals("interval inner", attribute(engineBean, "Operator"));
            assertEquals(3L, attribute(partition, "RowsIn"));
            assertEquals(1L, attribute(partition, "RowsOut"));
            assertEquals(1L, attribute(partition, "LateRows"));
            assertEquals(1L, attribute(partition, "DeadLetters"));
            assertEquals(1L, reason(partition, DeadLetterReason.LATE));
            assertEquals(1L, reason(engineBean, DeadLetterReason.LATE));
            assertEquals(0L, reason(partition, DeadLetterReason.RETRACTION_NOT_IN_STATE));
            assertEquals(1000L, attribute(partition, "Watermark"));
            assertEquals(1L, attribute(partition, "LatencyCount"));
            // the engine API's latency sample is independent of the JMX beans' interval
            assertEquals(1L, engine.sampleLatency().getTotalCount());
        }
    }

    @Test
    @SuppressWarnings("try") // a resource held for the duration of the block, not used in it
    void aSecondEngineOfTheSameNameIsRefusedUntilTheFirstCloses() throws Exception
    {
        final JoinEngine.Builder builder = JoinEngine.builder(spec(JoinKind.REGULAR)).name("jmx-dup").config(config(1))
            .resultHandler((kind, left, right, ts, step) -> { });
        try (JoinEngine first = builder.start())
        {
            final IllegalStateException e = assertThrows(IllegalStateException.class, builder::start);
            assertTrue(e.getMessage().contains("jmx-dup") && e.getMessage().contains("already running"), e.getMessage());
            assertTrue(SERVER.isRegistered(engineBean("jmx-dup")));
            assertEquals("jmx-dup", first.name());
        }
        assertFalse(SERVER.isRegistered(engineBean("jmx-dup")));
        try (JoinEngine again = builder.start())
        {
            assertTrue(SERVER.isRegistered(engineBean("jmx-dup")));
        }
    }

    @Test
    @SuppressWarnings("try") // a resource held for the duration of the block, not used in it
    void aNameThatJmxMustQuoteStillRegisters() throws Exception
    {
        final String name = "orders, clicks=1";
        try (JoinEngine engine = JoinEngine.builder(spec(JoinKind.REGULAR)).name(name).config(config(1))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final ObjectName bean = new ObjectName("io.junction:type=JoinEngine,name=" + ObjectName.quote(name));
            assertEquals(name, attribute(bean, "Name"));
        }
    }
}
