package io.junction.runtime;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.metrics.KeyState;
import io.junction.metrics.RowExplanation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A running engine's answers about its state (docs/SEMANTICS.md 14, {@link JoinEngine#inspection()}): what it holds of
 * one join key ({@link #inspect}) and why a row does or does not join ({@link #explain}). The row that names the key
 * is checked and encoded on the caller's thread; then every partition is asked, through its control
 * mailbox ({@link PartitionControl}), to list the key's rows on its own thread between two events (every
 * partition, because how a key is routed depends on the spec: upsert output, expansions; a partition that holds
 * none answers with none), and the answers are merged, at most {@code cap} rows per side.
 *
 * <p>Threads: any caller's; what it reads of the engine is final, and the partitions read their own state.
 */
public final class EngineInspection
{
    /** The most rows of a side an answer lists unless asked for fewer. */
    public static final int DEFAULT_CAP = 100;
    /** The most rows of a side an answer may list. */
    public static final int MAX_CAP = 10_000;
    /** How long a caller waits for a partition's answer: a partition thread is stuck, not merely busy, beyond it. */
    static final long TIMEOUT_MILLIS = 10_000;

    private final JoinSpec spec;
    private final PartitionRings rings;
    private final PartitionWorker[] workers;

    EngineInspection(final JoinSpec spec, final PartitionRings rings, final PartitionWorker[] workers)
    {
        this.spec = spec;
        this.rings = rings;
        this.workers = workers;
    }

    /**
     * What the engine holds now of one join key: the stored rows of both sides under the key of {@code row}, each with
     * its partition, time, match count and due time, at most {@value #DEFAULT_CAP} per side ({@link KeyState#moreLeft}
     * and {@link KeyState#moreRight} count the rest). Each partition reads its own state on its thread between two
     * events, so the answer is consistent per partition and the join never stops for longer than one such read; the
     * caller waits for the partitions' answers. A kind that keeps its rows another way (window, multi-way and expand
     * joins, for now) answers {@link KeyState#unsupported}.
     *
     * @param side the side {@code row} is of.
     * @param row  a row of that side holding its key fields (the other fields may be left out).
     * @return the key's stored rows; none for a key the engine holds nothing of.
     * @throws IllegalArgumentException for a field the side does not have or a key field left out.
     * @throws IllegalStateException when the engine is closed or a partition does not answer within 10 s.
     */
    public KeyState inspect(final Side side, final Row row)
    {
        return inspect(side, row, DEFAULT_CAP);
    }

    /**
     * As {@link #inspect(Side, Row)}, listing at most {@code cap} rows per side.
     *
     * @param side the side {@code row} is of.
     * @param row  a row of that side holding its key fields.
     * @param cap  the most rows listed per side, 1 to {@value #MAX_CAP}.
     * @return the key's stored rows.
     */
    public KeyState inspect(final Side side, final Row row, final int cap)
    {
        check(side, row, cap);
        if (spec.kind() == JoinKind.MULTI || spec.kind() == JoinKind.EXPAND)
        {
            return KeyState.unsupported("a " + spec.kind().name().toLowerCase(Locale.ROOT) + " join does not list a key's stored rows yet");
        }
        final UnsafeBuffer bytes = encode(side, row);
        final int length = bytes.capacity();
        final List<CompletableFuture<KeyState>> answers = new ArrayList<>(workers.length);
        for (int p = 0; p < workers.length; p++)
        {
            final int partition = p;
            final RowView view = new RowView().wrap(bytes, 0, length);
            answers.add(workers[p].control().submit(operator -> operator.inspect(side, view, cap, partition)));
            rings.wake(p);
        }
        return KeyState.merge(awaitAll(answers), cap);
    }

    /**
     * Why does this row (not) join? Each stored row of the other side under the key of {@code row} with the code its
     * pair would get if the row came now ({@code MATCHED}, {@code FILTER_FAILED}, {@code CONDITION_FAILED},
     * {@code OUTSIDE_INTERVAL}, {@code NOT_SELECTED}), at most {@value #DEFAULT_CAP}, and the row's fate so far:
     * {@code MATCHED} or {@code PENDING} (what it waits for) when an equal row is stored, else as if it came now
     * ({@code MATCHED}, {@code NO_MATCH}, {@code NO_ROW_WITH_KEY}), or {@code NULL_KEY}. Read as {@link #inspect}
     * reads. A user condition it runs counts as the join's own would.
     *
     * @param side the side {@code row} is of.
     * @param row  the whole row, as it was or would be published.
     * @param ts   its event time.
     * @return the explanation, or {@link RowExplanation#unsupported} for a kind that cannot explain yet.
     * @throws IllegalArgumentException for a field the side does not have or a key field left out.
     * @throws IllegalStateException when the engine is closed or a partition does not answer within 10 s.
     */
    public RowExplanation explain(final Side side, final Row row, final long ts)
    {
        return explain(side, row, ts, DEFAULT_CAP);
    }

    private RowExplanation explain(final Side side, final Row row, final long ts, final int cap)
    {
        check(side, row, cap);
        if (spec.kind() == JoinKind.MULTI || spec.kind() == JoinKind.EXPAND)
        {
            return RowExplanation.unsupported("a " + spec.kind().name().toLowerCase(Locale.ROOT) + " join does not explain a row yet");
        }
        final UnsafeBuffer bytes = encode(side, row);
        final List<CompletableFuture<RowExplanation>> answers = new ArrayList<>(workers.length);
        for (int p = 0; p < workers.length; p++)
        {
            final int partition = p;
            final RowView view = new RowView().wrap(bytes, 0, bytes.capacity());
            answers.add(workers[p].control().submit(operator -> operator.explain(side, view, ts, cap, partition)));
            rings.wake(p);
        }
        return RowExplanation.merge(awaitAll(answers), cap);
    }

    private void check(final Side side, final Row row, final int cap)
    {
        if (side == null || row == null)
        {
            throw new IllegalArgumentException("a side and a row of it holding the key fields are needed, got " + side + ", " + row);
        }
        if (cap < 1 || cap > MAX_CAP)
        {
            throw new IllegalArgumentException("cap must be 1 to " + MAX_CAP + " rows, got " + cap);
        }
        if (rings.isClosed())
        {
            throw new IllegalStateException("the engine is closed");
        }
    }

    /** @return the row's bytes, checked against the side's schema and key, in a buffer of exactly their length. */
    private UnsafeBuffer encode(final Side side, final Row row)
    {
        final RowCodec codec = new RowCodec(spec.schema(side));
        final String unknown = codec.unknownField(row);
        if (unknown != null)
        {
            throw new IllegalArgumentException("the " + side.name().toLowerCase(Locale.ROOT) + " side has no field '" + unknown +
                "' (its fields: " + spec.schema(side) + ")");
        }
        // A key field left out would name the null key, which holds nothing: say so rather than answer with nothing.
        for (final String field : side == Side.LEFT ? spec.leftKey() : spec.rightKey())
        {
            if (!row.has(field))
            {
                throw new IllegalArgumentException("the row names no value for the " + side.name().toLowerCase(Locale.ROOT) +
                    " key field '" + field + "'");
            }
        }
        // A key row is small: a large buffer only for a row that does not fit the first.
        UnsafeBuffer bytes = new UnsafeBuffer(new byte[1024]);
        int length = codec.encode(row, bytes, 0, bytes.capacity());
        if (length < 0)
        {
            bytes = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
            length = codec.encode(row, bytes, 0, bytes.capacity());
        }
        if (length < 0)
        {
            throw new IllegalArgumentException("the row is larger than a row may be (" + RowFormat.MAX_ROW_LENGTH + " bytes)");
        }
        final UnsafeBuffer exact = new UnsafeBuffer(new byte[length]);
        exact.putBytes(0, bytes, 0, length);
        return exact;
    }

    private static Side side(final String side)
    {
        if ("left".equalsIgnoreCase(side))
        {
            return Side.LEFT;
        }
        if ("right".equalsIgnoreCase(side))
        {
            return Side.RIGHT;
        }
        throw new IllegalArgumentException("side must be left or right, got " + side);
    }

    private static <T> List<T> awaitAll(final List<CompletableFuture<T>> answers)
    {
        final List<T> parts = new ArrayList<>(answers.size());
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        for (int p = 0; p < answers.size(); p++)
        {
            parts.add(await(answers.get(p), p, deadline));
        }
        return parts;
    }

    /**
     * The JMX operation's form ({@code JoinEngineMXBean.inspect}): the side by name and the key as a JSON object.
     *
     * @param side {@code left} or {@code right}.
     * @param key  a JSON object of the side's key fields.
     * @return the answer as JSON.
     */
    String inspectJson(final String side, final String key)
    {
        return inspect(side(side), KeyJson.parse(key), DEFAULT_CAP).toJson();
    }

    /**
     * The JMX operation's form of {@link #explain}.
     *
     * @param side {@code left} or {@code right}.
     * @param row  the row as a JSON object of scalars.
     * @param ts   its event time.
     * @return the answer as JSON.
     */
    String explainJson(final String side, final String row, final long ts)
    {
        return explain(side(side), KeyJson.parse(row), ts, DEFAULT_CAP).toJson();
    }

    private static <T> T await(final CompletableFuture<T> answer, final int partition, final long deadline)
    {
        try
        {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while partition " + partition + " answered", e);
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException("partition " + partition + " could not list the key: " + e.getCause().getMessage(),
                e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IllegalStateException("partition " + partition + " did not answer within " + TIMEOUT_MILLIS + " ms", e);
        }
    }
}
