package io.junction.runtime;

import com.lmax.disruptor.RingBuffer;
import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.join.StateConfig;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import org.agrona.DirectBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Feeds events into a {@link JoinEngine}: routes each row to the partition of its join key's hash
 * and copies it into a preallocated ring slot; broadcasts watermarks and the end of input to every
 * partition. Allocation-free. A producer whose input is partitioned already (a Kafka topic) names
 * the partition of each row instead ({@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)})
 * and sends each partition its own watermarks and idleness ({@link #watermark(int, Side, long, long)},
 * {@link #idle(int, Side, long)}).
 *
 * <p>Results are return codes, not exceptions (the caller decides what a full ring means):
 * <ul>
 *   <li>{@link #PUBLISHED}: the event is in the ring.</li>
 *   <li>{@link #BACK_PRESSURED}: the ring is full ({@code tryPublish} only); retry later or drop.</li>
 *   <li>{@link #ROW_TOO_LARGE}: the row exceeds the slot capacity; it will never fit, count or dead-letter it.</li>
 *   <li>{@link #MALFORMED_ROW}: the bytes are not a well-formed row; nothing was published.</li>
 *   <li>{@link #SCHEMA_MISMATCH}: a well-formed row that does not fit its side's schema: more field
 *       slots than the schema has fields (whatever the schema), or with a typed schema
 *       ({@link io.junction.api.Schema#of(io.junction.api.Field...)}) a value of another type than its
 *       field's, or a required field absent or null; nothing was published. Its dead-letter reason is
 *       {@link io.junction.api.DeadLetterReason#SCHEMA_MISMATCH}.</li>
 *   <li>{@link #CLOSED}: the engine is closed.</li>
 *   <li>{@link #INVALID_ARGUMENT}: the arguments do not describe a row inside the caller's buffer (a
 *       null side, kind or buffer, a negative offset or length, or {@code offset + length} past the
 *       buffer's capacity); nothing was read or published.</li>
 *   <li>{@link #PARTITION_FAILED}: the row's partition (or, for a watermark, one of the partitions)
 *       has died (see {@link PartitionFailedException}); the event did not reach it.</li>
 *   <li>{@link #STATE_FULL}: with the {@code BACK_PRESSURE} full policy, the row's partition is at its
 *       live-row or byte limit ({@code tryPublish} only; {@code publish} waits until it is not):
 *       retry once watermarks or retractions have made room. Retractions are never held back.</li>
 * </ul>
 * Refused rows ({@code ROW_TOO_LARGE}, {@code MALFORMED_ROW}, {@code SCHEMA_MISMATCH}, {@code INVALID_ARGUMENT}) are also
 * counted in {@link JoinEngine#refusedRows()}. Every argument is checked before a ring slot is
 * claimed, with the publisher's own bounds checks, so a bad offset or length is refused even when
 * Agrona's are off ({@code -Dagrona.disable.bounds.checks=true}); a claimed slot is always published.
 *
 * <p>Not thread safe: a publisher belongs to the first thread that publishes through it, and with
 * single-producer rings (the default) the engine belongs to the first thread that publishes to it.
 * Publishing from another thread throws {@link IllegalStateException} before anything is claimed:
 * that is a programming error (use one publisher per thread and
 * {@link EngineConfig#withMultiProducer(boolean) multiProducer}), not a condition to handle.
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
    /**
     * With the {@code BACK_PRESSURE} full policy, the row's partition is at its live-row or byte limit
     * ({@code tryPublish} only): retry once watermarks or retractions have made room.
     */
    public static final int STATE_FULL = -5;
    /** The arguments do not describe a row inside the caller's buffer: a bug in the caller, nothing was read. */
    public static final int INVALID_ARGUMENT = -6;
    /** The partition's thread died: the engine can no longer process its rows; close it and start anew. */
    public static final int PARTITION_FAILED = -7;
    /**
     * The row does not fit its side's schema: more field slots than fields, or (typed schemas) a mistyped
     * value or a missing required field; nothing was published
     * ({@link io.junction.api.DeadLetterReason#SCHEMA_MISMATCH}).
     */
    public static final int SCHEMA_MISMATCH = -8;
    /**
     * The row's expansion failed (docs/SEMANTICS.md, "Row expansion": a field of the wrong type, a new field
     * the row already has, a throwing table function, more rows than {@code maxExpansion}); nothing of it was
     * published. {@link #lastRefusal()} says why.
     */
    public static final int EXPANSION_FAILED = -9;

    private static final String INVALID_ARGUMENT_REASON = "the arguments do not describe a row inside the buffer " +
        "(a null side, kind, buffer or row, or an offset, length, input or partition out of range)";

    /** Rows between two looks at the clock for a time-based checkpoint interval. */
    public static final int CHECKPOINT_CLOCK_EVERY = 256;

    private static final VarHandle OWNER;

    static
    {
        try
        {
            OWNER = MethodHandles.lookup().findVarHandle(Publisher.class, "owner", Thread.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final JoinEngine engine;
    private final RingWriter rings;
    /** The key, its hash and the partition, for every input (SEMANTICS 10: a multi-way join's by the common key). */
    private final Router router;
    private final GeneratedWatermarks watermarks;
    /** Null when the idle timeout is off. */
    private final IdlenessBroadcast idleness;
    private final TypedRows typed;
    private final Schema leftSchema;
    private final Schema rightSchema;
    /** The fields each side reads as scalars: an array there is a bad input. */
    private final ScalarOperands leftOperands;
    private final ScalarOperands rightOperands;
    /** Null when the join expands no rows. */
    private final ExpandingPublish expanding;
    private final int slotCapacity;
    private final RowView view = new RowView();
    /** Why the latest refused publish was refused ({@link #lastRefusal()}): reused, written on refusal only. */
    private final StringBuilder refusal = new StringBuilder(128);
    private Thread owner;
    /** Set by the first per-partition call: from then on the engine-wide idleness and generators are refused. */
    private boolean perPartition;
    /** The private publish's target when the key hash picks the partition. */
    private static final int BY_KEY = Router.BY_KEY;

    Publisher(final JoinEngine engine, final RingBuffer<RingSlot>[] rings, final JoinSpec spec, final int slotCapacity,
        final StateConfig state, final PartitionMetrics[] metrics, final InputIdleness idleness,
        final IntervalCheckpoints checkpoints)
    {
        this.engine = engine;
        this.rings = new RingWriter(engine, rings);
        this.watermarks = new GeneratedWatermarks(this.rings);
        this.idleness = idleness == null ? null : new IdlenessBroadcast(idleness, this.rings, watermarks);
        this.router = new Router(spec, state.maxKeyLength(), state.hashSeed(), this.rings, watermarks, this.idleness,
            new PartitionRoom(state, metrics, this.rings, this.idleness),
            IntervalCheckpointTrigger.of(engine.config(), checkpoints));
        this.typed = new TypedRows(spec, slotCapacity);
        this.leftSchema = spec.leftSchema();
        this.rightSchema = spec.rightSchema();
        this.leftOperands = spec.multi() == null ? ScalarOperands.of(spec, Side.LEFT) : null;
        this.rightOperands = spec.multi() == null ? ScalarOperands.of(spec, Side.RIGHT) : null;
        this.expanding = ExpandingPublish.of(spec, slotCapacity, router, engine.expansionCounters());
        this.slotCapacity = slotCapacity;
    }

    /**
     * Generates watermarks for both inputs from the rows this publisher publishes, for producers that
     * have none of their own: each input's watermark trails its highest timestamp by {@code delay} ms
     * and is broadcast every {@code everyEvents} rows or {@code everyMillis} ms of event time.
     *
     * @param delay       how far each input's watermark trails its highest timestamp, ms.
     * @param everyEvents broadcast after this many rows of an input.
     * @param everyMillis or after this much event time of an input, ms.
     * @return this publisher.
     * @throws IllegalStateException when this publisher has published to named partitions
     *         ({@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)}).
     */
    public Publisher generateWatermarks(final long delay, final long everyEvents, final long everyMillis)
    {
        if (perPartition)
        {
            throw new IllegalStateException("generateWatermarks is engine-wide: it cannot be mixed with per-partition " +
                "publish, watermark and idle calls");
        }
        watermarks.generate(delay, everyEvents, everyMillis);
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
     * @return {@link #PUBLISHED}, {@link #ROW_TOO_LARGE}, {@link #MALFORMED_ROW}, {@link #SCHEMA_MISMATCH}, {@link #INVALID_ARGUMENT},
     *         {@link #PARTITION_FAILED} or {@link #CLOSED}.
     * @throws IllegalStateException when called from a thread that does not own this publisher or,
     *         on a single-producer engine, the engine.
     */
    public int publish(
        final Side side, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos)
    {
        return publish(side, kind, row, offset, length, ts, step, ingestNanos, true, BY_KEY);
    }

    /**
     * Publishes a row unless its partition's ring is full. Never blocks: a watermark generated by
     * {@link #generateWatermarks} that finds a ring full is sent with the next event instead.
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
        return publish(side, kind, row, offset, length, ts, step, ingestNanos, false, BY_KEY);
    }

    /**
     * Publishes a row to a partition the caller names instead of the one its key hash picks, waiting
     * while that partition's ring is full: for a producer whose input is partitioned already (a Kafka
     * topic partition {@code p} feeds engine partition {@code p}). The key hash still keys the
     * partition's index, so rows of one key must always go to the same partition. Per-partition calls
     * ({@code publish/tryPublish(partition, ...)}, {@link #watermark(int, Side, long, long)},
     * {@link #idle(int, Side, long)}) cannot be mixed with the engine's idle timeout
     * ({@link EngineConfig#withIdleTimeout}) or {@link #generateWatermarks}, which are engine-wide:
     * that is refused with {@link IllegalStateException}.
     *
     * @param partition   the partition, in [0, partitions).
     * @param side        the row's input.
     * @param kind        its change kind.
     * @param row         holds the row's bytes ({@link io.junction.api.RowFormat}).
     * @param offset      where the row starts.
     * @param length      its length in bytes.
     * @param ts          its event time, ms.
     * @param step        its input sequence number, carried to every output it causes.
     * @param ingestNanos when the event entered the system ({@code System.nanoTime()}).
     * @return as {@link #publish(Side, ChangeKind, DirectBuffer, int, int, long, long, long)};
     *         {@link #INVALID_ARGUMENT} also when the partition is out of range (nothing claimed).
     * @throws IllegalStateException when called from a thread that does not own this publisher (or the
     *         engine), or with the idle timeout or generated watermarks on.
     */
    public int publish(
        final int partition, final Side side, final ChangeKind kind, final DirectBuffer row, final int offset,
        final int length, final long ts, final long step, final long ingestNanos)
    {
        return publish(side, kind, row, offset, length, ts, step, ingestNanos, true, explicit(partition));
    }

    /**
     * Publishes a row to a named partition unless its ring is full; otherwise as
     * {@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)}.
     *
     * @param partition   the partition, in [0, partitions).
     * @param side        the row's input.
     * @param kind        its change kind.
     * @param row         holds the row's bytes ({@link io.junction.api.RowFormat}).
     * @param offset      where the row starts.
     * @param length      its length in bytes.
     * @param ts          its event time, ms.
     * @param step        its input sequence number, carried to every output it causes.
     * @param ingestNanos when the event entered the system ({@code System.nanoTime()}).
     * @return as {@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)}, or
     *         {@link #BACK_PRESSURED}.
     * @throws IllegalStateException as {@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)}.
     */
    public int tryPublish(
        final int partition, final Side side, final ChangeKind kind, final DirectBuffer row, final int offset,
        final int length, final long ts, final long step, final long ingestNanos)
    {
        return publish(side, kind, row, offset, length, ts, step, ingestNanos, false, explicit(partition));
    }

    /**
     * Advances one input's watermark in one partition only (the others do not hear it); waits for room.
     * The input is active again in that partition. Not with the idle timeout or generated watermarks
     * (see {@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)}).
     *
     * @param partition the partition, in [0, partitions).
     * @param side      the input.
     * @param watermark the watermark, ms.
     * @param step      its input sequence number, carried to the output it causes.
     * @return {@link #PUBLISHED}, {@link #CLOSED}, {@link #INVALID_ARGUMENT} (a null side or a partition out
     *         of range: nothing sent) or {@link #PARTITION_FAILED}.
     * @throws IllegalStateException when called from a thread that does not own this publisher (or the
     *         engine), or with the idle timeout or generated watermarks on.
     */
    public int watermark(final int partition, final Side side, final long watermark, final long step)
    {
        return sendTo(partition, side != null, RingSlot.WATERMARK, side == null ? 0 : (byte)side.ordinal(), watermark, step);
    }

    /**
     * Marks one input idle in one partition, as the engine's idle timeout does in every partition: the
     * input stops holding back that partition's join watermark until its next row or watermark there.
     * Waits for room. Not with the idle timeout or generated watermarks (see
     * {@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)}).
     *
     * @param partition the partition, in [0, partitions).
     * @param side      the input.
     * @param step      carried to the outputs that closing rows causes.
     * @return as {@link #watermark(int, Side, long, long)}.
     * @throws IllegalStateException as {@link #watermark(int, Side, long, long)}.
     */
    public int idle(final int partition, final Side side, final long step)
    {
        return sendTo(partition, side != null, RingSlot.IDLE, side == null ? 0 : (byte)side.ordinal(), 0, step);
    }

    /** An explicit partition as the private publish takes it: out of range is kept out of range. */
    private int explicit(final int partition)
    {
        return partition < 0 ? Integer.MAX_VALUE : partition;
    }

    /**
     * Sends a watermark or idleness of one input (a side of the binary kinds) to one partition.
     *
     * @param inputKnown whether the input is one of the join's.
     */
    private int sendTo(
        final int partition, final boolean inputKnown, final byte type, final byte input, final long value, final long step)
    {
        checkOwner();
        checkPerPartition();
        if (engine.isClosed())
        {
            return CLOSED;
        }
        if (!inputKnown || partition < 0 || partition >= rings.partitions())
        {
            return INVALID_ARGUMENT;
        }
        final long sequence = rings.claimLive(partition, true);
        if (sequence < 0)
        {
            return (int)sequence;
        }
        rings.fill(partition, sequence, type, input, value, step, System.nanoTime());
        return PUBLISHED;
    }

    /** Per-partition calls and the engine-wide idleness or generated watermarks would contradict each other. */
    private void checkPerPartition()
    {
        perPartition = true;
        if (idleness != null || watermarks.isOn())
        {
            throw new IllegalStateException("per-partition publish, watermark and idle cannot be mixed with the engine's " +
                "idle timeout (" + EngineConfig.IDLE_TIMEOUT_PROP_NAME + ") or generateWatermarks, which are engine-wide: " +
                "turn those off and send each partition's watermarks and idleness yourself");
        }
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
        if (row == null)
        {
            return publish(side, kind, null, 0, 0, ts, step, System.nanoTime(), true, BY_KEY);
        }
        return publish(side, kind, row.buffer(), row.offset(), row.length(), ts, step, System.nanoTime(), true, BY_KEY);
    }

    /**
     * Publishes a row given as objects, encoded with the side's schema (the typed layer: allocates, so
     * for users who prefer objects to flyweights, not for hot paths). Waits while the ring is full.
     *
     * @param side the row's input.
     * @param kind its change kind.
     * @param row  the row as objects; every field name must be in the side's schema.
     * @param ts   its event time, ms.
     * @param step its input sequence number.
     * @return as {@link #publish(Side, ChangeKind, DirectBuffer, int, int, long, long, long)}.
     */
    public int publish(final Side side, final ChangeKind kind, final Row row, final long ts, final long step)
    {
        checkOwner();
        if (engine.isClosed())
        {
            // As the binary path: a closed engine refuses nothing, it is closed.
            return CLOSED;
        }
        if (side == null || row == null)
        {
            return refuse(INVALID_ARGUMENT, INVALID_ARGUMENT_REASON);
        }
        final int length = encode(typed.codec(side), row);
        if (length < 0)
        {
            return length;
        }
        return publish(side, kind, typed.buffer(), 0, length, ts, step, System.nanoTime(), true, BY_KEY);
    }

    private int publish(
        final Side side, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos, final boolean wait, final int target)
    {
        checkOwner();
        if (target != BY_KEY)
        {
            checkPerPartition();
        }
        if (engine.isClosed())
        {
            return CLOSED;
        }
        final int refused = checkRow(side != null, kind, row, offset, length, target);
        if (refused != PUBLISHED)
        {
            return refused;
        }
        final Schema schema = side == Side.LEFT ? leftSchema : rightSchema;
        if (!schema.conforms(view))
        {
            refusal.setLength(0);
            schema.appendMismatch(view, refusal);
            return refuse(SCHEMA_MISMATCH);
        }
        if ((side == Side.LEFT ? leftOperands : rightOperands).holdsArray(view, refusal))
        {
            return refuse(SCHEMA_MISMATCH);
        }
        if (expanding != null && expanding.expands(side.ordinal()))
        {
            final int code = expanding.publish(side, kind, view, ts, step, ingestNanos, wait, target, refusal);
            return code == EXPANSION_FAILED || code == ROW_TOO_LARGE ? refuse(code) : code;
        }
        return router.publish(side, kind, view, row, offset, length, ts, step, ingestNanos, wait, target);
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
        // Before the shared idleness is touched: a refused call must change nothing.
        checkOwner();
        if (idleness != null && !engine.isClosed())
        {
            // The watermark itself tells every partition that both inputs are active.
            idleness.onWatermarkOfBoth();
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
        checkOwner();
        if (side == null)
        {
            return INVALID_ARGUMENT;
        }
        if (idleness == null || engine.isClosed())
        {
            return broadcast(RingSlot.WATERMARK, (byte)side.ordinal(), watermark, step);
        }
        return idleness.watermark(side, watermark, step);
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
        checkOwner();
        if (engine.isClosed())
        {
            return CLOSED;
        }
        if (idleness == null)
        {
            return 0;
        }
        return idleness.checkIdle(step);
    }

    /**
     * Signals the end of input (a watermark of +infinity on both inputs, SEMANTICS 1) to every partition.
     *
     * @param step its input sequence number, carried to the output it causes.
     * @return {@link #PUBLISHED} or {@link #CLOSED}.
     */
    public int endOfInput(final long step)
    {
        return broadcast(RingSlot.END_OF_INPUT, RingSlot.BOTH_SIDES, Long.MAX_VALUE, step);
    }

    /**
     * Sends an event to every partition that is alive.
     *
     * @return {@link #PUBLISHED}, {@link #CLOSED}, or {@link #PARTITION_FAILED} when a partition is dead
     *         (the others got the event).
     */
    private int broadcast(final byte type, final byte side, final long value, final long step)
    {
        checkOwner();
        return watermarks.broadcast(type, side, value, step);
    }

    /**
     * One compare per call on the hot path; the first call of a thread records it as the owner, and
     * with single-producer rings claims the engine for it too.
     */
    private void checkOwner()
    {
        final Thread current = Thread.currentThread();
        if (current != owner)
        {
            claimOwner(current);
        }
    }

    private void claimOwner(final Thread current)
    {
        // The hot path reads the field plainly: only its owner writes it, and a thread that sees a
        // stale null comes here, where the exchange sees the owner.
        final Thread previous = (Thread)OWNER.compareAndExchange(this, (Thread)null, current);
        if (previous != null)
        {
            throw new IllegalStateException("publisher used from thread " + current.getName() + ", owned by " +
                previous.getName() + ": a publisher is not thread safe; give each producing thread its own" +
                (engine.config().multiProducer() ? "" : " and configure multiProducer"));
        }
        try
        {
            engine.claimProducer(current);
        }
        catch (final IllegalStateException e)
        {
            OWNER.setVolatile(this, (Thread)null);
            throw e;
        }
    }

    /**
     * Publishes a row of input {@code input} of a multi-way join ({@code JoinKind.MULTI}, SEMANTICS 10), routed
     * by its key (the common key: equal keys of every input reach one partition); waits for room. A row
     * whose key is null routes as the key hash 0 (it matches nothing, so any partition is right). The input
     * idleness and the watermark generators of the binary kinds do not apply to these rows.
     *
     * @param input       the input's index in the spec.
     * @param kind        the row's change kind.
     * @param row         the buffer holding the encoded row.
     * @param offset      where the row starts.
     * @param length      its length in bytes.
     * @param ts          its event time, ms.
     * @param step        its input sequence number.
     * @param ingestNanos {@code System.nanoTime()} when it entered the engine.
     * @return {@link #PUBLISHED}, {@link #ROW_TOO_LARGE}, {@link #MALFORMED_ROW}, {@link #CLOSED},
     *         {@link #INVALID_ARGUMENT} (not a multi-way join, an input out of range, a bad buffer range) or
     *         {@link #PARTITION_FAILED}.
     */
    public int publishInput(
        final int input, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos)
    {
        return publishInput(input, kind, row, offset, length, ts, step, ingestNanos, BY_KEY);
    }

    /**
     * Publishes a row of input {@code input} of a multi-way join to a partition the caller names instead of
     * the one its key hash picks, waiting for room: for a producer whose inputs are partitioned already (the
     * Kafka runner: partition {@code p} of every input topic feeds engine partition {@code p}). The key hash
     * still keys the partition's state, so rows of one common key must always go to the same partition. As
     * the binary kinds' {@link #publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)},
     * per-partition calls cannot be mixed with the engine's idle timeout or generated watermarks.
     *
     * @param partition   the partition, in [0, partitions).
     * @param input       the input's index in the spec.
     * @param kind        the row's change kind.
     * @param row         the buffer holding the encoded row.
     * @param offset      where the row starts.
     * @param length      its length in bytes.
     * @param ts          its event time, ms.
     * @param step        its input sequence number.
     * @param ingestNanos {@code System.nanoTime()} when it entered the engine.
     * @return as {@link #publishInput(int, ChangeKind, DirectBuffer, int, int, long, long, long)};
     *         {@link #INVALID_ARGUMENT} also for a partition out of range (nothing claimed).
     * @throws IllegalStateException when called from a thread that does not own this publisher (or the
     *         engine), or with the idle timeout or generated watermarks on.
     */
    public int publishInput(
        final int partition, final int input, final ChangeKind kind, final DirectBuffer row, final int offset,
        final int length, final long ts, final long step, final long ingestNanos)
    {
        checkPerPartition();
        return publishInput(input, kind, row, offset, length, ts, step, ingestNanos, explicit(partition));
    }

    /**
     * Advances the watermark of input {@code input} of a multi-way join in one partition only; waits for
     * room. The input is active again in that partition. Not with the idle timeout or generated watermarks.
     *
     * @param partition the partition, in [0, partitions).
     * @param input     the input's index in the spec.
     * @param watermark the watermark, ms.
     * @param step      its input sequence number, carried to the output it causes.
     * @return {@link #PUBLISHED}, {@link #CLOSED}, {@link #INVALID_ARGUMENT} (not a multi-way join, an input or
     *         partition out of range: nothing sent) or {@link #PARTITION_FAILED}.
     * @throws IllegalStateException as {@link #watermark(int, Side, long, long)}.
     */
    public int watermarkInput(final int partition, final int input, final long watermark, final long step)
    {
        return sendTo(partition, router.isMultiInput(input), RingSlot.INPUT_WATERMARK, (byte)input, watermark, step);
    }

    /**
     * Marks input {@code input} of a multi-way join idle in one partition: it stops holding back that
     * partition's join watermark until its next row or watermark there. Waits for room. Not with the idle
     * timeout or generated watermarks.
     *
     * @param partition the partition, in [0, partitions).
     * @param input     the input's index in the spec.
     * @param step      carried to the outputs that closing rows causes.
     * @return as {@link #watermarkInput(int, int, long, long)}.
     * @throws IllegalStateException as {@link #watermark(int, Side, long, long)}.
     */
    public int idleInput(final int partition, final int input, final long step)
    {
        return sendTo(partition, router.isMultiInput(input), RingSlot.INPUT_IDLE, (byte)input, 0, step);
    }

    private int publishInput(
        final int input, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final long ts, final long step, final long ingestNanos, final int target)
    {
        checkOwner();
        if (engine.isClosed())
        {
            return CLOSED;
        }
        final int refused = checkRow(router.isMultiInput(input), kind, row, offset, length, target);
        if (refused != PUBLISHED)
        {
            return refused;
        }
        if (expanding != null && expanding.expands(input))
        {
            final int code = expanding.publishInput(input, kind, view, ts, step, ingestNanos, target, refusal);
            return code == EXPANSION_FAILED || code == ROW_TOO_LARGE ? refuse(code) : code;
        }
        return router.publishInput(input, kind, view, row, offset, length, ts, step, ingestNanos, target);
    }

    /**
     * Publishes a row of input {@code input} of a multi-way join given as objects, encoded with that input's
     * schema (the typed layer: allocates, not for hot paths). Waits while the ring is full.
     *
     * @param input the input's index in the spec.
     * @param kind  its change kind.
     * @param row   the row as objects; every field name must be in the input's schema.
     * @param ts    its event time, ms.
     * @param step  its input sequence number.
     * @return as {@link #publishInput(int, ChangeKind, DirectBuffer, int, int, long, long, long)}.
     */
    public int publishInput(final int input, final ChangeKind kind, final Row row, final long ts, final long step)
    {
        checkOwner();
        if (engine.isClosed())
        {
            return CLOSED;
        }
        if (!router.isMultiInput(input) || row == null)
        {
            return refuse(INVALID_ARGUMENT, INVALID_ARGUMENT_REASON);
        }
        final int length = encode(typed.codec(input), row);
        if (length < 0)
        {
            return length;
        }
        return publishInput(input, kind, typed.buffer(), 0, length, ts, step, System.nanoTime());
    }

    /**
     * Advances the watermark of input {@code input} of a multi-way join in every partition; waits for room.
     * The join's watermark is the minimum over its inputs ({@link #watermark(long, long)} advances them all).
     *
     * @param input     the input's index in the spec.
     * @param watermark the watermark, ms.
     * @param step      its input sequence number, carried to the output it causes.
     * @return {@link #PUBLISHED}, {@link #CLOSED}, {@link #INVALID_ARGUMENT} (not a multi-way join, an input
     *         out of range) or {@link #PARTITION_FAILED}.
     */
    public int watermarkInput(final int input, final long watermark, final long step)
    {
        checkOwner();
        if (!router.isMultiInput(input))
        {
            return INVALID_ARGUMENT;
        }
        return broadcast(RingSlot.INPUT_WATERMARK, (byte)input, watermark, step);
    }

    /**
     * Encodes a row given as objects into the typed layer's buffer.
     *
     * @return its length, or the refusal's code ({@link #SCHEMA_MISMATCH}, {@link #ROW_TOO_LARGE}).
     */
    private int encode(final RowCodec codec, final Row row)
    {
        final String unknown = codec.unknownField(row);
        if (unknown != null)
        {
            // Bad input answered with a code, as every other: the codec itself would throw.
            return refuse(SCHEMA_MISMATCH, unknown);
        }
        final int length = codec.encode(row, typed.buffer(), 0, slotCapacity);
        if (length < 0)
        {
            return refuse(ROW_TOO_LARGE, "the row does not fit a ring slot of " + slotCapacity + " bytes");
        }
        return length;
    }

    /**
     * The checks every binary row passes, of either vocabulary, before anything is claimed: its arguments,
     * its size and its format. Our own bounds checks, before the row is read: Agrona's may be switched off,
     * and then a bad offset would read (and copy into the ring) memory that is not the caller's.
     *
     * @param inputKnown whether the row's side or input is one of the join's.
     * @return {@link #PUBLISHED} when the row passed ({@link #view} then wraps it), or the refusal's code.
     */
    private int checkRow(
        final boolean inputKnown, final ChangeKind kind, final DirectBuffer row, final int offset, final int length,
        final int target)
    {
        if (!inputKnown || kind == null || row == null || offset < 0 || length < 0 || length > row.capacity() - offset ||
            target >= rings.partitions())
        {
            return refuse(INVALID_ARGUMENT, INVALID_ARGUMENT_REASON);
        }
        if (length > slotCapacity)
        {
            return refuseTooLarge(length);
        }
        view.wrap(row, offset, length);
        final String malformed = view.validate();
        if (malformed != null)
        {
            return refuse(MALFORMED_ROW, malformed);
        }
        return PUBLISHED;
    }

    /**
     * Why the latest publish of this publisher that returned {@link #ROW_TOO_LARGE}, {@link #MALFORMED_ROW},
     * {@link #SCHEMA_MISMATCH} or {@link #INVALID_ARGUMENT} was refused: for a schema mismatch the field and
     * what came ({@code field 'amount' is declared double but the row has a string}, {@code required field
     * 'order_id' is missing}, {@code field 'amout' is not in the schema (did you mean 'amount'?)},
     * {@code the row has 5 fields, the schema 3}); empty before the first refusal. Read it on the publishing
     * thread right after the refused call: it is one reused buffer, rewritten by the next refusal (an
     * accepted publish leaves it as it was, so the accept path writes nothing). A sentence for logs and
     * dead-letter texts, not a code to branch on: the return code is that.
     *
     * @return the reason, valid until the next refused publish.
     */
    public CharSequence lastRefusal()
    {
        return refusal;
    }

    private int refuseTooLarge(final int length)
    {
        refusal.setLength(0);
        refusal.append("the row is ").append(length).append(" bytes, a ring slot holds ").append(slotCapacity);
        return refuse(ROW_TOO_LARGE);
    }

    private int refuse(final int code, final String reason)
    {
        refusal.setLength(0);
        refusal.append(reason);
        return refuse(code);
    }

    private int refuse(final int code)
    {
        engine.countRefused();
        return code;
    }
}
