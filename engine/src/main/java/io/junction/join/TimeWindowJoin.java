package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;
import java.util.Arrays;

import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedAdd;
import static io.junction.join.TimeMath.saturatedSubtract;

/**
 * The tumbling and sliding window join behind {@link WindowJoin} (SPEC 2.3).
 * <pre>
 * keyed rows are stored per (key, window) bucket, the window named by its reported start and end
 *   (distinct windows never share both); the bucket is a timer entry due at end - 1 and fires by
 *   joining its left and right chains.
 * null key, failed pre-filter: the row is alone in its window; it is stored with its own timer, one
 *   record per window, and emitted padded (or as anti output) when that window fires, if its side
 *   emits unmatched rows.
 * </pre>
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class TimeWindowJoin extends AbstractWindowJoin
{
    private final long size;
    private final long slide;
    private final long offset;
    /** Records taken for the row being processed, one per window. */
    private long[] reserved = new long[16];

    TimeWindowJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        super(spec, config, results, deadLetters);
        final WindowSpec window = spec.window();
        this.size = window.size();
        this.slide = window.slide();
        this.offset = window.offset();
        // WindowSpec caps ceil(size / slide) at MAX_WINDOWS_PER_ROW for sliding windows; tumbling has one.
    }

    @Override
    void onInsert(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long watermark)
    {
        final int keyLength = predicate.extractKey(side, row, predicate.key.capacity() - WINDOW_SUFFIX);
        final DeadLetterReason refused = JoinPredicate.refusal(keyLength);
        if (refused != null)
        {
            emit.deadLetter(side, kind, row, ts, step, refused);
            return;
        }
        onWindowedRow(side, kind, row, ts, step, keyLength, watermark);
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
        final boolean stores = keyLength != UNMATCHABLE || emit.emitsUnmatched(side);
        final int recordKeyLength = keyLength == UNMATCHABLE ? 0 : keyLength + WINDOW_SUFFIX;
        // Every record of the row is taken before any is linked: a row that does not fit in all its
        // windows is stored in none.
        if (stores && (!state.hasRoomFor(windows) || !reserveAll(windows, recordKeyLength, row)))
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        if (!stores)
        {
            return;
        }
        long distance = firstDistance;
        for (int j = 0; j < windows; j++, distance += slide)
        {
            final long end = saturatedAdd(ts, size - distance);
            final long start = saturatedSubtract(ts, distance);
            final long deadline = timerDeadline(end);
            if (keyLength == UNMATCHABLE)
            {
                final long record = state.store.append(reserved[j], state.unmatchableBucket, side, predicate.key, 0, 0, row, ts);
                if (record == 0)
                {
                    rollBackLone(j, windows, row);
                    emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                    return;
                }
                RowDescriptor.count(state.base, record, j);
                state.wheel.schedule(record, deadline);
                continue;
            }
            predicate.key.putLong(keyLength, start, ByteOrder.LITTLE_ENDIAN);
            predicate.key.putLong(keyLength + 8, end, ByteOrder.LITTLE_ENDIAN);
            final long bucket = state.index.findOrCreate(predicate.keyHash(recordKeyLength));
            if (bucket == KeyIndex.FULL)
            {
                // All or nothing: a row that does not fit in every one of its windows is in none.
                rollBack(j, windows, recordKeyLength, row);
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                return;
            }
            if (!state.store.reserveSlot(bucket, side))
            {
                if (BucketDescriptor.isEmpty(bucket))
                {
                    // Created for this row and not yet scheduled.
                    state.index.remove(bucket);
                }
                rollBack(j, windows, recordKeyLength, row);
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                return;
            }
            if (BucketDescriptor.isEmpty(bucket))
            {
                UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, SCHEDULED);
                NativeArena.written(state.base, bucket + BUCKET_FLAGS_OFFSET);
                UnsafeApi.putLong(bucket + BUCKET_WINDOW_START_OFFSET, start);
                NativeArena.written(state.base, bucket + BUCKET_WINDOW_START_OFFSET);
                UnsafeApi.putLong(bucket + BUCKET_WINDOW_END_OFFSET, end);
                NativeArena.written(state.base, bucket + BUCKET_WINDOW_END_OFFSET);
                bucketWheel.schedule(bucket, deadline);
            }
            state.store.append(reserved[j], bucket, side, predicate.key, 0, recordKeyLength, row, ts);
        }
    }

    /** Takes {@code n} records for one row into {@link #reserved}; @return false, holding none, when they do not fit. */
    private boolean reserveAll(final int n, final int keyLength, final RowView row)
    {
        if (n > reserved.length)
        {
            reserved = Arrays.copyOf(reserved, Math.max(n, reserved.length * 2));
        }
        for (int i = 0; i < n; i++)
        {
            final long record = state.store.allocate(keyLength, row.length());
            if (record == 0)
            {
                for (int j = 0; j < i; j++)
                {
                    state.store.release(reserved[j], keyLength, row.length());
                }
                return false;
            }
            reserved[i] = record;
        }
        return true;
    }

    /** Undoes a keyed row's first {@code used} window records and frees the rest of its {@code n}. */
    private void rollBack(final int used, final int n, final int keyLength, final RowView row)
    {
        for (int i = 0; i < used; i++)
        {
            final long record = reserved[i];
            final long bucket = state.store.bucketOf(record);
            state.store.remove(record);
            if (BucketDescriptor.isEmpty(bucket))
            {
                bucketWheel.cancel(bucket);
                state.index.remove(bucket);
            }
        }
        for (int i = used; i < n; i++)
        {
            state.store.release(reserved[i], keyLength, row.length());
        }
    }

    /** Undoes an unmatchable row's first {@code used} lone records and frees the rest of its {@code n}. */
    private void rollBackLone(final int used, final int n, final RowView row)
    {
        for (int i = 0; i < used; i++)
        {
            state.wheel.cancel(reserved[i]);
            state.store.remove(reserved[i]);
        }
        for (int i = used; i < n; i++)
        {
            state.store.release(reserved[i], 0, row.length());
        }
    }

    @Override
    long fireKey(final long bucket, final int from, final int to)
    {
        final long start = UnsafeApi.getLong(bucket + BUCKET_WINDOW_START_OFFSET);
        final long end = UnsafeApi.getLong(bucket + BUCKET_WINDOW_END_OFFSET);
        if (coGroup != null)
        {
            coGroup.fireWindow(records, from, to, start, end, fireStep);
        }
        else
        {
            emitWindow(from, to, start, end);
        }
        return Long.MAX_VALUE;
    }

    @Override
    void fireLoneRow(final long record)
    {
        final long ts = RowDescriptor.ts(record);
        // The count holds which of the row's windows this record stands for (see onWindowedRow).
        final long distance = lastWindowDistance(ts) + RowDescriptor.count(record) * slide;
        emitLoneRow(record, saturatedSubtract(ts, distance), saturatedAdd(ts, size - distance));
    }
}
