package io.junction.join;

import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import org.agrona.DirectBuffer;

/**
 * The versions of a temporal join's keys (docs/SEMANTICS.md section 7, {@link TemporalJoin}): each key's changes
 * are the records of its bucket's right group, in arrival order, and are picked by scanning that group (a key
 * holds few: one change at or below the watermark plus those above it). A bucket may hold several keys whose
 * hashes collide: only the records with the key's bytes are its versions.
 * <pre>
 * versionAt(bucket, key, ts)   the version valid at ts: the greatest version ts &lt;= ts, or 0 (a left row's pick;
 *                              a record of another key that could have been picked counts a hash collision)
 * neighbours(bucket, key, ts)  the key's version at ts (same), the latest before it (previous) and the earliest
 *                              after it (next), 0 for none: where a right change goes among the key's versions
 * </pre>
 * Reads the store only: freeing and scheduling are the join's. Nothing is allocated per call.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class TemporalVersions
{
    private final RowStore store;
    private final JoinCounters counters;
    /** Set by {@link #neighbours}: the same key's versions at, before and after a ts (0 for none). */
    private long same;
    private long previous;
    private long next;

    /**
     * @param store    the partition state's records and row groups.
     * @param counters counts the hash collisions met.
     */
    TemporalVersions(final RowStore store, final JoinCounters counters)
    {
        this.store = store;
        this.counters = counters;
    }

    /**
     * Finds the versions of a key (those with these key bytes) at {@code ts} ({@link #same}), the latest before it
     * ({@link #previous}) and the earliest after it ({@link #next}).
     *
     * @param bucket    the key's bucket, 0 for none.
     * @param key       the key's bytes.
     * @param keyLength their length.
     * @param ts        the change's ts.
     */
    void neighbours(final long bucket, final DirectBuffer key, final int keyLength, final long ts)
    {
        same = 0;
        previous = 0;
        next = 0;
        if (bucket == 0)
        {
            return;
        }
        long previousTs = 0;
        long nextTs = 0;
        final long rows = store.rows(bucket, Side.RIGHT.ordinal());
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            final long r = store.record(rows, i);
            if (r == 0 || !store.keyEquals(r, key, 0, keyLength))
            {
                continue;
            }
            final long rts = RowDescriptor.ts(r);
            if (rts == ts)
            {
                same = r;
            }
            else if (rts < ts)
            {
                if (previous == 0 || rts > previousTs)
                {
                    previous = r;
                    previousTs = rts;
                }
            }
            else if (next == 0 || rts < nextTs)
            {
                next = r;
                nextTs = rts;
            }
        }
    }

    /** @return the key's version at the ts of the last {@link #neighbours}, or 0. */
    long same()
    {
        return same;
    }

    /** @return the key's latest version before the ts of the last {@link #neighbours}, or 0. */
    long previous()
    {
        return previous;
    }

    /** @return the key's earliest version after the ts of the last {@link #neighbours}, or 0. */
    long next()
    {
        return next;
    }

    /**
     * @param bucket    the key's bucket, 0 for none.
     * @param key       the key's bytes.
     * @param keyLength their length.
     * @param ts        the left row's ts.
     * @return the version of the key valid at {@code ts}: the one with the greatest ts at or below it, or 0.
     */
    long versionAt(final long bucket, final DirectBuffer key, final int keyLength, final long ts)
    {
        if (bucket == 0)
        {
            return 0;
        }
        long best = 0;
        long bestTs = 0;
        final long rows = store.rows(bucket, Side.RIGHT.ordinal());
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            final long r = store.record(rows, i);
            if (r == 0)
            {
                continue;
            }
            final long rts = RowDescriptor.ts(r);
            if (rts <= ts && (best == 0 || rts > bestTs))
            {
                if (store.keyEquals(r, key, 0, keyLength))
                {
                    best = r;
                    bestTs = rts;
                }
                else
                {
                    counters.hashCollisions++;
                }
            }
        }
        return best;
    }
}
