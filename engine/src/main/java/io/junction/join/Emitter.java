package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;

/**
 * Where an operator's output goes: its result and dead-letter handlers, with the counters they move
 * (rows out, late rows, bad inputs), and the join type's padding rule per side, read once at
 * construction because the operators ask it per row.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class Emitter
{
    private final ResultHandler results;
    /** {@link #results} when it is the upsert fold, whose held line {@link #beforeFree} copies; else null. */
    private final UpsertFold fold;
    private final DeadLetterHandler deadLetters;
    private final JoinCounters counters;
    /** {@link JoinType#padsUnmatched(Side)} per side. */
    private final boolean padsLeft;
    private final boolean padsRight;
    /** {@link JoinType#emitsUnmatched(Side)} per side. */
    private final boolean emitsUnmatchedLeft;
    private final boolean emitsUnmatchedRight;

    /**
     * @param type        the join type, whose padding rule this applies.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @param counters    the operator's counters, shared with its state.
     */
    Emitter(final JoinType type, final ResultHandler results, final DeadLetterHandler deadLetters, final JoinCounters counters)
    {
        this.results = results;
        this.fold = results instanceof UpsertFold ? (UpsertFold)results : null;
        this.deadLetters = deadLetters;
        this.counters = counters;
        this.padsLeft = type.padsUnmatched(Side.LEFT);
        this.padsRight = type.padsUnmatched(Side.RIGHT);
        this.emitsUnmatchedLeft = type.emitsUnmatched(Side.LEFT);
        this.emitsUnmatchedRight = type.emitsUnmatched(Side.RIGHT);
    }

    /** @return true when unmatched rows of {@code side} are emitted null-padded: {@link JoinType#padsUnmatched(Side)}. */
    boolean padsUnmatched(final Side side)
    {
        return side == Side.LEFT ? padsLeft : padsRight;
    }

    /** @return true when a row of {@code side} without a match is emitted (padded, or alone for anti): {@link JoinType#emitsUnmatched(Side)}. */
    boolean emitsUnmatched(final Side side)
    {
        return side == Side.LEFT ? emitsUnmatchedLeft : emitsUnmatchedRight;
    }

    /**
     * A stored record whose row an emitted line of this step may point at is about to be freed (an expiry
     * or an eviction in the middle of a step): the upsert fold's line held by reference, if any, is copied
     * first ({@link UpsertFold#copyHeld}). Nothing for the retraction changelog, whose lines leave at once.
     */
    void beforeFree()
    {
        if (fold != null)
        {
            fold.copyHeld();
        }
    }

    /** Emits a pair, ordering the two rows by side: {@code row} is of {@code side}, {@code other} of the other side. */
    void pair(final ChangeKind kind, final Side side, final RowView row, final RowView other, final long ts, final long step)
    {
        counters.rowsOut++;
        if (side == Side.LEFT)
        {
            results.onResult(kind, row, other, ts, step);
        }
        else
        {
            results.onResult(kind, other, row, ts, step);
        }
    }

    /** Emits a row of {@code side} padded with nulls (or alone, for semi and anti joins). */
    void padded(final ChangeKind kind, final Side side, final RowView row, final long ts, final long step)
    {
        // A pair whose other side is null: the row stays on its side.
        pair(kind, side, row, null, ts, step);
    }

    /** Emits a pair of a window join with its window {@code [start, end)}. */
    void windowPair(final RowView left, final RowView right, final long start, final long end, final long step)
    {
        counters.rowsOut++;
        results.onWindowResult(ChangeKind.INSERT, left, right, start, end, step);
    }

    /** Emits a coGroup's computed row, with the input rows emitted with it (either null), and its window. */
    void coGroupRow(final RowView left, final RowView right, final RowView row, final long start, final long end, final long step)
    {
        counters.rowsOut++;
        results.onCoGroupResult(left, right, row, start, end, step);
    }

    /** Emits a row of a window join padded with nulls (or alone, for semi and anti joins), with its window. */
    void windowPadded(final Side side, final RowView row, final long start, final long end, final long step)
    {
        counters.rowsOut++;
        if (side == Side.LEFT)
        {
            results.onWindowResult(ChangeKind.INSERT, row, null, start, end, step);
        }
        else
        {
            results.onWindowResult(ChangeKind.INSERT, null, row, start, end, step);
        }
    }

    /** Hands a row that cannot be processed to the dead-letter handler, counted as late or as a bad input. */
    void deadLetter(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
    {
        if (reason == DeadLetterReason.LATE || reason == DeadLetterReason.LATE_WINDOW)
        {
            counters.lateRows++;
        }
        else
        {
            counters.badInputs++;
        }
        deadLetters.onDeadLetter(side, kind, row, ts, step, reason);
    }
}
