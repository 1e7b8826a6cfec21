package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ExpiryHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.internal.state.UniqueKeyIndex;
import org.agrona.ErrorHandler;

import java.util.List;

import static io.junction.join.JoinPredicate.UNMATCHABLE;

/**
 * The regular (unbounded) join with a retraction changelog, as Flink SQL's
 * {@code StreamingJoinOperator} and {@code StreamingSemiAntiJoinOperator} (SEMANTICS 4).
 *
 * <p>Predicate: keys equal (a null key matches nothing), both rows pass their side's pre-filter,
 * and the post-join condition holds. Every row is stored until it is retracted or, with a state TTL,
 * until the watermark passes {@code ts + stateTtl} (each side's own TTL: {@link JoinSpec#stateTtl(Side)},
 * as Flink SQL's per-table {@code STATE_TTL} hint). Each stored row carries its association count:
 * the number of other-side rows it matched, so that outer and semi/anti output can change state
 * exactly when a count crosses zero.
 * <pre>
 * on row r of side S, other side O, kind k:
 *   if k retracts and no stored copy of r: dead-letter, stop
 *   for each stored o of O matching r:
 *     accumulate: if O is outer and o.count == 0: emit -(o, null);  o.count++;  emit k(r, o)
 *     retract:    emit k(r, o);  o.count--;  if O is outer and o.count == 0: emit +(o, null)
 *   if S is outer and r matched nothing: emit +(r, null) / -(r, null)
 *   accumulate: store r with its count (unless already older than watermark - stateTtl of S)
 *   retract:    remove the stored copy
 * semi: +l when l's count goes 0 -&gt; 1, -l when 1 -&gt; 0.  anti: +l while 0, -l when it leaves 0.
 * </pre>
 * Output timestamps are max(left.ts, right.ts) for pairs and the row's own ts when padded. Expiry
 * by TTL emits nothing and leaves the counts of the rows that the expired row matched as they are,
 * so nothing emitted is retracted by expiry.
 *
 * <p>A side with a declared unique key ({@link JoinSpec#uniqueKey(Side)}) keeps one of Flink's three
 * state shapes ({@code JoinRecordStateViews}), chosen here once, each a {@link JoinRecordStateView}: when the
 * join key holds every unique-key field, a join key has at most one live row per side, so its bucket alone
 * answers a duplicate check ({@link JoinKeyContainsUniqueKey}); otherwise a {@link UniqueKeyIndex} finds the
 * side's row of a unique key in O(1) for retractions and duplicate checks ({@link InputSideHasUniqueKey}); a
 * side without one keeps rows as above ({@link InputSideHasNoUniqueKey}). Rows that break the promise as far
 * as both shapes and every partitioning see it alike (a null unique-key field; an insert whose unique key is
 * live under the same join key, both rows able to match) are dead-lettered
 * {@link DeadLetterReason#UNIQUE_KEY_VIOLATION} before any effect; for input that keeps it the output is the
 * same as without the declaration. With upsert output every unique key is indexed and any live row of the side
 * with the unique key refuses an insert (whatever the join keys, and whether either row can match): a second
 * live row of a result key would otherwise overwrite the first in the upsert table.
 *
 * <p>Shaping the changelog (docs/SEMANTICS.md "Padded-row delay", "Upsert output", "Visible
 * expiry"): padded-row delays, padOnExpiry, TTL expiry, evictions and their report to an
 * {@link ExpiryHandler} are {@link RegularRowTimers}'; with upsert output ({@link OutputMode#UPSERT}) the
 * driver's emitter writes through an {@link UpsertFold}, flushed here at the end of each event.
 *
 * <p>The kind's {@link JoinAlgorithm}, made of final collaborators:
 * <pre>
 * RegularJoin.onRow:     key (OperatorParts.keyOf), then the side's JoinRecordStateView, then the fold flushed
 * JoinRecordStateView:   the side's unique-key promise, then RegularRowChanges.accumulate / retract
 * RegularRowChanges:     admit (PartitionState.admit: the one STATE_FULL refusal), probe, pad, store / remove
 * AssociationProbe:      the other side's matches, their association counts, user conditions evaluated first
 * RegularRowTimers:      TTL, padded-row delay, awaiting-pad copies, EXPIRE_OLDEST, visible expiry
 * </pre>
 * Its {@link OperatorDriver} owns the lifecycle; the durable layout is {@value #LAYOUT} and the heap part is
 * the driver's counters and watermarks (this keeps no field of its own to persist). The end of input closes nothing, so the driver leaves the
 * watermarks as they are ({@link #onEndOfInput}).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class RegularJoin implements JoinAlgorithm
{
    /** The kind's name in the durable state's layout. */
    static final String LAYOUT = "regular";

    /** How a side keeps its rows by unique key (Flink's {@code JoinInputSideSpec}). */
    enum UniqueKeyShape
    {
        /** No unique key declared: rows are found by join key and row bytes ({@link InputSideHasNoUniqueKey}). */
        NONE,
        /** The join key holds the unique key: at most one live row per join key, found in its bucket ({@link JoinKeyContainsUniqueKey}). */
        IN_JOIN_KEY,
        /** A unique key beyond the join key: rows are found through the side's {@link UniqueKeyIndex} ({@link InputSideHasUniqueKey}). */
        INDEXED
    }

    /** The stored rows; package-private for tests that look at the index and the store. */
    final PartitionState state;
    private final OperatorParts parts;
    private final JoinPredicate predicate;
    private final UpsertFold fold;
    private final RegularRowTimers timers;
    /** Each side's state view, chosen once by its {@link UniqueKeyShape}. */
    final JoinRecordStateView left;
    final JoinRecordStateView right;

    /**
     * Creates a regular join's operator: its driver over this algorithm.
     *
     * @param spec        a regular join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output, and expiry when it is an {@link ExpiryHandler}.
     * @param deadLetters receives the rows that cannot be processed.
     * @param errors      receives a user filter's or condition's exception; null to only count it.
     * @return the operator.
     * @throws IllegalArgumentException when the spec is of another join kind.
     * @throws DurableStateException    when the state directory holds state the operator must not reopen.
     */
    static JoinOperator create(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errors)
    {
        if (spec.kind() != JoinKind.REGULAR)
        {
            throw new IllegalArgumentException("this operator runs REGULAR joins, not: " + spec);
        }
        final ExpiryHandler expiry = results instanceof ExpiryHandler ? (ExpiryHandler)results : null;
        return new OperatorDriver(spec, config, results, deadLetters, errors, LAYOUT, timedSides(spec),
            DriverShape.DEFAULT.otherOffHeapBytes(uniqueKeyIndexBytes(spec, config)).endKeepsWatermarks(), parts -> new RegularJoin(parts, expiry));
    }

    /**
     * The regular join's algorithm over its driver's parts.
     *
     * @param parts  a regular join's parts.
     * @param expiry told of expired and evicted rows, or null.
     */
    RegularJoin(final OperatorParts parts, final ExpiryHandler expiry)
    {
        this.parts = parts;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.fold = parts.fold;
        final JoinRecordStateView[] views = new JoinRecordStateView[2];
        this.timers = new RegularRowTimers(parts, expiry, views);
        final RegularRowChanges changes = new RegularRowChanges(parts, new AssociationProbe(parts), timers);
        this.left = view(parts, Side.LEFT, changes);
        this.right = view(parts, Side.RIGHT, changes);
        views[Side.LEFT.ordinal()] = left;
        views[Side.RIGHT.ordinal()] = right;
    }

    /** @return the state view of a side's shape; an indexed side's unique-key index is opened (the state owns it). */
    private static JoinRecordStateView view(final OperatorParts parts, final Side side, final RegularRowChanges changes)
    {
        switch (shape(parts.spec, side))
        {
            case INDEXED:
                return new InputSideHasUniqueKey(parts, side, changes, parts.state.uniqueKeyIndex(side, uniqueKeyCapacity(parts.config)));
            case IN_JOIN_KEY:
                return new JoinKeyContainsUniqueKey(parts, side, changes);
            default:
                return new InputSideHasNoUniqueKey(changes);
        }
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        timers.beginEvent(step);
        try
        {
            final int keyLength = parts.keyOf(side, kind, row, ts, step);
            if (keyLength == OperatorParts.REFUSED)
            {
                return;
            }
            final long hash = keyLength == UNMATCHABLE ? 0 : predicate.keyHash(keyLength);
            final JoinRecordStateView view = side == Side.LEFT ? left : right;
            if (kind.isAccumulate())
            {
                view.accumulate(side, kind, row, ts, step, keyLength, hash);
            }
            else
            {
                view.retract(side, kind, row, ts, step, keyLength, hash);
            }
        }
        finally
        {
            flushFold();
        }
    }

    /**
     * The join's watermark moved forward to {@code watermark}: rows past their TTL expire, rows past their
     * padded-row delay are padded if unmatched.
     */
    @Override
    public void onWatermark(final long watermark, final long step)
    {
        if (timers.timed())
        {
            try
            {
                timers.advance(watermark, step);
            }
            finally
            {
                flushFold();
            }
        }
    }

    /**
     * Regular joins keep state until retraction or TTL; the end of input pads every row still inside its
     * padded-row delay (SEMANTICS 4.5-4.7) and closes nothing else: the watermarks stay where they are, and the state
     * is marked changed only when there is padding to do.
     */
    @Override
    public void onEndOfInput(final long step)
    {
        if (timers.delays())
        {
            state.beginMutation();
            try
            {
                timers.padAllPending(step);
            }
            finally
            {
                flushFold();
            }
        }
    }

    /** EXPIRE_OLDEST: the row with the earliest TTL deadline leaves early, as if its TTL had passed. */
    @Override
    public boolean makeRoom()
    {
        return timers.evictOldest();
    }

    private void flushFold()
    {
        if (fold != null)
        {
            fold.flush();
        }
    }

    /**
     * The sides whose rows {@link RegularRowTimers} may link into the timer wheel, whose records alone carry
     * timer links: a side with a state TTL, and a padded side with a padded-row delay ({@link #padDelay},
     * docs/SEMANTICS.md 4.5). A left join with {@code paddedDelay} and no TTL times only its left rows: its right records are
     * 24 bytes shorter.
     *
     * @param spec a regular join.
     * @return {@link RowStore#TIMED_LEFT} and {@link RowStore#TIMED_RIGHT}.
     */
    static int timedSides(final JoinSpec spec)
    {
        return (timed(spec, Side.LEFT) ? RowStore.TIMED_LEFT : RowStore.TIMED_NONE) |
            (timed(spec, Side.RIGHT) ? RowStore.TIMED_RIGHT : RowStore.TIMED_NONE);
    }

    private static boolean timed(final JoinSpec spec, final Side side)
    {
        return spec.stateTtl(side) > 0 || padDelay(spec, side) >= 0;
    }

    /**
     * @return a side's padded-row delay: the spec's for an outer side, else its TTL with padOnExpiry, else -1
     *         (padded at once).
     */
    static long padDelay(final JoinSpec spec, final Side side)
    {
        if (spec.kind() != JoinKind.REGULAR || !spec.type().padsUnmatched(side))
        {
            return -1;
        }
        if (spec.hasPaddedDelay())
        {
            return spec.paddedDelay();
        }
        return spec.padOnExpiry() && spec.stateTtl(side) > 0 ? spec.stateTtl(side) : -1;
    }

    /**
     * @return the shape of a side's state: by its declared unique key and join key. With upsert output every
     *         declared unique key is indexed: a second live row of a unique key is refused whatever its join key
     *         (docs/SEMANTICS.md 4.4), and only the index sees rows of one unique key under other join keys.
     */
    static UniqueKeyShape shape(final JoinSpec spec, final Side side)
    {
        final List<String> uniqueKey = spec.uniqueKey(side);
        if (uniqueKey.isEmpty())
        {
            return UniqueKeyShape.NONE;
        }
        if (spec.output() == OutputMode.UPSERT)
        {
            return UniqueKeyShape.INDEXED;
        }
        return (side == Side.LEFT ? spec.leftKey() : spec.rightKey()).containsAll(uniqueKey)
            ? UniqueKeyShape.IN_JOIN_KEY : UniqueKeyShape.INDEXED;
    }

    /** A side's rows are capped by the partition's live-row limit, so its unique keys are too. */
    private static long uniqueKeyCapacity(final StateConfig config)
    {
        return Math.min(config.maxLiveRows(), UniqueKeyIndex.MAX_ENTRIES);
    }

    /** @return the most bytes of the spec's unique-key indexes, taken from the rows' byte budget. */
    private static long uniqueKeyIndexBytes(final JoinSpec spec, final StateConfig config)
    {
        long bytes = 0;
        for (final Side side : Side.values())
        {
            if (spec.kind() == JoinKind.REGULAR && shape(spec, side) == UniqueKeyShape.INDEXED)
            {
                bytes += UniqueKeyIndex.maxOffHeapBytes(uniqueKeyCapacity(config));
            }
        }
        return bytes;
    }

    /** Its rows are the store's records in the buckets of their join key's hash (docs/SEMANTICS.md 14). */
    @Override
    public boolean inspectable()
    {
        return true;
    }

    /** A row is in the wheel only while its TTL or padded-row delay runs ({@link RowDescriptor#FLAG_IN_TIMER}). */
    @Override
    public long due(final long record)
    {
        return (RowDescriptor.flags(record) & RowDescriptor.FLAG_IN_TIMER) != 0 ? RowDescriptor.deadline(record) : Long.MAX_VALUE;
    }

    /** Every stored row of the other side under the key is a candidate, decided as {@link #explainPair} does. */
    @Override
    public boolean explainable()
    {
        return true;
    }
}
