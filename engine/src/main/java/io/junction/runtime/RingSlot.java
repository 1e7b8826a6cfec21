package io.junction.runtime;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A preallocated ring entry: one input event (a row, a watermark, an idle input, or the end of input) with its row
 * bytes copied into a fixed-capacity off-heap buffer. Publishing fills the fields in place; nothing
 * is allocated per event.
 */
final class RingSlot
{
    static final byte ROW = 0;
    static final byte WATERMARK = 1;
    static final byte END_OF_INPUT = 2;
    /** The input {@link #side} has sent nothing for the idle timeout (an input coming back sends a watermark). */
    static final byte IDLE = 3;
    /** A claimed slot whose event could not be written: published so the ring moves on, passed over by the partition. */
    static final byte SKIP = 4;

    /** A checkpoint barrier ({@link #request}): every event before it is in the checkpoint, none after it. */
    static final byte CHECKPOINT = 5;
    /** Restore the partition from its newest complete checkpoint ({@link #request}). */
    static final byte RESTORE = 6;

    /** A row of a multi-way join's input {@link #side} (the input's index, 0 to 15). */
    static final byte INPUT_ROW = 7;
    /** A watermark of a multi-way join's input {@link #side} (the input's index). */
    static final byte INPUT_WATERMARK = 8;
    /** A multi-way join's input {@link #side} (the input's index) marked idle in this partition. */
    static final byte INPUT_IDLE = 9;

    /** Watermark target: both inputs. */
    static final byte BOTH_SIDES = 2;

    final UnsafeBuffer row;
    byte type;
    /** 0 left, 1 right, {@link #BOTH_SIDES} for a watermark to both; the input's index for {@link #INPUT_ROW}, {@link #INPUT_WATERMARK} and {@link #INPUT_IDLE}. */
    byte side;
    byte kind;
    int rowLength;
    /** Event time of a row, or the watermark value. */
    long timestamp;
    long step;
    /** {@code System.nanoTime()} when the event entered the engine (or was meant to, at a fixed rate). */
    long ingestNanos;
    /**
     * A row's join-key hash as the publisher routed it ({@code KeyHash.hash} under the engine's seed; 0 for a null or
     * too long key): the partition's look-ahead reads its bucket, and the operator's key index takes it as the row's
     * ({@code JoinOperator.onRow} with a key hash), so the key is hashed once per row.
     */
    long keyHash;
    /** The checkpoint or restore request of a {@link #CHECKPOINT} or {@link #RESTORE} slot; null otherwise. */
    CheckpointRequest request;

    RingSlot(final int capacity)
    {
        row = new UnsafeBuffer(ByteBuffer.allocateDirect(capacity));
    }
}
