package io.junction.join;

import io.junction.internal.cut.StagedCut;
import io.junction.internal.state.RowStore;
import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.memory.HeapPart;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.time.WatermarkTracker;
import io.junction.metrics.HotKey;
import io.junction.metrics.KeyState;
import io.junction.metrics.OperatorCounters;
import io.junction.metrics.RowExplanation;
import org.agrona.ErrorHandler;

import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * The one operator of the join kinds that are only their {@link JoinAlgorithm}: it owns the counters, the
 * watermark tracker, the partition state, the emitter, the heap part and the whole lifecycle, and calls the
 * algorithm for what the kind matches, stores, emits and expires (as Agrona's {@code AgentRunner} runs an
 * {@code Agent} and the Disruptor's {@code BatchEventProcessor} an {@code EventHandler}). Runs the interval,
 * temporal, lookup, ASOF, regular and window kinds ({@link IntervalJoin}, {@link TemporalJoin}, {@link LookupJoin},
 * {@link AsofJoin}, {@link RegularJoin}, {@link TimeWindowJoin}, {@link SessionWindowJoin}) on their two sides, and
 * the multi-way kind ({@link MultiWayJoin}, behind the {@link MultiJoin} operator) on N inputs through its
 * input-indexed path: every kind.
 * <pre>
 * new:          counters, watermarks, emitter (over an UpsertFold with upsert output)
 *               state = PartitionState(spec, layout), room made by algorithm.makeRoom  (fresh, or the files reopened)
 *               predicate (error handler handed in); algorithm = factory(parts)
 *               state.restore: counters, watermarks, algorithm.load          (durable reopen only)
 * onRow:        state.beginMutation; [pending: one slice]; rowsIn++; watermarks.markActive(side); algorithm.onRow
 *               (with a key hash, the runtime's: the predicate hands it out as the row's; without, it hashes the key)
 * onWatermark:  state.beginMutation; [pending: one slice]; if the join watermark moved: queue (join watermark, step),
 *               then one slice (not sliced: slices until nothing is pending)
 *   (one side, both sides, or onIdle: watermarks.markIdle)
 * slice:        algorithm.expireSlice(head's watermark, head's step, budget); true: the head leaves the queue;
 *               timed: counters.watermarkSlices++, counters.maxWatermarkSliceNanos
 * onEndOfInput: finish the queue; state.beginMutation; both watermarks to +infinity; algorithm.onEndOfInput(step)
 *               (a kind whose end of input closes nothing, the regular join: only algorithm.onEndOfInput)
 * counters:     the state's sizes, + algorithm.pendingTimers, the join watermark
 * persist:      finish the queue; state.persist(counters, watermarks, algorithm.save)   (durable only)
 * close:        finish the queue; persist when durable, then free the state; discard: free it without persisting
 * N inputs (a driver built with inputs &gt; 0: the multi-way join; the two-sided methods above stay as they are):
 *   inputs():              a {@link DriverInputs} over the state, counters, the N inputs' watermarks
 *                          ({@link InputWatermarks}) and the algorithm: onInputRowOf(i), onInputWatermarkOf(i),
 *                          onInputsWatermark, onInputIdleOf(i) (not sliced: done whole)
 *   heap part:             counters, watermarks, the N inputs' watermarks, the algorithm's fields
 *
 * pending watermark work (sliceWatermarkWork(budget), the runtime's partition thread):
 *   queue   [ (w1, s1) (w2, s2) ... ]   FIFO, QUEUE entries preallocated; a watermark that finds it full
 *            head ^                      finishes the head first. Each entry keeps its own step, so what
 *                                        w1 closes is emitted at s1 even after w2 has arrived.
 *   rows in between see the join's current watermark (the last queued): late and closed-on-arrival rows
 *   are decided as without slicing; what a due row, still stored, could change is each kind's to rule out
 *   (JoinAlgorithm.expireSlice).
 * </pre>
 * The heap part it persists is the driver's counters and watermarks, then the algorithm's fields; the
 * state's layout name is the kind's, given to the driver at construction.
 *
 * <p>Per event the driver adds one call to the algorithm and allocates nothing; with nothing pending, one field
 * test more.
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
    /** Whether the end of input moves both watermarks to +infinity before the algorithm's onEndOfInput. */
    private final boolean endMovesWatermarks;
    /** The watermarks of a join of N inputs; null for a two-sided kind. */
    private final InputWatermarks inputWatermarks;
    /** The input-indexed entries of a join of N inputs, over {@link #inputWatermarks}; null for a two-sided kind. */
    private final DriverInputs inputs;

    /** Watermarks whose work is pending at most (a power of two); one more finishes the oldest first. */
    static final int QUEUE = WatermarkWorkQueue.CAPACITY;
    /** The watermarks whose work (expiry, padding, firing) is pending, done in slices or whole. */
    private final WatermarkWorkQueue work;
    /** The heap-held state in durable mode: the counters, the watermarks, then the algorithm's own. */
    private final HeapPart heapPart;
    /** Whether {@link #prefetch} reads ahead: the kind's buckets are keyed by the routing hash. */
    private final boolean readAhead;
    /** The row in hand's key, its pre-filter and its join-key hash (supplied with the row or computed). */
    private final JoinPredicate predicate;
    /**
     * Whether a key hash given with a row ({@link #onRow(Side, ChangeKind, RowView, long, long, long)}) is the
     * state's: the configuration's seed is fixed and the state was built (or reopened) with it.
     */
    private final boolean suppliedHashes;
    /** The join, for {@link #inspect}'s rows' schemas. */
    private final JoinSpec spec;
    /** Made by the first {@link #inspect}: nothing of it exists on the hot path. */
    private KeyInspector inspector;

    /**
     * Creates the operator, allocates its off-heap state (or reopens it) and builds the kind's algorithm over it.
     *
     * @param spec        the join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @param errors      receives a user predicate's exception; null to only count it.
     * @param layout      the kind's name in the durable layout ({@code "interval"}, {@code "temporal"}, ...): a state of another is refused.
     * @param timedRows   whether stored records of both sides carry timer links ({@link PartitionState}).
     * @param factory     builds the kind's algorithm over the driver's parts.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
     */
    OperatorDriver(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errors, final String layout, final boolean timedRows, final JoinAlgorithm.Factory factory)
    {
        this(spec, config, results, deadLetters, errors, layout, timedRows ? RowStore.TIMED_BOTH : RowStore.TIMED_NONE, DriverShape.DEFAULT, factory);
    }

    /**
     * As the eight-argument constructor, for a kind of another {@link DriverShape}: a bucket of its own length, N
     * inputs, off-heap structures of its own, an end of input that closes nothing, or buckets not keyed by the
     * routing hash.
     *
     * @param spec        the join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output (through an {@link UpsertFold} when the spec's output is upsert).
     * @param deadLetters receives the rows that cannot be processed.
     * @param errors      receives a user predicate's exception; null to only count it.
     * @param layout      the kind's name in the durable layout: a state of another is refused.
     * @param timedSides  {@link RowStore#TIMED_LEFT} and {@link RowStore#TIMED_RIGHT}: the sides whose stored rows may be
     *                    linked into a timer wheel, whose records alone carry timer links ({@link PartitionState}).
     * @param shape       the kind's shape.
     * @param factory     builds the kind's algorithm over the driver's parts.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
     */
    OperatorDriver(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errors, final String layout, final int timedSides, final DriverShape shape,
        final JoinAlgorithm.Factory factory)
    {
        this.spec = spec;
        this.endMovesWatermarks = shape.endMovesWatermarks;
        this.readAhead = shape.readAhead;
        final CompiledJoin compiled = CompiledJoin.of(spec);
        final UpsertFold fold = spec.output() == OutputMode.UPSERT
            ? new UpsertFold(spec.resultKey(), compiled.uniqueKey(Side.LEFT), compiled.uniqueKey(Side.RIGHT), results, counters)
            : null;
        final Emitter emit = new Emitter(spec.type(), fold != null ? fold : results, deadLetters, counters);
        this.inputWatermarks = shape.inputs > 0 ? new InputWatermarks(shape.inputs) : null;
        this.state = new PartitionState(config, spec, layout, shape.bucketLength, timedSides, counters,
            this::makeRoom, shape.otherOffHeapBytes);
        this.suppliedHashes = config.hasFixedHashSeed() && config.hashSeed() == state.config.hashSeed();
        try
        {
            this.predicate = new JoinPredicate(compiled, state.config, state.store, counters, errors);
            final OperatorParts parts = new OperatorParts(spec, config, compiled, state, predicate, emit, fold, counters,
                watermarks, inputWatermarks);
            parts.watermarkWork = this::finishQueuedWork;
            this.algorithm = factory.create(parts);
            this.work = new WatermarkWorkQueue(algorithm, counters);
            this.heapPart = new DriverHeapPart(counters, watermarks, inputWatermarks, algorithm);
            this.inputs = inputWatermarks == null ? null
                : new DriverInputs(state, counters, inputWatermarks, algorithm, suppliedHashes);
            state.restore(heapPart);
        }
        catch (final RuntimeException | Error e)
        {
            state.close();
            throw e;
        }
    }

    /** The state's {@link PartitionState.RoomMaker}: the algorithm's ({@link JoinAlgorithm#makeRoom}). */
    private boolean makeRoom()
    {
        return algorithm.makeRoom();
    }

    /** @return the kind's algorithm (for tests that read its own measures). */
    JoinAlgorithm algorithm()
    {
        return algorithm;
    }

    /** @return the input-indexed entries of a driver built for N inputs ({@link MultiJoin}'s); null for a two-sided kind. */
    DriverInputs inputs()
    {
        return inputs;
    }

    @Override
    public KeyState inspect(final Side side, final RowView row, final int cap, final int partition)
    {
        if (inputWatermarks != null || !algorithm.inspectable())
        {
            return KeyState.unsupported("a " + spec.kind().name().toLowerCase(Locale.ROOT) + " join does not list a key's stored rows yet");
        }
        if (inspector == null)
        {
            inspector = new KeyInspector();
        }
        return inspector.list(algorithm, state, predicate, spec, side, row, cap, partition);
    }

    @Override
    public RowExplanation explain(final Side side, final RowView row, final long ts, final int cap, final int partition)
    {
        if (inputWatermarks != null || !algorithm.inspectable() || !algorithm.explainable())
        {
            return RowExplanation.unsupported("a " + spec.kind().name().toLowerCase(Locale.ROOT) + " join does not explain a row yet");
        }
        if (inspector == null)
        {
            inspector = new KeyInspector();
        }
        return inspector.explain(algorithm, state, predicate, spec, side, row, ts, cap, partition);
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        predicate.hashRowKey();
        acceptRow(side, kind, row, ts, step);
    }

    /**
     * The runtime's entry: the row's join-key hash comes from the publisher, which computed it to route the row
     * (the engine's seed, which the partition state was built with), and the key index takes it as it is. A
     * configuration with no fixed seed (the state's is then drawn at random, or a reopened state's marker's, which
     * no caller was told) hashes the key itself, as {@link #onRow(Side, ChangeKind, RowView, long, long)} does; a
     * reopen under another fixed seed than the marker's is refused ({@link DurableStateException}).
     */
    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        if (suppliedHashes)
        {
            predicate.supplyKeyHash(keyHash);
        }
        else
        {
            predicate.hashRowKey();
        }
        acceptRow(side, kind, row, ts, step);
    }

    private void acceptRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        state.beginMutation();
        work.sliceIfPending();
        counters.rowsIn++;
        watermarks.markActive(side.ordinal());
        algorithm.onRow(side, kind, row, ts, step);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advance(side.ordinal(), watermark))
        {
            watermarkMoved(step);
        }
        else
        {
            work.sliceIfPending();
        }
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advanceBoth(watermark))
        {
            watermarkMoved(step);
        }
        else
        {
            work.sliceIfPending();
        }
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        state.beginMutation();
        if (watermarks.markIdle(side.ordinal()))
        {
            watermarkMoved(step);
        }
        else
        {
            work.sliceIfPending();
        }
    }

    @Override
    public void onEndOfInput(final long step)
    {
        finishWatermarkWork();
        if (endMovesWatermarks)
        {
            state.beginMutation();
            watermarks.advanceBoth(Long.MAX_VALUE);
        }
        algorithm.onEndOfInput(step);
    }

    /** An algorithm's call for the pending work first ({@link OperatorParts#watermarkWork}): all of it, oldest first. */
    private boolean finishQueuedWork()
    {
        return work.finish();
    }

    /** The join's watermark moved to {@code watermarks.current()} at {@code step}: its work joins the queue. */
    private void watermarkMoved(final long step)
    {
        work.add(watermarks.current(), step);
    }

    @Override
    public void sliceWatermarkWork(final int budget)
    {
        JoinOperator.super.sliceWatermarkWork(budget);
        work.sliceBy(budget);
    }

    @Override
    public boolean runWatermarkSlice()
    {
        if (work.isEmpty())
        {
            return false;
        }
        state.beginMutation();
        work.slice();
        return !work.isEmpty();
    }

    @Override
    public boolean watermarkWorkPending()
    {
        return !work.isEmpty();
    }

    @Override
    public void finishWatermarkWork()
    {
        if (!work.isEmpty())
        {
            state.beginMutation();
            work.finish();
        }
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
        counters.watermark = inputWatermarks == null ? watermarks.current() : inputWatermarks.current();
        algorithm.refreshCounters(counters);
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
        finishWatermarkWork();
        state.persist(heapPart);
    }

    @Override
    public boolean stage(final CheckpointCut cut)
    {
        final StagedCut staged = staged(cut);
        finishWatermarkWork();
        return state.stage(heapPart, staged);
    }

    @Override
    public void staged(final CheckpointCut cut, final boolean succeeded)
    {
        state.staged(staged(cut), succeeded);
    }

    /** The runtime's cut behind its opaque handle; a handle the runtime did not make is refused before anything moves. */
    private static StagedCut staged(final CheckpointCut cut)
    {
        if (cut instanceof StagedCut.Source)
        {
            return ((StagedCut.Source)cut).stagedCut();
        }
        throw new IllegalArgumentException("a checkpoint cut the engine's runtime did not make: " + cut);
    }

    @Override
    public void close()
    {
        try
        {
            finishWatermarkWork();
        }
        finally
        {
            state.close(heapPart);
        }
    }

    /** Frees the state without persisting it: a restore is about to replace it. */
    @Override
    public void discard()
    {
        work.clear();
        state.close();
    }
}
