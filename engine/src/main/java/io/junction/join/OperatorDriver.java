package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.time.WatermarkTracker;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;
import org.agrona.ErrorHandler;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The one operator of the join kinds that are only their {@link JoinAlgorithm}: it owns the counters, the
 * watermark tracker, the partition state, the emitter, the heap part and the whole lifecycle, and calls the
 * algorithm for what the kind matches, stores, emits and expires (as Agrona's {@code AgentRunner} runs an
 * {@code Agent} and the Disruptor's {@code BatchEventProcessor} an {@code EventHandler}). Runs the interval,
 * temporal, lookup, ASOF and window kinds ({@link IntervalJoin}, {@link TemporalJoin}, {@link LookupJoin},
 * {@link AsofJoin}, {@link TimeWindowJoin} and {@link SessionWindowJoin}); the regular and multi-way kinds are
 * operators of their own still.
 * <pre>
 * new:          counters, watermarks, emitter; state = PartitionState(spec, layout)  (fresh, or the files reopened)
 *               predicate (error handler handed in); algorithm = factory(parts)
 *               state.restore: counters, watermarks, algorithm.load          (durable reopen only)
 * onRow:        state.beginMutation; rowsIn++; watermarks.markActive(side); algorithm.onRow
 * onWatermark:  state.beginMutation; if the join watermark moved: algorithm.onWatermark(join watermark, step)
 *   (one side, both sides, or onIdle: watermarks.markIdle)
 * onEndOfInput: state.beginMutation; both watermarks to +infinity; algorithm.onEndOfInput(step)
 * counters:     the state's sizes, + algorithm.pendingTimers, the join watermark
 * persist:      state.persist(counters, watermarks, algorithm.save)          (durable only)
 * close:        persist when durable, then free the state; discard: free it without persisting
 * </pre>
 * The heap part it persists is the one each of these kinds wrote as an operator of its own (counters,
 * watermarks, then the algorithm's fields), and the state's layout name is the kind's as before, so their
 * durable state directories reopen unchanged.
 *
 * <p>Per event the driver adds one call to the algorithm and allocates nothing.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class OperatorDriver implements JoinOperator
{
    private final JoinCounters counters = new JoinCounters();
    private final WatermarkTracker watermarks = new WatermarkTracker();
    /** The stored rows: package-private for the tests that read the state's sizes. */
    final PartitionState state;
    private final JoinAlgorithm algorithm;
    /** Whether {@link #prefetch} reads ahead: the kind's buckets are keyed by the routing hash. */
    private final boolean readAhead;

    /**
     * Creates the operator, allocates its off-heap state (or reopens it) and builds the kind's algorithm over it.
     *
     * @param spec        the join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @param errors      receives a user predicate's exception; null to only count it.
     * @param layout      the kind's name in the durable layout ({@code "interval"}, {@code "temporal"}, ...): a state of another is refused.
     * @param timedRows   whether stored records carry timer links ({@link PartitionState}).
     * @param factory     builds the kind's algorithm over the driver's parts.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
     */
    OperatorDriver(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errors, final String layout, final boolean timedRows, final JoinAlgorithm.Factory factory)
    {
        this(spec, config, results, deadLetters, errors, layout, BucketDescriptor.LENGTH, timedRows, true, factory);
    }

    /**
     * As the constructor above, for a kind whose buckets are longer than the standard one or whose buckets are
     * not keyed by the routing hash (the window kinds: {@code WindowBucketDescriptor}).
     *
     * @param spec         the join.
     * @param config       the sizing of the off-heap state.
     * @param results      receives the output.
     * @param deadLetters  receives the rows that cannot be processed.
     * @param errors       receives a user predicate's exception; null to only count it.
     * @param layout       the kind's name in the durable layout: a state of another is refused.
     * @param bucketLength the bytes of the kind's key bucket, at least {@link BucketDescriptor#LENGTH}.
     * @param timedRows    whether stored records carry timer links ({@link PartitionState}).
     * @param readAhead    whether {@link #prefetch} reads the key's bucket ahead (false where buckets are not
     *                     keyed by the routing hash).
     * @param factory      builds the kind's algorithm over the driver's parts.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
     */
    OperatorDriver(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errors, final String layout, final int bucketLength, final boolean timedRows,
        final boolean readAhead, final JoinAlgorithm.Factory factory)
    {
        this.readAhead = readAhead;
        final CompiledJoin compiled = CompiledJoin.of(spec);
        final Emitter emit = new Emitter(spec.type(), results, deadLetters, counters);
        this.state = new PartitionState(config, spec, layout, bucketLength, timedRows, counters,
            PartitionState.NO_ROOM, 0);
        try
        {
            final JoinPredicate predicate = new JoinPredicate(compiled, state.config, state.store, counters, errors);
            this.algorithm = factory.create(
                new OperatorParts(spec, config, compiled, state, predicate, emit, counters, watermarks));
            state.restore(heapPart);
        }
        catch (final RuntimeException | Error e)
        {
            state.close();
            throw e;
        }
    }

    /** The heap-held state in durable mode: the counters, the watermarks, then the algorithm's own. */
    private final PartitionState.HeapPart heapPart = new PartitionState.HeapPart()
    {
        @Override
        public void save(final ByteBuffer out)
        {
            counters.save(out);
            watermarks.save(out);
            algorithm.save(out);
        }

        @Override
        public void load(final ByteBuffer in)
        {
            counters.load(in);
            watermarks.load(in);
            algorithm.load(in);
        }
    };

    /** @return the kind's algorithm (for tests that read its own measures). */
    JoinAlgorithm algorithm()
    {
        return algorithm;
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        state.beginMutation();
        counters.rowsIn++;
        watermarks.markActive(side);
        algorithm.onRow(side, kind, row, ts, step);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advance(side, watermark))
        {
            algorithm.onWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advanceBoth(watermark))
        {
            algorithm.onWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        state.beginMutation();
        if (watermarks.markIdle(side))
        {
            algorithm.onWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onEndOfInput(final long step)
    {
        state.beginMutation();
        watermarks.advanceBoth(Long.MAX_VALUE);
        algorithm.onEndOfInput(step);
    }

    @Override
    public void prefetch(final long keyHash)
    {
        if (readAhead)
        {
            state.prefetch(keyHash);
        }
    }

    @Override
    public OperatorCounters counters()
    {
        state.refreshCounters();
        counters.pendingTimers += algorithm.pendingTimers();
        counters.watermark = watermarks.current();
        return counters;
    }

    @Override
    public List<HotKey> hotKeys()
    {
        return state.hotKeys();
    }

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
