package io.junction.tools.perf;

import io.junction.internal.metrics.LatencyRecorder;
import io.junction.metrics.HotKey;
import io.junction.metrics.CheckpointPausePart;

import java.util.List;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/** What one load run measured. Immutable once the run hands it out. */
public final class LoadResult
{
    public final String label;
    public final long offeredRate;
    public final long events;
    public final long measuredEvents;
    public final double measuredSeconds;
    public final long outputs;
    public final long padded;
    /** Ingest-to-emit latency of the steady state: after the warm-up, before the end of input. */
    public final Histogram latency;
    /** Latency of what the end of input released (every row still live, closed at once). */
    public final Histogram endOfInputLatency;
    public final long liveRows;
    public final long stateBytes;
    public final long lateRows;
    public final long badInputs;
    /** Garbage collections in this JVM between the first publish and the end of close(). */
    public final long gcCount;
    /** Milliseconds those collections took. */
    public final long gcMillis;
    /** Live rows at their sampled peak. */
    public final long peakLiveRows;
    /** The engine's live state bytes at that peak: divided by {@link #peakLiveRows}, what a row of state costs. */
    public final long peakLiveStateBytes;
    /** Each partition's hot-key report at the end of the run ({@code JoinEngine.hotKeys}), in partition order. */
    public final List<List<HotKey>> hotKeys;
    /** Durable runs: each checkpoint's partition-thread pause, ns, in the order seen (empty in memory). */
    public final long[] checkpointPauseNanos;
    /**
     * Durable runs: each pause of {@link #checkpointPauseNanos}, in parts, ns, by
     * {@link CheckpointPausePart} ordinal (the same order; empty in memory).
     */
    public final long[][] checkpointPauseParts;
    /** Durable runs: writes that waited for a checkpoint writer's capture of a frozen chunk, every partition. */
    public final long checkpointSideWaits;
    /** Of {@link #latency}'s values, those of results watermark work emitted; empty when not measured (direct runs). */
    private Histogram watermarkLatency = new Histogram(LatencyRecorder.HIGHEST_TRACKABLE_NANOS, 3);

    /**
     * Sets the steady state's latencies of results that watermark work emitted ({@code JoinEngine.sampleWatermarkLatency}).
     *
     * @param histogram the values, of the same window as {@link #latency}.
     * @return this.
     */
    LoadResult withWatermarkLatency(final Histogram histogram)
    {
        this.watermarkLatency = histogram;
        return this;
    }

    /** @return of {@link #latency}'s values, those of results that watermark work emitted. */
    public Histogram watermarkLatency()
    {
        return watermarkLatency;
    }

    /**
     * @return of {@link #latency}'s values, those of results emitted at their own row's arrival: the rest once
     *         {@link #watermarkLatency()} is taken out, value by value (the two are sampled a moment apart, so a value
     *         never goes below none).
     */
    public Histogram ownEventLatency()
    {
        final Histogram own = new Histogram(latency.getHighestTrackableValue(), latency.getNumberOfSignificantValueDigits());
        for (final HistogramIterationValue v : latency.recordedValues())
        {
            final long value = v.getValueIteratedTo();
            final long count = v.getCountAtValueIteratedTo() - watermarkLatency.getCountAtValue(Math.min(value,
                watermarkLatency.getHighestTrackableValue()));
            if (count > 0)
            {
                own.recordValueWithCount(value, count);
            }
        }
        return own;
    }

    LoadResult(
        final String label, final long offeredRate, final long events, final long measuredEvents,
        final double measuredSeconds, final long outputs, final long padded, final Histogram latency, final Histogram endOfInputLatency,
        final long liveRows, final long stateBytes, final long lateRows, final long badInputs, final long gcCount,
        final long gcMillis, final long peakLiveRows, final long peakLiveStateBytes)
    {
        this(label, offeredRate, events, measuredEvents, measuredSeconds, outputs, padded, latency, endOfInputLatency,
            liveRows, stateBytes, lateRows, badInputs, gcCount, gcMillis, peakLiveRows, peakLiveStateBytes, List.of());
    }

    LoadResult(
        final String label, final long offeredRate, final long events, final long measuredEvents,
        final double measuredSeconds, final long outputs, final long padded, final Histogram latency, final Histogram endOfInputLatency,
        final long liveRows, final long stateBytes, final long lateRows, final long badInputs, final long gcCount,
        final long gcMillis, final long peakLiveRows, final long peakLiveStateBytes, final List<List<HotKey>> hotKeys)
    {
        this(label, offeredRate, events, measuredEvents, measuredSeconds, outputs, padded, latency, endOfInputLatency,
            liveRows, stateBytes, lateRows, badInputs, gcCount, gcMillis, peakLiveRows, peakLiveStateBytes, hotKeys, new long[0],
            new long[0][], 0);
    }

    LoadResult(
        final String label, final long offeredRate, final long events, final long measuredEvents,
        final double measuredSeconds, final long outputs, final long padded, final Histogram latency, final Histogram endOfInputLatency,
        final long liveRows, final long stateBytes, final long lateRows, final long badInputs, final long gcCount,
        final long gcMillis, final long peakLiveRows, final long peakLiveStateBytes, final List<List<HotKey>> hotKeys,
        final long[] checkpointPauseNanos, final long[][] checkpointPauseParts, final long checkpointSideWaits)
    {
        this.checkpointSideWaits = checkpointSideWaits;
        this.checkpointPauseNanos = checkpointPauseNanos.clone();
        this.checkpointPauseParts = new long[checkpointPauseParts.length][];
        for (int i = 0; i < checkpointPauseParts.length; i++)
        {
            this.checkpointPauseParts[i] = checkpointPauseParts[i].clone();
        }
        this.hotKeys = List.copyOf(hotKeys);
        this.peakLiveRows = peakLiveRows;
        this.peakLiveStateBytes = peakLiveStateBytes;
        this.label = label;
        this.offeredRate = offeredRate;
        this.events = events;
        this.measuredEvents = measuredEvents;
        this.measuredSeconds = measuredSeconds;
        this.outputs = outputs;
        this.padded = padded;
        this.latency = latency;
        this.endOfInputLatency = endOfInputLatency;
        this.liveRows = liveRows;
        this.stateBytes = stateBytes;
        this.lateRows = lateRows;
        this.badInputs = badInputs;
        this.gcCount = gcCount;
        this.gcMillis = gcMillis;
    }

    /** @return state bytes per live row at the sampled peak of live rows, 0 when no row was ever live. */
    public double bytesPerLiveRow()
    {
        return peakLiveRows > 0 ? (double)peakLiveStateBytes / peakLiveRows : 0;
    }

    /** @return events per second achieved in the measured phase. */
    public double achievedRate()
    {
        return measuredSeconds > 0 ? measuredEvents / measuredSeconds : 0;
    }
}
