package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.join.FullPolicy;
import io.junction.join.StateConfig;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.time.BoundedOutOfOrdernessWatermarks;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * Feeds events into a {@link JoinEngine}: routes each row to the partition of its join key's hash
 * and copies it into a preallocated ring slot; broadcasts watermarks and the end of input to every
 * partition. Allocation-free.
 *
 * <p>Results are return codes, not exceptions (the caller decides what a full ring means):
 * <ul>
 *   <li>{@link #PUBLISHED}: the event is in the ring.</li>
 *   <li>{@link #BACK_PRESSURED}: the ring is full ({@code tryPublish} only); retry later or drop.</li>
 *   <li>{@link #ROW_TOO_LARGE}: the row exceeds the slot capacity; it will never fit, count or dead-letter it.</li>
 *   <li>{@link #MALFORMED_ROW}: the bytes are not a well-formed row; nothing was published.</li>
 *   <li>{@link #CLOSED}: the engine is closed.</li>
 *   <li>{@link #STATE_FULL}: with the {@code BACK_PRESSURE} full policy, the row's partition is at its
 *       live-row or byte limit ({@code tryPublish} only; {@code publish} waits until it is not):
 *       retry once watermarks or retractions have made room. Retractions are never held back.</li>
 * </ul>
 *
 * <p>Not thread safe: one publisher per producing thread, and with single-producer rings (the
 * default) one producing thread per engine.
 */
public final class Publisher
{
    public static final int PUBLISHED = 0;
    public static final int BACK_PRESSURED = -1;
    public static final int ROW_TOO_LARGE = -2;
    public static final int MALFORMED_ROW = -3;
    public static final int CLOSED = -4;
    public static final int STATE_FULL = -5;

    private final JoinEngine engine;
    private final RingBuffer<RingSlot>[] rings;
    private final KeyExtractor leftKey;
    private final KeyExtractor rightKey;
    private final int slotCapacity;
    private final RowView view = new RowView();
    private final UnsafeBuffer key;
    private final long hashSeed;
    private final PartitionMetrics[] metrics;
    private final boolean backPressure;
    private final long maxLiveRows;
    private final long maxUsedBytes;
    private RowCodec leftCodec;
    private RowCodec rightCodec;
    private UnsafeBuffer typedRow;
    private BoundedOutOfOrdernessWatermarks leftWatermarks;
    private BoundedOutOfOrdernessWatermarks rightWatermarks;

    Publisher(final JoinEngine engine, final RingBuffer<RingSlot>[] rings, final JoinSpec spec, final int slotCapacity,
        final StateConfig state, final PartitionMetrics[] metrics)
    {
        final int maxKeyLength = state.maxKeyLength();
        this.hashSeed = state.hashSeed();
        this.metrics = metrics;
        this.backPressure = state.fullPolicy() == FullPolicy.BACK_PRESSURE;
        this.maxLiveRows = state.maxLiveRows();
        // Held back one arena chunk below the byte limit: the partition needs a whole chunk to grow.
        this.maxUsedBytes = state.maxStateBytes() - state.chunkSize();
        this.engine = engine;
        this.rings = rings;
        final CompiledJoin compiled = CompiledJoin.of(spec);
        this.leftKey = compiled.key(Side.LEFT);
        this.rightKey = compiled.key(Side.RIGHT);
        this.slotCapacity = slotCapacity;
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(maxKeyLength));
    }

    /**
     * Generates watermarks for both inputs from the rows this publisher publishes, for producers that
     * have none of their own: each input's watermark trails its highest timestamp by {@code delay} ms
     * and is broadcast every {@code everyEvents} rows or {@code everyMillis} ms of event time.
     *
     * @return this publisher.
     */
    public Publisher generateWatermarks(final long delay, final long everyEvents, final long everyMillis)
    {
        leftWatermarks = new BoundedOutOfOrdernessWatermarks(delay, everyEvents, everyMillis);
        rightWatermarks = new BoundedOutOfOrdernessWatermarks(delay, everyEvents, everyMillis);
        return this;
    }

    /**
     * Publishes a row, waiting while its partition's ring is full.
     *
     * @param ingestNanos when the event entered the system ({@code System.nanoTime()}), the origin of
     *                    its results' latency; a fixed-rate driver passes the intended send time.
     * @return {@link #PUBLISHED}, {@link #ROW_TOO_LARGE}, {@link #MALFORMED_ROW} or {@link #CLOSED}.
     */
    public int publish(
        final Side side, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos)
    {
        return publish(side, kind, row, offset, length, ts, step, ingestNanos, true);
    }

    /**
     * Publishes a row unless its partition's ring is full.
     *
     * @return as {@link #publish}, or {@link #BACK_PRESSURED}.
     */
    public int tryPublish(
        final Side side, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos)
    {
        return publish(side, kind, row, offset, length, ts, step, ingestNanos, false);
    }

    /** Publishes a row with the current time as its ingest time. */
    public int publish(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        return publish(side, kind, row.buffer(), row.offset(), row.length(), ts, step, System.nanoTime(), true);
    }

    /**
     * Publishes a row given as objects, encoded with the side's schema (the typed layer: allocates, so
     * for users who prefer objects to flyweights, not for hot paths). Waits while the ring is full.
     *
     * @return as {@link #publish(Side, ChangeKind, DirectBuffer, int, int, long, long, long)}.
     */
    public int publish(final Side side, final ChangeKind kind, final Row row, final long ts, final long step)
    {
        if (typedRow == null)
        {
            typedRow = new UnsafeBuffer(ByteBuffer.allocateDirect(slotCapacity));
            leftCodec = new RowCodec(engine.spec().leftSchema());
            rightCodec = new RowCodec(engine.spec().rightSchema());
        }
        final int length = (side == Side.LEFT ? leftCodec : rightCodec).encode(row, typedRow, 0, slotCapacity);
        if (length < 0)
        {
            return refuse(ROW_TOO_LARGE);
        }
        return publish(side, kind, typedRow, 0, length, ts, step, System.nanoTime(), true);
    }

    private int publish(
        final Side side, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos, final boolean wait)
    {
        if (engine.isClosed())
        {
            return CLOSED;
        }
        if (length > slotCapacity)
        {
            return refuse(ROW_TOO_LARGE);
        }
        view.wrap(row, offset, length);
        if (view.validate() != null)
        {
            return refuse(MALFORMED_ROW);
        }
        final KeyExtractor extractor = side == Side.LEFT ? leftKey : rightKey;
        final int keyLength = extractor.extract(view, key, 0, key.capacity());
        final long hash = keyLength < 0 ? 0 : KeyHash.hash(hashSeed, key, 0, keyLength);
        final int partition = KeyHash.partition(hash, rings.length);
        if (backPressure && kind.isAccumulate() && metrics[partition].atLimit(maxLiveRows, maxUsedBytes))
        {
            if (!wait)
            {
                return STATE_FULL;
            }
            while (metrics[partition].atLimit(maxLiveRows, maxUsedBytes))
            {
                if (engine.isClosed())
                {
                    return CLOSED;
                }
                // Room comes from watermarks and retractions, which take longer than a spin.
                LockSupport.parkNanos(50_000);
            }
        }
        final RingBuffer<RingSlot> ring = rings[partition];
        if (!wait && !ring.hasAvailableCapacity(1))
        {
            return BACK_PRESSURED;
        }
        final long sequence = ring.next();
        final RingSlot slot = ring.get(sequence);
        slot.type = RingSlot.ROW;
        slot.side = (byte)side.ordinal();
        slot.kind = (byte)kind.ordinal();
        slot.timestamp = ts;
        slot.step = step;
        slot.ingestNanos = ingestNanos;
        slot.rowLength = length;
        slot.row.putBytes(0, row, offset, length);
        ring.publish(sequence);
        final BoundedOutOfOrdernessWatermarks generator = side == Side.LEFT ? leftWatermarks : rightWatermarks;
        if (generator != null)
        {
            final long watermark = generator.onEvent(ts);
            if (watermark != BoundedOutOfOrdernessWatermarks.NONE)
            {
                broadcast(RingSlot.WATERMARK, (byte)side.ordinal(), watermark, step);
            }
        }
        return PUBLISHED;
    }

    /** Advances both inputs' watermarks in every partition; waits for room. */
    public int watermark(final long watermark, final long step)
    {
        return broadcast(RingSlot.WATERMARK, RingSlot.BOTH_SIDES, watermark, step);
    }

    /** Advances one input's watermark in every partition; waits for room. */
    public int watermark(final Side side, final long watermark, final long step)
    {
        return broadcast(RingSlot.WATERMARK, (byte)side.ordinal(), watermark, step);
    }

    /** Signals the end of input (a watermark of +infinity on both inputs, SPEC 1) to every partition. */
    public int endOfInput(final long step)
    {
        return broadcast(RingSlot.END_OF_INPUT, RingSlot.BOTH_SIDES, Long.MAX_VALUE, step);
    }

    private int broadcast(final byte type, final byte side, final long value, final long step)
    {
        if (engine.isClosed())
        {
            return CLOSED;
        }
        final long now = System.nanoTime();
        for (final RingBuffer<RingSlot> ring : rings)
        {
            final long sequence = ring.next();
            final RingSlot slot = ring.get(sequence);
            slot.type = type;
            slot.side = side;
            slot.timestamp = value;
            slot.step = step;
            slot.ingestNanos = now;
            slot.rowLength = 0;
            ring.publish(sequence);
        }
        return PUBLISHED;
    }

    private int refuse(final int code)
    {
        engine.countRefused();
        return code;
    }
}
