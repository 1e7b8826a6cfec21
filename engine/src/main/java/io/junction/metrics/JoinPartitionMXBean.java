package io.junction.metrics;

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
public interface JoinPartitionMXBean extends JoinMetricsMXBean
{
    /** @return the name of the engine this partition belongs to. */
    String getEngineName();

    /** @return the partition number, 0-based. */
    int getPartition();

    /** @return timers pending in the partition's wheel. */
    long getPendingTimers();

    /** @return the join watermark, {@link Long#MIN_VALUE} before both inputs have one. */
    long getWatermark();

    /**
     * @return the partition's hot-key report, one line per key, most rows visited by probes first
     *         ({@link HotKey#toString()}: key, rows visited, stored, live, error bound, hash); empty
     *         when {@code junction.metrics.hotKeys} is 0 or the join keeps none (window joins).
     */
    String[] getHotKeys();

    /** @return checkpoints this partition has written (durable mode). */
    long getCheckpoints();

    /** @return checkpoints that failed in this partition. */
    long getCheckpointFailures();

    /** @return how long the partition thread paused for its last checkpoint, microseconds. */
    double getLastCheckpointPauseMicros();

    /** @return the longest checkpoint pause of the partition thread so far, microseconds. */
    double getMaxCheckpointPauseMicros();

    /** @return bytes of state the last checkpoint wrote (chunks that changed since the one before). */
    long getLastCheckpointBytesWritten();

    /** @return how long the last checkpoint's background write took (the partition went on meanwhile), microseconds. */
    double getLastCheckpointWriteMicros();

    /** @return the longest checkpoint write so far, microseconds. */
    double getMaxCheckpointWriteMicros();

    /** @return checkpoint barriers that waited for the previous checkpoint's background write. */
    long getCheckpointWaits();

    /** @return writes that waited for the background writer to capture a chunk frozen for a checkpoint (no side buffer left). */
    long getCheckpointSideWaits();

    /** @return checkpoints whose cut was refused and that ran synchronously on the partition thread instead. */
    long getCheckpointSynchronousFallbacks();

    /** @return whether the partition's thread died (see {@code PartitionFailedException}): it processes nothing more. */
    boolean isFailed();
}
