package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import org.agrona.UnsafeApi;

import java.util.Arrays;

import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedAdd;

/**
 * The session window join behind {@link WindowJoin} (SPEC 2.3).
 * <pre>
 * rows are stored per key; the bucket's timer is due at its earliest session's end - 1; on firing,
 *   the key's rows are clustered by ts (a gap larger than {@code gap} splits sessions), due sessions
 *   are joined and dropped, and the bucket is rescheduled for the next one. A row that fails its
 *   pre-filter is stored with its key like any row (it opens, extends and bridges sessions and
 *   decides lateness) but is marked to match nothing.
 * null key: the row is alone in its session {@code [ts, ts + gap)}; it is stored with its own timer
 *   and emitted padded (or as anti output) when that session fires, if its side emits unmatched rows.
 * </pre>
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class SessionWindowJoin extends AbstractWindowJoin
{
    private final long gap;
    /** Bucket flag: the bucket's window fields hold its key's latest unfired session, {@code [start, max ts]}. */
    static final long SUMMARY = 2;
    /** Bucket flag with {@link #SUMMARY}: the key has that one unfired session only. */
    static final long SINGLE = 4;
    /** Bucket flag: the bucket holds rows of more than one key (equal hashes): no summary. */
    static final long MIXED = 8;
    /** The ts of the key's stored rows and of the arriving row, sorted to find the row's merged session; used for nothing else. */
    private long[] sessionTs = new long[64];
    /** Set by {@link #fastSession} and {@link #gatheredSession}: the row's merged session end ts, and the summary with the row. */
    private long clusterMax;
    private long tailStart;
    private long tailMax;
    private boolean single;
    /** Rows whose merged session needed the key's rows gathered and sorted (the slow path); for tests. */
    private long gathers;

    SessionWindowJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        super(spec, config, results, deadLetters);
        this.gap = spec.window().gap();
    }

    @Override
    void onInsert(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long watermark)
    {
        final int capacity = predicate.key.capacity() - WINDOW_SUFFIX;
        int keyLength = predicate.extractKey(side, row, capacity);
        boolean neverMatches = false;
        if (keyLength == UNMATCHABLE && !predicate.passesFilter(side, row))
        {
            // SPEC 2.3: a filtered row still takes part in its key's sessions; only a null-key row is alone.
            keyLength = predicate.extractKeyIgnoringFilter(side, row, capacity);
            neverMatches = true;
        }
        final DeadLetterReason refused = JoinPredicate.refusal(keyLength);
        if (refused != null)
        {
            emit.deadLetter(side, kind, row, ts, step, refused);
            return;
        }
        onSessionRow(side, kind, row, ts, step, keyLength, neverMatches, watermark);
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
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE_WINDOW);
            }
            else if (emit.emitsUnmatched(side))
            {
                final long record = state.reserve(0, row);
                if (record == 0)
                {
                    emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                    return;
                }
                if (state.store.append(record, state.unmatchableBucket, side, predicate.key, 0, 0, row, ts) == 0)
                {
                    state.store.release(record, 0, row.length());
                    emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                    return;
                }
                state.wheel.schedule(record, timerDeadline(end));
            }
            return;
        }
        final long bucket = state.index.findOrCreate(predicate.keyHash(keyLength));
        if (bucket == KeyIndex.FULL)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        // The merged session of the new row: its key's unfired rows clustered with it. The bucket's summary of
        // its latest session answers in O(1) for a row of that session, after it, or of a key with one session;
        // otherwise the key's rows are gathered and sorted (and the summary rebuilt).
        final long flags = UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET);
        final boolean empty = BucketDescriptor.isEmpty(bucket);
        long clusterMax;
        long tailStart;
        long tailMax;
        boolean single;
        boolean mixed = (flags & MIXED) != 0;
        if (!empty && !mixed && !sameKeyAsStored(bucket, keyLength))
        {
            // Another key under an equal hash: the summary cannot tell the keys apart, gather every time.
            mixed = true;
        }
        if (empty)
        {
            clusterMax = ts;
            tailStart = ts;
            tailMax = ts;
            single = true;
        }
        else if (!mixed && (flags & SUMMARY) != 0 && fastSession(flags, bucket, ts))
        {
            clusterMax = this.clusterMax;
            tailStart = this.tailStart;
            tailMax = this.tailMax;
            single = this.single;
        }
        else
        {
            clusterMax = gatheredSession(bucket, keyLength, ts);
            tailStart = this.tailStart;
            tailMax = this.tailMax;
            single = this.single;
        }
        final long end = saturatedAdd(clusterMax, gap);
        if (isFired(end, watermark))
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE_WINDOW);
            state.releaseIfEmpty(bucket);
            return;
        }
        final long reservedRecord = state.reserve(keyLength, row);
        if (reservedRecord == 0)
        {
            state.releaseIfEmpty(bucket);
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        if (!state.reserveSlot(bucket, side, reservedRecord, keyLength, row))
        {
            state.releaseIfEmpty(bucket);
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        final long record = state.store.append(reservedRecord, bucket, side, predicate.key, 0, keyLength, row, ts);
        if (neverMatches)
        {
            RowDescriptor.count(state.base, record, NEVER_MATCHES);
        }
        // The row is stored: the summary now includes it.
        final long scheduled = empty ? 0 : UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET) & SCHEDULED;
        UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, scheduled | (mixed ? MIXED : SUMMARY | (single ? SINGLE : 0)));
        NativeArena.written(state.base, bucket + BUCKET_FLAGS_OFFSET);
        UnsafeApi.putLong(bucket + BUCKET_WINDOW_START_OFFSET, tailStart);
        NativeArena.written(state.base, bucket + BUCKET_WINDOW_START_OFFSET);
        UnsafeApi.putLong(bucket + BUCKET_WINDOW_END_OFFSET, tailMax);
        NativeArena.written(state.base, bucket + BUCKET_WINDOW_END_OFFSET);
        // The merged session's deadline, never below the watermark (the row was not late); the row's own
        // [ts, ts + gap) may lie before the watermark when it joins a later session.
        final long deadline = timerDeadline(end);
        if (scheduled == 0)
        {
            UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET) | SCHEDULED);
            NativeArena.written(state.base, bucket + BUCKET_FLAGS_OFFSET);
            bucketWheel.schedule(bucket, deadline);
        }
        else if (deadline < UnsafeApi.getLong(bucket + BUCKET_DEADLINE_OFFSET))
        {
            // Firing early is harmless: the bucket fires only due sessions and reschedules itself.
            bucketWheel.cancel(bucket);
            bucketWheel.schedule(bucket, deadline);
        }
    }

    @Override
    long fireKey(final long bucket, final int from, final int to)
    {
        if (coGroup != null)
        {
            // The sessions left are gathered again at the key's next row, which rebuilds the summary.
            UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET) & (SCHEDULED | MIXED));
            NativeArena.written(state.base, bucket + BUCKET_FLAGS_OFFSET);
            return coGroup.fireSessions(records, from, to, gap, ended, fireWatermark, fireStep);
        }
        long next = Long.MAX_VALUE;
        heapSort(records, from, to, true);
        int clusterStart = from;
        int unfired = 0;
        long lastStart = 0;
        long lastMax = 0;
        for (int i = from + 1; i <= to; i++)
        {
            if (i == to || RowDescriptor.ts(records[i]) > saturatedAdd(RowDescriptor.ts(records[i - 1]), gap))
            {
                final long start = RowDescriptor.ts(records[clusterStart]);
                final long end = saturatedAdd(RowDescriptor.ts(records[i - 1]), gap);
                if (ended || isFired(end, fireWatermark))
                {
                    emitWindow(clusterStart, i, start, end);
                }
                else
                {
                    next = Math.min(next, timerDeadline(end));
                    unfired++;
                    lastStart = start;
                    lastMax = RowDescriptor.ts(records[i - 1]);
                }
                clusterStart = i;
            }
        }
        final long flags = UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET);
        if (unfired > 0 && (flags & MIXED) == 0)
        {
            // The sessions left: the latest one is the summary's (sessions fire in ts order, so it is the key's latest).
            UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, (flags & SCHEDULED) | SUMMARY | (unfired == 1 ? SINGLE : 0));
            NativeArena.written(state.base, bucket + BUCKET_FLAGS_OFFSET);
            UnsafeApi.putLong(bucket + BUCKET_WINDOW_START_OFFSET, lastStart);
            NativeArena.written(state.base, bucket + BUCKET_WINDOW_START_OFFSET);
            UnsafeApi.putLong(bucket + BUCKET_WINDOW_END_OFFSET, lastMax);
            NativeArena.written(state.base, bucket + BUCKET_WINDOW_END_OFFSET);
        }
        return next;
    }

    /**
     * The merged session of a row at {@code ts} from the summary of the key's latest session alone, when it
     * can tell: the row is at or after that session's start, or the key has that one session only.
     *
     * @return false when the key's rows must be gathered; else {@link #clusterMax} and the new summary are set.
     */
    private boolean fastSession(final long flags, final long bucket, final long ts)
    {
        final long start = UnsafeApi.getLong(bucket + BUCKET_WINDOW_START_OFFSET);
        final long max = UnsafeApi.getLong(bucket + BUCKET_WINDOW_END_OFFSET);
        final boolean one = (flags & SINGLE) != 0;
        if (ts >= start)
        {
            if (ts <= saturatedAdd(max, gap))
            {
                // In or right after the latest session: it extends it (no session after it to bridge to).
                clusterMax = Math.max(max, ts);
                tailStart = start;
                tailMax = clusterMax;
                single = one;
            }
            else
            {
                // A new latest session, alone.
                clusterMax = ts;
                tailStart = ts;
                tailMax = ts;
                single = false;
            }
            return true;
        }
        if (!one)
        {
            // Before the latest session of several: it may join or bridge the earlier ones.
            return false;
        }
        tailMax = max;
        if (start <= saturatedAdd(ts, gap))
        {
            // Joins the key's only session from before its start.
            clusterMax = max;
            tailStart = ts;
            single = true;
        }
        else
        {
            // A session of its own before the only one.
            clusterMax = ts;
            tailStart = start;
            single = false;
        }
        return true;
    }

    /**
     * Gathers the ts of the key's stored rows and {@code ts}, sorts them and clusters them by the gap.
     *
     * @return the greatest ts of the row's merged session; {@link #tailStart}, {@link #tailMax} and
     *         {@link #single} are set to the summary with the row.
     */
    private long gatheredSession(final long bucket, final int keyLength, final long ts)
    {
        gathers++;
        int n = 0;
        for (int s = 0; s < 2; s++)
        {
            final long rows = state.store.rows(bucket, s == 0 ? Side.LEFT : Side.RIGHT);
            final int slots = RowGroup.slots(rows);
            for (int i = 0; i < slots; i++)
            {
                final long r = state.store.record(rows, i);
                if (r != 0 && state.store.keyEquals(r, predicate.key, 0, keyLength))
                {
                    ensureSessionTs(n + 1);
                    sessionTs[n++] = RowDescriptor.ts(r);
                }
            }
        }
        ensureSessionTs(n + 1);
        sessionTs[n++] = ts;
        heapSort(sessionTs, 0, n, false);
        long found = Long.MIN_VALUE;
        boolean inCluster = false;
        int clusters = 1;
        long start = sessionTs[0];
        for (int i = 0; i < n; i++)
        {
            if (i > 0 && sessionTs[i] > saturatedAdd(sessionTs[i - 1], gap))
            {
                clusters++;
                start = sessionTs[i];
                inCluster = false;
            }
            if (sessionTs[i] == ts)
            {
                inCluster = true;
            }
            if (inCluster)
            {
                found = sessionTs[i];
            }
        }
        tailStart = start;
        tailMax = sessionTs[n - 1];
        single = clusters == 1;
        return found;
    }

    /** @return rows whose merged session needed the key's rows gathered and sorted. */
    long gathers()
    {
        return gathers;
    }

    /** @return whether the key is the one of a stored row of the bucket (a bucket holds several keys only on a hash collision). */
    private boolean sameKeyAsStored(final long bucket, final int keyLength)
    {
        for (int s = 0; s < 2; s++)
        {
            final long rows = state.store.rows(bucket, s == 0 ? Side.LEFT : Side.RIGHT);
            final int slots = RowGroup.slots(rows);
            for (int i = 0; i < slots; i++)
            {
                final long r = state.store.record(rows, i);
                if (r != 0)
                {
                    return state.store.keyEquals(r, predicate.key, 0, keyLength);
                }
            }
        }
        return true;
    }

    @Override
    void fireLoneRow(final long record)
    {
        final long ts = RowDescriptor.ts(record);
        emitLoneRow(record, ts, saturatedAdd(ts, gap));
    }

    private void ensureSessionTs(final int length)
    {
        if (length > sessionTs.length)
        {
            sessionTs = Arrays.copyOf(sessionTs, Math.max(length, sessionTs.length * 2));
        }
    }

    /**
     * Sorts {@code a[from, to)} ascending in place without allocating: by value, or, when
     * {@code byRecordTs}, by the ts of the records they address. Not {@code Arrays.sort}: the records
     * sort by a key read through their address, which it cannot take, and on {@code long[]} its
     * dual-pivot quicksort (JDK 14+) may allocate a merge buffer for ranges over 4096 elements that
     * hold runs, as the two side chains gathered here do. A heap sort is also unstable in a way that
     * does not depend on the JDK, so the order of a session's output stays as it was.
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
}
