package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.metrics.HotKey;
import io.junction.metrics.KeyState;
import io.junction.metrics.OperatorCounters;
import io.junction.metrics.RowExplanation;

import java.util.List;
import java.io.IOException;

/**
 * A join operator: a plain single-threaded state machine that knows nothing of threads or rings.
 * The runtime drives one per partition; tests drive one directly, event by event.
 *
 * <p>Not thread safe: every call must come from the thread that owns the operator.
 */
public interface JoinOperator extends AutoCloseable
{
    /**
     * Processes one input row. Output and dead letters go to the handlers given at construction
     * before this returns.
     *
     * @param side the input.
     * @param kind its change kind.
     * @param row  the row, valid during the call only.
     * @param ts   its event time in ms.
     * @param step its input sequence number, carried to every output it causes.
     */
    void onRow(Side side, ChangeKind kind, RowView row, long ts, long step);

    /**
     * As {@link #onRow(Side, ChangeKind, RowView, long, long)}, with the row's join-key hash already computed by
     * the caller: the runtime's publisher hashes the key once, to route the row, and the partition hands that hash
     * on so that the operator's key index takes it instead of hashing the key again. The hash must be
     * {@code KeyHash.hash(seed, key, 0, length)} of the row's key as its side's {@code KeyExtractor} encodes it,
     * under the seed of the {@link StateConfig} the operator was built with (a fixed one,
     * {@link StateConfig#withHashSeed}); any value when the key is null or too long. A caller without it calls
     * the five-argument method, which hashes the key itself with that same function and seed. An operator that
     * cannot take it (its state reopened under another seed, or its seed drawn at random) hashes the key itself;
     * the default ignores it.
     *
     * @param side    the input.
     * @param kind    its change kind.
     * @param row     the row, valid during the call only.
     * @param ts      its event time in ms.
     * @param step    its input sequence number, carried to every output it causes.
     * @param keyHash the seeded hash of the row's join key.
     */
    default void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        onRow(side, kind, row, ts, step);
    }

    /**
     * Processes one row of input {@code input} of a multi-way join ({@code JoinKind.MULTI}); for the binary
     * kinds input 0 is the left side and input 1 the right (the default forwards to {@link #onRow}).
     * @param input the input's index in the spec.
     * @param kind  its change kind.
     * @param row   the row, valid during the call only.
     * @param ts    its event time in ms.
     * @param step  its input sequence number.
     */
    default void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        onRow(Side.of(input), kind, row, ts, step);
    }

    /**
     * As {@link #onInputRow(int, ChangeKind, RowView, long, long)}, with the row's common-key hash already computed
     * by the caller: the runtime's publisher hashes input {@code input}'s key once, to route the row, and the
     * partition hands that hash on so that the multi-way join's key buckets take it instead of hashing the key
     * again. The hash must be {@code KeyHash.hash(seed, key, 0, length)} of the row's key as input {@code input}'s
     * {@code KeyExtractor} encodes it, under the seed of the {@link StateConfig} the operator was built with (a
     * fixed one, {@link StateConfig#withHashSeed}); any value when the key is null or too long. An operator that
     * cannot take it (its seed drawn at random, or a reopened state's marker's) hashes the key itself; the default
     * ignores it.
     *
     * @param input   the input's index in the spec.
     * @param kind    its change kind.
     * @param row     the row, valid during the call only.
     * @param ts      its event time in ms.
     * @param step    its input sequence number.
     * @param keyHash the seeded hash of the row's key.
     */
    default void onInputRow(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        onInputRow(input, kind, row, ts, step);
    }

    /**
     * Advances the watermark of input {@code input} of a multi-way join; for the binary kinds input 0 is the
     * left side and input 1 the right (the default forwards to {@link #onWatermark(Side, long, long)}).
     * @param input     the input's index in the spec.
     * @param watermark its new watermark, ms; a lower one than before is ignored.
     * @param step      the input sequence number of the watermark.
     */
    default void onInputWatermark(final int input, final long watermark, final long step)
    {
        onWatermark(Side.of(input), watermark, step);
    }

    /**
     * A hint that a row whose join key has this hash will come soon: the operator may read the memory
     * that row will need (its key's index slot and bucket), so that the cache misses of several coming
     * rows overlap instead of each stalling its own row. Changes no state and emits nothing; a wrong
     * hash costs a few loads. The runtime calls it for the rows already waiting in a partition's ring.
     *
     * @param keyHash the engine's seeded hash of the row's join key ({@code StateConfig#hashSeed()}).
     */
    default void prefetch(final long keyHash)
    {
    }

    /**
     * Advances one input's watermark; expiry and emission it causes carry {@code step}. Makes the input
     * active if it was idle, whatever the value.
     *
     * @param side      the input.
     * @param watermark its new watermark, ms; a lower one than before is ignored.
     * @param step      the input sequence number of the watermark.
     */
    void onWatermark(Side side, long watermark, long step);

    /**
     * Advances both inputs' watermarks.
     *
     * @param watermark the new watermark of both inputs, ms; a lower one than before is ignored.
     * @param step      the input sequence number of the watermark.
     */
    void onWatermark(long watermark, long step);

    /**
     * Marks an input idle (it has sent nothing for the idle timeout): it stops holding back the join's
     * watermark, which becomes the other input's (the higher of the two when both are idle), so rows
     * waiting on the idle input close, padded or expired, with {@code step}. The input's next row or
     * watermark makes it active again. The join's watermark never goes backwards: an input that comes
     * back below it holds it until it catches up, and its rows below it are late as usual.
     *
     * @param side the input that became idle.
     * @param step the input sequence number of the idleness event, carried to what it emits.
     */
    void onIdle(Side side, long step);

    /**
     * Marks input {@code input} of a multi-way join idle in this partition (SEMANTICS 10: the join watermark is
     * the minimum over the active inputs); for the binary kinds input 0 is the left side and input 1 the
     * right (the default forwards to {@link #onIdle(Side, long)}). The input's next row or watermark makes
     * it active again.
     *
     * @param input the input's index in the spec.
     * @param step  the input sequence number of the idleness event, carried to what it emits.
     */
    default void onInputIdle(final int input, final long step)
    {
        onIdle(Side.of(input), step);
    }

    /**
     * The end of input: acts as a watermark of +infinity on both inputs (SEMANTICS 1).
     *
     * @param step the input sequence number of the end of input, carried to everything it emits.
     */
    void onEndOfInput(long step);

    /**
     * Bounded watermark work, for a runtime that interleaves it with input (docs/SEMANTICS.md 3, "Watermark work
     * is sliced"): from this call on, a watermark (or idle mark) that closes rows does at most {@code budget} rows
     * or timers before it returns and leaves the rest pending; the operator does one more slice before each
     * following event, and {@link #runWatermarkSlice()} does one on request. Pending work is finished first by the
     * end of input, {@link #persist()}, {@link #finishWatermarkWork()} and {@link #close()}. What is emitted, and
     * at which step, does not change; only when. Without this call (the default) every event finishes its work
     * before it returns, as the other methods say. Kinds that cannot slice their work do it whole.
     *
     * @param budget rows or timers per slice, at least 1; {@link Integer#MAX_VALUE} does each watermark whole.
     * @throws IllegalArgumentException when {@code budget} is below 1.
     */
    default void sliceWatermarkWork(final int budget)
    {
        if (budget < 1)
        {
            throw new IllegalArgumentException("a watermark slice must hold at least 1 row: " + budget);
        }
    }

    /**
     * Does one slice of the watermark work pending ({@link #sliceWatermarkWork}).
     *
     * @return whether work is still pending after it.
     */
    default boolean runWatermarkSlice()
    {
        return false;
    }

    /** @return whether watermark work is pending ({@link #sliceWatermarkWork}). */
    default boolean watermarkWorkPending()
    {
        return false;
    }

    /**
     * Finishes the watermark work pending ({@link #sliceWatermarkWork}), in the order of its watermarks: what a
     * runtime does before a checkpoint barrier or a restore.
     */
    default void finishWatermarkWork()
    {
    }

    /** @return the operator's counters, refreshed (live rows, state bytes) as of this call. */
    OperatorCounters counters();

    /**
     * The hot-key report: the keys the operator's heavy-hitters sketch tracks ({@link StateConfig#hotKeys()}
     * counters), with the live rows of each read from state now. Allocates; the runtime takes it at
     * most every {@code JoinEngine.HOT_KEYS_INTERVAL_MILLIS} ms, on the partition thread.
     *
     * @return the tracked keys, most rows visited by probes first; empty when the sketch is off or the
     *         operator keeps none (the window joins).
     */
    default List<HotKey> hotKeys()
    {
        return List.of();
    }

    /**
     * Lists what the state holds of one join key (docs/SEMANTICS.md 14): the stored rows of both sides under the
     * key of {@code row}, each with its time, match count and due time. Allocates its answer; the runtime calls it on
     * the partition thread between two events ({@code JoinEngine.inspection()}), never on the hot path.
     *
     * @param side      the side {@code row} is of.
     * @param row       a row of that side holding the key fields (others may be null).
     * @param cap       the most rows listed per side.
     * @param partition the partition this operator serves, to tag each row with.
     * @return the key's rows, or {@link KeyState#unsupported} for a kind that keeps its state another way.
     */
    default KeyState inspect(final Side side, final RowView row, final int cap, final int partition)
    {
        return KeyState.unsupported("this join's kind does not list a key's stored rows");
    }

    /**
     * Explains a row against what the state holds of its key (docs/SEMANTICS.md 14): the stored rows of the other
     * side with the code each pair would get now, and the row's fate so far. Allocates its answer; called on the
     * partition thread between two events, never on the hot path.
     *
     * @param side      the side of {@code row}.
     * @param row       the row.
     * @param ts        its event time.
     * @param cap       the most pairs listed.
     * @param partition the partition this operator serves.
     * @return the explanation, or {@link RowExplanation#unsupported} for a kind that keeps its state another way.
     */
    default RowExplanation explain(final Side side, final RowView row, final long ts, final int cap, final int partition)
    {
        return RowExplanation.unsupported("this join's kind does not explain a row yet");
    }

    /**
     * @return true when the operator keeps its state in files ({@link StateConfig#stateDirectory()}).
     */
    default boolean durable()
    {
        return false;
    }

    /**
     * Durable mode: makes the state directory a complete, consistent image of every event applied so
     * far (mapped memory forced, heap-held state written, files synced, the clean marker written last).
     * Until the next event is applied the directory's files can be copied as a checkpoint; a new
     * operator of the same spec opened on such a copy resumes exactly here.
     *
     * @throws java.io.IOException   when a file cannot be written or synced (the image is then not clean).
     * @throws IllegalStateException when the operator keeps its state in memory.
     */
    default void persist() throws IOException
    {
        throw new IllegalStateException("persist() needs a state directory (StateConfig.withStateDirectory)");
    }

    /**
     * Durable mode: takes a checkpoint's cut of the state for a background writer instead of persisting it
     * (docs/DURABILITY.md "What runs where"): every event applied so far, pending watermark work finished
     * first, the dirty chunks of the mapped files copied into {@code cut} with the heap-held state's image.
     * The state directory is not touched; the writer writes a checkpoint from the cut alone while this
     * operator goes on. Before the next {@code stage}, {@link #persist()} or {@link #close()} the caller
     * hands the cut back with {@link #staged}.
     *
     * @param cut an empty cut the runtime owns (reused from checkpoint to checkpoint).
     * @return false when this operator cannot stage (in memory, a Chronicle Map index, an operator of its
     *         own): the caller then persists and copies the directory instead.
     */
    default boolean stage(final CheckpointCut cut)
    {
        return false;
    }

    /**
     * The background write of the cut {@link #stage} took has ended: its chunks' sums are handed back (on
     * success), or its chunks are marked to be taken again (on failure).
     *
     * @param cut       the cut, summed by the writer.
     * @param succeeded whether its checkpoint was committed.
     */
    default void staged(final CheckpointCut cut, final boolean succeeded)
    {
        // Nothing staged, nothing to take back.
    }

    /**
     * Frees the operator's off-heap state without persisting it, for a runtime that is about to replace
     * the state directory's files (a restore from a checkpoint): the image left behind is not clean and
     * must not be reopened. In memory mode the same as {@link #close()}, which it defaults to (an operator
     * that does not override it persists first). Idempotent with {@link #close()}: only the first call frees.
     */
    default void discard()
    {
        close();
    }

    /**
     * Frees the operator's off-heap state; in durable mode first {@link #persist()}s it, so that a new
     * operator of the same spec reopens it (an {@link java.io.UncheckedIOException} when that fails,
     * after everything is released: the directory is then not a clean image).
     */
    @Override
    void close();
}
