package io.junction.join;

import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.time.TimerWheel;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;

/**
 * A second timer wheel over a state's records, beside the state's own ({@link PartitionState#wheel}): the
 * temporal join's versions and the ASOF join's right rows wait in it for the watermark that makes them
 * unselectable. A record in it has the {@link #SCHEDULED} bit set in its count field, so that it can be
 * moved or taken out before it is freed early. Records link to each other by offsets from the state's base,
 * as in the state's own wheel; the wheel is heap-held and saved in the algorithm's part of heap.dat.
 * <pre>
 * schedule(r, d)  r not in the wheel: link it at d, set SCHEDULED; in it: move it to d
 * cancel(r)       r in the wheel: unlink it (before r is freed early; the bit goes with the record)
 * fired(r)        called from the expiry handler: clear SCHEDULED (the wheel has unlinked r)
 * deadline(r)     r's deadline while in the wheel, else Long.MAX_VALUE
 * </pre>
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class RecordTimers
{
    /** The bit of a record's count field that says it is linked into this wheel. */
    static final int SCHEDULED = 4;

    private final TimerWheel wheel;

    /** The state's base, for marking the records it writes ({@link io.junction.internal.state.NativeArena#written}). */
    private final long base;

    /**
     * @param config the wheel's sizing (tick shift, slots).
     * @param base   the state's base, which stored references are relative to ({@link PartitionState#base}).
     */
    RecordTimers(final StateConfig config, final long base)
    {
        this.base = base;
        this.wheel = new TimerWheel(config.tickShift(), config.wheelSlots(),
            RowDescriptor.TIMER_PREV_OFFSET, RowDescriptor.TIMER_NEXT_OFFSET, RowDescriptor.DEADLINE_OFFSET, base,
                NativeArena::written);
    }

    /**
     * Links a record into the wheel at {@code deadline}, moving it when it is already there.
     *
     * @param record   a timed record of the state.
     * @param deadline fires when the watermark passes it.
     */
    void schedule(final long record, final long deadline)
    {
        final int flags = RowDescriptor.count(record);
        if ((flags & SCHEDULED) != 0)
        {
            wheel.cancel(record);
        }
        wheel.schedule(record, deadline);
        RowDescriptor.count(base, record, flags | SCHEDULED);
    }

    /**
     * Takes a record out of the wheel when it is there, before it is freed early.
     *
     * @param record a timed record of the state.
     */
    void cancel(final long record)
    {
        if ((RowDescriptor.count(record) & SCHEDULED) != 0)
        {
            wheel.cancel(record);
        }
    }

    /**
     * Marks a record the wheel has just fired as out of it.
     *
     * @param record the record handed to the expiry handler.
     */
    void fired(final long record)
    {
        RowDescriptor.count(base, record, RowDescriptor.count(record) & ~SCHEDULED);
    }

    /**
     * @param record a timed record of the state.
     * @return its deadline while it is in the wheel, else {@link Long#MAX_VALUE}.
     */
    long deadline(final long record)
    {
        return (RowDescriptor.count(record) & SCHEDULED) != 0
            ? UnsafeApi.getLong(record + RowDescriptor.DEADLINE_OFFSET) : Long.MAX_VALUE;
    }

    /**
     * Fires every record whose deadline the watermark has passed.
     *
     * @param watermark the join's watermark.
     * @param handler   called with each record, already unlinked.
     */
    void advance(final long watermark, final TimerWheel.ExpiryHandler handler)
    {
        wheel.advance(watermark, handler);
    }

    /**
     * At most {@code budget} of the records due below {@code watermark} ({@link TimerWheel#advance(long,
     * TimerWheel.ExpiryHandler, int)}).
     *
     * @return whether none is left.
     */
    boolean advance(final long watermark, final TimerWheel.ExpiryHandler handler, final int budget)
    {
        return wheel.advance(watermark, handler, budget);
    }

    /** @return the records in the wheel. */
    long pending()
    {
        return wheel.pending();
    }

    /**
     * Writes the wheel (durable mode).
     *
     * @param out the heap image.
     */
    void save(final ByteBuffer out)
    {
        wheel.save(out);
    }

    /**
     * Reads what {@link #save} wrote.
     *
     * @param in the heap image.
     */
    void load(final ByteBuffer in)
    {
        wheel.load(in);
    }
}
