package io.junction.bench;

import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
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
 * The off-heap row store ({@link RowStore}) on its own, in steady state: one operation = one
 * {@link RowStore#append} of a 64-byte row (a valid binary row: key, ts, f1 longs and a 24-char
 * string, {@value #ROW_LENGTH} bytes in all, with a 9-byte long key) at the tail of its bucket's
 * chain, plus one {@link RowStore#remove} of the oldest live row (the head of its chain), so
 * {@code liveRows} rows stay live and every append reuses the record memory the removal freed
 * (the arena's free list of that size class). Rows are spread round-robin over {@code buckets}
 * buckets. No index, no timer: record layout, chain links and the arena only.
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
public class RowStoreBenchmark
{
    /** Bytes of the stored row. */
    static final int ROW_LENGTH = 64;
    private static final int KEY_LENGTH = 9;

    /** Rows live between operations; a power of two. */
    @Param({"1024", "1048576"})
    public int liveRows;

    /** Buckets (distinct keys) the rows are spread over; a power of two. */
    @Param({"65536"})
    public int buckets;

    private RowStore store;
    private NativeArena bucketArena;
    private long[] bucketAddresses;
    private long[] records;
    private int recordMask;
    private int bucketMask;
    private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(16));
    private final UnsafeBuffer rowBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
    private final RowView row = new RowView();
    private int tsIndex;
    private long n;

    @Setup(Level.Trial)
    public void setUp()
    {
        if (Integer.bitCount(liveRows) != 1 || Integer.bitCount(buckets) != 1)
        {
            throw new IllegalArgumentException(
                "liveRows and buckets must be powers of two: liveRows=" + liveRows + ", buckets=" + buckets);
        }
        final RowWriter writer = new RowWriter().wrap(rowBuffer, 0, rowBuffer.capacity(), 4);
        final int length = writer.putLong(0, 42).putLong(1, 0).putLong(2, 0)
            .putAscii(3, "0123456789abcdef01234567").finish();
        if (length != ROW_LENGTH)
        {
            throw new IllegalStateException("row is " + length + " bytes, expected " + ROW_LENGTH);
        }
        row.wrap(rowBuffer, 0, length);
        tsIndex = row.payloadIndex(1);
        key.putByte(0, (byte)1);
        key.putLong(1, 42, ByteOrder.LITTLE_ENDIAN);

        store = new RowStore();
        bucketArena = new NativeArena();
        bucketAddresses = new long[buckets];
        bucketMask = buckets - 1;
        for (int b = 0; b < buckets; b++)
        {
            bucketAddresses[b] = bucketArena.allocate(BucketDescriptor.LENGTH);
            BucketDescriptor.init(0, bucketAddresses[b], b);
        }
        records = new long[liveRows];
        recordMask = liveRows - 1;
        for (n = 0; n < liveRows; n++)
        {
            records[(int)n & recordMask] = append(n);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        store.close();
        bucketArena.close();
    }

    @Benchmark
    public long appendAndRemoveOldest()
    {
        final long i = n++;
        final int at = (int)i & recordMask;
        store.remove(records[at]);
        final long record = append(i);
        records[at] = record;
        return record;
    }

    private long append(final long i)
    {
        rowBuffer.putLong(tsIndex, i, ByteOrder.LITTLE_ENDIAN);
        return store.append(bucketAddresses[(int)i & bucketMask], RowDescriptor.LEFT, key, 0, KEY_LENGTH,
            row.buffer(), row.offset(), row.length(), i);
    }
}
