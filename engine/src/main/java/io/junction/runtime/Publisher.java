package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.time.BoundedOutOfOrdernessWatermarks;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

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
 * </ul>
 *
 * <p>Idle inputs ({@link EngineConfig#idleTimeout()}, off by default): publishing an event of one
 * input checks whether the other has sent nothing for longer than the timeout, and if so tells every
 * partition that it is idle, so it no longer holds back the join's watermark; its next event tells
 * every partition that it is active again. {@link #checkIdle} runs the check when nothing arrives.
 *
 * <p>Not thread safe: one publisher per producing thread, and with single-producer rings (the
 * default) one producing thread per engine.
 */
public final class Publisher
{
    /** The event is in the ring. */
    public static final int PUBLISHED = 0;
    /** The ring is full ({@code tryPublish} only); nothing was published: retry later or drop. */
    public static final int BACK_PRESSURED = -1;
    /** The row is larger than a ring slot and will never fit; nothing was published. */
    public static final int ROW_TOO_LARGE = -2;
    /** The bytes are not a well-formed binary row; nothing was published. */
    public static final int MALFORMED_ROW = -3;
    /** The engine is closed; nothing was published. */
    public static final int CLOSED = -4;

    private final JoinEngine engine;
    private final RingBuffer<RingSlot>[] rings;
    /** Null when the idle timeout is off: then publishing reads no clock. */
    private final InputIdleness idleness;
    private final KeyExtractor leftKey;
    private final KeyExtractor rightKey;
    private final int slotCapacity;
    private final RowView view = new RowView();
    private final UnsafeBuffer key;
    private RowCodec leftCodec;
    private RowCodec rightCodec;
    private UnsafeBuffer typedRow;
    private BoundedOutOfOrdernessWatermarks leftWatermarks;
    private BoundedOutOfOrdernessWatermarks rightWatermarks;

    Publisher(final JoinEngine engine, final RingBuffer<RingSlot>[] rings, final JoinSpec spec, final int slotCapacity,
        final int maxKeyLength, final InputIdleness idleness)
    {
        this.engine = engine;
        this.rings = rings;
        this.idleness = idleness;
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
     * @param delay       how far each input's watermark trails its highest timestamp, ms.
     * @param everyEvents broadcast a watermark every this many rows of an input.
     * @param everyMillis or every this many ms of that input's event time.
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
     * @param side        the row's input.
     * @param kind        its change kind.
     * @param row         holds the row's bytes ({@link io.junction.api.RowFormat}).
     * @param offset      where the row starts.
     * @param length      its length in bytes.
     * @param ts          its event time, ms.
     * @param step        its input sequence number, carried to every output it causes.
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
     * @param side        the row's input.
     * @param kind        its change kind.
     * @param row         holds the row's bytes ({@link io.junction.api.RowFormat}).
     * @param offset      where the row starts.
     * @param length      its length in bytes.
     * @param ts          its event time, ms.
     * @param step        its input sequence number, carried to every output it causes.
     * @param ingestNanos when the event entered the system ({@code System.nanoTime()}).
     * @return as {@link #publish}, or {@link #BACK_PRESSURED}.
     */
    public int tryPublish(
        final Side side, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos)
    {
        return publish(side, kind, row, offset, length, ts, step, ingestNanos, false);
    }

    /**
     * Publishes a row with the current time as its ingest time.
     *
     * @param side the row's input.
     * @param kind its change kind.
     * @param row  the row, read during the call only.
     * @param ts   its event time, ms.
     * @param step its input sequence number.
     * @return as {@link #publish(Side, ChangeKind, DirectBuffer, int, int, long, long, long)}.
     */
    public int publish(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        return publish(side, kind, row.buffer(), row.offset(), row.length(), ts, step, System.nanoTime(), true);
    }

    /**
     * Publishes a row given as objects, encoded with the side's schema (the typed layer: allocates, so
     * for users who prefer objects to flyweights, not for hot paths). Waits while the ring is full.
     *
     * @param side the row's input.
     * @param kind its change kind.
     * @param row  the row as objects.
     * @param ts   its event time, ms.
     * @param step its input sequence number.
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
        final long hash = keyLength < 0 ? 0 : KeyHash.hash(key, 0, keyLength);
        final RingBuffer<RingSlot> ring = rings[KeyHash.partition(hash, rings.length)];
        final long now = idleness == null ? 0 : idleness.now();
        if (idleness != null && idleness.onEvent(side.ordinal(), now) &&
            !broadcastTransition(RingSlot.WATERMARK, side.ordinal(), Long.MIN_VALUE, step, wait))
        {
            // Every partition must hear that the input is back (any watermark of it says so) before its
            // row: the caller retries the row.
            idleness.retry(side.ordinal(), false);
            return BACK_PRESSURED;
        }
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
        if (idleness != null)
        {
            markIdle(side.other().ordinal(), now, step, wait);
        }
        return PUBLISHED;
    }

    /**
     * Advances both inputs' watermarks in every partition (an event of both: both are active); waits for room.
     *
     * @param watermark the watermark, ms.
     * @param step      its input sequence number, carried to the output it causes.
     * @return {@link #PUBLISHED} or {@link #CLOSED}.
     */
    public int watermark(final long watermark, final long step)
    {
        if (idleness != null && !engine.isClosed())
        {
            // The watermark itself tells every partition that both inputs are active.
            final long now = idleness.now();
            idleness.onEvent(0, now);
            idleness.onEvent(1, now);
        }
        return broadcast(RingSlot.WATERMARK, RingSlot.BOTH_SIDES, watermark, step);
    }

    /**
     * Advances one input's watermark in every partition (an event of that input: it is active); waits
     * for room. With an idle timeout, then checks whether the other input has become idle.
     *
     * @param side      the input.
     * @param watermark the watermark, ms.
     * @param step      its input sequence number, carried to the output it causes.
     * @return {@link #PUBLISHED} or {@link #CLOSED}.
     */
    public int watermark(final Side side, final long watermark, final long step)
    {
        if (idleness == null || engine.isClosed())
        {
            return broadcast(RingSlot.WATERMARK, (byte)side.ordinal(), watermark, step);
        }
        final long now = idleness.now();
        idleness.onEvent(side.ordinal(), now);
        final int result = broadcast(RingSlot.WATERMARK, (byte)side.ordinal(), watermark, step);
        markIdle(side.other().ordinal(), now, step, true);
        return result;
    }

    /**
     * Checks both inputs against the idle timeout ({@link EngineConfig#idleTimeout()}) and tells every
     * partition about an input that has sent nothing for longer: it stops holding back the join's
     * watermark until its next event. Publishing a row or a watermark of one input already checks the
     * other; call this from the producing thread (as any publish) when nothing at all arrives, for
     * example from its poll loop, so that rows waiting on a silent input still close. Waits for room.
     *
     * @param step carried to the outputs that closing rows causes.
     * @return the number of inputs newly marked idle (0 when the idle timeout is off), or {@link #CLOSED}.
     */
    public int checkIdle(final long step)
    {
        if (engine.isClosed())
        {
            return CLOSED;
        }
        if (idleness == null)
        {
            return 0;
        }
        final long now = idleness.now();
        int marked = 0;
        for (int side = 0; side < 2; side++)
        {
            if (markIdle(side, now, step, true))
            {
                marked++;
            }
        }
        return marked;
    }

    /** Marks an input idle in every partition when it has just become idle; @return whether it did. */
    private boolean markIdle(final int side, final long now, final long step, final boolean wait)
    {
        if (!idleness.becameIdle(side, now))
        {
            return false;
        }
        if (!broadcastTransition(RingSlot.IDLE, side, 0, step, wait))
        {
            idleness.retry(side, true);
            return false;
        }
        return true;
    }

    /**
     * Broadcasts an idleness transition; without {@code wait}, only when every ring has room, so that
     * no partition hears it without the others.
     */
    private boolean broadcastTransition(final byte type, final int side, final long value, final long step, final boolean wait)
    {
        if (!wait)
        {
            for (final RingBuffer<RingSlot> ring : rings)
            {
                if (!ring.hasAvailableCapacity(1))
                {
                    return false;
                }
            }
        }
        return broadcast(type, (byte)side, value, step) == PUBLISHED;
    }

    /**
     * Signals the end of input (a watermark of +infinity on both inputs, SPEC 1) to every partition.
     *
     * @param step its input sequence number, carried to the output it causes.
     * @return {@link #PUBLISHED} or {@link #CLOSED}.
     */
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
