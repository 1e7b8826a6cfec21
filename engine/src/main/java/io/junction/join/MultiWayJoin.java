package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.Fields;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.RowPredicate;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.MultiBucketDescriptor;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;
import io.junction.internal.state.NativeArena;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * The multi-way join's {@link JoinAlgorithm} (docs/SEMANTICS.md "Multi-way joins"): N inputs on a
 * common key, the left-deep chain {@code ((i0 ⋈ i1) ⟕ i2) ...} over the inputs' current contents, with a
 * minimal changelog. Its {@link OperatorDriver} (built for N inputs, behind the {@link MultiJoin} operator)
 * owns the counters, the N inputs' watermarks ({@link InputWatermarks}), the partition state, persist and close.
 * This class takes each row event and watermark step through its parts, each a final class of one concern:
 * <pre>
 *   MultiKeyBuckets     the key's bucket chain in the state's key index (hashes, collisions, rows that never match)
 *   MultiCombinations   the chain's combinations of a key: what a row's change emits, ON clauses, padding
 *   MultiNetting        a watermark step's combinations netted by content (allocation-free multiset)
 *   MultiExpiry         a watermark step's state TTL expiry: the due rows grouped by key bucket, each key netted
 *   MultiTtlQueue       the state TTL queue (a binary heap of records by deadline)
 * </pre>
 *
 * <p>State: each input's rows once, grouped by the common key, in the {@link PartitionState}: the key's bucket
 * ({@link MultiBucketDescriptor}: the key hash, a link, then per input the rows of that key that can match,
 * with multiplicity as separate copies, in arrival order) is the one the state's {@link KeyIndex} (either
 * {@link IndexKind}) holds for the key hash; the records ({@link MultiRowDescriptor}) and the group arrays live
 * in the state's arena ({@link MultiRowStore} over it, every reference relative to the state's base). Rows
 * that can never match (a null key field, or failing their input's filter) are kept apart by content, so that
 * their retractions can be checked (and so that a first-input row of that kind is emitted padded when every
 * later join is left). No intermediate join result is stored.
 *
 * <p>Algorithm ({@link MultiCombinations}): a change of one row changes only its key's combinations that
 * extend a prefix it meets the ON clause of; what it emits is exactly the difference of the chain's results,
 * and no step emits both signs of one combination. A watermark step that expires several rows at once (state
 * TTL) nets them: per key, the chain's result before and after the expiry is enumerated and only the multiset
 * difference emitted. The cost of an event is bounded by its key's rows, never by the whole state.
 *
 * <p>Output: {@link ResultHandler#onMultiResult} with one view per input (null for a padded one),
 * {@link ChangeKind#INSERT} or {@link ChangeKind#DELETE}; dead letters through
 * {@link DeadLetterHandler#onMultiDeadLetter} with the input's index.
 *
 * <p>Nothing is allocated per event or per watermark step once the parts' arrays have grown to the state's
 * size. A row that does not fit (the arena at {@link StateConfig#maxStateBytes()}, the index at its capacity,
 * {@link StateConfig#maxLiveRows()} rows) is a {@link DeadLetterReason#STATE_FULL} dead letter, before it has
 * any effect. Each row event of a matchable key is counted for the hot-key report
 * ({@link PartitionState#countKeyRows}; a key's live rows are read from its bucket's groups). Durable mode
 * ({@link StateConfig#stateDirectory()}): the buckets, records and arrays are in the state's mapped arena, the
 * index in its file, as for every kind; {@link #save} writes the live rows per input, the key count and the
 * TTL queue (as relative references) to the heap image.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class MultiWayJoin implements JoinAlgorithm
{
    private final int n;
    private final KeyExtractor[] keys;
    private final RowPredicate[] filters;
    private final long[] ttl;
    private final boolean anyTtl;
    private final DeadLetterHandler deadLetters;
    private final JoinCounters counters;
    private final InputWatermarks watermarks;
    private final long maxLiveRows;
    /** The spec's output budget of one inserted row, 0 unbounded (docs/SEMANTICS.md 1.5). */
    private final long maxFanOut;
    /** Per input: joined by a left join (its empty group pads the combinations instead of emptying them). */
    private final boolean[] leftJoined;

    /** The partition state: its key index, arena and hot-key sketch. */
    private final PartitionState state;
    /** Records, buckets and group arrays, in the state's arena. */
    private final MultiRowStore store;
    private final MultiKeyBuckets buckets;
    private final MultiCombinations combinations;
    private final MultiTtlQueue queue;
    private final MultiExpiry expiry;
    /** The state's own bucket of unmatchable rows, which this kind does not use: in the arena when durable. */
    private final long unusedBytes;
    private final long[] liveRows;

    /** The event's key, extracted. */
    private final UnsafeBuffer key;

    /**
     * The multi-way join's algorithm over its driver's parts.
     *
     * @param parts       a {@code JoinKind.MULTI} join's parts, its driver built for N inputs with buckets of
     *                    {@link MultiBucketDescriptor#length} bytes.
     * @param results     receives the output ({@link ResultHandler#onMultiResult}).
     * @param deadLetters receives the rows that cannot be processed ({@link DeadLetterHandler#onMultiDeadLetter}).
     * @param hashMask    ANDed into every hash; -1 in production, narrow in a test of colliding keys.
     */
    MultiWayJoin(final OperatorParts parts, final ResultHandler results, final DeadLetterHandler deadLetters,
        final long hashMask)
    {
        final MultiJoinSpec multi = parts.spec.multi();
        this.n = multi.inputs();
        this.deadLetters = deadLetters;
        this.counters = parts.counters;
        this.watermarks = parts.inputs;
        this.state = parts.state;
        this.store = new MultiRowStore(n, state.store.arena(), state.base);
        this.unusedBytes = state.durable() ? NativeArena.alignedSize(MultiBucketDescriptor.length(n)) : 0;
        this.maxLiveRows = state.config.maxLiveRows();
        this.maxFanOut = parts.spec.maxFanOut();
        this.leftJoined = new boolean[n];
        for (int i = 1; i < n; i++)
        {
            leftJoined[i] = multi.type(i) == JoinType.LEFT;
        }
        this.keys = new KeyExtractor[n];
        this.filters = new RowPredicate[n];
        this.ttl = new long[n];
        boolean anyTtl = false;
        for (int i = 0; i < n; i++)
        {
            final List<String> keyFields = multi.key(i);
            final int[] fields = new int[keyFields.size()];
            for (int f = 0; f < fields.length; f++)
            {
                fields[f] = Fields.resolve(multi.schema(i), keyFields.get(f), "inputs[" + i + "].key");
            }
            keys[i] = new KeyExtractor(fields);
            filters[i] = new RowPredicate(multi.filter(i), multi.schema(i), "inputs[" + i + "].filter.field");
            ttl[i] = multi.stateTtl(i);
            anyTtl |= ttl[i] > 0;
        }
        this.anyTtl = anyTtl;
        this.liveRows = new long[n];
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(state.config.maxKeyLength()));
        // The state's configuration: in durable mode its hash seed is the one the state was built with.
        this.buckets = new MultiKeyBuckets(state.index, store, keys, counters, state.config.hashSeed(), hashMask,
            state.config.maxKeyLength());
        this.combinations = new MultiCombinations(multi, store, results, counters);
        this.queue = new MultiTtlQueue(store);
        this.expiry = new MultiExpiry(queue, store, buckets, combinations, keys, liveRows, counters, state.config.maxKeyLength());
        // The hot-key report reads a key's live rows from its buckets' groups: they keep no counts.
        state.liveRowsOfKey(buckets::liveRowsOfKey);
    }

    /** The two-sided entry: input 0 is the left side, input 1 the right. */
    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        final int input = side == Side.LEFT ? 0 : 1;
        watermarks.markActive(input);
        onInputRow(input, kind, row, ts, step);
    }

    /** A row without its key's hash (tests, tools, direct drivers): the key buckets hash the key, same function and seed. */
    @Override
    public void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        buckets.hashRowKey();
        acceptRow(input, kind, row, ts, step);
    }

    /** A row with its key's hash as the publisher routed it (its driver passes it only under a fixed seed): the buckets take it. */
    @Override
    public void onInputRow(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        buckets.supplyKeyHash(keyHash);
        acceptRow(input, kind, row, ts, step);
    }

    private void acceptRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (input < 0 || input >= n || kind == null || row == null || row.length() > MultiRowDescriptor.MAX_ROW_LENGTH)
        {
            deadLetter(input < 0 || input >= n ? 0 : input, kind == null ? ChangeKind.INSERT : kind, row, ts, step,
                DeadLetterReason.MALFORMED_ROW);
            return;
        }
        final int keyLength = keys[input].extract(row, key, 0, key.capacity());
        if (keyLength == KeyExtractor.KEY_TOO_LONG)
        {
            deadLetter(input, kind, row, ts, step, DeadLetterReason.KEY_TOO_LONG);
            return;
        }
        final boolean matchable = keyLength >= 0 && filters[input].test(row);
        combinations.step(step);
        if (kind.isAccumulate())
        {
            insert(input, kind, row, ts, step, matchable, keyLength);
        }
        else
        {
            retract(input, kind, row, ts, step, matchable, keyLength);
        }
    }

    private void insert(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final boolean matchable,
        final int keyLength)
    {
        final long deadline = ttl[input] > 0 ? saturatedAdd(ts, ttl[input]) : Long.MAX_VALUE;
        if (ttl[input] > 0 && deadline < watermarks.current())
        {
            // Already past its TTL: it is not part of its input's contents (nothing to join, nothing stored).
            counters.expiredRows++;
            return;
        }
        // A matchable row's key bucket is found once, before anything changes: the output budget reads its groups.
        final long hash = matchable ? buckets.rowKeyHash(key, keyLength) : 0;
        final long found = matchable ? buckets.findKey(hash, key, keyLength) : 0;
        if (matchable && refusesFanOut(found, input, kind, row, ts, step))
        {
            return;
        }
        if (totalLive() >= maxLiveRows)
        {
            deadLetter(input, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        final long record = store.allocateRecord(row.length());
        if (record == 0)
        {
            deadLetter(input, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        if (!matchable)
        {
            final long contentHash = buckets.rowHash(row.buffer(), row.offset(), row.length());
            final long bucket = buckets.bucketFor(contentHash, buckets.findRows(contentHash), input, true);
            if (bucket == 0)
            {
                store.freeRecord(record, row.length());
                deadLetter(input, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                return;
            }
            store.writeRecord(record, row.buffer(), row.offset(), row.length(), ts, input, MultiRowDescriptor.FLAG_UNMATCHABLE);
            store.append(bucket, input, record);
            stored(record, input, deadline);
            if (input == 0)
            {
                combinations.ofFirst(0, record, +1);
            }
            return;
        }
        final long bucket = buckets.bucketFor(hash, found, input, false);
        if (bucket == 0)
        {
            store.freeRecord(record, row.length());
            deadLetter(input, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        store.writeRecord(record, row.buffer(), row.offset(), row.length(), ts, input, 0);
        if (input == 0)
        {
            store.append(bucket, 0, record);
            combinations.ofFirst(bucket, record, +1);
        }
        else
        {
            combinations.ofLater(bucket, input, record, true);
            store.append(bucket, input, record);
        }
        stored(record, input, deadline);
        countKey(bucket, hash, keyLength, input, 1);
    }

    /**
     * The output budget (docs/SEMANTICS.md 1.5), before the row has any effect: its fan-out is the product of the
     * other inputs' rows under its key (each group's size, kept by the bucket), multiplied saturating at
     * {@link Long#MAX_VALUE}; a left-joined input without rows counts 1 (the combinations pad it), an inner one 0
     * (the key then has no combination at all). ON clauses are not evaluated: the figure bounds what the row joins.
     *
     * @return true when the row was dead-lettered FANOUT_EXCEEDED.
     */
    private boolean refusesFanOut(
        final long bucket, final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        final long fanOut = fanOut(bucket, input);
        if (fanOut > counters.maxFanOut)
        {
            counters.maxFanOut = fanOut;
        }
        if (maxFanOut > 0 && fanOut > maxFanOut)
        {
            deadLetter(input, kind, row, ts, step, DeadLetterReason.FANOUT_EXCEEDED);
            return true;
        }
        return false;
    }

    /** @return the combinations of the other inputs' rows under the bucket's key that a row of {@code input} joins. */
    private long fanOut(final long bucket, final int input)
    {
        long product = 1;
        for (int i = 0; i < n; i++)
        {
            if (i == input)
            {
                continue;
            }
            long rows = bucket == 0 ? 0 : MultiBucketDescriptor.size(store.group(bucket, i));
            if (rows == 0 && leftJoined[i])
            {
                rows = 1;
            }
            if (rows == 0)
            {
                return 0;
            }
            product = rows > Long.MAX_VALUE / product ? Long.MAX_VALUE : product * rows;
        }
        return product;
    }

    /** Counts a row event of a key for the hot-key report: the rows it stored, and the key's rows of the other inputs it visited. */
    private void countKey(final long bucket, final long hash, final int keyLength, final int input, final int storedRows)
    {
        if (state.hotKeysEnabled())
        {
            final long others = store.rowsExcept(bucket, input);
            state.countKeyRows(hash, key, keyLength, storedRows, (int)Math.min(Integer.MAX_VALUE, others), fanOut(bucket, input));
        }
    }

    private void retract(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final boolean matchable,
        final int keyLength)
    {
        if (!matchable)
        {
            final long hash = buckets.rowHash(row.buffer(), row.offset(), row.length());
            final long bucket = buckets.findRows(hash);
            final long record = bucket == 0 ? 0 : store.findEqual(bucket, input, row.buffer(), row.offset(), row.length());
            if (record == 0)
            {
                deadLetter(input, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
                return;
            }
            // The oldest copy, as for a matchable row.
            store.unlink(bucket, input, record);
            removed(record, input);
            buckets.release(bucket, hash);
            if (input == 0)
            {
                combinations.ofFirst(0, record, -1);
            }
            store.freeRecord(record);
            return;
        }
        final long hash = buckets.rowKeyHash(key, keyLength);
        final long bucket = buckets.findKey(hash, key, keyLength);
        final long record = bucket == 0 ? 0 : store.findEqual(bucket, input, row.buffer(), row.offset(), row.length());
        if (record == 0)
        {
            deadLetter(input, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
            return;
        }
        store.unlink(bucket, input, record);
        removed(record, input);
        if (input == 0)
        {
            combinations.ofFirst(bucket, record, -1);
        }
        else
        {
            combinations.ofLater(bucket, input, record, false);
        }
        countKey(bucket, hash, keyLength, input, 0);
        buckets.release(bucket, hash);
        store.freeRecord(record);
    }

    private void stored(final long record, final int input, final long deadline)
    {
        liveRows[input]++;
        if (ttl[input] > 0)
        {
            queue.add(record, deadline);
        }
    }

    private void removed(final long record, final int input)
    {
        liveRows[input]--;
        queue.removeRecord(record);
    }

    private long totalLive()
    {
        long total = 0;
        for (int i = 0; i < n; i++)
        {
            total += liveRows[i];
        }
        return total;
    }

    private void deadLetter(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
    {
        counters.badInputs++;
        deadLetters.onMultiDeadLetter(input, kind, row, ts, step, reason);
    }

    /** Rows with {@code ts + stateTtl < watermark} leave their inputs; the step emits the chain's net difference ({@link MultiExpiry}). */
    @Override
    public void onWatermark(final long watermark, final long step)
    {
        if (anyTtl)
        {
            expiry.expire(watermark, step);
        }
    }

    @Override
    public void onEndOfInput(final long step)
    {
        // As a regular join: the end of input closes nothing (state leaves only by retraction or TTL).
    }

    @Override
    public long pendingTimers()
    {
        return queue.size();
    }

    /** Input 0's live rows are the left ones, the later inputs' the right ones; the state's unused bucket is not live. */
    @Override
    public void refreshCounters(final JoinCounters counters)
    {
        counters.liveLeft = liveRows[0];
        long later = 0;
        for (int i = 1; i < n; i++)
        {
            later += liveRows[i];
        }
        counters.liveRight = later;
        counters.usedStateBytes -= unusedBytes;
        counters.liveStateBytes -= unusedBytes;
    }

    @Override
    public int savedLength()
    {
        return n * Long.BYTES + Long.BYTES + queue.savedLength();
    }

    /** The live rows per input, the key buckets, then the TTL queue in heap order: record references and deadlines. */
    @Override
    public void save(final ByteBuffer out)
    {
        for (int i = 0; i < n; i++)
        {
            out.putLong(liveRows[i]);
        }
        out.putLong(buckets.keys());
        queue.save(out);
    }

    @Override
    public void load(final ByteBuffer in)
    {
        for (int i = 0; i < n; i++)
        {
            liveRows[i] = in.getLong();
        }
        buckets.keys(in.getLong());
        queue.load(in);
    }

    /** @return live rows of input {@code input}. */
    long liveRows(final int input)
    {
        return liveRows[input];
    }

    /** @return the number of keys with stored rows that can match. */
    long keys()
    {
        return buckets.keys();
    }

    private static long saturatedAdd(final long a, final long b)
    {
        final long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** @return {@code view} over a stored record's row, through {@code buffer}. */
    static RowView wrap(final long record, final UnsafeBuffer buffer, final RowView view)
    {
        return view.wrap(buffer, 0, MultiRowStore.wrapRow(record, buffer));
    }
}
