package io.junction.internal.time;

import io.junction.api.Side;

/**
 * The join's watermark: the minimum of its two inputs' watermarks, each of which only moves forward
 * (a lower watermark is ignored, SPEC 1). Starts at {@link Long#MIN_VALUE}: nothing is late and
 * nothing closes until both inputs have a watermark.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class WatermarkTracker
{
    private long left = Long.MIN_VALUE;
    private long right = Long.MIN_VALUE;

    /**
     * Advances one input's watermark.
     *
     * @return true when the join's watermark moved forward.
     */
    public boolean advance(final Side side, final long watermark)
    {
        final long before = current();
        if (side == Side.LEFT)
        {
            left = Math.max(left, watermark);
        }
        else
        {
            right = Math.max(right, watermark);
        }
        return current() > before;
    }

    /**
     * Advances both inputs' watermarks.
     *
     * @return true when the join's watermark moved forward.
     */
    public boolean advanceBoth(final long watermark)
    {
        final long before = current();
        left = Math.max(left, watermark);
        right = Math.max(right, watermark);
        return current() > before;
    }

    /** @return the join's watermark. */
    public long current()
    {
        return Math.min(left, right);
    }

    /** @return one input's watermark. */
    public long input(final Side side)
    {
        return side == Side.LEFT ? left : right;
    }
}
