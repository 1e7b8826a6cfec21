package io.junction.internal.metrics;

import io.junction.metrics.JoinEngineMXBean;
import io.junction.metrics.PartitionSnapshot;
import java.util.Map;
import java.util.function.BinaryOperator;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * The engine's JMX bean ({@code io.junction:type=JoinEngine,name=...}): the partitions' counters summed, their
 * latencies merged, the expansion counts, and the inspect and explain operations (docs/SEMANTICS.md 14), which the
 * engine answers. Registered and unregistered by {@link EngineBeans}.
 *
 * <p>Threads: the MBean server's; it reads the partitions' published snapshots and the engine's atomic counters.
 */
final class EngineBean extends EngineBeans.LatencyAttributes implements JoinEngineMXBean
{
    private final String name;
    private final String operator;
    private final EngineBeans.PartitionBean[] partitions;
    private final LongSupplier refusedRows;
    private final ExpansionCounters expansions;
    private final BinaryOperator<String> inspect;
    private final EngineBeans.RowExplainer explain;

    EngineBean(final String name, final String operator, final EngineBeans.PartitionBean[] partitions, final LongSupplier refusedRows,
        final ExpansionCounters expansions, final BinaryOperator<String> inspect, final EngineBeans.RowExplainer explain)
    {
        this.expansions = expansions;
        this.inspect = inspect;
        this.explain = explain;
        this.name = name;
        this.operator = operator;
        this.partitions = partitions;
        this.refusedRows = refusedRows;
    }

    @Override
    Histogram latency()
    {
        final Histogram merged = LatencyRecorder.newHistogram();
        for (final EngineBeans.PartitionBean partition : partitions)
        {
            merged.add(partition.latency());
        }
        return merged;
    }

    /** A field of every partition's snapshot, summed. */
    @FunctionalInterface
    private interface Field
    {
        long of(PartitionSnapshot snapshot);
    }

    private long sum(final Field field)
    {
        long total = 0;
        for (final EngineBeans.PartitionBean partition : partitions)
        {
            total += field.of(partition.snapshot());
        }
        return total;
    }

    @Override
    public String getName()
    {
        return name;
    }

    @Override
    public String getOperator()
    {
        return operator;
    }

    @Override
    public int getPartitions()
    {
        return partitions.length;
    }

    @Override
    public int getFailedPartitions()
    {
        int failed = 0;
        for (final EngineBeans.PartitionBean partition : partitions)
        {
            failed += partition.isFailed() ? 1 : 0;
        }
        return failed;
    }

    @Override
    public long getRefusedRows()
    {
        return refusedRows.getAsLong();
    }

    @Override
    public long getExpandedInputRows()
    {
        return expansions.inputs();
    }

    @Override
    public long getExpandedRows()
    {
        return expansions.rows();
    }

    @Override
    public long getFailedExpansions()
    {
        return expansions.failed();
    }

    @Override
    public String inspect(final String side, final String key)
    {
        return inspect.apply(side, key);
    }

    @Override
    public String explain(final String side, final String row, final long ts)
    {
        return explain.explain(side, row, ts);
    }

    @Override
    public long getEvents()
    {
        return sum(s -> s.events);
    }

    @Override
    public long getRowsIn()
    {
        return sum(s -> s.rowsIn);
    }

    @Override
    public long getRowsOut()
    {
        return sum(s -> s.rowsOut);
    }

    @Override
    public long getLateRows()
    {
        return sum(s -> s.lateRows);
    }

    @Override
    public long getBadInputs()
    {
        return sum(s -> s.badInputs);
    }

    @Override
    public long getExpiredRows()
    {
        return sum(s -> s.expiredRows);
    }

    @Override
    public long getExpiredLeftRows()
    {
        return sum(s -> s.expiredLeft);
    }

    @Override
    public long getExpiredRightRows()
    {
        return sum(s -> s.expiredRight);
    }

    @Override
    public long getEvictedRows()
    {
        return sum(s -> s.evictedRows);
    }

    @Override
    public long getWatermarkSlices()
    {
        return sum(s -> s.watermarkSlices);
    }

    @Override
    public double getMaxWatermarkSliceMicros()
    {
        long max = 0;
        for (final EngineBeans.PartitionBean partition : partitions)
        {
            max = Math.max(max, partition.snapshot().maxWatermarkSliceNanos);
        }
        return max / 1000.0;
    }

    @Override
    public long getMaxFanOut()
    {
        long max = 0;
        for (final EngineBeans.PartitionBean partition : partitions)
        {
            max = Math.max(max, partition.snapshot().maxFanOut);
        }
        return max;
    }

    @Override
    public long getDeadLetters()
    {
        return sum(PartitionSnapshot::deadLetters);
    }

    @Override
    public Map<String, Long> getDeadLettersByReason()
    {
        final long[] counts = new long[EngineBeans.REASONS.length];
        for (final EngineBeans.PartitionBean partition : partitions)
        {
            final PartitionSnapshot s = partition.snapshot();
            for (int r = 0; r < EngineBeans.REASONS.length; r++)
            {
                counts[r] += s.deadLetters(EngineBeans.REASONS[r]);
            }
        }
        return EngineBeans.byReason(counts);
    }

    @Override
    public long getLiveLeftRows()
    {
        return sum(s -> s.liveLeft);
    }

    @Override
    public long getLiveRightRows()
    {
        return sum(s -> s.liveRight);
    }

    @Override
    public long getStateBytes()
    {
        return sum(s -> s.stateBytes);
    }

    @Override
    public long getUsedStateBytes()
    {
        return sum(s -> s.usedStateBytes);
    }

    @Override
    public long getLiveStateBytes()
    {
        return sum(s -> s.liveStateBytes);
    }

    @Override
    public long getHashCollisions()
    {
        return sum(s -> s.hashCollisions);
    }

    @Override
    public long getUserCodeFailures()
    {
        return sum(s -> s.userCodeFailures);
    }

    @Override
    public long getHandlerErrors()
    {
        return sum(s -> s.handlerErrors);
    }

    @Override
    public long getRingOccupancy()
    {
        return sum(s -> s.ringOccupancy);
    }

    @Override
    public long getRingCapacity()
    {
        return sum(s -> s.ringCapacity);
    }

    @Override
    public long getLatencyIntervalMillis()
    {
        long longest = 0;
        for (final EngineBeans.PartitionBean partition : partitions)
        {
            longest = Math.max(longest, partition.latencyIntervalMillis());
        }
        return longest;
    }
}
