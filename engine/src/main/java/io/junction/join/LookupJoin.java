package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.WatermarkTracker;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

import static io.junction.join.JoinPredicate.UNMATCHABLE;

/**
 * The processing-time lookup join (docs/SEMANTICS.md section 7), as Flink SQL's lookup join
 * ({@code FOR SYSTEM_TIME AS OF l.proc_time}) over a table kept in state: the right input is the table's
 * changelog keyed by its primary key (the join key), and each left row joins its key's current version, the
 * latest right row received, at its own step.
 * <pre>
 * right row r of key K:  +I / +U -&gt; K's current version (replacing the one before); -D -&gt; K has none;
 *                        -U, null key -&gt; ignored. Emits nothing.
 * left row l at step s:  op other than +I -&gt; dead-letter NOT_APPEND_ONLY;
 *                        +(l, current version of K) when the pair passes the filters and the condition,
 *                        else +(l, null) for left, nothing for inner; at s, with l's ts.
 * </pre>
 * Time plays no part: watermarks and the end of input emit nothing and nothing is late. State holds one
 * version per key.
 *
 * <p>With a {@link StateConfig#stateDirectory()} the versions live in its files, and the watermarks and
 * the counters are carried across a close and reopen.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class LookupJoin implements JoinOperator
{
    private final JoinCounters counters = new JoinCounters();
    private final WatermarkTracker watermarks = new WatermarkTracker();
    final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final RowView version = new RowView();
    private final UnsafeBuffer versionBuffer = new UnsafeBuffer(0, 0);
    private final boolean padLeft;

    /**
     * Creates the operator and allocates its off-heap state.
     *
     * @param spec        a lookup join, inner or left.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @throws IllegalArgumentException when the spec is of another join kind.
     */
    public LookupJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        JoinOperators.requireKind(spec, JoinKind.LOOKUP);
        final CompiledJoin compiled = CompiledJoin.of(spec);
        this.emit = new Emitter(spec.type(), results, deadLetters, counters);
        this.padLeft = spec.type() == JoinType.LEFT;
        this.state = new PartitionState(config, spec, "lookup", BucketDescriptor.LENGTH, false, counters,
            PartitionState.NO_ROOM, 0);
        this.predicate = new JoinPredicate(compiled, state.config, state.store, counters, results);
        try
        {
            state.restore(heapPart);
        }
        catch (final RuntimeException | Error e)
        {
            state.close();
            throw e;
        }
    }

    /** The operator's heap-held state in durable mode (the table's versions are all in the state's files). */
    private final PartitionState.HeapPart heapPart = new PartitionState.HeapPart()
    {
        @Override
        public void save(final ByteBuffer out)
        {
            counters.save(out);
            watermarks.save(out);
        }

        @Override
        public void load(final ByteBuffer in)
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
    public void persist() throws IOException
    {
        state.persist(heapPart);
    }

    @Override
    public void prefetch(final long keyHash)
    {
        state.prefetch(keyHash);
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        state.beginMutation();
        counters.rowsIn++;
        watermarks.markActive(side);
        if (side == Side.LEFT)
        {
            onLeft(kind, row, ts, step);
        }
        else
        {
            onRight(kind, row, ts, step);
        }
    }

    private void onLeft(final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind != ChangeKind.INSERT)
        {
            emit.deadLetter(Side.LEFT, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        final int keyLength = predicate.extractKey(Side.LEFT, row);
        final DeadLetterReason refused = JoinPredicate.refusal(keyLength);
        if (refused != null)
        {
            emit.deadLetter(Side.LEFT, kind, row, ts, step, refused);
            return;
        }
        if (keyLength != UNMATCHABLE)
        {
            final long bucket = state.index.find(predicate.keyHash(keyLength));
            if (bucket != 0)
            {
                state.countKey(bucket, Side.LEFT, predicate.key, keyLength, 0);
                final long current = state.store.findKey(bucket, Side.RIGHT, predicate.key, 0, keyLength);
                if (current != 0 && RowDescriptor.count(current) == 0)
                {
                    RowStore.wrap(current, versionBuffer, version);
                    if (predicate.conditionHolds(row, version))
                    {
                        emit.pair(ChangeKind.INSERT, Side.LEFT, row, version, ts, step);
                        return;
                    }
                }
            }
        }
        if (padLeft)
        {
            emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
        }
    }

    private void onRight(final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind == ChangeKind.UPDATE_BEFORE)
        {
            return;
        }
        final boolean delete = kind == ChangeKind.DELETE;
        // A version that fails the right filter still replaces the one before it; it matches nothing
        // (count 1). The filter is read once, here; a deletion has none to pass.
        int filtered = 0;
        int keyLength = delete ? predicate.extractKeyIgnoringFilter(Side.RIGHT, row, predicate.key.capacity())
            : predicate.extractKey(Side.RIGHT, row);
        if (keyLength == UNMATCHABLE && !delete)
        {
            keyLength = predicate.extractKeyIgnoringFilter(Side.RIGHT, row, predicate.key.capacity());
            filtered = 1;
        }
        final DeadLetterReason refused = JoinPredicate.refusal(keyLength);
        if (refused != null)
        {
            emit.deadLetter(Side.RIGHT, kind, row, ts, step, refused);
            return;
        }
        if (keyLength == UNMATCHABLE)
        {
            return;
        }
        final long hash = predicate.keyHash(keyLength);
        final long existing = state.index.find(hash);
        final long current = existing == 0 ? 0 : state.store.findKey(existing, Side.RIGHT, predicate.key, 0, keyLength);
        if (delete)
        {
            if (current != 0)
            {
                state.store.remove(current);
                state.releaseIfEmpty(existing);
            }
            return;
        }
        final long reserved = state.reserve(keyLength, row);
        if (reserved == 0)
        {
            emit.deadLetter(Side.RIGHT, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        final long bucket = existing != 0 ? existing : state.index.findOrCreate(hash);
        if (bucket == KeyIndex.FULL)
        {
            state.store.release(reserved, keyLength, row.length());
            emit.deadLetter(Side.RIGHT, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        if (!state.reserveSlot(bucket, Side.RIGHT, reserved, keyLength, row))
        {
            state.releaseIfEmpty(bucket);
            emit.deadLetter(Side.RIGHT, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        state.countKey(bucket, Side.RIGHT, predicate.key, keyLength, 1);
        // Appended before the old version is removed: a removal may shrink the group, an append after it could need memory.
        final long record = state.store.append(reserved, bucket, Side.RIGHT, predicate.key, 0, keyLength, row, ts);
        RowDescriptor.count(record, filtered);
        if (current != 0)
        {
            state.store.remove(current);
        }
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        state.beginMutation();
        watermarks.advance(side, watermark);
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        state.beginMutation();
        watermarks.advanceBoth(watermark);
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        state.beginMutation();
        watermarks.markIdle(side);
    }

    @Override
    public void onEndOfInput(final long step)
    {
        state.beginMutation();
        watermarks.advanceBoth(Long.MAX_VALUE);
    }

    @Override
    public OperatorCounters counters()
    {
        state.refreshCounters();
        counters.watermark = watermarks.current();
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

    /** Frees the state without persisting it: a restore is about to replace it. */
    @Override
    public void discard()
    {
        state.close();
    }
}
