package io.junction.join;

import io.junction.metrics.OperatorCounters;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The event-time window join (SPEC 2.3), as Flink's {@code DataStream#join} over event-time windows
 * and Flink SQL's window join (which adds the outer, semi and anti types).
 *
 * <p>Assignment: tumbling windows {@code [start, start + size)} with start on multiples of size plus
 * offset; sliding windows of {@code size} starting on multiples of slide plus offset that contain the
 * row; session windows per key, where a row opens {@code [ts, ts + gap)} and sessions of both sides
 * that overlap or touch merge. Emission: a window fires once, when the watermark reaches
 * {@code end - 1}; it then emits, per key, the pairs of that key's left and right rows satisfying
 * the condition (inner), the rows without a match null-padded (outer types), or the left rows with a
 * match (semi) / without one (anti), all carrying {@code [start, end)}. State: a window's rows are
 * dropped when it fires. A row whose every window has fired is late; a session row is late when its
 * merged session is already due. A fired session is final: later rows start new sessions.
 *
 * <p>Extreme timestamps: window assignment is exact over the whole long range. A window that starts
 * below {@code Long.MIN_VALUE} is reported from {@code Long.MIN_VALUE}, and an end beyond
 * {@code Long.MAX_VALUE} saturates to it (the window then fires when the watermark reaches
 * {@code Long.MAX_VALUE - 1}, or at the end of input); no window has both, since a size is at most
 * {@code Long.MAX_VALUE}. A row is in at most {@link WindowSpec#MAX_WINDOWS_PER_ROW} windows, and it
 * is stored in all of them or, when the key index is full, in none (one STATE_FULL dead letter).
 * <pre>
 * tumbling/sliding: rows are stored per (key, window) bucket, the window named by its reported start
 *   and end (distinct windows never share both); the bucket is a timer entry due at end - 1 and fires
 *   by joining its left and right chains.
 * session: rows are stored per key; the bucket's timer is due at its earliest session's end - 1; on
 *   firing, the key's rows are clustered by ts (a gap larger than {@code gap} splits sessions), due
 *   sessions are joined and dropped, and the bucket is rescheduled for the next one. A row that fails
 *   its pre-filter is stored with its key like any row (it opens, extends and bridges sessions and
 *   decides lateness) but is marked to match nothing.
 * null key (any window), failed pre-filter (tumbling, sliding): the row is alone in its window; it is
 *   stored with its own timer and emitted padded (or as anti output) when that window fires, if its
 *   side is padded.
 * </pre>
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class WindowJoin extends AbstractJoin
{
    /** Bucket extension for window joins: the bucket's own timer links, after the standard fields. */
    static final int BUCKET_TIMER_PREV_OFFSET = BucketDescriptor.LENGTH;
    static final int BUCKET_TIMER_NEXT_OFFSET = BUCKET_TIMER_PREV_OFFSET + 8;
    static final int BUCKET_DEADLINE_OFFSET = BUCKET_TIMER_NEXT_OFFSET + 8;
    static final int BUCKET_FLAGS_OFFSET = BUCKET_DEADLINE_OFFSET + 8;
    /** Tumbling and sliding: the bucket's window as reported, {@code [start, end)}. */
    static final int BUCKET_WINDOW_START_OFFSET = BUCKET_FLAGS_OFFSET + 8;
    static final int BUCKET_WINDOW_END_OFFSET = BUCKET_WINDOW_START_OFFSET + 8;
    static final int BUCKET_LENGTH = BUCKET_WINDOW_END_OFFSET + 8;
    private static final int SCHEDULED = 1;
    /** Key bytes after the join key that name a row's window (its start and end) in the key index. */
    private static final int WINDOW_SUFFIX = 16;
    /**
     * The match count of a stored session row that failed its pre-filter: it matches nothing. Lone rows
     * of tumbling and sliding windows instead keep in their count which of the row's windows they are.
     */
    private static final int NEVER_MATCHES = -1;

    private final WindowSpec.Kind windowKind;
    private final long size;
    private final long slide;
    private final long offset;
    private final long gap;
    private final boolean session;
    private final boolean semiOrAnti;
    private final boolean semi;
    private final TimerWheel bucketWheel;
    private final TimerWheel.ExpiryHandler bucketFire = this::fireBucket;
    private final TimerWheel.ExpiryHandler loneRowFire = this::fireLoneRow;
    private long[] scratch = new long[64];
    /** Records taken for the row being processed, one per window. */
    private long[] reserved = new long[16];
    private long fireStep;
    private long fireWatermark = Long.MIN_VALUE;
    private boolean ended;

    /**
     * Creates the operator and allocates its off-heap state.
     *
     * @param spec        a window join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @throws IllegalArgumentException when the spec is of another join kind.
     */
    public WindowJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        super(requireKind(spec, JoinKind.WINDOW), config, results, deadLetters, BUCKET_LENGTH);
        final WindowSpec window = spec.window();
        this.windowKind = window.kind();
        this.size = window.size();
        this.slide = window.slide();
        this.offset = window.offset();
        this.gap = window.gap();
        this.session = windowKind == WindowSpec.Kind.SESSION;
        this.semiOrAnti = type.isSemiOrAnti();
        this.semi = type == JoinType.SEMI;
        this.bucketWheel = new TimerWheel(config.tickShift(), config.wheelSlots(),
            BUCKET_TIMER_PREV_OFFSET, BUCKET_TIMER_NEXT_OFFSET, BUCKET_DEADLINE_OFFSET);
        // WindowSpec caps ceil(size / slide) at MAX_WINDOWS_PER_ROW for sliding windows; tumbling has one.
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        counters.rowsIn++;
        watermarks.markActive(side);
        if (kind != ChangeKind.INSERT)
        {
            deadLetter(side, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        int keyLength = extractKey(side, row, key.capacity() - WINDOW_SUFFIX);
        boolean neverMatches = false;
        if (session && keyLength == UNMATCHABLE && !compiled.filter(side).test(row))
        {
            // SPEC 2.3: a filtered row still takes part in its key's sessions; only a null-key row is alone.
            keyLength = extractSessionKey(side, row);
            neverMatches = true;
        }
        if (keyLength == TOO_LONG)
        {
            deadLetter(side, kind, row, ts, step, DeadLetterReason.KEY_TOO_LONG);
            return;
        }
        final long watermark = ended ? Long.MAX_VALUE : watermarks.current();
        if (session)
        {
            onSessionRow(side, kind, row, ts, step, keyLength, neverMatches, watermark);
        }
        else
        {
            onWindowedRow(side, kind, row, ts, step, keyLength, watermark);
        }
    }

    /** @return the key of a row whatever its pre-filter says: its length, {@link #UNMATCHABLE} (null) or {@link #TOO_LONG}. */
    private int extractSessionKey(final Side side, final RowView row)
    {
        final int length = compiled.key(side).extract(row, key, 0, key.capacity() - WINDOW_SUFFIX);
        if (length == KeyExtractor.KEY_TOO_LONG)
        {
            return TOO_LONG;
        }
        return length == KeyExtractor.NULL_KEY ? UNMATCHABLE : length;
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
            deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE_WINDOW);
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
        final boolean stores = keyLength != UNMATCHABLE || emitsUnmatched(side);
        final int recordKeyLength = keyLength == UNMATCHABLE ? 0 : keyLength + WINDOW_SUFFIX;
        // Every record of the row is taken before any is linked: a row that does not fit in all its
        // windows is stored in none.
        if (stores && (windows > maxLiveRows - store.liveRows() || !reserveAll(windows, recordKeyLength, row)))
        {
            deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
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
                final long record = store.append(reserved[j], unmatchableBucket, side, key, 0, 0, row, ts);
                RowDescriptor.count(record, j);
                wheel.schedule(record, deadline);
                continue;
            }
            key.putLong(keyLength, start, ByteOrder.LITTLE_ENDIAN);
            key.putLong(keyLength + 8, end, ByteOrder.LITTLE_ENDIAN);
            final long bucket = index.findOrCreate(keyHash(recordKeyLength));
            if (bucket == KeyIndex.FULL)
            {
                // All or nothing: a row that does not fit in every one of its windows is in none.
                rollBack(j, windows, recordKeyLength, row);
                deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                return;
            }
            if (BucketDescriptor.isEmpty(bucket))
            {
                UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, SCHEDULED);
                UnsafeApi.putLong(bucket + BUCKET_WINDOW_START_OFFSET, start);
                UnsafeApi.putLong(bucket + BUCKET_WINDOW_END_OFFSET, end);
                bucketWheel.schedule(bucket, deadline);
            }
            store.append(reserved[j], bucket, side, key, 0, recordKeyLength, row, ts);
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
            final long record = store.allocate(keyLength, row.length());
            if (record == 0)
            {
                for (int j = 0; j < i; j++)
                {
                    store.release(reserved[j], keyLength, row.length());
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
            final long bucket = bucketOf(record);
            store.remove(record);
            if (BucketDescriptor.isEmpty(bucket))
            {
                bucketWheel.cancel(bucket);
                index.remove(bucket);
            }
        }
        for (int i = used; i < n; i++)
        {
            store.release(reserved[i], keyLength, row.length());
        }
    }

    private void onSessionRow(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final boolean neverMatches, final long watermark)
    {
        if (keyLength == UNMATCHABLE)
        {
            final long end = saturatedAdd(ts, gap);
            if (isFired(end, watermark))
            {
                deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE_WINDOW);
            }
            else if (emitsUnmatched(side))
            {
                final long record = reserve(0, row);
                if (record == 0)
                {
                    deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                    return;
                }
                wheel.schedule(store.append(record, unmatchableBucket, side, key, 0, 0, row, ts), timerDeadline(end));
            }
            return;
        }
        final long bucket = index.findOrCreate(keyHash(keyLength));
        if (bucket == KeyIndex.FULL)
        {
            deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        if (BucketDescriptor.isEmpty(bucket))
        {
            UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, 0);
        }
        // The merged session of the new row: its key's unfired rows clustered with it.
        int n = 0;
        for (int s = 0; s < 2; s++)
        {
            for (long r = BucketDescriptor.head(bucket, s == 0 ? Side.LEFT : Side.RIGHT); r != 0; r = RowDescriptor.keyNext(r))
            {
                if (store.keyEquals(r, key, 0, keyLength))
                {
                    ensureScratch(n + 1);
                    scratch[n++] = RowDescriptor.ts(r);
                }
            }
        }
        ensureScratch(n + 1);
        scratch[n++] = ts;
        heapSort(scratch, 0, n, false);
        long clusterMax = Long.MIN_VALUE;
        boolean found = false;
        for (int i = 0; i < n; i++)
        {
            if (i > 0 && scratch[i] > saturatedAdd(scratch[i - 1], gap))
            {
                if (found)
                {
                    break;
                }
            }
            clusterMax = scratch[i];
            if (scratch[i] == ts)
            {
                found = true;
            }
        }
        final long end = saturatedAdd(clusterMax, gap);
        if (isFired(end, watermark))
        {
            deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE_WINDOW);
            releaseIfEmpty(bucket);
            return;
        }
        final long reservedRecord = reserve(keyLength, row);
        if (reservedRecord == 0)
        {
            releaseIfEmpty(bucket);
            deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        final long record = store.append(reservedRecord, bucket, side, key, 0, keyLength, row, ts);
        if (neverMatches)
        {
            RowDescriptor.count(record, NEVER_MATCHES);
        }
        // The merged session's deadline, never below the watermark (the row was not late); the row's own
        // [ts, ts + gap) may lie before the watermark when it joins a later session.
        final long deadline = timerDeadline(end);
        if ((UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET) & SCHEDULED) == 0)
        {
            UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, SCHEDULED);
            bucketWheel.schedule(bucket, deadline);
        }
        else if (deadline < UnsafeApi.getLong(bucket + BUCKET_DEADLINE_OFFSET))
        {
            // Firing early is harmless: the bucket fires only due sessions and reschedules itself.
            bucketWheel.cancel(bucket);
            bucketWheel.schedule(bucket, deadline);
        }
    }

    /**
     * The timer deadline of a window {@code [start, end)}. The window fires when the watermark reaches
     * {@code end - 1} (SPEC 2.3, {@link #isFired}), and the {@link TimerWheel} expires the entries whose
     * deadline is strictly below the watermark, so the entry is due at {@code end - 2}: the first
     * watermark above it is {@code end - 1}. Saturates at {@code Long.MIN_VALUE} for the earliest ends.
     */
    static long timerDeadline(final long end)
    {
        return saturatedSubtract(end, 2);
    }

    /** @return true when a window ending at {@code end} has fired at {@code watermark} (SPEC 2.3: at end - 1). */
    private static boolean isFired(final long end, final long watermark)
    {
        return watermark != Long.MIN_VALUE && end - 1 <= watermark;
    }

    /** A bucket's timer: fire its window (tumbling, sliding) or its due sessions. */
    private void fireBucket(final long bucket)
    {
        UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, 0);
        int n = gather(bucket);
        long next = Long.MAX_VALUE;
        int groupStart = 0;
        while (groupStart < n)
        {
            // Rows of one key together (distinct keys share a bucket only on a hash collision).
            final long first = scratch[groupStart];
            int groupEnd = groupStart + 1;
            for (int j = groupEnd; j < n; j++)
            {
                if (RowStore.keyEquals(first, scratch[j]))
                {
                    final long t = scratch[groupEnd];
                    scratch[groupEnd++] = scratch[j];
                    scratch[j] = t;
                }
            }
            if (!session)
            {
                emitWindow(groupStart, groupEnd, UnsafeApi.getLong(bucket + BUCKET_WINDOW_START_OFFSET),
                    UnsafeApi.getLong(bucket + BUCKET_WINDOW_END_OFFSET));
            }
            else
            {
                heapSort(scratch, groupStart, groupEnd, true);
                int clusterStart = groupStart;
                for (int i = groupStart + 1; i <= groupEnd; i++)
                {
                    if (i == groupEnd || RowDescriptor.ts(scratch[i]) > saturatedAdd(RowDescriptor.ts(scratch[i - 1]), gap))
                    {
                        final long start = RowDescriptor.ts(scratch[clusterStart]);
                        final long end = saturatedAdd(RowDescriptor.ts(scratch[i - 1]), gap);
                        if (ended || isFired(end, fireWatermark))
                        {
                            emitWindow(clusterStart, i, start, end);
                        }
                        else
                        {
                            next = Math.min(next, timerDeadline(end));
                        }
                        clusterStart = i;
                    }
                }
            }
            groupStart = groupEnd;
        }
        if (BucketDescriptor.isEmpty(bucket))
        {
            index.remove(bucket);
        }
        else
        {
            UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, SCHEDULED);
            bucketWheel.schedule(bucket, next);
        }
    }

    /** Joins the rows {@code scratch[from, to)} of one key and one window, emits, and drops them. */
    private void emitWindow(final int from, final int to, final long start, final long end)
    {
        for (int i = from; i < to; i++)
        {
            if (RowDescriptor.count(scratch[i]) != NEVER_MATCHES)
            {
                RowDescriptor.count(scratch[i], 0);
            }
        }
        for (int i = from; i < to; i++)
        {
            final long left = scratch[i];
            if (RowDescriptor.side(left) != 0 || RowDescriptor.count(left) == NEVER_MATCHES)
            {
                continue;
            }
            RowStore.wrap(left, storedBuffer, storedRow);
            for (int j = from; j < to; j++)
            {
                final long right = scratch[j];
                if (RowDescriptor.side(right) == 0 || RowDescriptor.count(right) == NEVER_MATCHES)
                {
                    continue;
                }
                RowStore.wrap(right, otherBuffer, otherRow);
                if (!compiled.condition().acceptsAll() && !compiled.condition().test(storedRow, otherRow))
                {
                    continue;
                }
                RowDescriptor.count(left, RowDescriptor.count(left) + 1);
                RowDescriptor.count(right, RowDescriptor.count(right) + 1);
                if (!semiOrAnti)
                {
                    emitWindowPair(storedRow, otherRow, start, end, fireStep);
                }
            }
        }
        for (int i = from; i < to; i++)
        {
            final long record = scratch[i];
            final Side side = sideOf(record);
            final int count = RowDescriptor.count(record);
            final boolean emit = semi && side == Side.LEFT ? count > 0 : count <= 0 && emitsUnmatched(side);
            if (emit)
            {
                RowStore.wrap(record, storedBuffer, storedRow);
                emitWindowPadded(side, storedRow, start, end, fireStep);
            }
            store.remove(record);
            counters.expiredRows++;
        }
    }

    /** A null-key (or, tumbling and sliding, filtered) row alone in its window: emitted when the window fires. */
    private void fireLoneRow(final long record)
    {
        final long ts = RowDescriptor.ts(record);
        final long start;
        final long end;
        if (session)
        {
            start = ts;
            end = saturatedAdd(ts, gap);
        }
        else
        {
            // The count holds which of the row's windows this record stands for (see onWindowedRow).
            final long distance = lastWindowDistance(ts) + RowDescriptor.count(record) * slide;
            start = saturatedSubtract(ts, distance);
            end = saturatedAdd(ts, size - distance);
        }
        RowStore.wrap(record, storedBuffer, storedRow);
        emitWindowPadded(RowDescriptor.side(record) == 0 ? Side.LEFT : Side.RIGHT, storedRow, start, end, fireStep);
        store.remove(record);
        counters.expiredRows++;
    }

    private int gather(final long bucket)
    {
        int n = 0;
        for (int s = 0; s < 2; s++)
        {
            for (long r = BucketDescriptor.head(bucket, s == 0 ? Side.LEFT : Side.RIGHT); r != 0; r = RowDescriptor.keyNext(r))
            {
                ensureScratch(n + 1);
                scratch[n++] = r;
            }
        }
        return n;
    }

    private void ensureScratch(final int length)
    {
        if (length > scratch.length)
        {
            scratch = Arrays.copyOf(scratch, Math.max(length, scratch.length * 2));
        }
    }

    /**
     * Sorts {@code a[from, to)} ascending in place without allocating: by value, or, when
     * {@code byRecordTs}, by the ts of the records they address.
     */
    private static void heapSort(final long[] a, final int from, final int to, final boolean byRecordTs)
    {
        final int n = to - from;
        for (int i = n / 2 - 1; i >= 0; i--)
        {
            siftDown(a, from, i, n, byRecordTs);
        }
        for (int end = n - 1; end > 0; end--)
        {
            final long t = a[from];
            a[from] = a[from + end];
            a[from + end] = t;
            siftDown(a, from, 0, end, byRecordTs);
        }
    }

    private static void siftDown(final long[] a, final int base, final int start, final int n, final boolean byRecordTs)
    {
        int root = start;
        while (2 * root + 1 < n)
        {
            int child = 2 * root + 1;
            if (child + 1 < n && sortKey(a[base + child], byRecordTs) < sortKey(a[base + child + 1], byRecordTs))
            {
                child++;
            }
            if (sortKey(a[base + root], byRecordTs) >= sortKey(a[base + child], byRecordTs))
            {
                return;
            }
            final long t = a[base + root];
            a[base + root] = a[base + child];
            a[base + child] = t;
            root = child;
        }
    }

    private static long sortKey(final long value, final boolean byRecordTs)
    {
        return byRecordTs ? RowDescriptor.ts(value) : value;
    }

    @Override
    void onJoinWatermark(final long watermark, final long step)
    {
        fireStep = step;
        fireWatermark = watermark;
        // Windows are scheduled at timerDeadline(end): those with end - 1 <= watermark expire now.
        bucketWheel.advance(watermark, bucketFire);
        wheel.advance(watermark, loneRowFire);
    }

    @Override
    public void onEndOfInput(final long step)
    {
        watermarks.advanceBoth(Long.MAX_VALUE);
        ended = true;
        fireStep = step;
        fireWatermark = Long.MAX_VALUE;
        bucketWheel.expireAll(bucketFire);
        wheel.expireAll(loneRowFire);
    }

    @Override
    public OperatorCounters counters()
    {
        super.counters();
        final JoinCounters c = counters;
        c.pendingTimers += bucketWheel.pending();
        return c;
    }
}
