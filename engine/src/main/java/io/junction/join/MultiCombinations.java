package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.FieldCompare;
import io.junction.internal.row.Fields;
import io.junction.internal.state.MultiBucketDescriptor;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The multi-way join's enumeration of combinations (docs/SEMANTICS.md "Multi-way joins"): the
 * left-deep chain {@code ((i0 ⋈ i1) ⟕ i2) ...} over one key's bucket, depth first over each input's group in
 * arrival order, each input's ON clause (its condition terms) tested against the prefix, a left input padded
 * when no row of it matches the prefix. It emits what a change of one row changes, or nets a watermark step's
 * combinations ({@link MultiNetting}) and emits their difference.
 *
 * <p>A change of row {@code r} of input {@code c}: for each prefix over inputs {@code 0..c-1} for which
 * {@code r} meets input {@code c}'s ON clause, the combinations {@code p + r + completion} appear (insert)
 * or disappear (retraction), and when {@code c} is a left join and no other row of {@code c} matches the
 * prefix, the padded combinations {@code p + null + completion} disappear (insert) or appear (retraction).
 * The completions through inputs {@code c+1..} depend on the prefix only, so this is exactly the difference
 * of the chain's results, and the two sets differ at input {@code c} (a row against null): no step emits
 * both signs of one combination. The cost is bounded by the key's rows.
 *
 * <p>Output: {@link ResultHandler#onMultiResult} with one view per input (null for a padded one),
 * {@link ChangeKind#INSERT} or {@link ChangeKind#DELETE}, at the latest event time of the combination's rows.
 * Nothing is allocated per call.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class MultiCombinations
{
    private final int n;
    private final boolean[] left;
    /** Condition terms per level (the later input of each term): operand inputs, fields and ops. */
    private final int[][] condLeftInput;
    private final int[][] condLeftField;
    private final int[][] condRightInput;
    private final int[][] condRightField;
    private final CompareOp[][] condOp;
    private final MultiRowStore store;
    private final ResultHandler results;
    private final JoinCounters counters;
    private final MultiNetting net;
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
    /** Watermark steps: combinations are netted instead of being emitted. */
    private boolean collecting;

    /**
     * @param multi    the join's inputs and conditions (validated by its builder).
     * @param store    the rows' store.
     * @param results  receives the output.
     * @param counters counts the output rows.
     */
    MultiCombinations(final MultiJoinSpec multi, final MultiRowStore store, final ResultHandler results,
        final JoinCounters counters)
    {
        this.n = multi.inputs();
        this.store = store;
        this.results = results;
        this.counters = counters;
        this.left = new boolean[n];
        for (int i = 0; i < n; i++)
        {
            left[i] = multi.type(i) == JoinType.LEFT;
        }
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
        this.net = new MultiNetting(n);
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

    /** @param step the step the coming output belongs to. */
    void step(final long step)
    {
        this.step = step;
    }

    /**
     * Emits, with {@code sign}, every combination of a first-input row: the row fixed, the later inputs
     * enumerated over {@code bucket} (0 for a row that matches nothing: only padding follows, which emits
     * only when every later join is left).
     *
     * @param bucket the row's key bucket, or 0.
     * @param record the first input's row.
     * @param sign   +1 when it arrives, -1 when it leaves.
     */
    void ofFirst(final long bucket, final long record, final int sign)
    {
        current = bucket;
        set(0, record);
        walk(1, n, sign);
        current = 0;
    }

    /**
     * Emits the difference a later input's row makes to its key's combinations: its own combinations and,
     * for a left input, the padded ones it replaces (on insert) or brings back (on retraction). The row is not
     * in its group while this runs.
     *
     * @param bucket    the row's key bucket.
     * @param input     the row's input, above 0.
     * @param record    the row.
     * @param inserting true for an insert, false for a retraction.
     */
    void ofLater(final long bucket, final int input, final long record, final boolean inserting)
    {
        current = bucket;
        changed = record;
        changedInput = input;
        this.inserting = inserting;
        walk(0, input, 0);
        current = 0;
    }

    /** Starts netting a watermark step's combinations of one key: {@link #collect} then {@link #emitNetted}. */
    void startNetting()
    {
        net.clear();
        collecting = true;
    }

    /**
     * Nets, with {@code sign}, every combination of a key's bucket as it is now.
     *
     * @param bucket the key's bucket.
     * @param sign   -1 for the result before the step's change, +1 for the one after it.
     */
    void collect(final long bucket, final int sign)
    {
        current = bucket;
        walk(0, n, sign);
        current = 0;
    }

    /** Emits the netted difference, in the order the walks met the combinations, and stops netting. */
    void emitNetted()
    {
        collecting = false;
        final int entries = net.size();
        for (int e = 0; e < entries; e++)
        {
            final int count = net.count(e);
            if (count == 0)
            {
                continue;
            }
            for (int i = 0; i < n; i++)
            {
                set(i, net.record(e, i));
            }
            for (int k = 0; k < Math.abs(count); k++)
            {
                emit(count);
            }
        }
        net.clear();
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
            out[level] = MultiWayJoin.wrap(record, buffers[level], views[level]);
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
            net.add(combo, sign);
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
}
