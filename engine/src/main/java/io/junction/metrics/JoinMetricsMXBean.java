package io.junction.metrics;

import java.util.Map;

/**
 * What the engine's JMX beans have in common: counters and latency of one partition
 * ({@link JoinPartitionMXBean}) or, summed and merged, of a whole engine ({@link JoinEngineMXBean}).
 * Counters are as of each partition's last batch (published with release stores, read with acquire
 * loads), so they may lag by one batch. Latency is ingest-to-emit (publish call to result handler call)
 * over a rolling interval: a read rolls it when the current one is at least
 * {@link JoinEngineMXBean#LATENCY_INTERVAL_MILLIS} old, so reads in quick succession see one interval;
 * it is 0 when no result was emitted in the interval or latency recording is off.
 */
public interface JoinMetricsMXBean
{
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

    /** @return of those, a regular join's left rows dropped by state TTL or eviction (docs/SEMANTICS.md 4.7). */
    long getExpiredLeftRows();

    /** @return of those, a regular join's right rows dropped by state TTL or eviction. */
    long getExpiredRightRows();

    /** @return a regular join's rows evicted by the {@code expire-oldest} policy before their TTL. */
    long getEvictedRows();

    /**
     * @return slices of watermark work done (expiry, outer padding, firing: docs/SEMANTICS.md 3, "Watermark work is
     *         sliced"), every partition.
     */
    long getWatermarkSlices();

    /**
     * @return the longest slice of watermark work, microseconds (for an engine, the longest of its partitions'):
     *         the most one watermark held a partition thread between two input events.
     */
    double getMaxWatermarkSliceMicros();

    /**
     * @return the largest fan-out of an inserted row seen (docs/SEMANTICS.md 1.5: the stored rows it joins; for an
     *         engine, the largest of its partitions'); the rows a declared {@code maxFanOut} refused are the
     *         {@code fanout_exceeded} dead letters.
     */
    long getMaxFanOut();

    /** @return rows handed to the dead-letter handler(s), every reason. */
    long getDeadLetters();

    /** @return rows handed to the dead-letter handler(s) by {@code DeadLetterReason} name; every reason is present. */
    Map<String, Long> getDeadLettersByReason();

    /** @return live rows in state, left side. */
    long getLiveLeftRows();

    /** @return live rows in state, right side. */
    long getLiveRightRows();

    /** @return off-heap bytes of the state. */
    long getStateBytes();

    /**
     * @return what the byte limit counts: live records plus the key index at its capacity (falls as rows leave); not
     *         a part of {@link #getStateBytes()}, which it exceeds while the index is below capacity.
     */
    long getUsedStateBytes();

    /** @return bytes the live rows account for (records, row groups, buckets, their keys' share of the index); per live row, what a row of state costs. */
    long getLiveStateBytes();

    /** @return rows probes passed over because their key differed under an equal key hash (hash flooding shows here). */
    long getHashCollisions();

    /** @return user filters, conditions and coGroup functions that threw (each also reported to the error handler). */
    long getUserCodeFailures();

    /** @return exceptions thrown by handlers or operators (reported to the error handler). */
    long getHandlerErrors();

    /** @return events published into the ring(s) and not yet processed. */
    long getRingOccupancy();

    /** @return slots in the ring(s). */
    long getRingCapacity();

    /** @return results whose latency is in the current latency interval. */
    long getLatencyCount();

    /** @return the length of the current latency interval in milliseconds (for an engine, the longest of its partitions'). */
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
