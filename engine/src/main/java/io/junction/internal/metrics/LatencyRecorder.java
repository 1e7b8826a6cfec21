package io.junction.internal.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Ingest-to-emit latency of one partition in nanoseconds: an HdrHistogram {@link SingleWriterRecorder}
 * (the partition thread is its only writer, so recording needs no atomic read-modify-write), written
 * allocation-free and sampled as interval histograms by any reader.
 */
public final class LatencyRecorder
{
    /** Highest trackable latency: one hour; larger values are clamped so recording never throws. */
    public static final long HIGHEST_TRACKABLE_NANOS = 3_600_000_000_000L;

    private final SingleWriterRecorder recorder = new SingleWriterRecorder(1, HIGHEST_TRACKABLE_NANOS, 3);
    private Histogram recycle;

    /** Records one latency; called by the partition thread. */
    public void record(final long nanos)
    {
        recorder.recordValue(Math.min(Math.max(nanos, 0), HIGHEST_TRACKABLE_NANOS));
    }

    /**
     * @return the values recorded since the previous call (the reader owns the returned histogram until its next call).
     */
    public synchronized Histogram sampleInterval()
    {
        final Histogram interval = recorder.getIntervalHistogram(recycle);
        recycle = interval;
        return interval.copy();
    }
}
