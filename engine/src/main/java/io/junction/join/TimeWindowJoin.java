package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.WindowBucketDescriptor;

import java.nio.ByteOrder;
import java.util.Arrays;

import static io.junction.internal.state.WindowBucketDescriptor.SUFFIX_END_OFFSET;
import static io.junction.internal.state.WindowBucketDescriptor.SUFFIX_START_OFFSET;
import static io.junction.internal.state.WindowBucketDescriptor.WINDOW_SUFFIX;
import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedAdd;
import static io.junction.join.TimeMath.saturatedSubtract;
import static io.junction.join.WindowBuckets.isFired;
import static io.junction.join.WindowBuckets.timerDeadline;

/**
 * The tumbling and sliding window join (SEMANTICS 6), as Flink's {@code DataStream#join} over event-time windows
 * and Flink SQL's window join (which adds the outer, semi and anti types).
 *
 * <p>Assignment: tumbling windows {@code [start, start + size)} with start on multiples of size plus offset;
 * sliding windows of {@code size} starting on multiples of slide plus offset that contain the row. A window
 * fires once, when the watermark reaches {@code end - 1}: it emits, per key, the pairs of that key's left and
 * right rows satisfying the condition (inner), the rows without a match null-padded (outer types), or the left
 * rows with a match (semi) / without one (anti), all carrying {@code [start, end)}; its rows are then dropped.
 * A row whose every window has fired is late ({@code LATE_WINDOW}). Window assignment is exact over the whole
 * long range: a window that starts below {@code Long.MIN_VALUE} is reported from it, an end beyond
 * {@code Long.MAX_VALUE} saturates to it. A row is in at most {@link WindowSpec#MAX_WINDOWS_PER_ROW} windows,
 * and it is stored in all of them or, when they do not all fit, in none (one {@code STATE_FULL} dead letter).
 * <pre>
 * keyed rows are stored per (key, window) bucket ({@link WindowBucketDescriptor}), the window named by its
 *   reported start and end (distinct windows never share both); the bucket is a timer entry due at end - 1
 *   and fires by joining its left and right rows ({@link WindowBuckets#emitWindow}).
 * null key, failed pre-filter: the row is alone in its window; it is stored with its own timer, one
 *   record per window, and emitted padded (or as anti output) when that window fires, if its side
 *   emits unmatched rows.
 * store: the row's records for all its windows are taken first (PartitionState.reserve: live-row room and
 *   memory for all, or none), then each is admitted into its window (PartitionState.admit); one refused -&gt;
 *   the windows admitted before are retired and the rest freed; the row is dead-lettered STATE_FULL once,
 *   by OperatorParts (the one refusal path).
 * </pre>
 * With a window coGroup (SEMANTICS 6.4) a fired window's rows of one key go to the function instead
 * ({@link CoGroupWindows}).
 *
 * <p>The kind's {@link JoinAlgorithm}: its {@link OperatorDriver} owns the lifecycle and calls this for the
 * rows, the watermark and the end of input; the firing, the watermark, the end of input
 * and the heap part are its {@link WindowBuckets}' ({@link WindowAlgorithm}).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class TimeWindowJoin implements WindowAlgorithm
{
    private final OperatorParts parts;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final WindowBuckets buckets;
    private final long size;
    private final long slide;
    private final long offset;
    /** Records taken for the row being processed, one per window. */
    private long[] admitted = new long[16];

    /**
     * The tumbling or sliding window join's algorithm over its driver's parts.
     *
     * @param parts a tumbling or sliding window join's parts (window buckets), any join type, join or coGroup.
     */
    TimeWindowJoin(final OperatorParts parts)
    {
        this.parts = parts;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.buckets = new WindowBuckets(parts, this);
        final WindowSpec window = parts.spec.window();
        this.size = window.size();
        this.slide = window.slide();
        this.offset = window.offset();
        // WindowSpec caps ceil(size / slide) at MAX_WINDOWS_PER_ROW for sliding windows; tumbling has one.
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind != ChangeKind.INSERT)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        final int keyLength = predicate.extractKey(side, row, predicate.key.capacity() - WINDOW_SUFFIX);
        if (parts.refuseKey(keyLength, side, kind, row, ts, step) == OperatorParts.REFUSED)
        {
            return;
        }
        onWindowedRow(side, kind, row, ts, step, keyLength, buckets.rowWatermark());
    }

    /**
     * @return how far {@code ts} lies past the start of its last window, {@code (ts - offset) mod slide},
     * computed without overflow (offset is in {@code [0, slide)}).
     */
    private long lastWindowDistance(final long ts)
    {
        return Math.floorMod(Math.floorMod(ts, slide) - offset, slide);
    }

    /**
     * Tumbling and sliding: the row's windows are those starting {@code d = lastWindowDistance(ts) + j * slide}
     * before ts, for {@code j = 0, 1, ...} while {@code d < size}: window j is {@code [ts - d, ts - d + size)},
     * start clamped to {@code Long.MIN_VALUE} and end to {@code Long.MAX_VALUE}. Window 0 ends last.
     */
    private void onWindowedRow(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long watermark)
    {
        final long firstDistance = lastWindowDistance(ts);
        // A row between windows (slide > size) is in none: every one of its windows has fired.
        if (firstDistance >= size || isFired(saturatedAdd(ts, size - firstDistance), watermark))
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE_WINDOW);
            return;
        }
        if (keyLength == UNMATCHABLE && !emit.emitsUnmatched(side))
        {
            // Alone in its windows and never emitted: nothing to store.
            return;
        }
        // The row's open windows (later windows first: once one has fired, every earlier one has too),
        // at most WindowSpec.MAX_WINDOWS_PER_ROW. Counting as d = distance + j * slide cannot overflow:
        // the loop goes on only while d < size - slide.
        int windows = 0;
        for (long d = firstDistance; ; d += slide)
        {
            if (isFired(saturatedAdd(ts, size - d), watermark))
            {
                break;
            }
            windows++;
            if (d >= size - slide)
            {
                break;
            }
        }
        if (windows > admitted.length)
        {
            admitted = Arrays.copyOf(admitted, Math.max(windows, admitted.length * 2));
        }
        final boolean lone = keyLength == UNMATCHABLE;
        final int recordKeyLength = lone ? 0 : keyLength + WINDOW_SUFFIX;
        // Every record of the row is taken before any is linked: a row that does not fit in all its
        // windows is stored in none.
        if (!parts.reserve(windows, recordKeyLength, side, kind, row, ts, step, admitted))
        {
            return;
        }
        long distance = firstDistance;
        for (int j = 0; j < windows; j++, distance += slide)
        {
            final long end = saturatedAdd(ts, size - distance);
            final long start = saturatedSubtract(ts, distance);
            final long deadline = timerDeadline(end);
            final long record;
            if (lone)
            {
                record = parts.admit(admitted[j], side, kind, row, ts, step, 0, 0, state.unmatchableBucket);
            }
            else
            {
                predicate.key.putLong(keyLength + SUFFIX_START_OFFSET, start, ByteOrder.LITTLE_ENDIAN);
                predicate.key.putLong(keyLength + SUFFIX_END_OFFSET, end, ByteOrder.LITTLE_ENDIAN);
                record = parts.admit(admitted[j], side, kind, row, ts, step, recordKeyLength,
                    predicate.hash(predicate.key, recordKeyLength), 0);
            }
            if (record == PartitionState.REFUSED)
            {
                // All or nothing: a row that does not fit in every one of its windows is in none.
                rollBack(j, windows, side, lone, recordKeyLength, row);
                return;
            }
            if (lone)
            {
                RowDescriptor.count(state.base, record, j);
                state.wheel.schedule(record, deadline);
            }
            else
            {
                final long bucket = state.admittedBucket;
                if (WindowBucketDescriptor.rows(bucket) == 1)
                {
                    // A new bucket: its window, then its timer.
                    WindowBucketDescriptor.flags(state.base, bucket, 0);
                    WindowBucketDescriptor.window(state.base, bucket, start, end);
                    buckets.schedule(bucket, deadline);
                }
            }
        }
    }

    /**
     * Undoes a row whose window {@code refused} was refused (its record freed by the refusal): retires the
     * records of the windows before it (a keyed row's buckets left empty go off the wheel and out of the index)
     * and frees the records taken for the windows after it.
     */
    private void rollBack(final int refused, final int n, final Side side, final boolean lone, final int keyLength, final RowView row)
    {
        for (int i = 0; i < refused; i++)
        {
            final long record = admitted[i];
            if (lone)
            {
                state.wheel.cancel(record);
            }
            else
            {
                final long bucket = state.store.bucketOf(record);
                if (WindowBucketDescriptor.rows(bucket) == 1)
                {
                    buckets.cancel(bucket);
                }
            }
            state.retire(record);
        }
        state.release(admitted, refused + 1, n, side, keyLength, row);
    }

    @Override
    public long fireKey(final long bucket, final long[] records, final int from, final int to)
    {
        buckets.fireWindow(records, from, to, WindowBucketDescriptor.windowStart(bucket), WindowBucketDescriptor.windowEnd(bucket));
        return Long.MAX_VALUE;
    }

    @Override
    public void fireLoneRow(final long record)
    {
        final long ts = RowDescriptor.ts(record);
        // The count holds which of the row's windows this record stands for (see onWindowedRow).
        final long distance = lastWindowDistance(ts) + RowDescriptor.count(record) * slide;
        buckets.emitLoneRow(record, saturatedSubtract(ts, distance), saturatedAdd(ts, size - distance));
    }

    @Override
    public WindowBuckets buckets()
    {
        return buckets;
    }
}
