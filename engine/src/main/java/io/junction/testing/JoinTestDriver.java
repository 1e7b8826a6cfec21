package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.row.RowExpander;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.metrics.OperatorCounters;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.Publisher;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Runs a join on the calling thread, event by event, for a user's unit tests: rows, watermarks, idleness and the
 * end of input go in; the changelog, dead letters, expiries and user-code errors come out as values to assert on.
 * No threads, no rings, no clock: the same input gives the same output every run.
 *
 * <p>It runs the engine's own operator for the spec's kind ({@link JoinOperators#create}, the one a
 * {@link io.junction.runtime.JoinEngine} partition thread drives), on the state sizing of the {@link EngineConfig}
 * given, and checks each row as the engine's {@link Publisher} does before anything reaches a partition (the same
 * return codes and {@link #lastRefusal()} texts). So its changelog is the one a one-partition engine writes for
 * that input; an engine of several partitions writes the same results of each step, those of different keys
 * possibly in another order.
 *
 * <p>Steps: every call that pipes an event in ({@code row}, {@code watermark}, {@code idle}, {@code endOfInput}
 * and their multi-way forms) is the next step, from 0, refused or not; {@link #nextStep()} says which comes next.
 * Watermarks are the caller's: the driver generates none and has no idle timeout (they depend on time and
 * arrival, which a test pins by sending {@link #watermark} and {@link #idle} itself).
 *
 * <p>Not thread safe, like the operator it drives. Close it to free the operator's off-heap state.
 */
public final class JoinTestDriver implements AutoCloseable
{
    /** One dead letter: the row (null when it could not be read), why, and the step that refused it. */
    public record DeadLetter(int input, ChangeKind kind, Row row, long timestamp, long step, DeadLetterReason reason)
    {
        /** @return the input as a side of a two-input join (input 0 is left, every other right). */
        public Side side()
        {
            return Side.of(input == 0 ? 0 : 1);
        }
    }

    /** One row a regular join dropped from its state without a retraction (docs/SEMANTICS.md, visible expiry). */
    public record Expiry(Side side, Row row, long timestamp, ExpiryReason reason, long step)
    {
    }

    /** One result of a multi-way join: a row per input in the spec's order, null for a padded input. */
    public record MultiResult(ChangeKind kind, List<Row> rows, long timestamp, long step)
    {
    }

    private final JoinSpec spec;
    private final boolean multi;
    private final Schema[] schemas;
    private final RowCodec[] codecs;
    private final int slotCapacity;
    private final UnsafeBuffer encoded;
    private final RowView view = new RowView();
    private final StringBuilder refusal = new StringBuilder();
    private final Collector collector;
    private final JoinOperator operator;
    /** Per input, its row expansion (docs/SEMANTICS.md 12), or null. */
    private final ExpandedInput[] expansions;
    private int resultsRead;
    private long step;
    private boolean closed;

    private JoinTestDriver(final JoinSpec spec, final EngineConfig config)
    {
        if (config.stateRoot() != null || config.checkpointRoot() != null)
        {
            throw new IllegalArgumentException("JoinTestDriver keeps its state in memory: give an EngineConfig without a " +
                "state root or checkpoint root, not " + config.stateRoot() + " / " + config.checkpointRoot());
        }
        this.spec = spec;
        this.multi = spec.kind() == JoinKind.MULTI;
        final int inputs = multi ? spec.multi().inputs() : 2;
        this.schemas = new Schema[inputs];
        this.codecs = new RowCodec[inputs];
        for (int i = 0; i < inputs; i++)
        {
            schemas[i] = multi ? spec.multi().schema(i) : spec.schema(Side.of(i));
            codecs[i] = new RowCodec(schemas[i]);
        }
        this.slotCapacity = config.slotCapacity();
        this.encoded = new UnsafeBuffer(new byte[slotCapacity]);
        this.collector = new Collector(spec, schemas);
        // The engine's partition worker hands the operator its guarded handlers, which are also the expiry and error
        // handlers; this collector is all three, so the operator runs as it does on a partition thread.
        this.operator = JoinOperators.create(spec, config.state(), collector, collector, collector);
        this.expansions = new ExpandedInput[inputs];
        for (int i = 0; i < inputs; i++)
        {
            expansions[i] = ExpandedInput.of(spec, i, slotCapacity, operator);
        }
    }

    /**
     * A driver on the engine's default state sizing ({@link EngineConfig#defaults()}).
     *
     * @param spec the join.
     * @return a new driver, at step 0.
     */
    public static JoinTestDriver create(final JoinSpec spec)
    {
        return create(spec, EngineConfig.defaults());
    }

    /**
     * A driver on a configuration's state sizing ({@link EngineConfig#state()}: key index, chunks, limits and
     * full policy) and row slot size ({@link EngineConfig#slotCapacity()}, the largest row a publish takes);
     * partitions, rings and threads do not apply.
     *
     * @param spec   the join.
     * @param config the engine configuration the test stands for; in memory (no state or checkpoint root).
     * @return a new driver, at step 0.
     * @throws IllegalArgumentException when the configuration has a state or checkpoint root.
     */
    public static JoinTestDriver create(final JoinSpec spec, final EngineConfig config)
    {
        return new JoinTestDriver(spec, config);
    }

    /** @return the join this driver runs. */
    public JoinSpec spec()
    {
        return spec;
    }

    /**
     * Pipes an insert ({@code +I}) of one side in.
     *
     * @param side the input.
     * @param row  the row; every field name must be in the side's schema.
     * @param ts   its event time, ms.
     * @return as {@link #row(Side, ChangeKind, Row, long)}.
     */
    public int insert(final Side side, final Row row, final long ts)
    {
        return row(side, ChangeKind.INSERT, row, ts);
    }

    /**
     * Pipes a delete ({@code -D}) of one side in.
     *
     * @param side the input.
     * @param row  the row to retract.
     * @param ts   its event time, ms.
     * @return as {@link #row(Side, ChangeKind, Row, long)}.
     */
    public int delete(final Side side, final Row row, final long ts)
    {
        return row(side, ChangeKind.DELETE, row, ts);
    }

    /**
     * Pipes a row of one side of a two-input join in, encoded with the side's schema and checked as
     * {@link Publisher#publish(Side, ChangeKind, Row, long, long)} checks it.
     *
     * @param side the input.
     * @param kind its change kind.
     * @param row  the row as objects.
     * @param ts   its event time, ms.
     * @return {@link Publisher#PUBLISHED} when the operator took it, else the publisher's refusal
     *         ({@link Publisher#SCHEMA_MISMATCH}, {@link Publisher#ROW_TOO_LARGE}, {@link Publisher#INVALID_ARGUMENT},
     *         {@link Publisher#EXPANSION_FAILED});
     *         {@link #lastRefusal()} says why. A refused row reaches neither the operator nor {@link #deadLetters()}.
     * @throws IllegalStateException on a multi-way join (use {@link #inputRow}) or a closed driver.
     */
    public int row(final Side side, final ChangeKind kind, final Row row, final long ts)
    {
        twoInputs();
        final long at = nextEvent();
        if (side == null || kind == null || row == null)
        {
            return refuse(Publisher.INVALID_ARGUMENT, "a null side, kind or row");
        }
        final int length = encode(side.ordinal(), row);
        return length < 0 ? length : accept(side.ordinal(), kind, encoded, 0, length, ts, at);
    }

    /**
     * Pipes a binary row ({@link io.junction.api.RowFormat}) of one side in, checked as
     * {@link Publisher#publish(Side, ChangeKind, RowView, long, long)} checks it.
     *
     * @param side the input.
     * @param kind its change kind.
     * @param row  the row, read during the call only.
     * @param ts   its event time, ms.
     * @return as {@link #row(Side, ChangeKind, Row, long)}, or {@link Publisher#MALFORMED_ROW}.
     */
    public int row(final Side side, final ChangeKind kind, final RowView row, final long ts)
    {
        twoInputs();
        final long at = nextEvent();
        if (side == null || kind == null || row == null)
        {
            return refuse(Publisher.INVALID_ARGUMENT, "a null side, kind or row");
        }
        return accept(side.ordinal(), kind, row.buffer(), row.offset(), row.length(), ts, at);
    }

    /**
     * Pipes a row of input {@code input} of a multi-way join ({@link JoinKind#MULTI}) in, checked as
     * {@link Publisher#publishInput(int, ChangeKind, Row, long, long)} checks it.
     *
     * @param input the input's index in the spec.
     * @param kind  its change kind.
     * @param row   the row as objects.
     * @param ts    its event time, ms.
     * @return as {@link #row(Side, ChangeKind, Row, long)}.
     * @throws IllegalStateException on a two-input join (use {@link #row}) or a closed driver.
     */
    public int inputRow(final int input, final ChangeKind kind, final Row row, final long ts)
    {
        multiWay();
        final long at = nextEvent();
        if (input < 0 || input >= schemas.length || kind == null || row == null)
        {
            return refuse(Publisher.INVALID_ARGUMENT, "a null kind or row, or no input " + input + " of " + schemas.length);
        }
        final int length = encode(input, row);
        return length < 0 ? length : accept(input, kind, encoded, 0, length, ts, at);
    }

    /**
     * Advances both inputs' watermarks (a multi-way join's: every input's), as {@link Publisher#watermark(long, long)}.
     *
     * @param watermark the watermark, ms; a lower one than before is ignored.
     */
    public void watermark(final long watermark)
    {
        operator.onWatermark(watermark, nextEvent());
    }

    /**
     * Advances one input's watermark.
     *
     * @param side      the input.
     * @param watermark the watermark, ms; a lower one than before is ignored.
     */
    public void watermark(final Side side, final long watermark)
    {
        twoInputs();
        operator.onWatermark(checkedSide(side), watermark, nextEvent());
    }

    /**
     * Advances the watermark of input {@code input} of a multi-way join.
     *
     * @param input     the input's index in the spec.
     * @param watermark the watermark, ms; a lower one than before is ignored.
     */
    public void inputWatermark(final int input, final long watermark)
    {
        multiWay();
        operator.onInputWatermark(checkedInput(input), watermark, nextEvent());
    }

    /**
     * Marks one input idle, as the engine's idle timeout (or {@link Publisher#idle}) does: it stops holding the
     * join's watermark back until its next row or watermark.
     *
     * @param side the input.
     */
    public void idle(final Side side)
    {
        twoInputs();
        operator.onIdle(checkedSide(side), nextEvent());
    }

    /**
     * Marks input {@code input} of a multi-way join idle.
     *
     * @param input the input's index in the spec.
     */
    public void inputIdle(final int input)
    {
        multiWay();
        operator.onInputIdle(checkedInput(input), nextEvent());
    }

    /** The end of input: a watermark of +infinity on every input, which closes every pending row and window. */
    public void endOfInput()
    {
        operator.onEndOfInput(nextEvent());
    }

    /** @return the step the next event piped in gets. */
    public long nextStep()
    {
        return step;
    }

    /** @return why the latest refused row was refused, in the publisher's words; empty before the first refusal. */
    public String lastRefusal()
    {
        return refusal.toString();
    }

    /**
     * @return every result of a two-input join so far, in the order the operator emitted them, each row decoded
     *         with its side's schema (as {@link CollectingResultHandler} collects them from an engine).
     */
    public List<CollectingResultHandler.Result> results()
    {
        return collector.results.results();
    }

    /** @return the results emitted since the last call of this method (all of them on the first call). */
    public List<CollectingResultHandler.Result> readResults()
    {
        final List<CollectingResultHandler.Result> all = collector.results.results();
        final List<CollectingResultHandler.Result> unread = new ArrayList<>(all.subList(resultsRead, all.size()));
        resultsRead = all.size();
        return unread;
    }

    /** @return every result of a multi-way join so far, in emission order. */
    public List<MultiResult> multiResults()
    {
        return Collections.unmodifiableList(new ArrayList<>(collector.multiResults));
    }

    /** @return every dead letter so far (late rows, retractions of rows not in state, rows over a limit, ...). */
    public List<DeadLetter> deadLetters()
    {
        return Collections.unmodifiableList(new ArrayList<>(collector.deadLetters));
    }

    /** @return every row a regular join expired (state TTL) or evicted (expire-oldest) so far. */
    public List<Expiry> expiries()
    {
        return Collections.unmodifiableList(new ArrayList<>(collector.expiries));
    }

    /**
     * @return what user code (a filter, a condition, a coGroup function) threw so far, as the engine reports to its
     *         error handler; the operator went on after each, as an engine partition does.
     */
    public List<Throwable> errors()
    {
        return Collections.unmodifiableList(new ArrayList<>(collector.errors));
    }

    /** @return the operator's counters (rows in and out, live rows, late rows, state bytes) as of now. */
    public OperatorCounters counters()
    {
        return operator.counters();
    }

    /** Frees the operator's state; the values read out stay valid. Idempotent. */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            operator.close();
        }
    }

    private long nextEvent()
    {
        if (closed)
        {
            throw new IllegalStateException("the JoinTestDriver is closed");
        }
        return step++;
    }

    private void twoInputs()
    {
        if (multi)
        {
            throw new IllegalStateException("a multi-way join takes inputRow, inputWatermark and inputIdle, not the " +
                "two-input join's row, watermark(Side, ...) and idle(Side)");
        }
    }

    private void multiWay()
    {
        if (!multi)
        {
            throw new IllegalStateException("inputRow, inputWatermark and inputIdle are a multi-way join's: a " +
                spec.kind() + " join takes row, watermark(Side, ...) and idle(Side)");
        }
    }

    private Side checkedSide(final Side side)
    {
        if (side == null)
        {
            throw new IllegalArgumentException("a null side");
        }
        return side;
    }

    private int checkedInput(final int input)
    {
        if (input < 0 || input >= schemas.length)
        {
            throw new IllegalArgumentException("no input " + input + ": the join has " + schemas.length);
        }
        return input;
    }

    /** Encodes a row given as objects, refusing what the publisher's typed layer refuses; its length or the code. */
    private int encode(final int input, final Row row)
    {
        final String unknown = codecs[input].unknownField(row);
        if (unknown != null)
        {
            return refuse(Publisher.SCHEMA_MISMATCH, unknown);
        }
        final int length = codecs[input].encode(row, encoded, 0, slotCapacity);
        if (length < 0)
        {
            return refuse(Publisher.ROW_TOO_LARGE, "the row does not fit a ring slot of " + slotCapacity + " bytes");
        }
        return length;
    }

    /** The publisher's checks of a binary row (size, format, and for two-input joins the schema), then the operator. */
    private int accept(
        final int input, final ChangeKind kind, final DirectBuffer row, final int offset, final int length, final long ts,
        final long at)
    {
        if (row == null || offset < 0 || length < 0 || length > row.capacity() - offset)
        {
            return refuse(Publisher.INVALID_ARGUMENT, "the arguments do not describe a row inside the buffer");
        }
        if (length > slotCapacity)
        {
            return refuse(Publisher.ROW_TOO_LARGE, "the row is " + length + " bytes, a ring slot holds " + slotCapacity);
        }
        view.wrap(row, offset, length);
        final String malformed = view.validate();
        if (malformed != null)
        {
            return refuse(Publisher.MALFORMED_ROW, malformed);
        }
        if (!multi && !schemas[input].conforms(view))
        {
            refusal.setLength(0);
            schemas[input].appendMismatch(view, refusal);
            return Publisher.SCHEMA_MISMATCH;
        }
        if (spec.kind() == JoinKind.EXPAND && input != 0)
        {
            return refuse(Publisher.EXPANSION_FAILED, "an expand join has one input: its rows are left rows");
        }
        final ExpandedInput expansion = expansions[input];
        if (expansion != null)
        {
            final int made = expansion.feed(kind, view, ts, at);
            if (made < 0)
            {
                return refuse(made == RowExpander.TOO_LARGE ? Publisher.ROW_TOO_LARGE : Publisher.EXPANSION_FAILED,
                    expansion.failure().toString());
            }
            return Publisher.PUBLISHED;
        }
        if (multi)
        {
            operator.onInputRow(input, kind, view, ts, at);
        }
        else
        {
            operator.onRow(Side.of(input), kind, view, ts, at);
        }
        return Publisher.PUBLISHED;
    }

    private int refuse(final int code, final String reason)
    {
        refusal.setLength(0);
        refusal.append(reason);
        return code;
    }

    /** The operator's result, dead-letter, expiry and error handler: copies everything out as values. */
    private static final class Collector implements ResultHandler, DeadLetterHandler, ExpiryHandler, ErrorHandler
    {
        final CollectingResultHandler results;
        final List<MultiResult> multiResults = new ArrayList<>();
        final List<DeadLetter> deadLetters = new ArrayList<>();
        final List<Expiry> expiries = new ArrayList<>();
        final List<Throwable> errors = new ArrayList<>();
        private final Schema[] schemas;

        Collector(final JoinSpec spec, final Schema[] schemas)
        {
            this.results = new CollectingResultHandler(spec);
            this.schemas = schemas;
        }

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp,
            final long step)
        {
            results.onResult(kind, left, right, timestamp, step);
        }

        @Override
        public void onWindowResult(final ChangeKind kind, final RowView left, final RowView right, final long windowStart,
            final long windowEnd, final long step)
        {
            results.onWindowResult(kind, left, right, windowStart, windowEnd, step);
        }

        @Override
        public void onCoGroupResult(final RowView left, final RowView right, final RowView row, final long windowStart,
            final long windowEnd, final long step)
        {
            results.onCoGroupResult(left, right, row, windowStart, windowEnd, step);
        }

        @Override
        public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
        {
            final List<Row> decoded = new ArrayList<>(rows.length);
            for (int i = 0; i < rows.length; i++)
            {
                decoded.add(decode(schemas[i], rows[i]));
            }
            multiResults.add(new MultiResult(kind, Collections.unmodifiableList(decoded), timestamp, step));
        }

        @Override
        public void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
            final DeadLetterReason reason)
        {
            deadLetters.add(new DeadLetter(side.ordinal(), kind, decode(schemas[side.ordinal()], row), ts, step, reason));
        }

        @Override
        public void onMultiDeadLetter(final int input, final ChangeKind kind, final RowView row, final long ts,
            final long step, final DeadLetterReason reason)
        {
            deadLetters.add(new DeadLetter(input, kind, decode(schemas[input], row), ts, step, reason));
        }

        @Override
        public void onExpired(final Side side, final RowView row, final long timestamp, final ExpiryReason reason,
            final long step)
        {
            expiries.add(new Expiry(side, decode(schemas[side.ordinal()], row), timestamp, reason, step));
        }

        @Override
        public void onError(final Throwable throwable)
        {
            errors.add(throwable);
        }

        private static Row decode(final Schema schema, final RowView row)
        {
            return row == null ? null : RowCodec.decode(schema, row);
        }
    }
}
