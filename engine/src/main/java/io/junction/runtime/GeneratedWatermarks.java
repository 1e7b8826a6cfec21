package io.junction.runtime;

import io.junction.internal.time.BoundedOutOfOrdernessWatermarks;

import java.util.Arrays;

/**
 * A publisher's generated watermarks ({@link Publisher#generateWatermarks}): one generator per input of the
 * binary kinds, fed by the rows the publisher publishes, and the queue of generated watermarks that a full
 * ring could not take under {@code tryPublish}. A queued watermark goes out before the next event of its
 * partition, and every broadcast sends the queue first ({@link #broadcast}), so that no partition hears an
 * event before a watermark generated earlier. Owned by the publisher's thread.
 */
final class GeneratedWatermarks
{
    private final RingWriter rings;
    private BoundedOutOfOrdernessWatermarks leftWatermarks;
    private BoundedOutOfOrdernessWatermarks rightWatermarks;
    /**
     * Generated watermarks a full ring could not take under {@code tryPublish}, per ring and side
     * ({@code ring * 2 + side}), sent before the next event; {@link BoundedOutOfOrdernessWatermarks#NONE} if none.
     */
    private final long[] pendingWatermarks;
    private final long[] pendingSteps;
    private int pendingCount;

    GeneratedWatermarks(final RingWriter rings)
    {
        this.rings = rings;
        this.pendingWatermarks = new long[rings.partitions() * 2];
        this.pendingSteps = new long[rings.partitions() * 2];
        Arrays.fill(pendingWatermarks, BoundedOutOfOrdernessWatermarks.NONE);
    }

    /** Starts generating, as {@link Publisher#generateWatermarks} describes. */
    void generate(final long delay, final long everyEvents, final long everyMillis)
    {
        leftWatermarks = new BoundedOutOfOrdernessWatermarks(delay, everyEvents, everyMillis);
        rightWatermarks = new BoundedOutOfOrdernessWatermarks(delay, everyEvents, everyMillis);
    }

    /** @return whether watermarks are generated. */
    boolean isOn()
    {
        return leftWatermarks != null;
    }

    /** @return whether a generated watermark still waits for room in its ring. */
    boolean hasPending()
    {
        return pendingCount > 0;
    }

    /** Feeds a published row of a side to its generator; broadcasts the watermark it makes, if any. */
    void onRow(final int side, final long ts, final long step, final boolean wait)
    {
        final BoundedOutOfOrdernessWatermarks generator = side == 0 ? leftWatermarks : rightWatermarks;
        if (generator != null)
        {
            final long watermark = generator.onEvent(ts);
            if (watermark != BoundedOutOfOrdernessWatermarks.NONE)
            {
                generated((byte)side, watermark, step, wait);
            }
        }
    }

    /**
     * Sends an event to every partition that is alive, after the generated watermarks still pending.
     *
     * @return as {@link RingWriter#broadcast}.
     */
    int broadcast(final byte type, final byte side, final long value, final long step)
    {
        if (rings.isClosed())
        {
            return Publisher.CLOSED;
        }
        if (pendingCount > 0)
        {
            sendPendingWatermarks(true);
        }
        return rings.broadcast(type, side, value, step);
    }

    /** Broadcasts a generated watermark of one side; under tryPublish, rings that are full get it later. */
    private void generated(final byte side, final long watermark, final long step, final boolean wait)
    {
        for (int p = 0; p < rings.partitions(); p++)
        {
            final int index = p * 2 + side;
            if (pendingWatermarks[index] == BoundedOutOfOrdernessWatermarks.NONE)
            {
                pendingCount++;
            }
            // A later watermark of the same side supersedes one not sent yet.
            pendingWatermarks[index] = watermark;
            pendingSteps[index] = step;
        }
        sendPendingWatermarks(wait);
    }

    /**
     * Sends what is pending for one partition without waiting (the partition may have made room since
     * the last try); @return whether nothing is pending for it any more.
     */
    boolean sendPendingWatermarks(final int partition)
    {
        if (pendingWatermarks[partition * 2] == BoundedOutOfOrdernessWatermarks.NONE &&
            pendingWatermarks[partition * 2 + 1] == BoundedOutOfOrdernessWatermarks.NONE)
        {
            return true;
        }
        sendPendingWatermarks(false);
        return pendingWatermarks[partition * 2] == BoundedOutOfOrdernessWatermarks.NONE &&
            pendingWatermarks[partition * 2 + 1] == BoundedOutOfOrdernessWatermarks.NONE;
    }

    void sendPendingWatermarks(final boolean wait)
    {
        for (int index = 0; index < pendingWatermarks.length && pendingCount > 0; index++)
        {
            final long watermark = pendingWatermarks[index];
            if (watermark == BoundedOutOfOrdernessWatermarks.NONE)
            {
                continue;
            }
            final int partition = index >> 1;
            final long sequence = rings.claimLive(partition, wait);
            if (sequence == Publisher.BACK_PRESSURED)
            {
                continue;
            }
            if (sequence >= 0)
            {
                rings.fill(partition, sequence, RingSlot.WATERMARK, (byte)(index & 1), watermark, pendingSteps[index],
                    System.nanoTime());
            }
            // Sent, or its partition is dead or the engine closed: it is no longer pending either way.
            pendingWatermarks[index] = BoundedOutOfOrdernessWatermarks.NONE;
            pendingCount--;
        }
    }
}
