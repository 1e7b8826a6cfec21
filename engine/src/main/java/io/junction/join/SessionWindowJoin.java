package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.WindowBucketDescriptor;

import java.util.Arrays;

import static io.junction.internal.state.WindowBucketDescriptor.MIXED;
import static io.junction.internal.state.WindowBucketDescriptor.SCHEDULED;
import static io.junction.internal.state.WindowBucketDescriptor.SINGLE;
import static io.junction.internal.state.WindowBucketDescriptor.SUMMARY;
import static io.junction.internal.state.WindowBucketDescriptor.WINDOW_SUFFIX;
import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedAdd;
import static io.junction.join.WindowBuckets.NEVER_MATCHES;
import static io.junction.join.WindowBuckets.isFired;
import static io.junction.join.WindowBuckets.timerDeadline;

/**
 * The session window join (SEMANTICS 6), as Flink SQL's session window join: per key, a row opens
 * {@code [ts, ts + gap)} and the sessions of both sides that overlap or touch merge. A session fires once,
 * when the watermark reaches {@code end - 1}, and emits as a tumbling window does (pairs, padded rows, semi /
 * anti rows, all carrying {@code [start, end)}); its rows are then dropped. A row is late
 * ({@code LATE_WINDOW}) when its merged session is already due; a fired session is final: later rows start
 * new sessions.
 * <pre>
 * rows are stored per key; the bucket's timer is due at its earliest session's end - 1; on firing,
 *   the key's rows are clustered by ts (a gap larger than {@code gap} splits sessions), due sessions
 *   are joined and dropped, and the bucket is rescheduled for the next one. A row that fails its
 *   pre-filter is stored with its key like any row (it opens, extends and bridges sessions and
 *   decides lateness) but is marked to match nothing.
 * null key: the row is alone in its session {@code [ts, ts + gap)}; it is stored with its own timer
 *   and emitted padded (or as anti output) when that session fires, if its side emits unmatched rows.
 * the bucket ({@link WindowBucketDescriptor}) summarises the key's latest unfired session (SUMMARY, SINGLE),
 *   so that a row of that session, after it, or of a key with one session finds its merged session in O(1);
 *   otherwise (or for a bucket of colliding keys, MIXED) the key's rows are gathered and sorted.
 * store: the key's bucket is found or created (its summary judges lateness), then PartitionState.admit stores
 *   the row in it; a full index or a refusal is the one STATE_FULL dead letter (OperatorParts.admit), and a
 *   bucket created for a row that is late or refused is removed again.
 * </pre>
 * With a window coGroup (SEMANTICS 6.4) a due session's rows of one key go to the function instead
 * ({@link CoGroupWindows}).
 *
 * <p>The kind's {@link JoinAlgorithm}: its {@link OperatorDriver} owns the lifecycle and calls this for the
 * rows, the watermark and the end of input; the firing, the watermark, the end of input
 * and the heap part are its {@link WindowBuckets}' ({@link WindowAlgorithm}).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class SessionWindowJoin implements WindowAlgorithm
{
    private final OperatorParts parts;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final WindowBuckets buckets;
    private final long gap;
    /** The ts of the key's stored rows and of the arriving row, sorted to find the row's merged session; used for nothing else. */
    private long[] sessionTs = new long[64];
    /** Set by {@link #fastSession} and {@link #gatheredSession}: the row's merged session end ts, and the summary with the row. */
    private long clusterMax;
    private long tailStart;
    private long tailMax;
    private boolean single;
    /** Rows whose merged session needed the key's rows gathered and sorted (the slow path); for tests. */
    private long gathers;

    /**
     * The session window join's algorithm over its driver's parts.
     *
     * @param parts a session window join's parts (window buckets), any join type, join or coGroup.
     */
    SessionWindowJoin(final OperatorParts parts)
    {
        this.parts = parts;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.buckets = new WindowBuckets(parts, this);
        this.gap = parts.spec.window().gap();
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind != ChangeKind.INSERT)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        final int capacity = predicate.key.capacity() - WINDOW_SUFFIX;
        int keyLength = predicate.extractKey(side, row, capacity);
        boolean neverMatches = false;
        if (keyLength == UNMATCHABLE && !predicate.passesFilter(side, row))
        {
            // SEMANTICS 6: a filtered row still takes part in its key's sessions; only a null-key row is alone.
            keyLength = predicate.extractKeyIgnoringFilter(side, row, capacity);
            neverMatches = true;
        }
        if (parts.refuseKey(keyLength, side, kind, row, ts, step) == OperatorParts.REFUSED)
        {
            return;
        }
        onSessionRow(side, kind, row, ts, step, keyLength, neverMatches, buckets.rowWatermark());
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
                final long record = parts.admit(side, kind, row, ts, step, 0, 0, state.unmatchableBucket);
                if (record != PartitionState.REFUSED)
                {
                    state.wheel.schedule(record, timerDeadline(end));
                }
            }
            return;
        }
        final long hash = predicate.keyHash(keyLength);
        final long bucket = state.index.findOrCreate(hash);
        if (bucket == KeyIndex.FULL)
        {
            // Refused at once (PartitionState.admit of a full index): the one STATE_FULL dead letter.
            parts.admit(side, kind, row, ts, step, keyLength, hash, bucket);
            return;
        }
        // The merged session of the new row: its key's unfired rows clustered with it. The bucket's summary of
        // its latest session answers in O(1) for a row of that session, after it, or of a key with one session;
        // otherwise the key's rows are gathered and sorted (and the summary rebuilt).
        final boolean empty = BucketDescriptor.isEmpty(bucket);
        final long flags = empty ? 0 : WindowBucketDescriptor.flags(bucket);
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
        final long record = parts.admit(side, kind, row, ts, step, keyLength, hash, bucket);
        if (record == PartitionState.REFUSED)
        {
            state.releaseIfEmpty(bucket);
            return;
        }
        final long into = bucket;
        if (neverMatches)
        {
            RowDescriptor.count(state.base, record, NEVER_MATCHES);
        }
        // The row is stored: the summary now includes it.
        final long scheduled = empty ? 0 : WindowBucketDescriptor.flags(into) & SCHEDULED;
        WindowBucketDescriptor.flags(state.base, into, scheduled | (mixed ? MIXED : SUMMARY | (single ? SINGLE : 0)));
        WindowBucketDescriptor.window(state.base, into, tailStart, tailMax);
        // The merged session's deadline, never below the watermark (the row was not late); the row's own
        // [ts, ts + gap) may lie before the watermark when it joins a later session.
        final long deadline = timerDeadline(end);
        if (scheduled == 0)
        {
            buckets.schedule(into, deadline);
        }
        else if (deadline < WindowBucketDescriptor.deadline(into))
        {
            // Firing early is harmless: the bucket fires only due sessions and reschedules itself.
            buckets.reschedule(into, deadline);
        }
    }

    @Override
    public long fireKey(final long bucket, final long[] records, final int from, final int to)
    {
        if (buckets.coGroups())
        {
            // The sessions left are gathered again at the key's next row, which rebuilds the summary.
            WindowBucketDescriptor.flags(state.base, bucket, WindowBucketDescriptor.flags(bucket) & (SCHEDULED | MIXED));
            return buckets.coGroupSessions(records, from, to, gap);
        }
        final boolean ended = buckets.ended();
        final long fireWatermark = buckets.fireWatermark();
        long next = Long.MAX_VALUE;
        RecordSort.sort(records, from, to, true);
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
                    buckets.emitWindow(records, clusterStart, i, start, end);
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
        final long flags = WindowBucketDescriptor.flags(bucket);
        if (unfired > 0 && (flags & MIXED) == 0)
        {
            // The sessions left: the latest one is the summary's (sessions fire in ts order, so it is the key's latest).
            WindowBucketDescriptor.flags(state.base, bucket, (flags & SCHEDULED) | SUMMARY | (unfired == 1 ? SINGLE : 0));
            WindowBucketDescriptor.window(state.base, bucket, lastStart, lastMax);
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
        final long start = WindowBucketDescriptor.windowStart(bucket);
        final long max = WindowBucketDescriptor.windowEnd(bucket);
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
            final long rows = state.store.rows(bucket, s);
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
        RecordSort.sort(sessionTs, 0, n, false);
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
            final long rows = state.store.rows(bucket, s);
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
    public void fireLoneRow(final long record)
    {
        final long ts = RowDescriptor.ts(record);
        buckets.emitLoneRow(record, ts, saturatedAdd(ts, gap));
    }

    @Override
    public WindowBuckets buckets()
    {
        return buckets;
    }

    private void ensureSessionTs(final int length)
    {
        if (length > sessionTs.length)
        {
            sessionTs = Arrays.copyOf(sessionTs, Math.max(length, sessionTs.length * 2));
        }
    }
}
