package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.BufferCompare;
import io.junction.internal.row.FieldCompare;
import io.junction.internal.row.Fields;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.internal.row.RowPredicate;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.MultiBucketDescriptor;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;
import io.junction.internal.state.NativeArena;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The multi-way join's {@link JoinAlgorithm} (SPEC 2.6, docs/SEMANTICS.md "Multi-way joins"): N inputs on a
 * common key, the left-deep chain {@code ((i0 ⋈ i1) ⟕ i2) ...} over the inputs' current contents, with a
 * minimal changelog. Its {@link OperatorDriver} (built for N inputs, behind the {@link MultiJoin} operator)
 * owns the counters, the N inputs' watermarks ({@link InputWatermarks}), the partition state, persist and close.
 *
 * <p>State: each input's rows once, grouped by the common key, in the {@link PartitionState}: the key's bucket
 * ({@link MultiBucketDescriptor}: the standard bucket header, then per input the rows of that key that can
 * match, with multiplicity as separate copies, in arrival order) is the one the state's {@link KeyIndex}
 * (either {@link IndexKind}) holds for the key hash; the records ({@link MultiRowDescriptor}) and the group
 * arrays live in the state's arena ({@link MultiRowStore} over it, every reference relative to the state's
 * base). Distinct keys whose hashes collide get a bucket each, linked after the index's bucket of the hash and
 * told apart by extracting the key of one of the bucket's rows; when the index's bucket empties, the next one
 * of its chain moves into it. Rows that can never match (a null key field, or failing their input's filter)
 * are kept apart, by content, in buckets under the row's content hash marked unmatchable in the same chains,
 * so that their retractions can be checked (and so that a first-input row of that kind is emitted padded when
 * every later join is left). No intermediate join result is stored.
 *
 * <p>Algorithm: a change of one row {@code r} of input {@code c} and key {@code K} changes only the
 * combinations of key {@code K} that extend a prefix {@code p} over inputs {@code 0..c-1} for which
 * {@code r} meets input {@code c}'s ON clause. For each such prefix (enumerated depth first over the
 * key's rows), the combinations {@code p + r + completion} appear (insert) or disappear (retraction), and
 * when {@code c} is a left join and no other row of {@code c} matches {@code p}, the padded combinations
 * {@code p + null + completion} disappear (insert) or appear (retraction). The completions through inputs
 * {@code c+1..} depend on the prefix only, so this is exactly the difference of the chain's results, and
 * the two sets differ at input {@code c} (a row against null): no step emits both signs of one
 * combination. A watermark step that expires several rows at once (state TTL) nets them: per key, the
 * chain's result before and after the expiry is enumerated and only the multiset difference emitted.
 * The cost of an event is bounded by its key's rows (the prefixes it enumerates and what it emits),
 * never by the whole state.
 *
 * <p>Output: {@link ResultHandler#onMultiResult} with one view per input (null for a padded one),
 * {@link ChangeKind#INSERT} or {@link ChangeKind#DELETE}; dead letters through
 * {@link DeadLetterHandler#onMultiDeadLetter} with the input's index.
 *
 * <p>The state TTL queue is a binary heap of record addresses on two primitive arrays. Nothing is allocated
 * per event once the arrays have grown to the state's size; a watermark step that expires rows nets its
 * changes in a heap map (it allocates). A row that does not fit (the arena at {@link StateConfig#maxStateBytes()},
 * the index at its capacity, {@link StateConfig#maxLiveRows()} rows) is a {@link DeadLetterReason#STATE_FULL}
 * dead letter, before it has any effect. Each row event of a matchable key is counted for the hot-key report
 * ({@link PartitionState#countKeyRows}). Durable mode ({@link StateConfig#stateDirectory()}): the buckets,
 * records and arrays are in the state's mapped arena, the index in its file, as for every kind; {@link #save}
 * writes the live rows per input, the key count and the TTL queue (as relative references) to the heap image.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class MultiWayJoin implements JoinAlgorithm
{
    /** A combination by content, for netting a watermark step's changes (record addresses, 0 for padded). */
    private static final class Combination
    {
        final long[] rows;
        final int hash;

        Combination(final long[] rows, final UnsafeBuffer scratch)
        {
            this.rows = rows;
            int h = 1;
            for (final long record : rows)
            {
                int rowHash = 0;
                if (record != 0)
                {
                    final int length = MultiRowDescriptor.rowLength(record);
                    scratch.wrap(MultiRowDescriptor.rowAddress(record), length);
                    final long z = KeyHash.hash(scratch, 0, length);
                    rowHash = (int)(z ^ (z >>> 32));
                }
                h = 31 * h + rowHash;
            }
            this.hash = h;
        }

        @Override
        public int hashCode()
        {
            return hash;
        }

        @Override
        public boolean equals(final Object o)
        {
            if (!(o instanceof Combination))
            {
                return false;
            }
            final long[] other = ((Combination)o).rows;
            for (int i = 0; i < rows.length; i++)
            {
                if (rows[i] == 0 ? other[i] != 0 : other[i] == 0 || !MultiRowStore.sameRow(rows[i], other[i]))
                {
                    return false;
                }
            }
            return true;
        }
    }

    private final int n;
    private final boolean[] left;
    private final KeyExtractor[] keys;
    private final RowPredicate[] filters;
    private final long[] ttl;
    private final boolean anyTtl;
    /** Condition terms per level (the later input of each term): operand inputs, fields and ops. */
    private final int[][] condLeftInput;
    private final int[][] condLeftField;
    private final int[][] condRightInput;
    private final int[][] condRightField;
    private final CompareOp[][] condOp;
    private final ResultHandler results;
    private final DeadLetterHandler deadLetters;
    private final JoinCounters counters;
    private final InputWatermarks watermarks;
    private final long maxLiveRows;
    private final long seed;
    /** ANDed into every hash: -1, or narrow in a test of colliding keys. */
    private final long hashMask;

    /** The partition state: its key index, arena and hot-key sketch. */
    private final PartitionState state;
    /** The key hash (or a never-matching row's content hash) to the first bucket of its chain. */
    private final KeyIndex index;
    /** Records, buckets and group arrays, in the state's arena. */
    private final MultiRowStore store;
    /** The state's own bucket of unmatchable rows, which this kind does not use: in the arena when durable. */
    private final long unusedBytes;
    private final long[] liveRows;
    /** Buckets of keys (not of rows that can never match). */
    private long keyBuckets;

    /** The state TTL queue: a binary min-heap of records by deadline ({@code ts + stateTtl}, saturated). */
    private long[] queue = new long[64];
    private long[] queueDeadlines = new long[64];
    private int queueSize;

    /** The event's key, extracted. */
    private final UnsafeBuffer key;
    /** A stored row's key, extracted to tell colliding keys apart. */
    private final UnsafeBuffer storedKey;
    private final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);
    private final RowView storedRow = new RowView();
    private final UnsafeBuffer hashBuffer = new UnsafeBuffer(0, 0);
    /** The combination being enumerated: per input the stored record, 0 for padded. */
    private final long[] combo;
    private final UnsafeBuffer[] buffers;
    private final RowView[] views;
    /** What the handler gets: views[i] or null. */
    private final RowView[] out;
    /** The bucket being enumerated (0: a row that matches nothing, only padding follows). */
    private long current;
    /** The changed row and its input, for the prefix callback. */
    private long changed;
    private int changedInput;
    private boolean inserting;
    private long step;
    /** Watermark steps: combinations are netted here instead of being emitted. */
    private boolean collecting;
    /**
     * Insertion-ordered, so a watermark step emits its netted changes in the order the walks met them (the
     * retractions' walk runs first), whatever the rows' hashes are.
     */
    private final Map<Combination, int[]> net = new LinkedHashMap<>();
    /** A watermark step's expiring records, their buckets (0: a row that can never match, handled at once), their hashes. */
    private long[] expiring = new long[64];
    private long[] expiringBuckets = new long[64];
    private long[] expiringHashes = new long[64];
    private int[] expiringGroup = new int[64];
    private int[] expiringOrder = new int[64];
    private int expiringCount;
    /** The step's distinct buckets, in first-met order, their hashes, and an open-addressing set of them. */
    private long[] groupBuckets = new long[64];
    private long[] groupHashes = new long[64];
    private int[] groupStart = new int[65];
    private int groupCount;
    private int[] groupSlots = new int[64];
    private long[] groupSet = new long[128];
    private int[] groupSetIndex = new int[128];

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
        this.hashMask = hashMask;
        final MultiJoinSpec multi = parts.spec.multi();
        this.n = multi.inputs();
        this.results = results;
        this.deadLetters = deadLetters;
        this.counters = parts.counters;
        this.watermarks = parts.inputs;
        this.state = parts.state;
        this.index = state.index;
        this.store = new MultiRowStore(n, state.store.arena(), state.base);
        this.unusedBytes = state.durable() ? NativeArena.alignedSize(MultiBucketDescriptor.length(n)) : 0;
        this.maxLiveRows = state.config.maxLiveRows();
        // The state's configuration: in durable mode its hash seed is the one the state was built with.
        this.seed = state.config.hashSeed();
        this.left = new boolean[n];
        this.keys = new KeyExtractor[n];
        this.filters = new RowPredicate[n];
        this.ttl = new long[n];
        boolean anyTtl = false;
        for (int i = 0; i < n; i++)
        {
            left[i] = multi.type(i) == JoinType.LEFT;
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
        final int[] perLevel = new int[n];
        for (final MultiJoinSpec.Condition c : multi.conditions())
        {
            perLevel[c.level()]++;
        }
        condLeftInput = new int[n][];
        condLeftField = new int[n][];
        condRightInput = new int[n][];
        condRightField = new int[n][];
        condOp = new CompareOp[n][];
        for (int level = 0; level < n; level++)
        {
            condLeftInput[level] = new int[perLevel[level]];
            condLeftField[level] = new int[perLevel[level]];
            condRightInput[level] = new int[perLevel[level]];
            condRightField[level] = new int[perLevel[level]];
            condOp[level] = new CompareOp[perLevel[level]];
        }
        final int[] filled = new int[n];
        for (final MultiJoinSpec.Condition c : multi.conditions())
        {
            final int level = c.level();
            final int t = filled[level]++;
            condLeftInput[level][t] = c.leftInput();
            condLeftField[level][t] = Fields.resolve(multi.schema(c.leftInput()), c.leftField(), "condition.left");
            condRightInput[level][t] = c.rightInput();
            condRightField[level][t] = Fields.resolve(multi.schema(c.rightInput()), c.rightField(), "condition.right");
            condOp[level][t] = c.op();
        }
        this.liveRows = new long[n];
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(state.config.maxKeyLength()));
        this.storedKey = new UnsafeBuffer(ByteBuffer.allocateDirect(state.config.maxKeyLength()));
        this.combo = new long[n];
        this.buffers = new UnsafeBuffer[n];
        this.views = new RowView[n];
        this.out = new RowView[n];
        for (int i = 0; i < n; i++)
        {
            buffers[i] = new UnsafeBuffer(0, 0);
            views[i] = new RowView();
        }
    }

    /** The two-sided entry: input 0 is the left side, input 1 the right. */
    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        final int input = side == Side.LEFT ? 0 : 1;
        watermarks.markActive(input);
        onInputRow(input, kind, row, ts, step);
    }

    @Override
    public void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
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
        this.step = step;
        if (kind.isAccumulate())
        {
            insert(input, kind, row, ts, step, matchable, keyLength);
        }
        else
        {
            retract(input, kind, row, ts, step, matchable, keyLength);
        }
    }

    /** @return the hash of the event's key, extracted into {@link #key}. */
    private long keyHash(final int keyLength)
    {
        return KeyHash.hash(seed, key, 0, keyLength) & hashMask;
    }

    /** @return the content hash of a row that can never match. */
    private long rowHash(final DirectBuffer buffer, final int offset, final int length)
    {
        return KeyHash.hash(seed, buffer, offset, length) & hashMask;
    }

    /**
     * @return the bucket of the key in {@link #key} ({@code keyLength} bytes, hash {@code hash}), or 0: of the
     *         key buckets in the hash's chain, the one whose rows have that key.
     */
    private long findKey(final long hash, final int keyLength)
    {
        for (long bucket = index.find(hash); bucket != 0; bucket = store.next(bucket))
        {
            if (!MultiBucketDescriptor.unmatchable(bucket))
            {
                if (sameKey(bucket, keyLength))
                {
                    return bucket;
                }
                counters.hashCollisions++;
            }
        }
        return 0;
    }

    /** @return whether the bucket's rows have the key in {@link #key}: one of them has its key extracted. */
    private boolean sameKey(final long bucket, final int keyLength)
    {
        final long record = store.anyRecord(bucket);
        if (record == 0)
        {
            return false;
        }
        wrap(record, storedBuffer, storedRow);
        final int length = keys[MultiRowDescriptor.input(record)].extract(storedRow, storedKey, 0, storedKey.capacity());
        return length == keyLength && BufferCompare.equals(storedKey, 0, key, 0, keyLength);
    }

    /** @return the bucket of the rows that can never match under a content hash, or 0. */
    private long findRows(final long hash)
    {
        for (long bucket = index.find(hash); bucket != 0; bucket = store.next(bucket))
        {
            if (MultiBucketDescriptor.unmatchable(bucket))
            {
                return bucket;
            }
        }
        return 0;
    }

    /**
     * Finds or creates the bucket of a hash and makes room in its group of {@code input}: a new bucket is the
     * index's for the hash when the hash has none, else one from the arena linked after the index's.
     *
     * @return the bucket, or 0 (nothing changed) when there is no memory for it.
     */
    private long bucketFor(final long hash, final long found, final int input, final boolean unmatchable)
    {
        long bucket = found;
        if (bucket == 0)
        {
            final long head = index.findOrCreate(hash);
            if (head == KeyIndex.FULL)
            {
                return 0;
            }
            if (store.isEmpty(head))
            {
                // Created now (a bucket in the index always holds a row between events).
                store.initBucket(head, unmatchable);
                bucket = head;
            }
            else
            {
                bucket = store.createBucket(hash, unmatchable);
                if (bucket == 0)
                {
                    return 0;
                }
                store.next(bucket, store.next(head));
                store.next(head, bucket);
            }
            if (!unmatchable)
            {
                keyBuckets++;
            }
        }
        if (!store.reserve(bucket, input))
        {
            release(bucket, hash);
            return 0;
        }
        return bucket;
    }

    /**
     * Drops a bucket once it holds no row: the index's bucket of its hash takes the next one's content (or
     * leaves the index when it has none); a linked one is unlinked and freed.
     */
    private void release(final long bucket, final long hash)
    {
        if (!store.isEmpty(bucket))
        {
            return;
        }
        if (!MultiBucketDescriptor.unmatchable(bucket))
        {
            keyBuckets--;
        }
        final long head = index.find(hash);
        if (bucket == head)
        {
            final long next = store.next(head);
            if (next == 0)
            {
                index.remove(head);
            }
            else
            {
                store.moveInto(head, next);
                store.freeBucket(next);
            }
            return;
        }
        long before = head;
        while (store.next(before) != bucket)
        {
            before = store.next(before);
        }
        store.next(before, store.next(bucket));
        store.freeBucket(bucket);
    }

    /** Drops every empty bucket of a hash's chain (a watermark step's, once its walks are done); idempotent. */
    private void releaseChain(final long hash)
    {
        final long head = index.find(hash);
        if (head == 0)
        {
            return;
        }
        long before = head;
        for (long bucket = store.next(head); bucket != 0; bucket = store.next(before))
        {
            if (store.isEmpty(bucket))
            {
                release(bucket, hash);
            }
            else
            {
                before = bucket;
            }
        }
        release(head, hash);
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
            final long hash = rowHash(row.buffer(), row.offset(), row.length());
            final long bucket = bucketFor(hash, findRows(hash), input, true);
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
                lone(record, +1);
            }
            return;
        }
        final long hash = keyHash(keyLength);
        final long bucket = bucketFor(hash, findKey(hash, keyLength), input, false);
        if (bucket == 0)
        {
            store.freeRecord(record, row.length());
            deadLetter(input, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        store.writeRecord(record, row.buffer(), row.offset(), row.length(), ts, input, 0);
        current = bucket;
        if (input == 0)
        {
            store.append(bucket, 0, record);
            set(0, record);
            walk(1, n, +1);
        }
        else
        {
            changed = record;
            changedInput = input;
            inserting = true;
            walk(0, input, 0);
            store.append(bucket, input, record);
        }
        stored(record, input, deadline);
        countKey(bucket, hash, keyLength, input, 1);
    }

    /** Counts a row event of a key for the hot-key report: the rows it stored, and the key's rows of the other inputs it visited. */
    private void countKey(final long bucket, final long hash, final int keyLength, final int input, final int storedRows)
    {
        final long others = MultiRowStore.rows(bucket) - MultiBucketDescriptor.size(store.group(bucket, input));
        state.countKeyRows(hash, key, keyLength, storedRows, (int)Math.min(Integer.MAX_VALUE, others));
    }

    private void retract(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final boolean matchable,
        final int keyLength)
    {
        if (!matchable)
        {
            final long hash = rowHash(row.buffer(), row.offset(), row.length());
            final long bucket = findRows(hash);
            final long record = bucket == 0 ? 0 : store.findEqual(bucket, input, row.buffer(), row.offset(), row.length());
            if (record == 0)
            {
                deadLetter(input, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
                return;
            }
            // The oldest copy, as for a matchable row.
            store.unlink(bucket, input, record);
            removed(record, input);
            release(bucket, hash);
            if (input == 0)
            {
                lone(record, -1);
            }
            store.freeRecord(record);
            return;
        }
        final long hash = keyHash(keyLength);
        final long bucket = findKey(hash, keyLength);
        final long record = bucket == 0 ? 0 : store.findEqual(bucket, input, row.buffer(), row.offset(), row.length());
        if (record == 0)
        {
            deadLetter(input, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
            return;
        }
        store.unlink(bucket, input, record);
        removed(record, input);
        current = bucket;
        if (input == 0)
        {
            set(0, record);
            walk(1, n, -1);
        }
        else
        {
            changed = record;
            changedInput = input;
            inserting = false;
            walk(0, input, 0);
        }
        countKey(bucket, hash, keyLength, input, 0);
        current = 0;
        release(bucket, hash);
        store.freeRecord(record);
    }

    /** A first-input row that matches nothing: padded through the chain when every later join is left. */
    private void lone(final long record, final int sign)
    {
        current = 0;
        set(0, record);
        walk(1, n, sign);
    }

    /**
     * Enumerates the chain over {@link #current} from {@code level} on, the inputs before it fixed in
     * {@link #combo}. At {@code stop == n} each whole combination is emitted with {@code sign}; at a lower
     * {@code stop} (the changed input) {@link #atChanged()} is called for each prefix.
     */
    private void walk(final int level, final int stop, final int sign)
    {
        if (level == stop)
        {
            if (stop == n)
            {
                emit(sign);
            }
            else
            {
                atChanged();
            }
            return;
        }
        int matched = 0;
        if (current != 0)
        {
            final long group = store.group(current, level);
            final int size = MultiBucketDescriptor.size(group);
            for (int k = 0; k < size; k++)
            {
                set(level, store.record(group, k));
                if (on(level))
                {
                    matched++;
                    walk(level + 1, stop, sign);
                }
            }
        }
        if (matched == 0 && left[level])
        {
            set(level, 0);
            walk(level + 1, stop, sign);
        }
    }

    /** The prefix {@code combo[0..c-1]} is fixed: the changed row's difference for it. */
    private void atChanged()
    {
        final int c = changedInput;
        set(c, changed);
        if (!on(c))
        {
            return;
        }
        // The other rows of the input that match this prefix (the changed row is not in the group now).
        int others = 0;
        final long group = store.group(current, c);
        final int size = MultiBucketDescriptor.size(group);
        for (int k = 0; k < size && others == 0; k++)
        {
            set(c, store.record(group, k));
            if (on(c))
            {
                others++;
            }
        }
        final int sign = inserting ? +1 : -1;
        set(c, changed);
        walk(c + 1, n, sign);
        if (others == 0 && left[c])
        {
            set(c, 0);
            walk(c + 1, n, -sign);
        }
    }

    private void set(final int level, final long record)
    {
        combo[level] = record;
        if (record == 0)
        {
            out[level] = null;
        }
        else
        {
            out[level] = wrap(record, buffers[level], views[level]);
        }
    }

    /** @return whether the row at {@code level} meets its ON clause with the prefix (keys are equal by grouping). */
    private boolean on(final int level)
    {
        final int[] li = condLeftInput[level];
        for (int t = 0; t < li.length; t++)
        {
            final RowView a = out[li[t]];
            final RowView b = out[condRightInput[level][t]];
            if (a == null || b == null)
            {
                return false; // a padded input's fields are null: the term is not true
            }
            if (!condOp[level][t].test(FieldCompare.compare(a, condLeftField[level][t], b, condRightField[level][t])))
            {
                return false;
            }
        }
        return true;
    }

    private void emit(final int sign)
    {
        if (collecting)
        {
            final int[] count = net.computeIfAbsent(new Combination(combo.clone(), hashBuffer), c -> new int[1]);
            count[0] += sign;
            return;
        }
        long ts = Long.MIN_VALUE;
        for (int i = 0; i < n; i++)
        {
            if (combo[i] != 0)
            {
                final long t = MultiRowDescriptor.ts(combo[i]);
                if (t > ts)
                {
                    ts = t;
                }
            }
        }
        counters.rowsOut++;
        results.onMultiResult(sign > 0 ? ChangeKind.INSERT : ChangeKind.DELETE, out, ts, step);
    }

    private void stored(final long record, final int input, final long deadline)
    {
        liveRows[input]++;
        if (ttl[input] > 0)
        {
            enqueue(record, deadline);
        }
    }

    private void removed(final long record, final int input)
    {
        liveRows[input]--;
        final int at = MultiRowDescriptor.queueIndex(record);
        if (at >= 0)
        {
            dequeue(at);
        }
    }

    private void enqueue(final long record, final long deadline)
    {
        if (queueSize == queue.length)
        {
            queue = Arrays.copyOf(queue, queueSize * 2);
            queueDeadlines = Arrays.copyOf(queueDeadlines, queueSize * 2);
        }
        siftUp(queueSize++, record, deadline);
    }

    private void siftUp(final int from, final long record, final long deadline)
    {
        int i = from;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (queueDeadlines[parent] <= deadline)
            {
                break;
            }
            place(i, queue[parent], queueDeadlines[parent]);
            i = parent;
        }
        place(i, record, deadline);
    }

    private void siftDown(final int from, final long record, final long deadline)
    {
        int i = from;
        final int half = queueSize >>> 1;
        while (i < half)
        {
            int child = 2 * i + 1;
            if (child + 1 < queueSize && queueDeadlines[child + 1] < queueDeadlines[child])
            {
                child++;
            }
            if (deadline <= queueDeadlines[child])
            {
                break;
            }
            place(i, queue[child], queueDeadlines[child]);
            i = child;
        }
        place(i, record, deadline);
    }

    private void place(final int i, final long record, final long deadline)
    {
        queue[i] = record;
        queueDeadlines[i] = deadline;
        MultiRowDescriptor.queueIndex(store.base(), record, i);
    }

    /** Takes the record in queue slot {@code index} out of the queue. */
    private void dequeue(final int index)
    {
        MultiRowDescriptor.queueIndex(store.base(), queue[index], -1);
        final int last = --queueSize;
        if (index == last)
        {
            queue[last] = 0;
            return;
        }
        final long moved = queue[last];
        final long movedDeadline = queueDeadlines[last];
        queue[last] = 0;
        if (index > 0 && queueDeadlines[(index - 1) >>> 1] > movedDeadline)
        {
            siftUp(index, moved, movedDeadline);
        }
        else
        {
            siftDown(index, moved, movedDeadline);
        }
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

    /** Rows with {@code ts + stateTtl < watermark} leave their inputs; the step emits the chain's net difference. */
    @Override
    public void onWatermark(final long watermark, final long step)
    {
        if (!anyTtl || queueSize == 0 || queueDeadlines[0] >= watermark)
        {
            return;
        }
        expiringCount = 0;
        while (queueSize > 0 && queueDeadlines[0] < watermark)
        {
            final long record = queue[0];
            dequeue(0);
            if (expiringCount == expiring.length)
            {
                growExpiring();
            }
            expiring[expiringCount++] = record;
        }
        this.step = step;
        for (int e = 0; e < expiringCount; e++)
        {
            counters.expiredRows++;
            final long record = expiring[e];
            final int input = MultiRowDescriptor.input(record);
            expiringBuckets[e] = 0;
            if ((MultiRowDescriptor.flags(record) & MultiRowDescriptor.FLAG_UNMATCHABLE) != 0)
            {
                final int length = MultiRowDescriptor.rowLength(record);
                storedBuffer.wrap(MultiRowDescriptor.rowAddress(record), length);
                final long hash = rowHash(storedBuffer, 0, length);
                expiringHashes[e] = hash;
                // Unlinked now, released with the step's other buckets once every walk is done.
                store.unlink(findRows(hash), input, record);
                liveRows[input]--;
                if (input == 0)
                {
                    lone(record, -1);
                }
                continue;
            }
            wrap(record, storedBuffer, storedRow);
            final int keyLength = keys[input].extract(storedRow, key, 0, key.capacity());
            final long hash = keyHash(keyLength);
            final long bucket = findKey(hash, keyLength);
            expiringHashes[e] = hash;
            expiringBuckets[e] = bucket;
            expiringGroup[e] = groupOf(bucket, hash);
        }
        // The matchable records by bucket, in the order the buckets were met.
        Arrays.fill(groupStart, 0, groupCount + 1, 0);
        for (int e = 0; e < expiringCount; e++)
        {
            if (expiringBuckets[e] != 0)
            {
                groupStart[expiringGroup[e] + 1]++;
            }
        }
        for (int g = 0; g < groupCount; g++)
        {
            groupStart[g + 1] += groupStart[g];
        }
        for (int e = 0; e < expiringCount; e++)
        {
            if (expiringBuckets[e] != 0)
            {
                expiringOrder[groupStart[expiringGroup[e]]++] = e;
            }
        }
        // groupStart[g] is now the end of group g's run: its start is the previous group's end.
        int from = 0;
        for (int g = 0; g < groupCount; g++)
        {
            final int to = groupStart[g];
            final long bucket = groupBuckets[g];
            net.clear();
            collecting = true;
            current = bucket;
            walk(0, n, -1);
            for (int k = from; k < to; k++)
            {
                final long record = expiring[expiringOrder[k]];
                final int input = MultiRowDescriptor.input(record);
                store.unlink(bucket, input, record);
                liveRows[input]--;
            }
            walk(0, n, +1);
            collecting = false;
            for (final Map.Entry<Combination, int[]> change : net.entrySet())
            {
                final int count = change.getValue()[0];
                if (count == 0)
                {
                    continue;
                }
                final long[] rows = change.getKey().rows;
                for (int i = 0; i < n; i++)
                {
                    set(i, rows[i]);
                }
                for (int k = 0; k < Math.abs(count); k++)
                {
                    emit(count);
                }
            }
            net.clear();
            from = to;
        }
        current = 0;
        // Only now: releasing a bucket may move another of its chain, which a later group of the step walked.
        for (int e = 0; e < expiringCount; e++)
        {
            releaseChain(expiringHashes[e]);
        }
        // Freed last: the netted combinations refer to them until their group is emitted.
        for (int e = 0; e < expiringCount; e++)
        {
            store.freeRecord(expiring[e]);
        }
        expiringCount = 0;
        clearGroupSet();
    }

    private void growExpiring()
    {
        final int length = expiring.length * 2;
        expiring = Arrays.copyOf(expiring, length);
        expiringBuckets = Arrays.copyOf(expiringBuckets, length);
        expiringHashes = Arrays.copyOf(expiringHashes, length);
        expiringGroup = Arrays.copyOf(expiringGroup, length);
        expiringOrder = Arrays.copyOf(expiringOrder, length);
    }

    /** @return the index of a bucket among this step's distinct buckets, added when new. */
    private int groupOf(final long bucket, final long hash)
    {
        if ((groupCount + 1) * 2 > groupSet.length)
        {
            final int length = groupSet.length * 2;
            groupSet = new long[length];
            groupSetIndex = new int[length];
            for (int g = 0; g < groupCount; g++)
            {
                groupSlots[g] = setInsert(groupBuckets[g], g);
            }
        }
        final int mask = groupSet.length - 1;
        for (int s = (int)KeyHash.mix(bucket) & mask; ; s = (s + 1) & mask)
        {
            if (groupSet[s] == bucket)
            {
                return groupSetIndex[s];
            }
            if (groupSet[s] == 0)
            {
                if (groupCount == groupBuckets.length)
                {
                    groupBuckets = Arrays.copyOf(groupBuckets, groupCount * 2);
                    groupHashes = Arrays.copyOf(groupHashes, groupCount * 2);
                    groupStart = Arrays.copyOf(groupStart, groupCount * 2 + 1);
                    groupSlots = Arrays.copyOf(groupSlots, groupCount * 2);
                }
                groupSet[s] = bucket;
                groupSetIndex[s] = groupCount;
                groupSlots[groupCount] = s;
                groupBuckets[groupCount] = bucket;
                groupHashes[groupCount] = hash;
                return groupCount++;
            }
        }
    }

    private int setInsert(final long bucket, final int index)
    {
        final int mask = groupSet.length - 1;
        int s = (int)KeyHash.mix(bucket) & mask;
        while (groupSet[s] != 0)
        {
            s = (s + 1) & mask;
        }
        groupSet[s] = bucket;
        groupSetIndex[s] = index;
        return s;
    }

    /** Empties the set of the step's distinct buckets, visiting only the slots they took. */
    private void clearGroupSet()
    {
        for (int g = 0; g < groupCount; g++)
        {
            groupSet[groupSlots[g]] = 0;
        }
        groupCount = 0;
    }

    @Override
    public void onEndOfInput(final long step)
    {
        // As a regular join: the end of input closes nothing (state leaves only by retraction or TTL).
    }

    @Override
    public long pendingTimers()
    {
        return queueSize;
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
        return n * Long.BYTES + 2 * Long.BYTES + Integer.BYTES + queueSize * 2 * Long.BYTES;
    }

    /** The live rows per input, the key buckets, then the TTL queue in heap order: record references and deadlines. */
    @Override
    public void save(final ByteBuffer out)
    {
        for (int i = 0; i < n; i++)
        {
            out.putLong(liveRows[i]);
        }
        out.putLong(keyBuckets);
        out.putInt(queueSize);
        for (int i = 0; i < queueSize; i++)
        {
            out.putLong(queue[i] - store.base()).putLong(queueDeadlines[i]);
        }
    }

    @Override
    public void load(final ByteBuffer in)
    {
        for (int i = 0; i < n; i++)
        {
            liveRows[i] = in.getLong();
        }
        keyBuckets = in.getLong();
        final int size = in.getInt();
        if (size < 0 || size > in.remaining() / (2 * Long.BYTES))
        {
            throw new DurableStateException("the multi-way join's TTL queue of " + size + " records does not fit the heap image (damaged state)");
        }
        queue = new long[Math.max(64, size)];
        queueDeadlines = new long[queue.length];
        for (int i = 0; i < size; i++)
        {
            final long stored = in.getLong();
            // Checked before it is followed: a damaged reference must not be read (docs/DURABILITY.md).
            if (!store.arena().holds(stored, MultiRowDescriptor.HEADER_LENGTH) ||
                MultiRowDescriptor.queueIndex(store.base() + stored) != i)
            {
                throw new DurableStateException("the multi-way join's TTL queue holds a record at " + stored +
                    " that is not its slot " + i + " (damaged state)");
            }
            queue[i] = store.base() + stored;
            queueDeadlines[i] = in.getLong();
        }
        queueSize = size;
    }

    /** @return live rows of input {@code input}. */
    long liveRows(final int input)
    {
        return liveRows[input];
    }

    /** @return the number of keys with stored rows that can match. */
    long keys()
    {
        return keyBuckets;
    }

    private static long saturatedAdd(final long a, final long b)
    {
        final long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** @return {@code view} over a stored record's row, through {@code buffer}. */
    private static RowView wrap(final long record, final UnsafeBuffer buffer, final RowView view)
    {
        return view.wrap(buffer, 0, MultiRowStore.wrapRow(record, buffer));
    }
}
