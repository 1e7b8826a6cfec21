package io.junction.metrics;

import java.util.Map;

/**
 * A running engine through JMX, registered as {@code io.junction:type=JoinEngine,name=<engine name>}
 * from start until close (the name is {@code JoinEngine.Builder.name(String)}, by default
 * {@code join-1}, {@code join-2}, ...). Counters are the sums over the engine's partitions (each as
 * of its last batch; see {@link JoinPartitionMXBean}); latency is every partition's latency in the
 * current interval, merged.
 */
public interface JoinEngineMXBean
{
    /** A read rolls the latency interval once the current one is at least this old. */
    long LATENCY_INTERVAL_MILLIS = 1000;

    /** @return the engine's name, unique among the running engines of this JVM. */
    String getName();

    /** @return the join it runs, e.g. {@code interval left}. */
    String getOperator();

    /** @return partitions (threads) of the engine. */
    int getPartitions();

    /** @return rows the publishers refused (too large for a slot, malformed); they reached no partition. */
    long getRefusedRows();

    /** @return ring events processed: rows, watermarks (once per partition) and the end of input. */
    long getEvents();

    /** @return input rows received, both sides. */
    long getRowsIn();

    /** @return output rows emitted, of any kind. */
    long getRowsOut();

    /** @return rows dropped as late. */
    long getLateRows();

    /** @return bad inputs (retractions of rows not in state, non-append-only ops, oversized keys, full state). */
    long getBadInputs();

    /** @return rows removed from state by expiry. */
    long getExpiredRows();

    /** @return rows handed to the dead-letter handlers, every reason. */
    long getDeadLetters();

    /** @return rows handed to the dead-letter handlers by {@code DeadLetterReason} name; every reason is present. */
    Map<String, Long> getDeadLettersByReason();

    /** @return live rows in state, left side. */
    long getLiveLeftRows();

    /** @return live rows in state, right side. */
    long getLiveRightRows();

    /** @return off-heap bytes of the engine's state. */
    long getStateBytes();

    /** @return exceptions thrown by handlers or operators (reported to the error handler). */
    long getHandlerErrors();

    /** @return events published into the rings and not yet processed. */
    long getRingOccupancy();

    /** @return slots in all rings. */
    long getRingCapacity();

    /** @return results whose latency is in the current latency interval. */
    long getLatencyCount();

    /** @return the length of the current latency interval in milliseconds (the longest of the partitions'). */
    long getLatencyIntervalMillis();

    /** @return median ingest-to-emit latency in the current interval, microseconds. */
    double getLatencyP50Micros();

    /** @return 90th percentile ingest-to-emit latency in the current interval, microseconds. */
    double getLatencyP90Micros();

    /** @return 99th percentile ingest-to-emit latency in the current interval, microseconds. */
    double getLatencyP99Micros();

    /** @return 99.9th percentile ingest-to-emit latency in the current interval, microseconds. */
    double getLatencyP999Micros();

    /** @return highest ingest-to-emit latency in the current interval, microseconds. */
    double getLatencyMaxMicros();
}
