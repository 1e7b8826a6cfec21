package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
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
import io.junction.internal.state.MultiBucketDescriptor;
import io.junction.internal.state.MultiKeyTable;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;
import io.junction.metrics.OperatorCounters;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The multi-way join operator (SPEC 2.6, docs/SEMANTICS.md "Multi-way joins"): N inputs on a common key,
 * the left-deep chain {@code ((i0 ⋈ i1) ⟕ i2) ...} over the inputs' current contents, with a minimal
 * changelog.
 *
 * <p>State: each input's rows once, grouped by the common key (a bucket, {@link MultiBucketDescriptor}: per
 * input the rows of that key that can match, with multiplicity as separate copies, in arrival order); rows
 * that can never match (a null key field, or failing their input's filter) are kept apart, by content, so
 * that their retractions can be checked (and so that a first-input row of that kind is emitted padded when
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
 * <p>Memory: the state is off the Java heap, in one {@link MultiRowStore} arena: a record per stored row
 * ({@link MultiRowDescriptor}: the row's bytes, its ts, input and TTL queue slot, 16 bytes of header; no key
 * copy, the key is the row's key fields), a bucket per key ({@link MultiBucketDescriptor}: one group reference
 * per input, the single row of an input held inline), and two {@link MultiKeyTable}s from the key hash (the
 * rows that can never match: the content hash) to the bucket. Distinct keys whose hashes collide get a bucket
 * each, told apart by extracting the key of one of the bucket's rows. The state TTL queue is a binary heap of
 * record addresses on two primitive arrays. Nothing is allocated per event once the arrays have grown to the
 * state's size; a watermark step that expires rows nets its changes in a heap map (it allocates). A row the
 * arena has no memory for (the arena's limit is {@link StateConfig#maxStateBytes()}) is a
 * {@link DeadLetterReason#STATE_FULL} dead letter, before it has any effect. Durable mode
 * ({@link StateConfig#stateDirectory()}): {@link #persist()} writes the rows, watermarks and counters to one
 * checksummed file there, which a new operator of the same spec reopens; the runtime's checkpoints copy it.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class MultiJoin implements JoinOperator
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
    private final JoinCounters counters = new JoinCounters();
    private final long maxLiveRows;
    private final long seed;
    /** ANDed into every hash: -1, or narrow in a test of colliding keys. */
    private final long hashMask;

    /** Records, buckets and group arrays. */
    private final MultiRowStore store;
    /** Key hash to the key's bucket (one bucket per key, colliding keys apart). */
    private final MultiKeyTable keyTable;
    /** Content hash to the bucket of the rows that can never match (rows of colliding hashes share it). */
    private final MultiKeyTable rowTable;
    private final long[] watermarks;
    private final boolean[] idle;
    private long joinWatermark = Long.MIN_VALUE;
    private final long[] liveRows;

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
    /** A watermark step's expiring records, their buckets (0: a row that can never match, handled at once). */
    private long[] expiring = new long[64];
    private long[] expiringBuckets = new long[64];
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
     * @param spec        a {@link JoinKind#MULTI} spec.
     * @param config      the sizing: {@link StateConfig#maxKeyLength()} and {@link StateConfig#maxLiveRows()}.
     * @param results     receives the output ({@link ResultHandler#onMultiResult}).
     * @param deadLetters receives the rows that cannot be processed.
     * @throws DurableStateException when the configuration names a state directory whose state file cannot be
     *         reopened (damaged, of another spec, or not fitting the state's limits).
     */
    public MultiJoin(final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        this(spec, config, results, deadLetters, -1L);
    }

    /**
     * As {@link #MultiJoin(JoinSpec, StateConfig, ResultHandler, DeadLetterHandler)}, with the key and content
     * hashes masked: a test makes distinct keys collide with a narrow mask.
     *
     * @param spec        a {@link JoinKind#MULTI} spec.
     * @param config      the sizing.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @param hashMask    ANDed into every hash; -1 in production.
     */
    MultiJoin(final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final long hashMask)
    {
        this.hashMask = hashMask;
        JoinOperators.requireKind(spec, JoinKind.MULTI);
        this.stateDirectory = config.stateDirectory();
        this.fingerprint = spec.fingerprint();
        final MultiJoinSpec multi = spec.multi();
        this.n = multi.inputs();
        this.results = results;
        this.deadLetters = deadLetters;
        this.maxLiveRows = config.maxLiveRows();
        this.seed = config.hashSeed();
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
        this.watermarks = new long[n];
        Arrays.fill(watermarks, Long.MIN_VALUE);
        this.idle = new boolean[n];
        this.liveRows = new long[n];
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(config.maxKeyLength()));
        this.storedKey = new UnsafeBuffer(ByteBuffer.allocateDirect(config.maxKeyLength()));
        this.combo = new long[n];
        this.buffers = new UnsafeBuffer[n];
        this.views = new RowView[n];
        this.out = new RowView[n];
        for (int i = 0; i < n; i++)
        {
            buffers[i] = new UnsafeBuffer(0, 0);
            views[i] = new RowView();
        }
        this.keyTable = new MultiKeyTable();
        this.rowTable = new MultiKeyTable();
        this.store = new MultiRowStore(n, config.chunkSize(), config.maxStateBytes());
        if (stateDirectory != null)
        {
            try
            {
                load();
            }
            catch (final RuntimeException e)
            {
                release();
                throw e;
            }
        }
    }

    /** The state file in the state directory (durable mode): every stored row, the watermarks and the counters. */
    static final String STATE_FILE = "multi-join.state";
    private static final int STATE_MAGIC = 0x4A4D4A31;
    private final java.nio.file.Path stateDirectory;
    private final long fingerprint;
    private boolean released;

    @Override
    public boolean durable()
    {
        return stateDirectory != null;
    }

    /**
     * Durable mode: writes every stored row (in arrival order per key and input, so that retractions and
     * expiry take the same copies after a reopen), the inputs' watermarks, idleness and the counters to
     * {@value #STATE_FILE}, checksummed, through a temporary file moved into place and synced.
     */
    @Override
    public void persist() throws java.io.IOException
    {
        if (stateDirectory == null)
        {
            throw new IllegalStateException("persist() needs a state directory (StateConfig.withStateDirectory)");
        }
        if (released)
        {
            throw new IllegalStateException("persist() after close: the state is released");
        }
        io.junction.internal.durable.OwnerOnlyFiles.createDirectories(stateDirectory);
        final java.nio.file.Path file = stateDirectory.resolve(STATE_FILE);
        final java.nio.file.Path temporary = stateDirectory.resolve(STATE_FILE + ".tmp");
        java.nio.file.Files.deleteIfExists(temporary);
        io.junction.internal.durable.OwnerOnlyFiles.createFile(temporary);
        final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        try (java.io.FileOutputStream fileOut = new java.io.FileOutputStream(temporary.toFile());
             java.io.DataOutputStream out = new java.io.DataOutputStream(new java.util.zip.CheckedOutputStream(
                 new java.io.BufferedOutputStream(fileOut, 1 << 16), crc)))
        {
            out.writeInt(STATE_MAGIC);
            out.writeLong(fingerprint);
            out.writeInt(n);
            for (int i = 0; i < n; i++)
            {
                out.writeLong(watermarks[i]);
                out.writeBoolean(idle[i]);
            }
            out.writeLong(joinWatermark);
            out.writeLong(counters.rowsIn);
            out.writeLong(counters.rowsOut);
            out.writeLong(counters.lateRows);
            out.writeLong(counters.badInputs);
            out.writeLong(counters.expiredRows);
            long rows = 0;
            for (int i = 0; i < n; i++)
            {
                rows += liveRows[i];
            }
            out.writeLong(rows);
            final byte[] scratch = new byte[MultiRowDescriptor.MAX_ROW_LENGTH];
            writeTable(out, rowTable, scratch);
            writeTable(out, keyTable, scratch);
            out.flush();
            final long checksum = crc.getValue();
            out.writeLong(checksum);
            out.flush();
            fileOut.getFD().sync();
        }
        java.nio.file.Files.move(temporary, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        io.junction.internal.durable.SmallFiles.fsyncDirectory(stateDirectory);
    }

    /** Writes every record of a table's buckets, per bucket and input in arrival order. */
    private void writeTable(final java.io.DataOutputStream out, final MultiKeyTable table, final byte[] scratch)
        throws java.io.IOException
    {
        for (long s = 0; s < table.slots(); s++)
        {
            final long bucket = table.bucketAt(s);
            if (bucket == 0)
            {
                continue;
            }
            for (int i = 0; i < n; i++)
            {
                final long group = MultiBucketDescriptor.group(bucket, i);
                final int size = MultiBucketDescriptor.size(group);
                for (int k = 0; k < size; k++)
                {
                    final long record = MultiBucketDescriptor.record(group, k);
                    final int length = MultiRowDescriptor.rowLength(record);
                    storedBuffer.wrap(MultiRowDescriptor.rowAddress(record), length);
                    storedBuffer.getBytes(0, scratch, 0, length);
                    out.writeByte(MultiRowDescriptor.input(record));
                    out.writeLong(MultiRowDescriptor.ts(record));
                    out.writeInt(length);
                    out.write(scratch, 0, length);
                }
            }
        }
    }

    /** Reopens what {@link #persist()} wrote; a missing file is a fresh start, anything else wrong is refused. */
    private void load()
    {
        final java.nio.file.Path file = stateDirectory.resolve(STATE_FILE);
        if (!java.nio.file.Files.exists(file))
        {
            return;
        }
        final byte[] bytes;
        try
        {
            bytes = java.nio.file.Files.readAllBytes(file);
        }
        catch (final java.io.IOException e)
        {
            throw new DurableStateException("cannot read the multi-way join's state " + file + ": " + e.getMessage(), e);
        }
        if (bytes.length < Long.BYTES)
        {
            throw new DurableStateException(file + " is not a multi-way join's state (too short)");
        }
        final java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(bytes, 0, bytes.length - Long.BYTES);
        final ByteBuffer in = ByteBuffer.wrap(bytes);
        if (in.getLong(bytes.length - Long.BYTES) != crc.getValue())
        {
            throw new DurableStateException(file + " is damaged (checksum mismatch)");
        }
        if (in.getInt() != STATE_MAGIC)
        {
            throw new DurableStateException(file + " is not a multi-way join's state");
        }
        if (in.getLong() != fingerprint || in.getInt() != n)
        {
            throw new DurableStateException(file + " holds the state of another join spec");
        }
        for (int i = 0; i < n; i++)
        {
            watermarks[i] = in.getLong();
            idle[i] = in.get() != 0;
        }
        joinWatermark = in.getLong();
        counters.rowsIn = in.getLong();
        counters.rowsOut = in.getLong();
        counters.lateRows = in.getLong();
        counters.badInputs = in.getLong();
        counters.expiredRows = in.getLong();
        counters.watermark = joinWatermark;
        final long rows = in.getLong();
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final RowView row = new RowView();
        for (long r = 0; r < rows; r++)
        {
            final int input = in.get();
            final long ts = in.getLong();
            final int length = in.getInt();
            if (input < 0 || input >= n || length < 0 || length > MultiRowDescriptor.MAX_ROW_LENGTH || length > in.remaining() - Long.BYTES)
            {
                throw new DurableStateException(file + " is damaged (row " + r + " of input " + input + ", " + length + " bytes)");
            }
            row.wrap(buffer, in.position(), length);
            in.position(in.position() + length);
            if (!restore(input, row, ts))
            {
                throw new DurableStateException(file + " does not fit this operator's state limits (row " + r + " of " + rows + ")");
            }
        }
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        onInputRow(side == Side.LEFT ? 0 : 1, kind, row, ts, step);
    }

    @Override
    public void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        counters.rowsIn++;
        if (input < 0 || input >= n || kind == null || row == null || row.length() > MultiRowDescriptor.MAX_ROW_LENGTH)
        {
            deadLetter(input < 0 || input >= n ? 0 : input, kind == null ? ChangeKind.INSERT : kind, row, ts, step,
                DeadLetterReason.MALFORMED_ROW);
            return;
        }
        idle[input] = false;
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
    private long rowHash(final org.agrona.DirectBuffer buffer, final int offset, final int length)
    {
        return KeyHash.hash(seed, buffer, offset, length) & hashMask;
    }

    /**
     * @return the bucket of the key in {@link #key} ({@code keyLength} bytes, hash {@code hash}), or 0: of the
     *         buckets under the hash, the one whose rows have that key.
     */
    private long findKey(final long hash, final int keyLength)
    {
        for (long s = keyTable.home(hash); ; s = keyTable.next(s))
        {
            final long bucket = keyTable.bucketAt(s);
            if (bucket == 0)
            {
                return 0;
            }
            if (keyTable.hashAt(s) == hash)
            {
                if (sameKey(bucket, keyLength))
                {
                    return bucket;
                }
                counters.hashCollisions++;
            }
        }
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
        for (long s = rowTable.home(hash); ; s = rowTable.next(s))
        {
            final long bucket = rowTable.bucketAt(s);
            if (bucket == 0 || rowTable.hashAt(s) == hash)
            {
                return bucket;
            }
        }
    }

    /**
     * Finds or creates the bucket of a hash and makes room in its group of {@code input}.
     *
     * @return the bucket, or 0 (nothing changed) when there is no memory for it.
     */
    private long bucketFor(final MultiKeyTable table, final long hash, final long found, final int input)
    {
        long bucket = found;
        boolean created = false;
        if (bucket == 0)
        {
            bucket = store.createBucket();
            if (bucket == 0)
            {
                return 0;
            }
            if (!table.insert(hash, bucket))
            {
                store.freeBucket(bucket);
                return 0;
            }
            created = true;
        }
        if (!store.reserve(bucket, input))
        {
            if (created)
            {
                table.remove(hash, bucket);
                store.freeBucket(bucket);
            }
            return 0;
        }
        return bucket;
    }

    private void insert(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final boolean matchable,
        final int keyLength)
    {
        final long deadline = ttl[input] > 0 ? saturatedAdd(ts, ttl[input]) : Long.MAX_VALUE;
        if (ttl[input] > 0 && deadline < joinWatermark)
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
            final long bucket = bucketFor(rowTable, hash, findRows(hash), input);
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
        final long bucket = bucketFor(keyTable, hash, findKey(hash, keyLength), input);
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
    }

    /** Durable mode's reopen: stores a row as {@link #insert} would, without output. @return false when it does not fit. */
    private boolean restore(final int input, final RowView row, final long ts)
    {
        final int keyLength = keys[input].extract(row, key, 0, key.capacity());
        final boolean matchable = keyLength >= 0 && filters[input].test(row);
        final long deadline = ttl[input] > 0 ? saturatedAdd(ts, ttl[input]) : Long.MAX_VALUE;
        final long record = store.allocateRecord(row.length());
        if (record == 0)
        {
            return false;
        }
        final long bucket;
        if (matchable)
        {
            final long hash = keyHash(keyLength);
            bucket = bucketFor(keyTable, hash, findKey(hash, keyLength), input);
        }
        else
        {
            final long hash = rowHash(row.buffer(), row.offset(), row.length());
            bucket = bucketFor(rowTable, hash, findRows(hash), input);
        }
        if (bucket == 0)
        {
            store.freeRecord(record, row.length());
            return false;
        }
        store.writeRecord(record, row.buffer(), row.offset(), row.length(), ts, input, matchable ? 0 : MultiRowDescriptor.FLAG_UNMATCHABLE);
        store.append(bucket, input, record);
        stored(record, input, deadline);
        return true;
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
            if (store.isEmpty(bucket))
            {
                rowTable.remove(hash, bucket);
                store.freeBucket(bucket);
            }
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
        if (store.isEmpty(bucket))
        {
            keyTable.remove(hash, bucket);
            store.freeBucket(bucket);
        }
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
            final long group = MultiBucketDescriptor.group(current, level);
            final int size = MultiBucketDescriptor.size(group);
            for (int k = 0; k < size; k++)
            {
                set(level, MultiBucketDescriptor.record(group, k));
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
        final long group = MultiBucketDescriptor.group(current, c);
        final int size = MultiBucketDescriptor.size(group);
        for (int k = 0; k < size && others == 0; k++)
        {
            set(c, MultiBucketDescriptor.record(group, k));
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
        final int index = MultiRowDescriptor.queueIndex(record);
        if (index >= 0)
        {
            dequeue(index);
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
        MultiRowDescriptor.queueIndex(record, i);
    }

    /** Takes the record in queue slot {@code index} out of the queue. */
    private void dequeue(final int index)
    {
        MultiRowDescriptor.queueIndex(queue[index], -1);
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

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        onInputWatermark(side == Side.LEFT ? 0 : 1, watermark, step);
    }

    @Override
    public void onInputWatermark(final int input, final long watermark, final long step)
    {
        if (input < 0 || input >= n)
        {
            return;
        }
        idle[input] = false;
        if (watermark > watermarks[input])
        {
            watermarks[input] = watermark;
        }
        advance(step);
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        for (int i = 0; i < n; i++)
        {
            idle[i] = false;
            if (watermark > watermarks[i])
            {
                watermarks[i] = watermark;
            }
        }
        advance(step);
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        onInputIdle(side == Side.LEFT ? 0 : 1, step);
    }

    @Override
    public void onInputIdle(final int input, final long step)
    {
        if (input >= 0 && input < n)
        {
            idle[input] = true;
            advance(step);
        }
    }

    /** The join watermark: the minimum over the active inputs (the greatest when all are idle); never backwards. */
    private void advance(final long step)
    {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean anyActive = false;
        for (int i = 0; i < n; i++)
        {
            max = Math.max(max, watermarks[i]);
            if (!idle[i])
            {
                anyActive = true;
                min = Math.min(min, watermarks[i]);
            }
        }
        final long candidate = anyActive ? min : max;
        if (candidate > joinWatermark)
        {
            joinWatermark = candidate;
            counters.watermark = candidate;
            expire(candidate, step);
        }
    }

    /** Rows with {@code ts + stateTtl < watermark} leave their inputs; the step emits the chain's net difference. */
    private void expire(final long watermark, final long step)
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
                final long bucket = findRows(hash);
                store.unlink(bucket, input, record);
                removed(record, input);
                if (store.isEmpty(bucket))
                {
                    rowTable.remove(hash, bucket);
                    store.freeBucket(bucket);
                }
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
                removed(record, input);
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
            if (store.isEmpty(bucket))
            {
                keyTable.remove(groupHashes[g], bucket);
                store.freeBucket(bucket);
            }
            from = to;
        }
        // Freed only now: the netted combinations refer to them until their group is emitted.
        for (int e = 0; e < expiringCount; e++)
        {
            store.freeRecord(expiring[e]);
        }
        expiringCount = 0;
        clearGroupSet();
        current = 0;
    }

    private void growExpiring()
    {
        final int length = expiring.length * 2;
        expiring = Arrays.copyOf(expiring, length);
        expiringBuckets = Arrays.copyOf(expiringBuckets, length);
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
    public OperatorCounters counters()
    {
        counters.liveLeft = liveRows[0];
        long later = 0;
        for (int i = 1; i < n; i++)
        {
            later += liveRows[i];
        }
        counters.liveRight = later;
        final long tables = keyTable.bytes() + rowTable.bytes();
        counters.stateBytes = store.reservedBytes() + tables;
        counters.usedStateBytes = store.usedBytes() + tables;
        counters.liveStateBytes = store.usedBytes() + keyTable.liveBytes() + rowTable.liveBytes();
        counters.pendingTimers = queueSize;
        counters.watermark = joinWatermark;
        return counters;
    }

    /** @return live rows of input {@code input}, for tests. */
    long liveRows(final int input)
    {
        return liveRows[input];
    }

    /** @return the number of keys with stored rows that can match, for tests. */
    int keys()
    {
        return (int)keyTable.size();
    }

    @Override
    public void discard()
    {
        release();
    }

    /** In durable mode persists first ({@link java.io.UncheckedIOException} when that fails, after releasing). */
    @Override
    public void close()
    {
        if (released)
        {
            return;
        }
        java.io.IOException failure = null;
        if (stateDirectory != null)
        {
            try
            {
                persist();
            }
            catch (final java.io.IOException e)
            {
                failure = e;
            }
        }
        release();
        if (failure != null)
        {
            throw new java.io.UncheckedIOException(failure);
        }
    }

    private void release()
    {
        if (released)
        {
            return;
        }
        released = true;
        keyTable.close();
        rowTable.close();
        store.close();
        queueSize = 0;
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
