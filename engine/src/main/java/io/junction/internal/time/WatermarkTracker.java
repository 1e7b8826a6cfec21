package io.junction.internal.time;

import java.nio.ByteBuffer;

/**
 * The join's watermark: the minimum of its two inputs' watermarks, each of which only moves forward
 * (a lower watermark is ignored, SEMANTICS 1). Starts at {@link Long#MIN_VALUE}: nothing is late and
 * nothing closes until both inputs have a watermark.
 *
 * <p>Idleness (as Flink's {@code withIdleness}): an input marked idle stops holding the join back, so
 * the join's watermark is the active input's; with both idle it is the higher of the two (as Flink's
 * {@code StatusWatermarkValve} when every channel is idle), so that rows a burst left behind still
 * close when everything goes quiet. Any event of an idle input (a row or a watermark, whatever its
 * value) makes it active again. The join's watermark never goes backwards: when an input comes back
 * with a watermark below it, the join's watermark holds until that input catches up, and the input's
 * rows below it are late as usual.
 *
 * <p>An input is named by its index, {@link #LEFT} or {@link #RIGHT} (the ordinals of {@code api.Side}, which
 * the time package may not import: docs/ARCHITECTURE.md, "Layering"; the operators pass {@code side.ordinal()}).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class WatermarkTracker
{
    /** The left input's index ({@code Side.LEFT.ordinal()}). */
    public static final int LEFT = 0;
    /** The right input's index ({@code Side.RIGHT.ordinal()}). */
    public static final int RIGHT = 1;

    private long left = Long.MIN_VALUE;
    private long right = Long.MIN_VALUE;
    private boolean leftIdle;
    private boolean rightIdle;
    /** The join's watermark, kept apart from the inputs' because idleness lets it pass an idle input's. */
    private long joined = Long.MIN_VALUE;

    /**
     * Advances one input's watermark, making that input active.
     *
     * @return true when the join's watermark moved forward.
     */
    public boolean advance(final int side, final long watermark)
    {
        if (side == LEFT)
        {
            left = Math.max(left, watermark);
            leftIdle = false;
        }
        else
        {
            right = Math.max(right, watermark);
            rightIdle = false;
        }
        return recompute();
    }

    /**
     * Advances both inputs' watermarks, making both active.
     *
     * @return true when the join's watermark moved forward.
     */
    public boolean advanceBoth(final long watermark)
    {
        left = Math.max(left, watermark);
        right = Math.max(right, watermark);
        leftIdle = false;
        rightIdle = false;
        return recompute();
    }

    /**
     * Marks an input idle: it no longer holds back the join's watermark until its next event.
     *
     * @return true when the join's watermark moved forward.
     */
    public boolean markIdle(final int side)
    {
        if (side == LEFT)
        {
            leftIdle = true;
        }
        else
        {
            rightIdle = true;
        }
        return recompute();
    }

    /**
     * Marks an input active (it had a row); never moves the join's watermark, which does not go back.
     * Cheap enough to call on every row.
     */
    public void markActive(final int side)
    {
        if (side == LEFT)
        {
            leftIdle = false;
        }
        else
        {
            rightIdle = false;
        }
    }

    /** @return whether an input is idle. */
    public boolean isIdle(final int side)
    {
        return side == LEFT ? leftIdle : rightIdle;
    }

    /** @return the join's watermark. */
    public long current()
    {
        return joined;
    }

    /** @return one input's watermark. */
    public long input(final int side)
    {
        return side == LEFT ? left : right;
    }

    /** The fields {@link #copyTo} copies: the three watermarks and the idle flags. */
    public static final int SAVED_COUNT = 4;
    /** The bytes {@link #save} writes. */
    public static final int SAVED_LENGTH = 3 * Long.BYTES + 1;

    /** {@link #save}'s copy (the owning thread). */
    private final long[] saving = new long[SAVED_COUNT];

    /** Writes the tracker's fields (for durable state), in {@link #copyTo}'s order. */
    public void save(final ByteBuffer out)
    {
        copyTo(saving);
        write(out, saving);
    }

    /**
     * Copies what {@link #save} writes into {@code into} (plain stores, for a checkpoint's cut; its writer encodes
     * them, {@link #write}).
     *
     * @param into at least {@link #SAVED_COUNT} longs.
     */
    public void copyTo(final long[] into)
    {
        into[0] = left;
        into[1] = right;
        into[2] = joined;
        into[3] = (leftIdle ? 1 : 0) | (rightIdle ? 2 : 0);
    }

    /** Writes fields {@link #copyTo} copied, as {@link #save} writes them (the thread that holds the copy). */
    public static void write(final ByteBuffer out, final long[] copied)
    {
        out.putLong(copied[0]).putLong(copied[1]).putLong(copied[2]).put((byte)copied[3]);
    }

    /** Reads what {@link #save} wrote. */
    public void load(final ByteBuffer in)
    {
        left = in.getLong();
        right = in.getLong();
        joined = in.getLong();
        final byte idle = in.get();
        leftIdle = (idle & 1) != 0;
        rightIdle = (idle & 2) != 0;
    }

    private boolean recompute()
    {
        final long candidate;
        if (leftIdle)
        {
            candidate = rightIdle ? Math.max(left, right) : right;
        }
        else
        {
            candidate = rightIdle ? left : Math.min(left, right);
        }
        if (candidate > joined)
        {
            joined = candidate;
            return true;
        }
        return false;
    }
}
