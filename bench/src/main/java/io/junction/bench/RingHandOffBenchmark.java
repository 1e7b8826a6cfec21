package io.junction.bench;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import com.lmax.disruptor.util.DaemonThreadFactory;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * A bare LMAX Disruptor (4.0.0) hand-off, one producer to one consumer thread, with nothing of the
 * engine but its ring-entry shape: a preallocated slot holding a few fixed fields and a
 * fixed-capacity off-heap row buffer ({@value #SLOT_CAPACITY} bytes, as the engine's default slot).
 * One operation = the producer claims the next sequence ({@code ring.next()}), copies a
 * {@value #ROW_LENGTH}-byte row into the slot, sets its fields and publishes it. The consumer, on
 * its own thread, reads each slot (a long of the row and the fields) and does nothing else. The
 * consumer waits with the {@code waitStrategy} of the engine's {@link WaitStrategyKind}
 * ({@code BUSY_SPIN}: spins on a core; {@code SLEEPING}: spins, yields, then parks, the engine's
 * default). The score is the publish rate: once the ring is full the producer goes at the
 * consumer's pace, so it is the sustained hand-off rate (on a host with fewer free cores than two,
 * a spinning consumer competes with the producer for the CPU).
 * <p>
 * This is the floor under {@link RuntimeBenchmark}: the runtime's per-event cost minus the
 * operator's. Run with {@code -prof gc}: {@code gc.alloc.rate.norm} should be ~0 B/op once warm.
 * <p>
 * Not thread safe: one producer (benchmark) thread per state ({@link Scope#Thread}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class RingHandOffBenchmark
{
    /** Bytes copied per event. */
    static final int ROW_LENGTH = 64;
    /** Row bytes a slot can hold (the engine's default slot capacity). */
    static final int SLOT_CAPACITY = EngineConfig.SLOT_CAPACITY_DEFAULT;

    /** How the consumer thread waits for the next event. */
    @Param({"BUSY_SPIN", "SLEEPING"})
    public WaitStrategyKind waitStrategy;

    /** Ring entries, a power of two (the engine's default ring size). */
    @Param({"" + EngineConfig.RING_SIZE_DEFAULT})
    public int ringSize;

    private Disruptor<Slot> disruptor;
    private RingBuffer<Slot> ring;
    private Consumer consumer;
    private final UnsafeBuffer row = new UnsafeBuffer(ByteBuffer.allocateDirect(ROW_LENGTH));
    private long published;

    /** A preallocated ring entry: an event's fields and its copied row bytes. */
    static final class Slot
    {
        final UnsafeBuffer row = new UnsafeBuffer(ByteBuffer.allocateDirect(SLOT_CAPACITY));
        byte type;
        byte side;
        int rowLength;
        long timestamp;
        long step;
    }

    /** Reads each slot; owned by the consumer thread, {@link #consumed} read after shutdown. */
    static final class Consumer implements EventHandler<Slot>
    {
        long consumed;
        long sum;

        @Override
        public void onEvent(final Slot slot, final long sequence, final boolean endOfBatch)
        {
            sum += slot.row.getLong(0, ByteOrder.LITTLE_ENDIAN) + slot.timestamp + slot.rowLength + slot.side;
            consumed++;
        }
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        for (int i = 0; i < ROW_LENGTH; i += 8)
        {
            row.putLong(i, 0x0101010101010101L * (i + 1), ByteOrder.LITTLE_ENDIAN);
        }
        consumer = new Consumer();
        disruptor = new Disruptor<>(Slot::new, ringSize, DaemonThreadFactory.INSTANCE, ProducerType.SINGLE,
            waitStrategy.create());
        disruptor.handleEventsWith(consumer);
        ring = disruptor.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws TimeoutException
    {
        disruptor.shutdown(10, TimeUnit.SECONDS);
        if (consumer.consumed != published)
        {
            throw new IllegalStateException("consumed " + consumer.consumed + " of " + published + " events");
        }
    }

    @Benchmark
    public void publish()
    {
        final long sequence = ring.next();
        final Slot slot = ring.get(sequence);
        slot.type = 0;
        slot.side = (byte)(sequence & 1);
        slot.timestamp = sequence;
        slot.step = sequence;
        slot.rowLength = ROW_LENGTH;
        slot.row.putBytes(0, row, 0, ROW_LENGTH);
        ring.publish(sequence);
        published++;
    }
}
