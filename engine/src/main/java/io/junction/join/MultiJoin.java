package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.MultiBucketDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;

import java.io.IOException;
import java.util.List;

/**
 * The multi-way join operator (docs/SEMANTICS.md "Multi-way joins"): N inputs on a common key,
 * the left-deep chain {@code ((i0 ⋈ i1) ⟕ i2) ...} over the inputs' current contents, with a minimal
 * changelog. It is an {@link OperatorDriver} built for N inputs running the kind's algorithm,
 * {@link MultiWayJoin} (what is stored, matched, emitted and expired is described there), and maps the
 * operator's input-indexed methods onto the driver's input-indexed entries ({@link DriverInputs}); for the
 * two-sided methods input 0 is the left side and input 1 the right.
 * <pre>
 * onInputRow(i) / onRow(side)          -&gt; inputs.onInputRowOf(i)        rowsIn, input i active, algorithm
 *   (with the publisher's key hash)    -&gt; inputs.onInputRowOf(i, hash)  the same, the routed hash for the key's buckets
 * onInputWatermark(i) / onWatermark(side) -&gt; inputs.onInputWatermarkOf(i)
 * onWatermark(w)                       -&gt; inputs.onInputsWatermark(w)   every input
 * onInputIdle(i) / onIdle(side)        -&gt; inputs.onInputIdleOf(i)
 * everything else                      -&gt; the driver (counters, hot keys, persist, close, discard)
 * </pre>
 * So the multi-way join gets what every kind on the driver has: its state in a {@link PartitionState} (the key
 * index of {@link StateConfig#indexKind()}, hash or Chronicle Map; the arena), durable mode as every kind's
 * (the arena and index files mapped, reopened without a copy, the chunk checksums in the clean marker), and
 * the hot-key report ({@link #hotKeys()}, JMX).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class MultiJoin implements JoinOperator
{
    /**
     * The kind's name in the durable state's layout hash: version 2 is the bucket of 16 + 8n bytes with no
     * live row counts ({@link MultiBucketDescriptor}). A state directory written by an older build
     * ({@code "multi/n-groups"}: buckets of 24 + 8n bytes with two counts) is refused at open as written with
     * another partition state layout, before any of its bytes is read as a bucket.
     */
    static final String LAYOUT = "multi/n-groups/2";

    private final OperatorDriver driver;
    /** The driver's input-indexed entries. */
    private final DriverInputs inputs;
    private final MultiWayJoin algorithm;

    /**
     * @param spec        a {@link JoinKind#MULTI} spec.
     * @param config      the sizing of the off-heap state and its directory ({@link StateConfig#stateDirectory()}).
     * @param results     receives the output ({@link ResultHandler#onMultiResult}).
     * @param deadLetters receives the rows that cannot be processed.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
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
        this(spec, config, results, deadLetters, hashMask, LAYOUT);
    }

    /**
     * As {@link #MultiJoin(JoinSpec, StateConfig, ResultHandler, DeadLetterHandler, long)} under another layout
     * name: a test writes a state directory as an older build's layout ({@code "multi/n-groups"}) marks it.
     *
     * @param spec        a {@link JoinKind#MULTI} spec.
     * @param config      the sizing.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @param hashMask    ANDed into every hash; -1 in production.
     * @param layout      the layout name in the durable state's layout hash ({@link #LAYOUT} in production).
     */
    MultiJoin(final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final long hashMask, final String layout)
    {
        if (spec.kind() != JoinKind.MULTI)
        {
            throw new IllegalArgumentException("this operator runs MULTI joins, not: " + spec);
        }
        final int n = spec.multi().inputs();
        this.driver = new OperatorDriver(spec, config, results, deadLetters, null, layout, RowStore.TIMED_NONE,
            DriverShape.DEFAULT.bucketLength(MultiBucketDescriptor.length(n)).inputs(n), parts -> new MultiWayJoin(parts, results, deadLetters, hashMask));
        this.algorithm = (MultiWayJoin)driver.algorithm();
        this.inputs = driver.inputs();
    }

    private static int input(final Side side)
    {
        return side == Side.LEFT ? 0 : 1;
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        inputs.onInputRowOf(input(side), kind, row, ts, step);
    }

    /** The runtime's two-sided entry: the hash is the publisher's of the side's key, input 0's or input 1's. */
    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        inputs.onInputRowOf(input(side), kind, row, ts, step, keyHash);
    }

    @Override
    public void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        inputs.onInputRowOf(input, kind, row, ts, step);
    }

    /**
     * The runtime's entry: the common key's hash comes from the publisher, which computed it to route the row; the
     * key buckets take it (masked as every hash of this join) when the configuration's seed is fixed and is the
     * state's, else hash the key themselves ({@link DriverInputs}).
     */
    @Override
    public void onInputRow(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        inputs.onInputRowOf(input, kind, row, ts, step, keyHash);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        inputs.onInputWatermarkOf(input(side), watermark, step);
    }

    @Override
    public void onInputWatermark(final int input, final long watermark, final long step)
    {
        inputs.onInputWatermarkOf(input, watermark, step);
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        inputs.onInputsWatermark(watermark, step);
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        inputs.onInputIdleOf(input(side), step);
    }

    @Override
    public void onInputIdle(final int input, final long step)
    {
        inputs.onInputIdleOf(input, step);
    }

    @Override
    public void onEndOfInput(final long step)
    {
        driver.onEndOfInput(step);
    }

    @Override
    public void prefetch(final long keyHash)
    {
        driver.prefetch(keyHash);
    }

    @Override
    public OperatorCounters counters()
    {
        return driver.counters();
    }

    @Override
    public List<HotKey> hotKeys()
    {
        return driver.hotKeys();
    }

    @Override
    public boolean durable()
    {
        return driver.durable();
    }

    @Override
    public void persist() throws IOException
    {
        driver.persist();
    }

    @Override
    public boolean stage(final CheckpointCut cut)
    {
        return driver.stage(cut);
    }

    @Override
    public void staged(final CheckpointCut cut, final boolean succeeded)
    {
        driver.staged(cut, succeeded);
    }

    @Override
    public void discard()
    {
        driver.discard();
    }

    @Override
    public void close()
    {
        driver.close();
    }

    /** @return live rows of input {@code input}, for tests. */
    long liveRows(final int input)
    {
        return algorithm.liveRows(input);
    }

    /** @return the number of keys with stored rows that can match, for tests. */
    long keys()
    {
        return algorithm.keys();
    }

    /** @return the partition state, for tests that read its files and index. */
    PartitionState state()
    {
        return driver.state;
    }
}
