package io.junction.internal.metrics;

import io.junction.api.DeadLetterReason;
import io.junction.metrics.HotKey;
import io.junction.metrics.JoinEngineMXBean;
import io.junction.metrics.JoinPartitionMXBean;
import io.junction.metrics.PartitionSnapshot;
import org.HdrHistogram.Histogram;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BinaryOperator;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The JMX face of one engine: a {@link JoinEngineMXBean} and a {@link JoinPartitionMXBean} per
 * partition in the platform MBean server. Every getter reads the partitions' published metrics
 * ({@link PartitionMetrics}, acquire loads), never an operator's fields. A registration that fails is
 * logged and skipped: monitoring must not stop an engine from running.
 *
 * <p>Thread safe: JMX calls the getters from its own threads.
 */
public final class EngineBeans
{
    /** The engine's explain of a row as JSON (the JMX operation's form). */
    @FunctionalInterface
    public interface RowExplainer
    {
        /**
         * @param side {@code left} or {@code right}.
         * @param row  the row as a JSON object of scalars.
         * @param ts   its event time.
         * @return the answer as JSON.
         */
        String explain(String side, String row, long ts);
    }

    /** The JMX domain of every Junction bean. */
    public static final String DOMAIN = "io.junction";

    private static final System.Logger LOG = System.getLogger(EngineBeans.class.getName());
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z0-9._\\-]+");
    static final DeadLetterReason[] REASONS = DeadLetterReason.values();

    private final List<ObjectName> registered = new ArrayList<>();

    private EngineBeans()
    {
    }

    /** @return the engine bean's name for an engine name. */
    public static ObjectName engineName(final String engine)
    {
        return objectName("type=JoinEngine,name=" + quote(engine));
    }

    /** @return a partition bean's name. */
    public static ObjectName partitionName(final String engine, final int partition)
    {
        return objectName("type=JoinPartition,name=" + quote(engine) + ",partition=" + partition);
    }

    /**
     * Registers the engine's beans in the platform MBean server.
     *
     * @param ringOccupancy events waiting in a partition's ring
     * @param ringCapacity  slots of a partition's ring
     * @param refusedRows   rows refused by the publishers
     * @param failed        whether a partition's thread died
     * @param expansions    the publishers' row-expansion counts
     * @param inspect       the engine's inspect of a key as JSON: (side, key as a JSON object) to the answer
     * @param explain       the engine's explain of a row as JSON: (side, row as a JSON object, ts) to the answer
     * @return what to unregister on close
     */
    public static EngineBeans register(
        final String engine, final String operator, final PartitionMetrics[] metrics, final LatencyRecorder[] latency,
        final IntToLongFunction ringOccupancy, final IntToLongFunction ringCapacity, final LongSupplier refusedRows,
        final IntPredicate failed, final ExpansionCounters expansions, final BinaryOperator<String> inspect,
        final RowExplainer explain)
    {
        final EngineBeans beans = new EngineBeans();
        final MBeanServer server;
        try
        {
            server = ManagementFactory.getPlatformMBeanServer();
        }
        catch (final RuntimeException | Error e)
        {
            LOG.log(System.Logger.Level.WARNING, "junction: no platform MBean server, engine " + engine + " runs without JMX beans", e);
            return beans;
        }
        final PartitionBean[] partitions = new PartitionBean[metrics.length];
        for (int p = 0; p < partitions.length; p++)
        {
            partitions[p] = new PartitionBean(engine, metrics[p], new LatencyWindow(latency[p]), ringOccupancy, ringCapacity, failed);
        }
        beans.add(server, new EngineBean(engine, operator, partitions, refusedRows, expansions, inspect, explain), engineName(engine));
        for (int p = 0; p < partitions.length; p++)
        {
            beans.add(server, partitions[p], partitionName(engine, p));
        }
        return beans;
    }

    private void add(final MBeanServer server, final Object bean, final ObjectName name)
    {
        try
        {
            server.registerMBean(bean, name);
            registered.add(name);
        }
        catch (final JMException | RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "junction: could not register JMX bean " + name + "; the engine runs without it", e);
        }
    }

    /** Unregisters what {@link #register} registered; failures are logged. */
    public void unregister()
    {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (final ObjectName name : registered)
        {
            try
            {
                server.unregisterMBean(name);
            }
            catch (final JMException | RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "junction: could not unregister JMX bean " + name, e);
            }
        }
        registered.clear();
    }

    private static String quote(final String name)
    {
        return PLAIN_NAME.matcher(name).matches() ? name : ObjectName.quote(name);
    }

    private static ObjectName objectName(final String properties)
    {
        try
        {
            return new ObjectName(DOMAIN + ":" + properties);
        }
        catch (final MalformedObjectNameException e)
        {
            throw new IllegalArgumentException("not a valid JMX name: " + DOMAIN + ":" + properties, e);
        }
    }

    static Map<String, Long> byReason(final long[] counts)
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (int r = 0; r < REASONS.length; r++)
        {
            map.put(REASONS[r].name(), counts[r]);
        }
        return map;
    }

    private static double micros(final Histogram h, final double percentile)
    {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1e3;
    }

    /** A rolling latency interval over one partition's recorder: rolled by a read once it is old enough. */
    static final class LatencyWindow
    {
        private static final long ROLL_NANOS = TimeUnit.MILLISECONDS.toNanos(JoinEngineMXBean.LATENCY_INTERVAL_MILLIS);

        private final LatencyRecorder recorder;
        private long rolledAt = System.nanoTime();
        private long intervalNanos;
        private Histogram current;

        LatencyWindow(final LatencyRecorder recorder)
        {
            this.recorder = recorder;
        }

        synchronized Histogram current()
        {
            final long now = System.nanoTime();
            if (current == null || now - rolledAt >= ROLL_NANOS)
            {
                current = recorder.sampleForMonitoring();
                intervalNanos = now - rolledAt;
                rolledAt = now;
            }
            return current;
        }

        synchronized long intervalMillis()
        {
            current();
            return TimeUnit.NANOSECONDS.toMillis(intervalNanos);
        }
    }

    /** The latency attributes both beans share, over the histogram each bean reads for its interval. */
    abstract static class LatencyAttributes
    {
        /** @return the current interval's latencies. */
        abstract Histogram latency();

        public long getLatencyCount()
        {
            return latency().getTotalCount();
        }

        public double getLatencyP50Micros()
        {
            return micros(latency(), 50);
        }

        public double getLatencyP90Micros()
        {
            return micros(latency(), 90);
        }

        public double getLatencyP99Micros()
        {
            return micros(latency(), 99);
        }

        public double getLatencyP999Micros()
        {
            return micros(latency(), 99.9);
        }

        public double getLatencyMaxMicros()
        {
            return micros(latency(), 100);
        }
    }

    static final class PartitionBean extends LatencyAttributes implements JoinPartitionMXBean
    {
        private final String engine;
        private final PartitionMetrics metrics;
        private final LatencyWindow latency;
        private final IntToLongFunction ringOccupancy;
        private final IntToLongFunction ringCapacity;
        private final IntPredicate failed;

        PartitionBean(
            final String engine, final PartitionMetrics metrics, final LatencyWindow latency,
            final IntToLongFunction ringOccupancy, final IntToLongFunction ringCapacity, final IntPredicate failed)
        {
            this.failed = failed;
            this.engine = engine;
            this.metrics = metrics;
            this.latency = latency;
            this.ringOccupancy = ringOccupancy;
            this.ringCapacity = ringCapacity;
        }

        PartitionSnapshot snapshot()
        {
            final int p = metrics.partition();
            return metrics.snapshot(ringOccupancy.applyAsLong(p), ringCapacity.applyAsLong(p), failed.test(p));
        }

        @Override
        Histogram latency()
        {
            return latency.current();
        }

        long latencyIntervalMillis()
        {
            return latency.intervalMillis();
        }

        @Override
        public String getEngineName()
        {
            return engine;
        }

        @Override
        public int getPartition()
        {
            return metrics.partition();
        }

        @Override
        public long getEvents()
        {
            return snapshot().events;
        }

        @Override
        public long getRowsIn()
        {
            return snapshot().rowsIn;
        }

        @Override
        public long getRowsOut()
        {
            return snapshot().rowsOut;
        }

        @Override
        public long getLateRows()
        {
            return snapshot().lateRows;
        }

        @Override
        public long getBadInputs()
        {
            return snapshot().badInputs;
        }

        @Override
        public long getExpiredRows()
        {
            return snapshot().expiredRows;
        }

        @Override
        public long getExpiredLeftRows()
        {
            return snapshot().expiredLeft;
        }

        @Override
        public long getExpiredRightRows()
        {
            return snapshot().expiredRight;
        }

        @Override
        public long getEvictedRows()
        {
            return snapshot().evictedRows;
        }

        @Override
        public long getWatermarkSlices()
        {
            return snapshot().watermarkSlices;
        }

        @Override
        public double getMaxWatermarkSliceMicros()
        {
            return snapshot().maxWatermarkSliceNanos / 1000.0;
        }

        @Override
        public long getMaxFanOut()
        {
            return snapshot().maxFanOut;
        }

        @Override
        public long getDeadLetters()
        {
            return snapshot().deadLetters();
        }

        @Override
        public Map<String, Long> getDeadLettersByReason()
        {
            final PartitionSnapshot s = snapshot();
            final long[] counts = new long[REASONS.length];
            for (int r = 0; r < REASONS.length; r++)
            {
                counts[r] = s.deadLetters(REASONS[r]);
            }
            return byReason(counts);
        }

        @Override
        public long getLiveLeftRows()
        {
            return snapshot().liveLeft;
        }

        @Override
        public long getLiveRightRows()
        {
            return snapshot().liveRight;
        }

        @Override
        public long getStateBytes()
        {
            return snapshot().stateBytes;
        }

        @Override
        public long getUsedStateBytes()
        {
            return snapshot().usedStateBytes;
        }

        @Override
        public long getLiveStateBytes()
        {
            return snapshot().liveStateBytes;
        }

        @Override
        public long getHashCollisions()
        {
            return snapshot().hashCollisions;
        }

        @Override
        public long getUserCodeFailures()
        {
            return snapshot().userCodeFailures;
        }

        @Override
        public long getPendingTimers()
        {
            return snapshot().pendingTimers;
        }

        @Override
        public long getWatermark()
        {
            return snapshot().watermark;
        }

        @Override
        public long getHandlerErrors()
        {
            return snapshot().handlerErrors;
        }

        @Override
        public long getCheckpoints()
        {
            return snapshot().checkpoints;
        }

        @Override
        public long getCheckpointFailures()
        {
            return snapshot().checkpointFailures;
        }

        @Override
        public double getLastCheckpointPauseMicros()
        {
            return snapshot().lastCheckpointPauseNanos / 1000.0;
        }

        @Override
        public double getMaxCheckpointPauseMicros()
        {
            return snapshot().maxCheckpointPauseNanos / 1000.0;
        }

        @Override
        public long getLastCheckpointBytesWritten()
        {
            return snapshot().lastCheckpointBytesWritten;
        }

        @Override
        public double getLastCheckpointWriteMicros()
        {
            return snapshot().lastCheckpointWriteNanos / 1000.0;
        }

        @Override
        public double getMaxCheckpointWriteMicros()
        {
            return snapshot().maxCheckpointWriteNanos / 1000.0;
        }

        @Override
        public long getCheckpointWaits()
        {
            return snapshot().checkpointWaits;
        }

        @Override
        public long getCheckpointSideWaits()
        {
            return snapshot().checkpointSideWaits;
        }

        @Override
        public long getCheckpointSynchronousFallbacks()
        {
            return snapshot().checkpointSynchronousFallbacks;
        }

        @Override
        public boolean isFailed()
        {
            return snapshot().failed;
        }

        @Override
        public String[] getHotKeys()
        {
            final List<HotKey> keys = metrics.hotKeys();
            final String[] lines = new String[keys.size()];
            for (int i = 0; i < lines.length; i++)
            {
                lines[i] = keys.get(i).toString();
            }
            return lines;
        }

        @Override
        public long getRingOccupancy()
        {
            return ringOccupancy.applyAsLong(metrics.partition());
        }

        @Override
        public long getRingCapacity()
        {
            return ringCapacity.applyAsLong(metrics.partition());
        }

        @Override
        public long getLatencyIntervalMillis()
        {
            return latencyIntervalMillis();
        }
    }
}
