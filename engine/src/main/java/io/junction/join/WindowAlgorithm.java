package io.junction.join;

import java.nio.ByteBuffer;

/**
 * A window kind's {@link JoinAlgorithm} ({@link TimeWindowJoin}, {@link SessionWindowJoin}, SEMANTICS 6): it decides
 * which windows a row is in and stores it, and what a fired bucket's rows of one key make
 * ({@link WindowBuckets.Firing}); the {@link WindowBuckets} it holds fires the windows when the join's watermark
 * moves or input ends, and is its heap part. The driver's calls other than {@code onRow} go to it here, once, for
 * both kinds.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
interface WindowAlgorithm extends JoinAlgorithm, WindowBuckets.Firing
{
    /** @return the window bookkeeping the algorithm holds (one, for its life). */
    WindowBuckets buckets();

    @Override
    default void onWatermark(final long watermark, final long step)
    {
        buckets().onWatermark(watermark, step);
    }

    @Override
    default void onEndOfInput(final long step)
    {
        buckets().onEndOfInput(step);
    }

    @Override
    default void save(final ByteBuffer out)
    {
        buckets().save(out);
    }

    @Override
    default void load(final ByteBuffer in)
    {
        buckets().load(in);
    }

    @Override
    default long pendingTimers()
    {
        return buckets().pending();
    }
}
