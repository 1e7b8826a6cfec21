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
import io.junction.internal.row.FieldCompare;
import io.junction.internal.row.Fields;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.internal.row.RowPredicate;
import io.junction.metrics.OperatorCounters;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The multi-way join operator (SPEC 2.6, docs/SEMANTICS.md "Multi-way joins"): N inputs on a common key,
 * the left-deep chain {@code ((i0 ⋈ i1) ⟕ i2) ...} over the inputs' current contents, with a minimal
 * changelog.
 *
 * <p>State: each input's rows once, grouped by the common key ({@code Group}: per input the rows of that
 * key that can match, with multiplicity as separate copies); rows that can never match (a null key field,
 * or failing their input's filter) are kept apart, by content, so that their retractions can be checked
 * (and so that a first-input row of that kind is emitted padded when every later join is left). No
 * intermediate join result is stored.
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
 * <p>The rows are held on the heap, a copy of each stored row's bytes in a pooled entry: once the pool
 * holds retracted or expired entries, the per-event path allocates nothing but a key's group when the
 * key is new (and the by-content bookkeeping of rows that can never match). Durable mode
 * ({@link StateConfig#stateDirectory()}): {@link #persist()} writes the rows, watermarks and counters to one
 * checksummed file there, which a new operator of the same spec reopens; the runtime's checkpoints copy it.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class MultiJoin implements JoinOperator
{
    private static final VarHandle LITTLE_ENDIAN_LONGS =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * A stored copy of one input row. Entries are pooled: a retracted or expired entry is reused (with its
     * byte array, when large enough) by a later row once nothing refers to it, so that the steady state of
     * a stream of inserts and retractions allocates nothing.
     */
    private static final class Entry
    {
        byte[] bytes = new byte[64];
        int length;
        int hash;
        long ts;
        int input;
        /** The key's group; null for a row that can never match. */
        Group group;
        /** {@code ts + stateTtl} of its input, saturated; unused without a TTL. */
        long deadline;
        /** Retracted or expired: skipped by the TTL queue. */
        boolean removed;
        /** In the TTL queue: released to the pool only once the queue has let go of it. */
        boolean queued;

        void fill(final RowView row, final long ts, final int input, final Group group, final long deadline)
        {
            final int n = row.length();
            if (bytes.length < n)
            {
                bytes = new byte[Math.max(n, bytes.length * 2)];
            }
            row.buffer().getBytes(row.offset(), bytes, 0, n);
            this.length = n;
            this.hash = Bytes.hash(bytes, n);
            this.ts = ts;
            this.input = input;
            this.group = group;
            this.deadline = deadline;
            this.removed = false;
            this.queued = false;
        }

        boolean sameRow(final Entry other)
        {
            return other != null && hash == other.hash && length == other.length &&
                Arrays.equals(bytes, 0, length, other.bytes, 0, other.length);
        }
    }

    /**
     * @param data   bytes.
     * @param length how many of them.
     * @return the content hash the operator's maps use for keys and rows (package-private for its test).
     */
    static int contentHash(final byte[] data, final int length)
    {
        return Bytes.hash(data, length);
    }

    /** Bytes compared by content: a key, or a row of the unmatchable store; also the reusable probe. */
    private static final class Bytes
    {
        byte[] data;
        int length;
        int hash;

        Bytes(final int capacity)
        {
            data = new byte[capacity];
        }

        Bytes(final byte[] data)
        {
            this.data = data;
            this.length = data.length;
            this.hash = hash(data, data.length);
        }

        void set(final org.agrona.DirectBuffer buffer, final int offset, final int length)
        {
            if (data.length < length)
            {
                data = new byte[Math.max(length, data.length * 2)];
            }
            buffer.getBytes(offset, data, 0, length);
            this.length = length;
            this.hash = hash(data, length);
        }

        byte[] copy()
        {
            return Arrays.copyOf(data, length);
        }

        /**
         * The content hash of a key or row: each 8-byte block multiplied in (a bijection of one block), then
         * {@link KeyHash#mix}, under a fixed seed, folded to 32 bits. A polynomial byte hash ({@code 31 * h + b}) gives whole families of distinct 8-byte keys the
         * same value (keys 7,935 apart collide), and colliding keys turn the groups' hash map bins into
         * trees it must walk; the mixed hash is a bijection on one 8-byte block, so such keys stay apart.
         * The seed is fixed so that iteration order, and with it the order of a watermark step's netted
         * changes, is the same in every run.
         */
        static int hash(final byte[] data, final int length)
        {
            long h = KeyHash.DEFAULT_SEED ^ length;
            int i = 0;
            for (; i + Long.BYTES <= length; i += Long.BYTES)
            {
                // two multiplications a block (murmur's shape), one full finalisation at the end
                h = Long.rotateLeft(h ^ (long)LITTLE_ENDIAN_LONGS.get(data, i) * 0x87C37B91114253D5L, 31) * 0x4CF5AD432745937FL;
            }
            long tail = 0;
            for (int shift = 0; i < length; i++, shift += Byte.SIZE)
            {
                tail |= (data[i] & 0xFFL) << shift;
            }
            final long z = KeyHash.mix(h ^ tail);
            return (int)(z ^ (z >>> 32));
        }

        @Override
        public int hashCode()
        {
            return hash;
        }

        @Override
        public boolean equals(final Object o)
        {
            if (!(o instanceof Bytes))
            {
                return false;
            }
            final Bytes b = (Bytes)o;
            return length == b.length && hash == b.hash && Arrays.equals(data, 0, length, b.data, 0, b.length);
        }
    }

    /** One key's rows, per input. */
    private static final class Group
    {
        final Bytes key;
        final Entry[][] rows;
        final int[] sizes;
        int total;
        /** The expiry pass that last visited it (to net each group once per watermark step). */
        long expiryPass;

        Group(final Bytes key, final int inputs)
        {
            this.key = key;
            this.rows = new Entry[inputs][];
            for (int i = 0; i < inputs; i++)
            {
                rows[i] = new Entry[2];
            }
            this.sizes = new int[inputs];
        }

        void add(final Entry e)
        {
            final int i = e.input;
            if (sizes[i] == rows[i].length)
            {
                rows[i] = Arrays.copyOf(rows[i], rows[i].length * 2);
            }
            rows[i][sizes[i]++] = e;
            total++;
        }

        /** @return the first stored copy of an equal row of input {@code input}, or null. */
        Entry find(final int input, final byte[] bytes, final int length, final int hash)
        {
            final Entry[] list = rows[input];
            for (int k = 0; k < sizes[input]; k++)
            {
                final Entry e = list[k];
                if (e.hash == hash && e.length == length && Arrays.equals(e.bytes, 0, length, bytes, 0, length))
                {
                    return e;
                }
            }
            return null;
        }

        void remove(final Entry e)
        {
            final int i = e.input;
            final Entry[] list = rows[i];
            for (int k = 0; k < sizes[i]; k++)
            {
                if (list[k] == e)
                {
                    // Shifted, not swapped: the copies stay in arrival order, so a retraction takes the oldest copy.
                    System.arraycopy(list, k + 1, list, k, sizes[i] - k - 1);
                    list[--sizes[i]] = null;
                    total--;
                    return;
                }
            }
        }
    }

    /** A combination by content, for netting a watermark step's changes. */
    private static final class Combination
    {
        final Entry[] rows;
        final int hash;

        Combination(final Entry[] rows)
        {
            this.rows = rows;
            int h = 1;
            for (final Entry e : rows)
            {
                h = 31 * h + (e == null ? 0 : e.hash);
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
            final Entry[] other = ((Combination)o).rows;
            for (int i = 0; i < rows.length; i++)
            {
                if (rows[i] == null ? other[i] != null : !rows[i].sameRow(other[i]))
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

    private final Map<Bytes, Group> groups = new HashMap<>();
    /** Per input: rows that can never match, by content. */
    private final List<Map<Bytes, ArrayList<Entry>>> unmatchable = new ArrayList<>();
    private final PriorityQueue<Entry> expiries = new PriorityQueue<>((a, b) -> Long.compare(a.deadline, b.deadline));
    private final long[] watermarks;
    private final boolean[] idle;
    private long joinWatermark = Long.MIN_VALUE;
    private final long[] liveRows;
    private long storedBytes;

    private final UnsafeBuffer key;
    private final Bytes probe = new Bytes(64);
    private final Bytes rowProbe = new Bytes(256);
    /** The combination being enumerated: per input the stored entry, null for padded. */
    private final Entry[] combo;
    private final UnsafeBuffer[] buffers;
    private final RowView[] views;
    /** What the handler gets: views[i] or null. */
    private final RowView[] out;
    /** The group being enumerated (null: a row that matches nothing, only padding follows). */
    private Group current;
    /** The changed row and its input, for the prefix callback. */
    private Entry changed;
    private boolean inserting;
    private long step;
    /** Watermark steps: combinations are netted here instead of being emitted. */
    private boolean collecting;
    /**
     * Insertion-ordered, so a watermark step emits its netted changes in the order the walks met them (the
     * retractions' walk runs first), whatever the rows' hashes are.
     */
    private final Map<Combination, int[]> net = new LinkedHashMap<>();
    private final ArrayList<Entry> expiring = new ArrayList<>();
    /** Removed entries for reuse; at most {@link #MAX_POOLED}. */
    private Entry[] pool = new Entry[64];
    private int poolSize;
    private static final int MAX_POOLED = 1 << 16;
    private final ArrayList<Group> expiringGroups = new ArrayList<>();
    private long expiryPass;

    /**
     * @param spec        a {@link JoinKind#MULTI} spec.
     * @param config      the sizing: {@link StateConfig#maxKeyLength()} and {@link StateConfig#maxLiveRows()}.
     * @param results     receives the output ({@link ResultHandler#onMultiResult}).
     * @param deadLetters receives the rows that cannot be processed.
     * @throws UnsupportedOperationException when the configuration names a state directory.
     */
    public MultiJoin(final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        JoinOperators.requireKind(spec, JoinKind.MULTI);
        this.stateDirectory = config.stateDirectory();
        this.fingerprint = spec.fingerprint();
        final MultiJoinSpec multi = spec.multi();
        this.n = multi.inputs();
        this.results = results;
        this.deadLetters = deadLetters;
        this.maxLiveRows = config.maxLiveRows();
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
            unmatchable.add(new HashMap<>());
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
        this.combo = new Entry[n];
        this.buffers = new UnsafeBuffer[n];
        this.views = new RowView[n];
        this.out = new RowView[n];
        for (int i = 0; i < n; i++)
        {
            buffers[i] = new UnsafeBuffer(new byte[0]);
            views[i] = new RowView();
        }
        if (stateDirectory != null)
        {
            load();
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
            for (int i = 0; i < n; i++)
            {
                for (final ArrayList<Entry> copies : unmatchable.get(i).values())
                {
                    for (final Entry e : copies)
                    {
                        writeEntry(out, e);
                    }
                }
            }
            for (final Group group : groups.values())
            {
                for (int i = 0; i < n; i++)
                {
                    for (int k = 0; k < group.sizes[i]; k++)
                    {
                        writeEntry(out, group.rows[i][k]);
                    }
                }
            }
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

    private static void writeEntry(final java.io.DataOutputStream out, final Entry e) throws java.io.IOException
    {
        out.writeByte(e.input);
        out.writeLong(e.ts);
        out.writeInt(e.length);
        out.write(e.bytes, 0, e.length);
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
            row.wrap(buffer, in.position(), length);
            in.position(in.position() + length);
            final int keyLength = keys[input].extract(row, key, 0, key.capacity());
            final boolean matchable = keyLength >= 0 && filters[input].test(row);
            final long deadline = ttl[input] > 0 ? saturatedAdd(ts, ttl[input]) : Long.MAX_VALUE;
            if (!matchable)
            {
                final Entry entry = obtain(row, ts, input, null, deadline);
                rowProbe.set(row.buffer(), row.offset(), row.length());
                ArrayList<Entry> copies = unmatchable.get(input).get(rowProbe);
                if (copies == null)
                {
                    copies = new ArrayList<>(1);
                    unmatchable.get(input).put(new Bytes(rowProbe.copy()), copies);
                }
                copies.add(entry);
                stored(entry);
                continue;
            }
            probe.set(key, 0, keyLength);
            Group group = groups.get(probe);
            if (group == null)
            {
                group = new Group(new Bytes(probe.copy()), n);
                groups.put(group.key, group);
            }
            final Entry entry = obtain(row, ts, input, group, deadline);
            group.add(entry);
            stored(entry);
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
        if (input < 0 || input >= n || kind == null || row == null)
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
        if (!matchable)
        {
            final Entry entry = obtain(row, ts, input, null, deadline);
            rowProbe.set(row.buffer(), row.offset(), row.length());
            ArrayList<Entry> copies = unmatchable.get(input).get(rowProbe);
            if (copies == null)
            {
                copies = new ArrayList<>(1);
                unmatchable.get(input).put(new Bytes(rowProbe.copy()), copies);
            }
            copies.add(entry);
            stored(entry);
            if (input == 0)
            {
                lone(entry, +1);
            }
            return;
        }
        probe.set(key, 0, keyLength);
        Group group = groups.get(probe);
        if (group == null)
        {
            group = new Group(new Bytes(probe.copy()), n);
            groups.put(group.key, group);
        }
        final Entry entry = obtain(row, ts, input, group, deadline);
        current = group;
        if (input == 0)
        {
            group.add(entry);
            set(0, entry);
            walk(1, n, +1);
        }
        else
        {
            changed = entry;
            inserting = true;
            walk(0, input, 0);
            group.add(entry);
        }
        stored(entry);
    }

    private void retract(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final boolean matchable,
        final int keyLength)
    {
        if (!matchable)
        {
            rowProbe.set(row.buffer(), row.offset(), row.length());
            final ArrayList<Entry> copies = unmatchable.get(input).get(rowProbe);
            if (copies == null)
            {
                deadLetter(input, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
                return;
            }
            final Entry entry = copies.remove(0); // the oldest copy, as for a matchable row
            if (copies.isEmpty())
            {
                unmatchable.get(input).remove(rowProbe);
            }
            removed(entry);
            if (input == 0)
            {
                lone(entry, -1);
            }
            release(entry);
            return;
        }
        probe.set(key, 0, keyLength);
        final Group group = groups.get(probe);
        rowProbe.set(row.buffer(), row.offset(), row.length());
        final Entry entry = group == null ? null : group.find(input, rowProbe.data, rowProbe.length, rowProbe.hash);
        if (entry == null)
        {
            deadLetter(input, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
            return;
        }
        group.remove(entry);
        removed(entry);
        current = group;
        if (input == 0)
        {
            set(0, entry);
            walk(1, n, -1);
        }
        else
        {
            changed = entry;
            inserting = false;
            walk(0, input, 0);
        }
        if (group.total == 0)
        {
            groups.remove(group.key);
        }
        release(entry);
    }

    /** @return a pooled entry holding a copy of the row. */
    private Entry obtain(final RowView row, final long ts, final int input, final Group group, final long deadline)
    {
        final Entry entry;
        if (poolSize > 0)
        {
            entry = pool[--poolSize];
            pool[poolSize] = null;
        }
        else
        {
            entry = new Entry();
        }
        entry.fill(row, ts, input, group, deadline);
        return entry;
    }

    /** Returns a removed entry to the pool, unless the TTL queue still holds it (it is released when polled). */
    private void release(final Entry entry)
    {
        if (entry.queued)
        {
            return;
        }
        entry.group = null;
        if (poolSize == pool.length)
        {
            if (pool.length >= MAX_POOLED)
            {
                return;
            }
            pool = Arrays.copyOf(pool, pool.length * 2);
        }
        pool[poolSize++] = entry;
    }

    /** A first-input row that matches nothing: padded through the chain when every later join is left. */
    private void lone(final Entry entry, final int sign)
    {
        current = null;
        set(0, entry);
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
        if (current != null)
        {
            final Entry[] list = current.rows[level];
            final int size = current.sizes[level];
            for (int k = 0; k < size; k++)
            {
                set(level, list[k]);
                if (on(level))
                {
                    matched++;
                    walk(level + 1, stop, sign);
                }
            }
        }
        if (matched == 0 && left[level])
        {
            set(level, null);
            walk(level + 1, stop, sign);
        }
    }

    /** The prefix {@code combo[0..c-1]} is fixed: the changed row's difference for it. */
    private void atChanged()
    {
        final int c = changed.input;
        set(c, changed);
        if (!on(c))
        {
            return;
        }
        // The other rows of the input that match this prefix (the changed row is not in the group now).
        int others = 0;
        final Entry[] list = current.rows[c];
        final int size = current.sizes[c];
        for (int k = 0; k < size && others == 0; k++)
        {
            set(c, list[k]);
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
            set(c, null);
            walk(c + 1, n, -sign);
        }
    }

    private void set(final int level, final Entry entry)
    {
        combo[level] = entry;
        if (entry == null)
        {
            out[level] = null;
        }
        else
        {
            buffers[level].wrap(entry.bytes, 0, entry.length);
            views[level].wrap(buffers[level], 0, entry.length);
            out[level] = views[level];
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
            final int[] count = net.computeIfAbsent(new Combination(combo.clone()), c -> new int[1]);
            count[0] += sign;
            return;
        }
        long ts = Long.MIN_VALUE;
        for (int i = 0; i < n; i++)
        {
            if (combo[i] != null && combo[i].ts > ts)
            {
                ts = combo[i].ts;
            }
        }
        counters.rowsOut++;
        results.onMultiResult(sign > 0 ? ChangeKind.INSERT : ChangeKind.DELETE, out, ts, step);
    }

    private void stored(final Entry entry)
    {
        liveRows[entry.input]++;
        storedBytes += entry.length;
        if (ttl[entry.input] > 0)
        {
            entry.queued = true;
            expiries.add(entry);
        }
    }

    private void removed(final Entry entry)
    {
        entry.removed = true;
        liveRows[entry.input]--;
        storedBytes -= entry.length;
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
        if (!anyTtl)
        {
            return;
        }
        expiring.clear();
        while (!expiries.isEmpty() && expiries.peek().deadline < watermark)
        {
            final Entry e = expiries.poll();
            e.queued = false;
            if (e.removed)
            {
                release(e);
            }
            else
            {
                expiring.add(e);
            }
        }
        if (expiring.isEmpty())
        {
            return;
        }
        this.step = step;
        final long pass = ++expiryPass;
        expiringGroups.clear();
        for (final Entry e : expiring)
        {
            counters.expiredRows++;
            if (e.group == null)
            {
                rowProbe.set(new UnsafeBuffer(e.bytes, 0, e.length), 0, e.length);
                final ArrayList<Entry> copies = unmatchable.get(e.input).get(rowProbe);
                copies.remove(e);
                if (copies.isEmpty())
                {
                    unmatchable.get(e.input).remove(rowProbe);
                }
                removed(e);
                if (e.input == 0)
                {
                    lone(e, -1);
                }
            }
            else if (e.group.expiryPass != pass)
            {
                e.group.expiryPass = pass;
                expiringGroups.add(e.group);
            }
        }
        for (final Group group : expiringGroups)
        {
            net.clear();
            collecting = true;
            current = group;
            walk(0, n, -1);
            for (final Entry e : expiring)
            {
                if (e.group == group)
                {
                    group.remove(e);
                    removed(e);
                }
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
                final Entry[] rows = change.getKey().rows;
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
            if (group.total == 0)
            {
                groups.remove(group.key);
            }
        }
        for (final Entry e : expiring)
        {
            release(e);
        }
        expiring.clear();
        expiringGroups.clear();
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
        counters.stateBytes = storedBytes;
        counters.usedStateBytes = storedBytes;
        counters.liveStateBytes = storedBytes;
        counters.pendingTimers = expiries.size();
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
        return groups.size();
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
        released = true;
        groups.clear();
        for (final Map<Bytes, ArrayList<Entry>> map : unmatchable)
        {
            map.clear();
        }
        expiries.clear();
    }

    private static long saturatedAdd(final long a, final long b)
    {
        final long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
