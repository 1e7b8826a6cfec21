package io.junction.metrics;

import java.util.Map;

/**
 * One partition of a running engine through JMX, registered as
 * {@code io.junction:type=JoinPartition,name=<engine name>,partition=<p>} while the engine runs.
 * Counters are as of the partition's last batch (the partition thread publishes them with release
 * stores; these getters read with acquire loads), so they may lag the partition by one batch.
 *
 * <p>Latency attributes describe ingest-to-emit latency (publish call to result handler call) over a
 * rolling interval: a read rolls the interval when the current one is at least
 * {@link JoinEngineMXBean#LATENCY_INTERVAL_MILLIS} old (the first read takes everything since the
 * start), so reads in quick succession see one consistent interval. They are 0 when no result was
 * emitted in the interval, or when latency recording is off.
 */
public interface JoinPartitionMXBean
{
    /** @return the name of the engine this partition belongs to. */
    String getEngineName();

    /** @return the partition number, 0-based. */
    int getPartition();

    /** @return ring events processed: rows, watermarks and the end of input. */
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

    /** @return rows handed to the dead-letter handler, every reason. */
    long getDeadLetters();

    /** @return rows handed to the dead-letter handler by {@code DeadLetterReason} name; every reason is present. */
    Map<String, Long> getDeadLettersByReason();

    /** @return live rows in state, left side. */
    long getLiveLeftRows();

    /** @return live rows in state, right side. */
    long getLiveRightRows();

    /** @return off-heap bytes of the partition's state. */
    long getStateBytes();

    /** @return timers pending in the partition's wheel. */
    long getPendingTimers();

    /** @return the join watermark, {@link Long#MIN_VALUE} before both inputs have one. */
    long getWatermark();

    /** @return exceptions thrown by handlers or the operator in this partition (reported to the error handler). */
    long getHandlerErrors();

    /** @return events published into the ring and not yet processed. */
    long getRingOccupancy();

    /** @return slots in the ring. */
    long getRingCapacity();

    /** @return results whose latency is in the current latency interval. */
    long getLatencyCount();

    /** @return the length of the current latency interval in milliseconds. */
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
