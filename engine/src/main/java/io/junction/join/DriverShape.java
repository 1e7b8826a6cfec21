package io.junction.join;

import io.junction.internal.state.BucketDescriptor;

/**
 * What sets one kind's driver apart from the two-sided default, as a value built once per operator: the
 * bucket's length, the inputs of a join of N inputs, the algorithm's own off-heap bytes, whether the end of
 * input moves the watermarks, whether {@link OperatorDriver#prefetch} reads buckets ahead.
 *
 * <p>Immutable.
 */
final class DriverShape
{
    /** The default every kind starts from (the N-input shape too): standard buckets, watermarks to +infinity at the end, buckets read ahead. */
    static final DriverShape DEFAULT = new DriverShape(BucketDescriptor.LENGTH, 0, 0, true, true);

    final int bucketLength;
    final int inputs;
    final long otherOffHeapBytes;
    final boolean endMovesWatermarks;
    final boolean readAhead;

    private DriverShape(
        final int bucketLength, final int inputs, final long otherOffHeapBytes, final boolean endMovesWatermarks,
        final boolean readAhead)
    {
        this.bucketLength = bucketLength;
        this.inputs = inputs;
        this.otherOffHeapBytes = otherOffHeapBytes;
        this.endMovesWatermarks = endMovesWatermarks;
        this.readAhead = readAhead;
    }

    /**
     * @param bucketLength bytes of a key bucket: {@link BucketDescriptor#LENGTH} or the kind's extension of it.
     * @return this shape with buckets of that length.
     */
    DriverShape bucketLength(final int bucketLength)
    {
        return new DriverShape(bucketLength, inputs, otherOffHeapBytes, endMovesWatermarks, readAhead);
    }

    /**
     * @param inputs the inputs of a join of N inputs: the driver then tracks N watermarks
     *               ({@link InputWatermarks}) for the input-indexed methods.
     * @return this shape with that many inputs.
     */
    DriverShape inputs(final int inputs)
    {
        return new DriverShape(bucketLength, inputs, otherOffHeapBytes, endMovesWatermarks, readAhead);
    }

    /**
     * @param bytes the most off-heap bytes of the algorithm's own structures (a regular join's unique-key
     *              indexes), taken from the rows' byte budget.
     * @return this shape with them.
     */
    DriverShape otherOffHeapBytes(final long bytes)
    {
        return new DriverShape(bucketLength, inputs, bytes, endMovesWatermarks, readAhead);
    }

    /** @return this shape with an end of input that closes nothing: the watermarks stay where they are. */
    DriverShape endKeepsWatermarks()
    {
        return new DriverShape(bucketLength, inputs, otherOffHeapBytes, false, readAhead);
    }

    /** @return this shape without read-ahead: buckets not keyed by the routing hash. */
    DriverShape noReadAhead()
    {
        return new DriverShape(bucketLength, inputs, otherOffHeapBytes, endMovesWatermarks, false);
    }
}
