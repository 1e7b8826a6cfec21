package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CoGroupCollector;
import io.junction.api.CoGroupFunction;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowCursor;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.CoGroupStageDescriptor;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
import org.agrona.ErrorHandler;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

import static io.junction.internal.state.CoGroupStageDescriptor.NO_ROW;
import static io.junction.join.PartitionState.sideOf;
import static io.junction.join.TimeMath.saturatedAdd;
import static io.junction.join.WindowBuckets.NEVER_MATCHES;
import static io.junction.join.WindowBuckets.isFired;
import static io.junction.join.WindowBuckets.timerDeadline;

/**
 * The window coGroup (SEMANTICS 6.4): what a window join's {@link WindowBuckets} do instead of joining pairs when its spec has a
 * {@link CoGroupFunction}. The windows, their state, firing and lateness are the window join's; this
 * takes over where a fired window's rows of one key are emitted.
 * <pre>
 * group:   the key's rows of the window in arrival order per side (the bucket's row groups keep arrival
 *          order; the key grouping and the session clustering here are stable), copied into
 *          {@link #group} as [matchable left | matchable right | never matching]; one call for the
 *          matchable rows, one call alone for each never-matching row (a session row that failed its
 *          pre-filter), each if the join type calls a group of that shape.
 * call:    the cursors are wrapped over {@link #group}; what the function collects is staged (input rows
 *          as their record addresses, which stay valid until the rows are removed after the call;
 *          computed rows copied into {@link #rowBuffer}; the stage's entries are {@link CoGroupStageDescriptor}'s)
 *          and emitted only when it returns. A throw emits
 *          nothing, dead-letters the call's rows COGROUP_FAILED and is counted and reported.
 * </pre>
 * Allocation-free once its scratch arrays and buffers have grown to the largest group and output.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class CoGroupWindows implements CoGroupCollector
{
    private final CoGroupFunction function;
    private final int outputSlots;
    private final boolean needsLeft;
    private final boolean needsRight;
    private final PartitionState state;
    private final Emitter emit;
    private final JoinCounters counters;
    /** Where the function's exception goes: the runtime's guarded handler; null when driven directly. */
    private final ErrorHandler errors;

    private final GroupCursor left = new GroupCursor();
    private final GroupCursor right = new GroupCursor();
    private final RowWriter writer = new RowWriter();
    private final ExpandableArrayBuffer rowBuffer = new ExpandableArrayBuffer(2 * RowFormat.MAX_ROW_LENGTH);
    private final RowView outLeft = new RowView();
    private final UnsafeBuffer outLeftBuffer = new UnsafeBuffer(0, 0);
    private final RowView outRight = new RowView();
    private final UnsafeBuffer outRightBuffer = new UnsafeBuffer(0, 0);
    private final RowView outRow = new RowView();
    private final RowView failedRow = new RowView();
    private final UnsafeBuffer failedBuffer = new UnsafeBuffer(0, 0);
    /** One group, as the cursors read it. */
    private long[] group = new long[64];
    /** A session cluster's records in arrival order. */
    private long[] cluster = new long[64];
    /** Positions into the fired bucket's records, sorted to cluster sessions. */
    private long[] order = new long[64];
    /** Records of other keys while a bucket's rows are grouped by key (hash collisions only). */
    private long[] others = new long[16];
    /** What the call collected, {@link CoGroupStageDescriptor#WIDTH} longs an entry. */
    private long[] staged = new long[CoGroupStageDescriptor.length(16)];
    private int stagedCount;
    private int rowBytes;
    private int rowStart = -1;
    private boolean active;

    /**
     * @param spec     a window coGroup.
     * @param state    the window join's state.
     * @param emit     its emitter.
     * @param counters its counters (this counts the function's failures).
     * @param errors   where the function's exception is reported (the runtime's guarded handler), handed in; null
     *                 to only count it.
     */
    CoGroupWindows(
        final JoinSpec spec, final PartitionState state, final Emitter emit, final JoinCounters counters,
        final ErrorHandler errors)
    {
        this.function = spec.coGroup();
        final Schema output = spec.coGroupSchema();
        this.outputSlots = output == null ? -1 : output.size();
        final JoinType type = spec.type();
        this.needsLeft = type == JoinType.INNER || type == JoinType.LEFT;
        this.needsRight = type == JoinType.INNER || type == JoinType.RIGHT;
        this.state = state;
        this.emit = emit;
        this.counters = counters;
        this.errors = errors;
    }

    /**
     * Groups {@code records[groupStart, n)} by the key of {@code records[groupStart]}, keeping the order
     * of both parts (distinct keys share a bucket only on a hash collision).
     *
     * @return the end of the key's group, which starts at {@code groupStart}.
     */
    int groupByKey(final long[] records, final int groupStart, final int n)
    {
        final long first = records[groupStart];
        int end = groupStart + 1;
        while (end < n && RowStore.keyEquals(first, records[end]))
        {
            end++;
        }
        if (end == n)
        {
            return n;
        }
        int kept = end;
        int moved = 0;
        for (int j = end; j < n; j++)
        {
            final long record = records[j];
            if (RowStore.keyEquals(first, record))
            {
                records[kept++] = record;
            }
            else
            {
                if (moved == others.length)
                {
                    others = Arrays.copyOf(others, moved * 2);
                }
                others[moved++] = record;
            }
        }
        System.arraycopy(others, 0, records, kept, moved);
        return kept;
    }

    /**
     * A fired tumbling or sliding window, or a due session: calls the function for the rows
     * {@code records[from, to)} of one key (in arrival order per side) and removes them from state.
     */
    void fireWindow(final long[] records, final int from, final int to, final long start, final long end, final long step)
    {
        final int n = to - from;
        if (n > group.length)
        {
            group = Arrays.copyOf(group, Math.max(n, group.length * 2));
        }
        int g = 0;
        for (int i = from; i < to; i++)
        {
            final long record = records[i];
            if (RowDescriptor.side(record) == 0 && RowDescriptor.count(record) != NEVER_MATCHES)
            {
                group[g++] = record;
            }
        }
        final int leftEnd = g;
        for (int i = from; i < to; i++)
        {
            final long record = records[i];
            if (RowDescriptor.side(record) != 0 && RowDescriptor.count(record) != NEVER_MATCHES)
            {
                group[g++] = record;
            }
        }
        final int rightEnd = g;
        for (int i = from; i < to; i++)
        {
            final long record = records[i];
            if (RowDescriptor.count(record) == NEVER_MATCHES)
            {
                group[g++] = record;
            }
        }
        if (rightEnd > 0)
        {
            call(0, leftEnd, rightEnd, start, end, step);
        }
        for (int i = rightEnd; i < n; i++)
        {
            callAlone(i, start, end, step);
        }
        for (int i = 0; i < n; i++)
        {
            state.expireKeepingBucket(group[i]);
        }
    }

    /**
     * A row alone in its window (null key; in tumbling and sliding windows also a failed pre-filter)
     * whose window fired: one call with it alone. The caller removes it.
     */
    void fireLone(final long record, final long start, final long end, final long step)
    {
        group[0] = record;
        callAlone(0, start, end, step);
    }

    /**
     * The rows {@code records[from, to)} of one key of a session bucket (in arrival order per side):
     * clusters them into sessions by ts and fires the due ones, each with its rows in arrival order.
     *
     * @return the deadline of the earliest session not due, {@code Long.MAX_VALUE} for none.
     */
    long fireSessions(
        final long[] records, final int from, final int to, final long gap, final boolean ended, final long watermark,
        final long step)
    {
        final int n = to - from;
        if (n > order.length)
        {
            order = Arrays.copyOf(order, Math.max(n, order.length * 2));
        }
        for (int i = 0; i < n; i++)
        {
            order[i] = from + i;
        }
        // (ts, position) is unique, so the unstable heap sort gives one order whatever the JDK.
        RecordSort.sortPositions(order, records, 0, n, true);
        long next = Long.MAX_VALUE;
        int clusterStart = 0;
        for (int i = 1; i <= n; i++)
        {
            if (i == n || tsAt(records, i) > saturatedAdd(tsAt(records, i - 1), gap))
            {
                final long start = tsAt(records, clusterStart);
                final long end = saturatedAdd(tsAt(records, i - 1), gap);
                if (ended || isFired(end, watermark))
                {
                    RecordSort.sortPositions(order, records, clusterStart, i, false);
                    final int size = i - clusterStart;
                    if (size > cluster.length)
                    {
                        cluster = Arrays.copyOf(cluster, Math.max(size, cluster.length * 2));
                    }
                    for (int k = 0; k < size; k++)
                    {
                        cluster[k] = records[(int)order[clusterStart + k]];
                    }
                    fireWindow(cluster, 0, size, start, end, step);
                }
                else
                {
                    next = Math.min(next, timerDeadline(end));
                }
                clusterStart = i;
            }
        }
        return next;
    }

    private long tsAt(final long[] records, final int i)
    {
        return RowDescriptor.ts(records[(int)order[i]]);
    }

    /** Calls the function with {@code group[i]} alone on its side, if the join type calls such a group. */
    private void callAlone(final int i, final long start, final long end, final long step)
    {
        if (RowDescriptor.side(group[i]) == 0)
        {
            call(i, i + 1, i + 1, start, end, step);
        }
        else
        {
            call(i, i, i + 1, start, end, step);
        }
    }

    /** One call: left rows {@code group[from, mid)}, right rows {@code group[mid, to)}. */
    private void call(final int from, final int mid, final int to, final long start, final long end, final long step)
    {
        final boolean hasLeft = mid > from;
        final boolean hasRight = to > mid;
        if (!hasLeft && needsLeft || !hasRight && needsRight)
        {
            return;
        }
        left.wrap(group, from, mid);
        right.wrap(group, mid, to);
        stagedCount = 0;
        rowBytes = 0;
        rowStart = -1;
        active = true;
        Throwable failure = null;
        try
        {
            function.coGroup(left, right, start, end, this);
        }
        catch (final Throwable t)
        {
            failure = t;
        }
        finally
        {
            active = false;
            left.clear();
            right.clear();
        }
        if (failure == null)
        {
            flush(start, end, step);
        }
        else
        {
            fail(failure, from, to, step);
        }
    }

    private void flush(final long start, final long end, final long step)
    {
        for (int i = 0; i < stagedCount; i++)
        {
            final long l = CoGroupStageDescriptor.leftRecord(staged, i);
            final long r = CoGroupStageDescriptor.rightRecord(staged, i);
            final RowView leftRow = l == 0 ? null : StoredRows.wrap(l, outLeftBuffer, outLeft);
            final RowView rightRow = r == 0 ? null : StoredRows.wrap(r, outRightBuffer, outRight);
            final int rowOffset = CoGroupStageDescriptor.rowOffset(staged, i);
            if (rowOffset == NO_ROW)
            {
                emit.windowPair(leftRow, rightRow, start, end, step);
            }
            else
            {
                outRow.wrap(rowBuffer, rowOffset, CoGroupStageDescriptor.rowLength(staged, i));
                emit.coGroupRow(leftRow, rightRow, outRow, start, end, step);
            }
        }
        stagedCount = 0;
    }

    /** The function threw: nothing was emitted; its rows are dead-lettered and the failure counted and reported. */
    private void fail(final Throwable failure, final int from, final int to, final long step)
    {
        stagedCount = 0;
        counters.coGroupFailures++;
        if (errors != null)
        {
            errors.onError(failure);
        }
        for (int i = from; i < to; i++)
        {
            final long record = group[i];
            StoredRows.wrap(record, failedBuffer, failedRow);
            emit.deadLetter(sideOf(record), ChangeKind.INSERT, failedRow, RowDescriptor.ts(record), step,
                DeadLetterReason.COGROUP_FAILED);
        }
    }

    @Override
    public void emit(final RowCursor leftCursor, final RowCursor rightCursor)
    {
        requireActive();
        if (leftCursor == null && rightCursor == null)
        {
            throw new IllegalArgumentException("emit: a left or a right row is required");
        }
        stage(recordOf(leftCursor, left, "left"), recordOf(rightCursor, right, "right"), NO_ROW, 0);
    }

    @Override
    public RowWriter row()
    {
        requireActive();
        if (outputSlots < 0)
        {
            throw new IllegalStateException("row(): the spec has no coGroup output schema (JoinSpec.Builder.coGroup(function, schema))");
        }
        rowStart = rowBytes;
        // Grows (rarely) before the writer takes the buffer, so a row up to the format's limit always fits.
        rowBuffer.checkLimit(rowStart + RowFormat.MAX_ROW_LENGTH);
        return writer.wrap(rowBuffer, rowStart, RowFormat.MAX_ROW_LENGTH, outputSlots);
    }

    @Override
    public void emitRow(final RowCursor leftCursor, final RowCursor rightCursor)
    {
        requireActive();
        if (rowStart < 0)
        {
            throw new IllegalStateException("emitRow: no row started (call row() first)");
        }
        final int length = writer.finish();
        if (length < 0)
        {
            rowStart = -1;
            throw new IllegalStateException("emitRow: the computed row is larger than " + RowFormat.MAX_ROW_LENGTH + " bytes");
        }
        final long l = recordOf(leftCursor, left, "left");
        final long r = recordOf(rightCursor, right, "right");
        stage(l, r, rowStart, length);
        rowBytes = rowStart + length;
        rowStart = -1;
    }

    private void stage(final long l, final long r, final int offset, final int length)
    {
        if (CoGroupStageDescriptor.length(stagedCount + 1) > staged.length)
        {
            staged = Arrays.copyOf(staged, staged.length * 2);
        }
        CoGroupStageDescriptor.put(staged, stagedCount, l, r, offset, length);
        stagedCount++;
    }

    private static long recordOf(final RowCursor cursor, final GroupCursor expected, final String side)
    {
        if (cursor == null)
        {
            return 0;
        }
        if (cursor != expected)
        {
            throw new IllegalArgumentException("emit: the " + side + " row must come from the call's " + side + " cursor");
        }
        final long record = expected.record();
        if (record == 0)
        {
            throw new IllegalStateException("emit: the " + side + " cursor is not on a row (call next() first)");
        }
        return record;
    }

    private void requireActive()
    {
        if (!active)
        {
            throw new IllegalStateException("the collector is valid only during the CoGroupFunction call");
        }
    }
}
