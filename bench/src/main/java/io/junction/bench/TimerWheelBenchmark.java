package io.junction.bench;

import io.junction.join.StateConfig;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.time.TimerWheel;
import org.agrona.UnsafeApi;
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

import java.util.concurrent.TimeUnit;

/**
 * The event-time timer wheel ({@link TimerWheel}) on its own, with about {@code horizon} (default a
 * million) entries pending, expiring in time order as W1's rows do: event {@code n} has
 * {@code ts = n} (one row per ms, like W1's impressions) and is scheduled with
 * {@code deadline = n + horizon}; after every {@value #WATERMARK_EVERY}th event the watermark
 * advances to {@code n - 5000} (W1's rule), expiring the ~1000 entries it closed.
 * <p>
 * One operation = one {@link TimerWheel#schedule} plus, amortised, 1/{@value #WATERMARK_EVERY} of
 * an {@link TimerWheel#advance} (which visits and expires about 1000 entries), i.e. the timer cost
 * per event of a join whose every row is expired by the watermark. Entries are
 * {@value #ENTRY_LENGTH}-byte off-heap records using {@link RowDescriptor}'s timer fields (a stored
 * row's header and a 64-byte row), in a preallocated pool reused round-robin; the wheel has the
 * engine's default geometry ({@link StateConfig#TICK_SHIFT_DEFAULT},
 * {@link StateConfig#WHEEL_SLOTS_DEFAULT}) unless set by {@code @Param}.
 * <p>
 * Run with {@code -prof gc}: {@code gc.alloc.rate.norm} should be ~0 B/op once warm.
 * <p>
 * Not thread safe: one benchmark thread per state ({@link Scope#Thread}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class TimerWheelBenchmark
{
    /** Bytes per entry: a row record header plus a 64-byte row. */
    static final int ENTRY_LENGTH = RowDescriptor.TIMED_HEADER_LENGTH + 64;
    /** Events between watermarks (W1). */
    static final int WATERMARK_EVERY = 1000;
    /** Watermark lag behind the latest event time (W1). */
    static final long WATERMARK_LAG = 5000;

    /** Event time (= events) from scheduling to deadline; pending entries are about this many. */
    @Param({"1000000"})
    public int horizon;

    @Param({"" + StateConfig.TICK_SHIFT_DEFAULT})
    public int tickShift;

    @Param({"" + StateConfig.WHEEL_SLOTS_DEFAULT})
    public int wheelSlots;

    private TimerWheel wheel;
    private long base;
    private long poolMask;
    private long n;
    private long expired;
    private final TimerWheel.ExpiryHandler onExpiry = this::expire;

    @Setup(Level.Trial)
    public void setUp()
    {
        // pending never exceeds horizon + lag + WATERMARK_EVERY, so a pool of the next power of two
        // above that is always free at the slot being reused
        final long maxPending = (long)horizon + WATERMARK_LAG + WATERMARK_EVERY;
        final long poolSize = Long.highestOneBit(maxPending) << 1;
        poolMask = poolSize - 1;
        base = UnsafeApi.allocateMemory(poolSize * ENTRY_LENGTH);
        UnsafeApi.setMemory(base, poolSize * ENTRY_LENGTH, (byte)0);
        wheel = new TimerWheel(tickShift, wheelSlots,
            RowDescriptor.TIMER_PREV_OFFSET, RowDescriptor.TIMER_NEXT_OFFSET, RowDescriptor.DEADLINE_OFFSET);
        // fill up to steady state: ~horizon entries pending
        final long fill = (long)horizon + WATERMARK_LAG + 2L * WATERMARK_EVERY;
        while (n < fill)
        {
            scheduleAndMaybeAdvance();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        final long pending = wheel.pending();
        UnsafeApi.freeMemory(base);
        if (pending < horizon || pending > (long)horizon + WATERMARK_LAG + WATERMARK_EVERY)
        {
            throw new IllegalStateException("pending=" + pending + " out of the expected range around " + horizon);
        }
    }

    @Benchmark
    public long scheduleAndMaybeAdvance()
    {
        final long i = n++;
        final long entry = base + (i & poolMask) * ENTRY_LENGTH;
        if ((UnsafeApi.getByte(entry + RowDescriptor.FLAGS_OFFSET) & RowDescriptor.FLAG_IN_TIMER) != 0)
        {
            throw new IllegalStateException("pool entry still pending at event " + i);
        }
        UnsafeApi.putLong(entry + RowDescriptor.TS_OFFSET, i);
        UnsafeApi.putByte(entry + RowDescriptor.FLAGS_OFFSET, (byte)RowDescriptor.FLAG_IN_TIMER);
        wheel.schedule(entry, i + horizon);
        if ((i + 1) % WATERMARK_EVERY == 0)
        {
            wheel.advance(i - WATERMARK_LAG, onExpiry);
        }
        return expired;
    }

    private void expire(final long entry)
    {
        UnsafeApi.putByte(entry + RowDescriptor.FLAGS_OFFSET, (byte)0);
        expired++;
    }
}
