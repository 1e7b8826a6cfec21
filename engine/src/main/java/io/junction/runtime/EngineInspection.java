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
 * {@link JoinEngine#inspect}: what a running engine holds of one join key (docs/SEMANTICS.md 14). The row that
 * names the key is checked and encoded on the caller's thread; then every partition is asked, through its control
 * mailbox ({@link PartitionControl}), to list the key's rows on its own thread between two events (every
 * partition, because how a key is routed depends on the spec: upsert output, expansions; a partition that holds
 * none answers with none), and the answers are merged, at most {@code cap} rows per side.
 *
 * <p>Threads: any caller's; what it reads of the engine is final, and the partitions read their own state.
 */
final class EngineInspection
{
    /** The most rows of a side an answer lists unless asked for fewer. */
    static final int DEFAULT_CAP = 100;
    /** The most rows of a side an answer may list. */
    static final int MAX_CAP = 10_000;
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

    KeyState inspect(final Side side, final Row row, final int cap)
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

    /** {@link JoinEngine#explain}: as {@link #inspect}, each partition explaining the row against its state. */
    RowExplanation explain(final Side side, final Row row, final long ts, final int cap)
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
