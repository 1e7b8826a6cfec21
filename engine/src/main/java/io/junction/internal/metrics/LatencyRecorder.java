package io.junction.internal.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Ingest-to-emit latency of one partition in nanoseconds: an HdrHistogram {@link SingleWriterRecorder}
 * (the partition thread is its only writer, so recording needs no atomic read-modify-write), written
 * allocation-free and sampled as interval histograms by any reader.
 *
 * <p>Two readers sample independently: the engine's API ({@link #sampleInterval()}) and the JMX beans
 * ({@link #sampleForMonitoring()}). A recorder hands each interval out once, so each drain adds the
 * interval to both readers' pending histograms; neither reader steals the other's values.
 */
public final class LatencyRecorder
{
    /** Highest trackable latency: one hour; larger values are clamped so recording never throws. */
    public static final long HIGHEST_TRACKABLE_NANOS = 3_600_000_000_000L;

    private final SingleWriterRecorder recorder = new SingleWriterRecorder(1, HIGHEST_TRACKABLE_NANOS, 3);
    /** Of the values recorded, those of results watermark work emitted, once more: the report's share of the tail. */
    private final SingleWriterRecorder watermarkWork = new SingleWriterRecorder(1, HIGHEST_TRACKABLE_NANOS, 3);
    private Histogram watermarkRecycle;
    private final Histogram pendingApi = newHistogram();
    private final Histogram pendingMonitoring = newHistogram();
    private Histogram recycle;

    /** @return an empty histogram with the recorder's range and precision. */
    public static Histogram newHistogram()
    {
        return new Histogram(HIGHEST_TRACKABLE_NANOS, 3);
    }

    /**
     * @param recorders the recorders to sample (an engine's, one per partition).
     * @return the values each recorded since its previous {@link #sampleInterval()}, merged.
     */
    public static Histogram sampleIntervals(final LatencyRecorder[] recorders)
    {
        final Histogram merged = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);
        for (final LatencyRecorder recorder : recorders)
        {
            merged.add(recorder.sampleInterval());
        }
        return merged;
    }

    /** Records one latency; called by the partition thread. */
    public void record(final long nanos)
    {
        recorder.recordValue(Math.min(Math.max(nanos, 0), HIGHEST_TRACKABLE_NANOS));
    }

    /**
     * Records, once more, the latency of a result that watermark work emitted (a watermark, an input's idleness, the
     * end of input, or a slice of an earlier watermark's work), after {@link #record} has; called by the partition
     * thread.
     */
    public void recordWatermarkWork(final long nanos)
    {
        watermarkWork.recordValue(Math.min(Math.max(nanos, 0), HIGHEST_TRACKABLE_NANOS));
    }

    /**
     * @return of the values recorded since the previous call, those of results watermark work emitted (a copy the
     *         caller owns); sampled on its own, by one reader (the engine's API).
     */
    public synchronized Histogram sampleWatermarkWorkInterval()
    {
        final Histogram interval = watermarkWork.getIntervalHistogram(watermarkRecycle);
        watermarkRecycle = interval;
        return interval.copy();
    }

    /**
     * @param recorders the recorders to sample (an engine's, one per partition).
     * @return of the values each recorded since its previous {@link #sampleWatermarkWorkInterval()}, those of results
     *         watermark work emitted, merged.
     */
    public static Histogram sampleWatermarkWorkIntervals(final LatencyRecorder[] recorders)
    {
        final Histogram merged = newHistogram();
        for (final LatencyRecorder recorder : recorders)
        {
            merged.add(recorder.sampleWatermarkWorkInterval());
        }
        return merged;
    }

    /**
     * @return the values recorded since the previous call (a copy the caller owns).
     */
    public synchronized Histogram sampleInterval()
    {
        return take(pendingApi);
    }

    /**
     * @return the values recorded since the previous call of this method (a copy the caller owns);
     *         the first call returns everything since the recorder was made.
     */
    public synchronized Histogram sampleForMonitoring()
    {
        return take(pendingMonitoring);
    }

    private Histogram take(final Histogram pending)
    {
        final Histogram interval = recorder.getIntervalHistogram(recycle);
        recycle = interval;
        pendingApi.add(interval);
        pendingMonitoring.add(interval);
        final Histogram sample = pending.copy();
        pending.reset();
        return sample;
    }
}
