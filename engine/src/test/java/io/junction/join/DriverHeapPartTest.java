package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.time.WatermarkTracker;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A checkpoint's cut copies the driver part's head (the counters, the join's watermarks) and its writer encodes
 * the copy: head then tail are the bytes {@link DriverHeapPart#save} wrote at the copy, whatever the partition
 * counts after it, and the head is exactly {@link DriverHeapPart#headLength()} bytes.
 */
final class DriverHeapPartTest
{
    @Test
    void theHeadEncodedFromTheCutsCopyAndTheTailAreWhatSaveWroteAtTheCut()
    {
        final JoinCounters counters = new JoinCounters();
        final WatermarkTracker watermarks = new WatermarkTracker();
        final long[] algorithmField = {77};
        final JoinAlgorithm algorithm = new JoinAlgorithm()
        {
            @Override
            public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
            {
            }

            @Override
            public void onWatermark(final long watermark, final long step)
            {
            }

            @Override
            public void onEndOfInput(final long step)
            {
            }

            @Override
            public void save(final ByteBuffer out)
            {
                out.putLong(algorithmField[0]);
            }
        };
        final DriverHeapPart part = new DriverHeapPart(counters, watermarks, null, algorithm);
        counters.rowsIn = 11;
        counters.rowsOut = 12;
        counters.evictedRows = 13;
        counters.watermark = 14;
        watermarks.advance(WatermarkTracker.LEFT, 100);
        watermarks.advance(WatermarkTracker.RIGHT, 90);
        watermarks.markIdle(WatermarkTracker.RIGHT);
        final byte[] atCut = saved(part::save);

        part.copyHead();
        counters.rowsIn = 1_000;
        counters.evictedRows = 2_000;
        watermarks.advance(WatermarkTracker.LEFT, 500);
        watermarks.markActive(WatermarkTracker.RIGHT);
        final byte[] head = saved(part::writeHead);
        assertEquals(part.headLength(), head.length, "the head is as long as it says");
        algorithmField[0] = 78;
        final byte[] tail = saved(part::saveTail);
        final byte[] cut = Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, cut, head.length, tail.length);
        atCut[atCut.length - 1] = 78;
        assertArrayEquals(atCut, cut, "the head of the copy, the tail as it is now (the algorithm's field)");
    }

    /** @return the bytes {@code save} writes. */
    private static byte[] saved(final Consumer<ByteBuffer> save)
    {
        final ByteBuffer out = ByteBuffer.allocate(1024);
        save.accept(out);
        return Arrays.copyOf(out.array(), out.position());
    }
}
