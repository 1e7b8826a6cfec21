package io.junction.join;

import io.junction.internal.memory.HeapPart;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.time.WatermarkTracker;

import java.nio.ByteBuffer;

/**
 * The heap-held part of an {@link OperatorDriver}'s durable state, in this order: the counters, the join's
 * watermarks, the inputs' watermarks of a join of N inputs, then the algorithm's own fields. The order is the
 * one each kind wrote as an operator of its own, so their durable state directories reopen unchanged.
 *
 * <p>Not thread safe: owned by the partition thread, but for the head's copy, which a checkpoint's writer reads
 * between the cut that took it ({@link #copyHead}) and the cut's hand-back.
 */
final class DriverHeapPart implements HeapPart
{
    private final JoinCounters counters;
    private final WatermarkTracker watermarks;
    /** Null for a two-sided kind. */
    private final InputWatermarks inputs;
    private final JoinAlgorithm algorithm;
    /** The head as the last cut copied it: written by the partition thread at a cut, read by its writer. */
    private final long[] countersCopy = new long[JoinCounters.SAVED_COUNT];
    private final long[] watermarksCopy = new long[WatermarkTracker.SAVED_COUNT];

    DriverHeapPart(
        final JoinCounters counters, final WatermarkTracker watermarks, final InputWatermarks inputs, final JoinAlgorithm algorithm)
    {
        this.counters = counters;
        this.watermarks = watermarks;
        this.inputs = inputs;
        this.algorithm = algorithm;
    }

    @Override
    public void save(final ByteBuffer out)
    {
        counters.save(out);
        watermarks.save(out);
        saveTail(out);
    }

    /** The counters and the join's watermarks: a fixed head, copied at a cut and encoded by its writer. */
    @Override
    public int headLength()
    {
        return JoinCounters.SAVED_LENGTH + WatermarkTracker.SAVED_LENGTH;
    }

    @Override
    public void copyHead()
    {
        counters.copyTo(countersCopy);
        watermarks.copyTo(watermarksCopy);
    }

    @Override
    public void writeHead(final ByteBuffer out)
    {
        JoinCounters.write(out, countersCopy);
        WatermarkTracker.write(out, watermarksCopy);
    }

    @Override
    public void saveTail(final ByteBuffer out)
    {
        if (inputs != null)
        {
            inputs.save(out);
        }
        algorithm.save(out);
    }

    @Override
    public void load(final ByteBuffer in)
    {
        counters.load(in);
        watermarks.load(in);
        if (inputs != null)
        {
            inputs.load(in);
        }
        algorithm.load(in);
    }

    @Override
    public int savedLength()
    {
        return (inputs == null ? 0 : inputs.savedLength()) + algorithm.savedLength();
    }
}
