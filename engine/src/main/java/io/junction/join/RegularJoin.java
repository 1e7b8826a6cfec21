package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.BufferCompare;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.state.UniqueKeyIndex;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedAdd;

/**
 * The regular (unbounded) join with a retraction changelog, as Flink SQL's
 * {@code StreamingJoinOperator} and {@code StreamingSemiAntiJoinOperator} (SPEC 2.1).
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
 * semi: +l when l's count goes 0 -> 1, -l when 1 -> 0.  anti: +l while 0, -l when it leaves 0.
 * </pre>
 * Output timestamps are max(left.ts, right.ts) for pairs and the row's own ts when padded. Expiry
 * by TTL emits nothing and leaves the counts of the rows that the expired row matched as they are,
 * so nothing emitted is retracted by expiry.
 *
 * <p>A side with a declared unique key ({@link JoinSpec#uniqueKey(Side)}) keeps one of Flink's three
 * state shapes, chosen here once: when the join key holds every unique-key field, a join key has at
 * most one live row per side, so its bucket alone answers a duplicate check ({@link UniqueKeyShape#IN_JOIN_KEY});
 * otherwise a {@link UniqueKeyIndex} finds the side's row of a unique key in O(1) for retractions and
 * duplicate checks ({@link UniqueKeyShape#INDEXED}); a side without one keeps rows as above. Rows that
 * break the promise as far as both shapes and every partitioning see it alike (a null unique-key field;
 * an insert whose unique key is live under the same join key, both rows able to match) are
 * dead-lettered {@link DeadLetterReason#UNIQUE_KEY_VIOLATION} before any effect; for input that keeps
 * it the output is the same as without the declaration.
 *
 * <p>Shaping the changelog (SPEC 2.7, docs/SEMANTICS.md "Padded-row delay", "Upsert output", "Visible
 * expiry"). With a padded-row delay D ({@link JoinSpec#paddedDelay()}) every stored row of an outer
 * side arrives pending ({@link RowDescriptor#FLAG_PAD_PENDING}) unless the join watermark is already
 * above {@code ts + D}, and is linked into the state's timer wheel at {@code ts + D} (or its TTL deadline
 * when that comes first: one timer per record, moved on to the TTL deadline when the delay ends). While
 * pending, a row is neither padded when unmatched nor retracted padded when it matches; when its timer
 * fires (the first join watermark above its deadline) it is padded if its count is 0 then; a pending
 * unmatched row that its TTL expires first leaves the state silently, a copy of it (in the bucket of rows
 * that never match, {@link RowDescriptor#FLAG_AWAITING_PAD}) waiting to be padded when its delay ends (with
 * padOnExpiry, or without room for the copy, or when evicted, it is padded at its expiry); the end of
 * input pads every pending unmatched row. Rows that can never match (null key, own filter)
 * and rows not stored (expired on arrival) are padded at once. With {@link JoinSpec#padOnExpiry()} and
 * no delay, a side with a TTL pads its rows as with a delay equal to its TTL: at their expiry. With
 * upsert output ({@link OutputMode#UPSERT}) the lines go through an {@link UpsertFold}, flushed at the end
 * of each event. Expiry and evictions are counted per side and reported to the result handler when it is
 * also an {@link ExpiryHandler}.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class RegularJoin implements JoinOperator
{
    private final JoinCounters counters = new JoinCounters();
    private final WatermarkTracker watermarks = new WatermarkTracker();
    /** The stored rows; package-private for tests that look at the index and the state.store. */
    final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final boolean semiOrAnti;
    /** The spec has user pair conditions, which may throw: see {@link #conditionsEvaluate}. */
    private final boolean userConditions;
    /** Results of {@link #conditionsEvaluate} by slot of the other side's group: the record and whether it matched. */
    private long[] checkedRecords = new long[16];
    private boolean[] checkedMatches = new boolean[16];
    /** Slots of {@link #checkedRecords} that are valid, 0 outside a row's processing. */
    private int checked;
    private final boolean semi;
    /** Each side's state TTL (0: kept until retracted), and whether either has one. */
    private final long leftTtl;
    private final long rightTtl;
    private final boolean anyTtl;
    private final TimerWheel.ExpiryHandler timer = this::onTimer;
    /** Each side's padded-row delay, -1 when its unmatched rows are padded at once (SPEC 2.7). */
    private final long leftPadDelay;
    private final long rightPadDelay;
    private final boolean anyPadDelay;
    /** Pad a pending unmatched row when its TTL expires it, rather than when its delay ends. */
    private final boolean padOnExpiry;
    /** Rows of the wheel: TTL expiry or padded-row delays. */
    private final boolean timed;
    /** Folds the output into upserts by result key, or null for the retraction changelog. */
    private final UpsertFold fold;
    /** Told of expired and evicted rows, or null. */
    private final ExpiryHandler expiryHandler;
    /** The step and join watermark of the event being processed, for timers and evictions. */
    private long eventStep;
    private long timerWatermark;
    /** Wraps a stored record for output when its timer fires or it expires. */
    private final RowView timedRow = new RowView();
    private final UnsafeBuffer timedRowBuffer = new UnsafeBuffer(0, 0);
    private final TimerWheel.ExpiryHandler padPending = this::padIfPending;
    /** Set when {@link #makeRoom} evicted rows while the current row was being admitted (a bucket found before may be gone). */
    private boolean evicted;

    /** How a side keeps its rows by unique key (Flink's {@code JoinInputSideSpec}). */
    enum UniqueKeyShape
    {
        /** No unique key declared: rows are found by join key and row bytes. */
        NONE,
        /** The join key holds the unique key: at most one live row per join key, found in its bucket. */
        IN_JOIN_KEY,
        /** A unique key beyond the join key: rows are found through the side's {@link UniqueKeyIndex}. */
        INDEXED
    }

    private final UniqueKeyShape leftShape;
    private final UniqueKeyShape rightShape;
    /** The unique-key fields of each side, or null when none is declared. */
    private final KeyExtractor leftUniqueKey;
    private final KeyExtractor rightUniqueKey;
    /** Null unless the side's shape is {@link UniqueKeyShape#INDEXED}. */
    private final UniqueKeyIndex leftIndex;
    private final UniqueKeyIndex rightIndex;
    /** Unique-key bytes of the row being processed, and those of a stored row being compared with them. */
    private final UnsafeBuffer uniqueKey;
    private final UnsafeBuffer storedUniqueKey;
    private final RowView uniqueKeyRow = new RowView();
    private final UnsafeBuffer uniqueKeyRowBuffer = new UnsafeBuffer(0, 0);
    /** The fields and length of the unique key in {@link #uniqueKey}, for {@link #duplicate}. */
    private KeyExtractor matchedFields;
    private int matchedLength;
    /** The join-key length in {@link #key}, for {@link #duplicate}. */
    private int duplicateKeyLength;
    /** The row whose stored copy {@link #equalRow} looks for. */
    private RowView retracted;
    /** Finds a live row that can match with the join key in {@link #key} and the unique key in {@link #uniqueKey}. */
    private final UniqueKeyIndex.Matcher duplicate = this::isDuplicate;
    /** Finds the stored copy of {@link #retracted}. */
    private final UniqueKeyIndex.Matcher equalRow = this::isRetracted;

    /**
     * Creates the operator and allocates its off-heap state.
     *
     * @param spec        a regular join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @throws IllegalArgumentException when the spec is of another join kind.
     */
    public RegularJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        JoinOperators.requireKind(spec, JoinKind.REGULAR);
        final CompiledJoin compiled = CompiledJoin.of(spec);
        this.fold = spec.output() == OutputMode.UPSERT
            ? new UpsertFold(spec.resultKey(), compiled.uniqueKey(Side.LEFT), compiled.uniqueKey(Side.RIGHT), results, counters)
            : null;
        this.expiryHandler = results instanceof ExpiryHandler ? (ExpiryHandler)results : null;
        this.emit = new Emitter(spec.type(), fold != null ? fold : results, deadLetters, counters);
        this.leftPadDelay = padDelay(spec, Side.LEFT);
        this.rightPadDelay = padDelay(spec, Side.RIGHT);
        this.anyPadDelay = leftPadDelay >= 0 || rightPadDelay >= 0;
        this.padOnExpiry = spec.padOnExpiry();
        this.timed = spec.stateTtl(Side.LEFT) > 0 || spec.stateTtl(Side.RIGHT) > 0 || anyPadDelay;
        this.state = new PartitionState(config, spec, "regular", BucketDescriptor.LENGTH,
            timed, counters, this::makeRoom, uniqueKeyIndexBytes(spec, config));
        this.predicate = new JoinPredicate(compiled, state.config, state.store, counters, results);
        this.semiOrAnti = spec.type().isSemiOrAnti();
        this.userConditions = !spec.pairConditions().isEmpty();
        this.semi = spec.type() == JoinType.SEMI;
        this.leftTtl = spec.stateTtl(Side.LEFT);
        this.rightTtl = spec.stateTtl(Side.RIGHT);
        this.anyTtl = leftTtl > 0 || rightTtl > 0;
        this.leftShape = shape(spec, Side.LEFT);
        this.rightShape = shape(spec, Side.RIGHT);
        this.leftUniqueKey = compiled.uniqueKey(Side.LEFT);
        this.rightUniqueKey = compiled.uniqueKey(Side.RIGHT);
        final boolean anyUniqueKey = leftShape != UniqueKeyShape.NONE || rightShape != UniqueKeyShape.NONE;
        this.uniqueKey = anyUniqueKey ? new UnsafeBuffer(ByteBuffer.allocateDirect(config.maxKeyLength())) : null;
        this.storedUniqueKey = anyUniqueKey ? new UnsafeBuffer(ByteBuffer.allocateDirect(config.maxKeyLength())) : null;
        UniqueKeyIndex left = null;
        UniqueKeyIndex right = null;
        try
        {
            // The state owns them (and closes them): in durable mode they are files of its directory.
            left = leftShape == UniqueKeyShape.INDEXED ? state.uniqueKeyIndex(Side.LEFT, uniqueKeyCapacity(config)) : null;
            right = rightShape == UniqueKeyShape.INDEXED ? state.uniqueKeyIndex(Side.RIGHT, uniqueKeyCapacity(config)) : null;
            this.leftIndex = left;
            this.rightIndex = right;
            state.restore(heapPart);
        }
        catch (final RuntimeException | Error e)
        {
            state.close();
            throw e;
        }
    }

    /** The operator's heap-held state in durable mode: counters and watermarks (rows are in the files). */
    private final PartitionState.HeapPart heapPart = new PartitionState.HeapPart()
    {
        @Override
        public void save(final java.nio.ByteBuffer out)
        {
            counters.save(out);
            watermarks.save(out);
        }

        @Override
        public void load(final java.nio.ByteBuffer in)
        {
            counters.load(in);
            watermarks.load(in);
        }
    };

    @Override
    public boolean durable()
    {
        return state.durable();
    }

    @Override
    public void persist() throws java.io.IOException
    {
        state.persist(heapPart);
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

    /** @return the shape of a side's state: by its declared unique key and join key. */
    static UniqueKeyShape shape(final JoinSpec spec, final Side side)
    {
        final List<String> uniqueKey = spec.uniqueKey(side);
        if (uniqueKey.isEmpty())
        {
            return UniqueKeyShape.NONE;
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

    @Override
    public void prefetch(final long keyHash)
    {
        state.prefetch(keyHash);
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        eventStep = step;
        try
        {
            processRow(side, kind, row, ts, step);
        }
        finally
        {
            flushFold();
        }
    }

    private void flushFold()
    {
        if (fold != null)
        {
            fold.flush();
        }
    }

    private void processRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        state.beginMutation();
        counters.rowsIn++;
        watermarks.markActive(side);
        checked = 0;
        final int keyLength = predicate.extractKey(side, row);
        final DeadLetterReason refused = JoinPredicate.refusal(keyLength);
        if (refused != null)
        {
            emit.deadLetter(side, kind, row, ts, step, refused);
            return;
        }
        final boolean accumulate = kind.isAccumulate();
        final int storedKeyLength = Math.max(keyLength, 0);
        final long hash = keyLength == UNMATCHABLE ? 0 : predicate.keyHash(keyLength);
        final UniqueKeyShape shape = side == Side.LEFT ? leftShape : rightShape;
        final UniqueKeyIndex uniqueKeys = side == Side.LEFT ? leftIndex : rightIndex;
        // The promise of a unique key is checked before the row has any effect (no output, no eviction).
        long uniqueKeyHash = 0;
        long liveBucket = 0;
        if (shape == UniqueKeyShape.INDEXED)
        {
            final int uniqueKeyLength = extractUniqueKey(side, row);
            if (uniqueKeyLength == KeyExtractor.KEY_TOO_LONG)
            {
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.KEY_TOO_LONG);
                return;
            }
            if (uniqueKeyLength == KeyExtractor.NULL_KEY)
            {
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
                return;
            }
            uniqueKeyHash = predicate.hash(uniqueKey, uniqueKeyLength);
            if (accumulate)
            {
                // Only a live row of the same join key counts, as in the other shape: rows are routed by
                // join key, so that is what every partitioning sees alike (the rule is in SEMANTICS 4.4).
                if (keyLength != UNMATCHABLE)
                {
                    duplicateKeyLength = keyLength;
                    if (uniqueKeys.find(uniqueKeyHash, duplicate) != 0)
                    {
                        emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
                        return;
                    }
                }
            }
            else
            {
                // Equal row bytes mean an equal unique key and join key: the record's bucket is the key's
                // (or the unmatchable one), found without the key index.
                retracted = row;
                final long live = uniqueKeys.find(uniqueKeyHash, equalRow);
                if (live == 0)
                {
                    emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
                    return;
                }
                if (!conditionsEvaluate(side, row, keyLength, state.store.bucketOf(live)))
                {
                    emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.PREDICATE_FAILED);
                    return;
                }
                uniqueKeys.remove(uniqueKeyHash, live);
                retract(side, kind, row, ts, step, keyLength, state.store.bucketOf(live), live);
                return;
            }
        }
        else if (shape == UniqueKeyShape.IN_JOIN_KEY)
        {
            if (keyLength == UNMATCHABLE)
            {
                // A matchable row's unique key is part of its non-null join key; only here can it be null.
                if (hasNullField(side == Side.LEFT ? leftUniqueKey : rightUniqueKey, row))
                {
                    emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
                    return;
                }
            }
            else if (accumulate)
            {
                liveBucket = state.index.find(hash);
                if (liveBucket != 0 && state.store.findKey(liveBucket, side, predicate.key, 0, keyLength) != 0)
                {
                    emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
                    return;
                }
            }
        }
        // An accumulated row's record is taken before it has any effect: a row that does not fit is
        // rejected whole, never joined and then lost.
        if (accumulate && userConditions && keyLength != UNMATCHABLE
            && !conditionsEvaluate(side, row, keyLength, liveBucket != 0 ? liveBucket : state.index.find(hash)))
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.PREDICATE_FAILED);
            return;
        }
        final boolean stores = accumulate && !isExpiredOnArrival(side, ts);
        evicted = false;
        final long reserved = stores ? state.reserve(storedKeyLength, row) : 0;
        if (stores && reserved == 0)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        final long bucket;
        if (keyLength == UNMATCHABLE)
        {
            bucket = state.unmatchableBucket;
        }
        else if (stores)
        {
            // The bucket found by the duplicate check is still the key's unless making room evicted rows
            // (which may have released it).
            bucket = liveBucket != 0 && !evicted ? liveBucket : findOrCreate(hash);
            if (bucket == KeyIndex.FULL)
            {
                if (reserved != 0)
                {
                    state.store.release(reserved, storedKeyLength, row.length());
                }
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                return;
            }
        }
        else
        {
            // Retractions and rows expired on arrival only join with what is stored: they create no
            // bucket (0 when the key has none), so a full index never refuses or evicts for them.
            bucket = state.index.find(hash);
        }
        if (reserved != 0 && !state.reserveSlot(bucket, side, reserved, storedKeyLength, row))
        {
            state.releaseIfEmpty(bucket);
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }

        if (accumulate)
        {
            // After reserve: making room may have evicted a row and with it a unique-key entry.
            if (reserved != 0 && uniqueKeys != null && !uniqueKeys.ensureRoom())
            {
                state.store.release(reserved, storedKeyLength, row.length());
                state.releaseIfEmpty(bucket);
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                return;
            }
            final int matches = keyLength == UNMATCHABLE || bucket == 0 ? 0 : probe(side, kind, row, ts, step, keyLength, bucket, true);
            if (keyLength != UNMATCHABLE && bucket != 0)
            {
                state.countKey(bucket, side, predicate.key, keyLength, reserved != 0 ? 1 : 0);
            }
            // SPEC 2.7: a stored, matchable row of a delayed side waits out its delay before it is padded.
            final long padDelay = side == Side.LEFT ? leftPadDelay : rightPadDelay;
            final boolean pending = padDelay >= 0 && reserved != 0 && keyLength != UNMATCHABLE &&
                saturatedAdd(ts, padDelay) >= watermarks.current();
            if (matches == 0 && emit.emitsUnmatched(side) && !pending)
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            else if (semi && side == Side.LEFT && matches > 0)
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            if (reserved == 0)
            {
                // Expired on arrival: joined, never stored.
                state.releaseIfEmpty(bucket);
                return;
            }
            final long record = state.store.append(reserved, bucket, side, predicate.key, 0, storedKeyLength, row, ts);
            RowDescriptor.count(state.base, record, matches);
            if (uniqueKeys != null)
            {
                uniqueKeys.put(uniqueKeyHash, record);
            }
            final long ttl = side == Side.LEFT ? leftTtl : rightTtl;
            if (pending)
            {
                RowDescriptor.flags(state.base, record, RowDescriptor.flags(record) | RowDescriptor.FLAG_PAD_PENDING);
                final long padDeadline = saturatedAdd(ts, padDelay);
                schedule(record, ttl > 0 ? Math.min(padDeadline, saturatedAdd(ts, ttl)) : padDeadline);
            }
            else if (ttl > 0)
            {
                schedule(record, saturatedAdd(ts, ttl));
            }
        }
        else
        {
            final long record = bucket == 0 ? 0 : state.store.findEqual(bucket, side, predicate.key, 0, storedKeyLength, row);
            if (record == 0)
            {
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
                return;
            }
            if (!conditionsEvaluate(side, row, keyLength, bucket))
            {
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.PREDICATE_FAILED);
                return;
            }
            retract(side, kind, row, ts, step, keyLength, bucket, record);
        }
    }

    /** Retracts the stored record of the row: unjoins it, emits its padding and removes it from the row state.store. */
    private void retract(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long bucket, final long record)
    {
        if (keyLength != UNMATCHABLE)
        {
            probe(side, kind, row, ts, step, keyLength, bucket, false);
            state.countKey(bucket, side, predicate.key, keyLength, 0);
        }
        // The stored count, not a recount: rows that expired by TTL keep the counts of the rows they
        // matched (SPEC 2.1), so the row retracts what it contributes, not what a recount would say.
        final int count = RowDescriptor.count(record);
        if (count == 0 && emit.emitsUnmatched(side) && !isPending(record))
        {
            emit.padded(ChangeKind.DELETE, side, row, ts, step);
        }
        else if (semi && side == Side.LEFT && count > 0)
        {
            emit.padded(ChangeKind.DELETE, side, row, ts, step);
        }
        removeRecord(record);
        state.releaseIfEmpty(bucket);
    }

    /** @return the unique-key length written to {@link #uniqueKey}, {@link KeyExtractor#NULL_KEY} or {@link KeyExtractor#KEY_TOO_LONG}. */
    private int extractUniqueKey(final Side side, final RowView row)
    {
        final KeyExtractor fields = side == Side.LEFT ? leftUniqueKey : rightUniqueKey;
        final int length = fields.extract(row, uniqueKey, 0, uniqueKey.capacity());
        matchedFields = fields;
        matchedLength = length;
        return length;
    }

    /** {@link #duplicate}: a row that can match, of the join key in {@link #key} and the unique key in {@link #uniqueKey}? */
    private boolean isDuplicate(final long record)
    {
        if (state.store.bucketOf(record) == state.unmatchableBucket || !state.store.keyEquals(record, predicate.key, 0, duplicateKeyLength))
        {
            return false;
        }
        // Same join key; the unique key's hash may still be another unique key's.
        RowStore.wrap(record, uniqueKeyRowBuffer, uniqueKeyRow);
        final int length = matchedFields.extract(uniqueKeyRow, storedUniqueKey, 0, storedUniqueKey.capacity());
        return length == matchedLength && BufferCompare.equals(storedUniqueKey, 0, uniqueKey, 0, length);
    }

    /** {@link #equalRow}: the stored copy of {@link #retracted}? */
    private boolean isRetracted(final long record)
    {
        return state.store.rowEquals(record, retracted);
    }

    /** @return the hash of a stored record's unique key, extracted into {@link #storedUniqueKey}. */
    private long storedUniqueKeyHash(final long record, final KeyExtractor fields)
    {
        RowStore.wrap(record, uniqueKeyRowBuffer, uniqueKeyRow);
        final int length = fields.extract(uniqueKeyRow, storedUniqueKey, 0, storedUniqueKey.capacity());
        return predicate.hash(storedUniqueKey, length);
    }

    private static boolean hasNullField(final KeyExtractor fields, final RowView row)
    {
        for (int i = 0; i < fields.arity(); i++)
        {
            if (row.isNull(fields.field(i)))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Joins the row with the matching rows of the other side, updating their association counts.
     *
     * @return how many rows of the other side the row matches.
     */
    private int probe(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
        final int keyLength, final long bucket, final boolean accumulate)
    {
        final Side otherSide = side.other();
        final boolean otherOuter = emit.padsUnmatched(otherSide);
        final boolean updatesLeftRows = semiOrAnti && side == Side.RIGHT;
        int matches = 0;
        final long rows = state.store.rows(bucket, otherSide);
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            if ((i & (RowGroup.TOUCH_GROUP - 1)) == 0 && slots > 1)
            {
                state.touch(rows, i, Math.min(slots, i + RowGroup.TOUCH_GROUP));
            }
            final long other = state.store.record(rows, i);
            if (other == 0 || !(i < checked && checkedRecords[i] == other ? checkedMatch(i, other)
                : predicate.matches(other, keyLength, side, row)))
            {
                continue;
            }
            matches++;
            if (semiOrAnti)
            {
                if (updatesLeftRows)
                {
                    final int count = RowDescriptor.count(other);
                    final long otherTs = RowDescriptor.ts(other);
                    if (accumulate)
                    {
                        RowDescriptor.count(state.base, other, count + 1);
                        if (count == 0)
                        {
                            emit.padded(semi ? ChangeKind.INSERT : ChangeKind.DELETE, Side.LEFT, predicate.otherRow, otherTs, step);
                        }
                    }
                    else
                    {
                        RowDescriptor.count(state.base, other, count - 1);
                        if (count == 1)
                        {
                            emit.padded(semi ? ChangeKind.DELETE : ChangeKind.INSERT, Side.LEFT, predicate.otherRow, otherTs, step);
                        }
                    }
                }
                continue;
            }
            final long otherTs = RowDescriptor.ts(other);
            final long pairTs = Math.max(ts, otherTs);
            if (accumulate)
            {
                final int count = RowDescriptor.count(other);
                if (otherOuter && count == 0 && !isPending(other))
                {
                    emit.padded(ChangeKind.DELETE, otherSide, predicate.otherRow, otherTs, step);
                }
                RowDescriptor.count(state.base, other, count + 1);
                emit.pair(otherOuter || emit.padsUnmatched(side) ? ChangeKind.INSERT : kind, side, row, predicate.otherRow, pairTs, step);
            }
            else
            {
                emit.pair(otherOuter || emit.padsUnmatched(side) ? ChangeKind.DELETE : kind, side, row, predicate.otherRow, pairTs, step);
                final int count = RowDescriptor.count(other) - 1;
                RowDescriptor.count(state.base, other, count);
                if (otherOuter && count == 0 && !isPending(other))
                {
                    emit.padded(ChangeKind.INSERT, otherSide, predicate.otherRow, otherTs, step);
                }
            }
        }
        checked = 0;
        return matches;
    }

    /**
     * A user condition that throws must not leave a row half applied (SEMANTICS 4.1): the row's pairs are
     * evaluated before it has any effect, and a row for which a user condition throws is dead-lettered
     * PREDICATE_FAILED whole. The results are kept by slot for {@link #probe}, which does not ask again.
     *
     * @return false when a user condition threw for a pair of the row.
     */
    private boolean conditionsEvaluate(final Side side, final RowView row, final int keyLength, final long bucket)
    {
        checked = 0;
        if (!userConditions || keyLength == UNMATCHABLE || bucket == 0)
        {
            return true;
        }
        final long rows = state.store.rows(bucket, side.other());
        final int slots = RowGroup.slots(rows);
        if (slots > checkedRecords.length)
        {
            checkedRecords = new long[Math.max(slots, 2 * checkedRecords.length)];
            checkedMatches = new boolean[checkedRecords.length];
        }
        for (int i = 0; i < slots; i++)
        {
            final long other = state.store.record(rows, i);
            checkedRecords[i] = other;
            final int match = other == 0 ? 0 : predicate.match(other, keyLength, side, row);
            if (match < 0)
            {
                return false;
            }
            checkedMatches[i] = match == 1;
        }
        checked = slots;
        return true;
    }

    /** @return the kept result of slot {@code i}, with the record wrapped as a match is. */
    private boolean checkedMatch(final int i, final long other)
    {
        if (checkedMatches[i])
        {
            predicate.wrapOther(other);
        }
        return checkedMatches[i];
    }

    /** @return the key's bucket, making room by the policy while the index is full, or {@link KeyIndex#FULL}. */
    private long findOrCreate(final long hash)
    {
        long bucket = state.index.findOrCreate(hash);
        while (bucket == KeyIndex.FULL && makeRoom())
        {
            bucket = state.index.findOrCreate(hash);
        }
        return bucket;
    }

    /**
     * The state's {@link PartitionState.RoomMaker}. EXPIRE_OLDEST: the row with the earliest TTL deadline
     * leaves early, as if its TTL had passed.
     */
    private boolean makeRoom()
    {
        if (state.fullPolicy != FullPolicy.EXPIRE_OLDEST || !anyTtl)
        {
            return false;
        }
        final long oldest = state.wheel.earliest();
        if (oldest == 0)
        {
            return false;
        }
        state.wheel.cancel(oldest);
        RowDescriptor.flags(state.base, oldest, RowDescriptor.flags(oldest) & ~RowDescriptor.FLAG_IN_TIMER);
        drop(oldest, ExpiryReason.EVICTED, eventStep);
        evicted = true;
        return true;
    }

    private boolean isExpiredOnArrival(final Side side, final long ts)
    {
        final long ttl = side == Side.LEFT ? leftTtl : rightTtl;
        return ttl > 0 && saturatedAdd(ts, ttl) < watermarks.current();
    }

    private void schedule(final long record, final long deadline)
    {
        state.wheel.schedule(record, deadline);
        RowDescriptor.flags(state.base, record, RowDescriptor.flags(record) | RowDescriptor.FLAG_IN_TIMER);
    }

    private static boolean isPending(final long record)
    {
        return (RowDescriptor.flags(record) & RowDescriptor.FLAG_PAD_PENDING) != 0;
    }

    /**
     * The wheel's handler: a record's deadline is below the join watermark {@link #timerWatermark}. A pending
     * row's delay is over: padded if unmatched; then a row with a TTL expires, or waits for its TTL deadline.
     */
    private void onTimer(final long record)
    {
        final int flags = RowDescriptor.flags(record) & ~RowDescriptor.FLAG_IN_TIMER;
        RowDescriptor.flags(state.base, record, flags);
        if ((flags & RowDescriptor.FLAG_AWAITING_PAD) != 0)
        {
            // An expired row's copy: its delay is over; padded if still pending, then gone.
            padIfPending(record);
            state.store.remove(record);
            return;
        }
        final Side side = PartitionState.sideOf(record);
        if ((flags & RowDescriptor.FLAG_PAD_PENDING) != 0 &&
            saturatedAdd(RowDescriptor.ts(record), side == Side.LEFT ? leftPadDelay : rightPadDelay) < timerWatermark)
        {
            padIfPending(record);
        }
        final long ttl = side == Side.LEFT ? leftTtl : rightTtl;
        if (ttl <= 0)
        {
            return;
        }
        final long deadline = saturatedAdd(RowDescriptor.ts(record), ttl);
        if (deadline < timerWatermark)
        {
            drop(record, ExpiryReason.STATE_TTL, eventStep);
        }
        else
        {
            schedule(record, deadline);
        }
    }

    /**
     * Copies a pending unmatched record that expires into the bucket of rows that never match, marked
     * {@link RowDescriptor#FLAG_AWAITING_PAD} and timed at its delay's end. No room is made for it (this runs
     * inside the wheel's advance).
     *
     * @return false when there is no room: the caller pads the row at once.
     */
    private boolean awaitPad(final long record)
    {
        final Side side = PartitionState.sideOf(record);
        final int rowLength = RowDescriptor.rowLength(record);
        if (!state.hasRoomFor(1))
        {
            return false;
        }
        final long copy = state.store.allocate(0, rowLength);
        if (copy == 0)
        {
            return false;
        }
        final long ts = RowDescriptor.ts(record);
        RowStore.wrap(record, timedRowBuffer, timedRow);
        if (state.store.append(copy, state.unmatchableBucket, side, predicate.key, 0, 0, timedRow, ts) == 0)
        {
            state.store.release(copy, 0, rowLength);
            return false;
        }
        RowDescriptor.flags(state.base, copy, RowDescriptor.flags(copy) | RowDescriptor.FLAG_PAD_PENDING | RowDescriptor.FLAG_AWAITING_PAD);
        schedule(copy, saturatedAdd(ts, side == Side.LEFT ? leftPadDelay : rightPadDelay));
        RowDescriptor.flags(state.base, record, RowDescriptor.flags(record) & ~RowDescriptor.FLAG_PAD_PENDING);
        return true;
    }

    /** Ends a record's padded-row delay: pads it (at {@link #eventStep}) when it is pending and unmatched. */
    private void padIfPending(final long record)
    {
        final int flags = RowDescriptor.flags(record);
        if ((flags & RowDescriptor.FLAG_PAD_PENDING) == 0)
        {
            return;
        }
        RowDescriptor.flags(state.base, record, flags & ~RowDescriptor.FLAG_PAD_PENDING);
        if (RowDescriptor.count(record) == 0)
        {
            RowStore.wrap(record, timedRowBuffer, timedRow);
            emit.padded(ChangeKind.INSERT, PartitionState.sideOf(record), timedRow, RowDescriptor.ts(record), eventStep);
        }
    }

    /**
     * Drops a record unlinked from the wheel, by TTL or eviction: a pending unmatched row is padded first
     * (it can never match again), the handler is told, the side's counter moves.
     */
    private void drop(final long record, final ExpiryReason reason, final long step)
    {
        if ((RowDescriptor.flags(record) & RowDescriptor.FLAG_AWAITING_PAD) != 0)
        {
            // Evicted while waiting for its padding (it left the state at its expiry): padded now.
            padIfPending(record);
            state.store.remove(record);
            return;
        }
        if (reason == ExpiryReason.STATE_TTL && !padOnExpiry && isPending(record) && RowDescriptor.count(record) == 0)
        {
            // SPEC 2.7: expiry is silent and padding waits for the first watermark above ts + D: a copy out of
            // reach of every probe waits for it (padded now only when there is no room for the copy).
            if (!awaitPad(record))
            {
                padIfPending(record);
            }
        }
        else
        {
            padIfPending(record);
        }
        final Side side = PartitionState.sideOf(record);
        if (side == Side.LEFT)
        {
            counters.expiredLeft++;
        }
        else
        {
            counters.expiredRight++;
        }
        if (reason == ExpiryReason.EVICTED)
        {
            counters.evictedRows++;
        }
        if (expiryHandler != null)
        {
            RowStore.wrap(record, timedRowBuffer, timedRow);
            expiryHandler.onExpired(side, timedRow, RowDescriptor.ts(record), reason, step);
        }
        expire(record);
    }

    private void removeRecord(final long record)
    {
        if ((RowDescriptor.flags(record) & RowDescriptor.FLAG_IN_TIMER) != 0)
        {
            state.wheel.cancel(record);
        }
        state.store.remove(record);
    }

    private void expire(final long record)
    {
        forgetUniqueKey(record);
        state.expire(record);
    }

    /** Removes a record about to leave the store from its side's unique-key index, if the side has one. */
    private void forgetUniqueKey(final long record)
    {
        final boolean left = PartitionState.sideOf(record) == Side.LEFT;
        final UniqueKeyIndex uniqueKeys = left ? leftIndex : rightIndex;
        if (uniqueKeys != null)
        {
            uniqueKeys.remove(storedUniqueKeyHash(record, left ? leftUniqueKey : rightUniqueKey), record);
        }
    }

    /** @return the unique-key index of a side, or null unless its shape is {@link UniqueKeyShape#INDEXED} (tests). */
    UniqueKeyIndex uniqueKeyIndex(final Side side)
    {
        return side == Side.LEFT ? leftIndex : rightIndex;
    }

    /** @return the state shape of a side (tests). */
    UniqueKeyShape uniqueKeyShape(final Side side)
    {
        return side == Side.LEFT ? leftShape : rightShape;
    }

    @Override
    public OperatorCounters counters()
    {
        state.refreshCounters();
        counters.watermark = watermarks.current();
        // The unique-key indexes as the key index: their tables in stateBytes, their caps in what the limit counts.
        if (leftIndex != null)
        {
            counters.stateBytes += leftIndex.offHeapBytes();
            counters.usedStateBytes += leftIndex.maxOffHeapBytes();
            counters.liveStateBytes += leftIndex.offHeapBytes();
        }
        if (rightIndex != null)
        {
            counters.stateBytes += rightIndex.offHeapBytes();
            counters.usedStateBytes += rightIndex.maxOffHeapBytes();
            counters.liveStateBytes += rightIndex.offHeapBytes();
        }
        return counters;
    }

    @Override
    public List<HotKey> hotKeys()
    {
        return state.hotKeys();
    }

    @Override
    public void close()
    {
        state.close(heapPart);
    }

    @Override
    public void discard()
    {
        state.close();
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advance(side, watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advanceBoth(watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        state.beginMutation();
        if (watermarks.markIdle(side))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    /**
     * The join's watermark moved forward to {@code watermark}: rows past their TTL expire, rows past their
     * padded-row delay are padded if unmatched.
     */
    private void onJoinWatermark(final long watermark, final long step)
    {
        if (timed)
        {
            // A row expires once watermark - ttl > ts, i.e. its deadline ts + ttl < watermark (its side's ttl);
            // its delay ends once the watermark is above ts + D: the same strict test.
            eventStep = step;
            timerWatermark = watermark;
            try
            {
                state.wheel.advance(watermark, timer);
            }
            finally
            {
                flushFold();
            }
        }
    }

    @Override
    public void onEndOfInput(final long step)
    {
        // Regular joins keep state until retraction or TTL; the end of input pads every row still inside its
        // padded-row delay (SPEC 2.7) and closes nothing else.
        if (anyPadDelay)
        {
            state.beginMutation();
            eventStep = step;
            try
            {
                state.wheel.visitAll(padPending);
            }
            finally
            {
                flushFold();
            }
        }
    }

}
