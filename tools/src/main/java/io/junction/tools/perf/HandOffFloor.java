package io.junction.tools.perf;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.runtime.WaitStrategyKind;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;

/**
 * The floor under every latency figure: a bare Disruptor hand-off (publish a slot with a copied
 * 64-byte row, consume it, record now minus the intended send time) at the same rate, ring size and
 * wait strategy as the engine run it is compared with. What the engine adds on top of this is the
 * join's cost; what this shows is the machine's and the hand-off's.
 */
public final class HandOffFloor
{
    private static final class Slot
    {
        final UnsafeBuffer row = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        long intended;
        boolean last;
    }

    private HandOffFloor()
    {
    }

    /**
     * @param events       events to hand off.
     * @param rate         offered events/s; 0 = max rate.
     * @param warmupEvents events excluded from the histogram.
     * @return latencies of the measured events in ns.
     */
    public static Histogram run(final long events, final long rate, final long warmupEvents, final int ringSize,
        final WaitStrategyKind waitStrategy) throws InterruptedException
    {
        final Recorder recorder = new Recorder(1, LatencyRecorder.HIGHEST_TRACKABLE_NANOS, 3);
        final CountDownLatch done = new CountDownLatch(1);
        final Disruptor<Slot> disruptor = new Disruptor<>(Slot::new, ringSize, runnable ->
        {
            final Thread thread = new Thread(runnable, "junction-floor");
            thread.setDaemon(true);
            return thread;
        }, ProducerType.SINGLE, waitStrategy.create());
        final long[] checksum = new long[1];
        disruptor.handleEventsWith((EventHandler<Slot>)(slot, sequence, endOfBatch) ->
        {
            checksum[0] += slot.row.getLong(0);
            recorder.recordValue(Math.min(Math.max(System.nanoTime() - slot.intended, 0), LatencyRecorder.HIGHEST_TRACKABLE_NANOS));
            if (slot.last)
            {
                done.countDown();
            }
        });
        final RingBuffer<Slot> ring = disruptor.start();
        final UnsafeBuffer source = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final double period = rate > 0 ? 1e9 / rate : 0;
        final long start = System.nanoTime();
        for (long i = 0; i < events; i++)
        {
            final long intended;
            if (period > 0)
            {
                intended = start + (long)(i * period);
                while (System.nanoTime() < intended)
                {
                    Thread.onSpinWait();
                }
            }
            else
            {
                intended = System.nanoTime();
            }
            source.putLong(0, i);
            final long sequence = ring.next();
            final Slot slot = ring.get(sequence);
            slot.row.putBytes(0, source, 0, 64);
            slot.intended = intended;
            slot.last = i == events - 1;
            ring.publish(sequence);
            if (i + 1 == warmupEvents)
            {
                recorder.getIntervalHistogram();
            }
        }
        done.await();
        disruptor.shutdown();
        return recorder.getIntervalHistogram();
    }
}
