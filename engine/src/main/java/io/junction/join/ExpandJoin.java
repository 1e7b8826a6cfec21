package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.JoinCondition;
import io.junction.internal.row.RowExpander;
import io.junction.internal.row.RowPredicate;
import io.junction.metrics.OperatorCounters;
import org.agrona.ErrorHandler;

/**
 * The standalone row expansion ({@link io.junction.api.JoinKind#EXPAND}, docs/SEMANTICS.md, "Row expansion"):
 * each left row is emitted with each row its expansion makes, as {@code (left: the row, right: the new
 * fields)}, at its step and with its op, where the ON clause ({@code leftFilter} and {@code condition})
 * holds; a left expand join emits a row that keeps nothing once, padded. Keeps no state: retractions pass
 * through unchecked and watermarks change nothing. Runs on its partition's thread; allocation-free.
 */
final class ExpandJoin implements JoinOperator, RowExpander.Sink
{
    private final RowExpander expander;
    private final RowPredicate leftFilter;
    private final JoinCondition condition;
    private final boolean padded;
    private final ResultHandler results;
    private final DeadLetterHandler deadLetters;
    private final ErrorHandler errors;
    private final JoinCounters counters = new JoinCounters();

    private RowView input;
    private ChangeKind kind;
    private long ts;
    private long step;
    private int kept;
    private boolean failed;

    ExpandJoin(final JoinSpec spec, final StateConfig config, final ResultHandler results,
        final DeadLetterHandler deadLetters, final ErrorHandler errors)
    {
        final CompiledJoin compiled = CompiledJoin.of(spec);
        this.expander = new RowExpander(spec.expand(), spec.leftSchema(), RowFormat.MAX_ROW_LENGTH, false, true);
        this.leftFilter = compiled.filter(Side.LEFT);
        this.condition = compiled.condition();
        this.padded = spec.type() == JoinType.LEFT;
        this.results = results;
        this.deadLetters = deadLetters;
        this.errors = errors;
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        counters.rowsIn++;
        if (side != Side.LEFT)
        {
            // One input: the publisher routes no right rows here; a hostile caller's is a bad input.
            counters.badInputs++;
            deadLetters.onDeadLetter(side, kind, row, ts, step, DeadLetterReason.EXPANSION_FAILED);
            return;
        }
        this.input = row;
        this.kind = kind;
        this.ts = ts;
        this.step = step;
        this.kept = 0;
        this.failed = false;
        final boolean passes;
        try
        {
            passes = leftFilter.test(row);
        }
        catch (final RuntimeException e)
        {
            fail(e, row, DeadLetterReason.PREDICATE_FAILED);
            return;
        }
        final int made = passes ? expander.expand(row, this) : 0;
        if (failed)
        {
            return;
        }
        if (made < 0)
        {
            // The publisher checked the row; a row published to a partition by its index is checked here.
            counters.badInputs++;
            deadLetters.onDeadLetter(side, kind, row, ts, step, DeadLetterReason.EXPANSION_FAILED);
            return;
        }
        if (kept == 0 && padded)
        {
            counters.rowsOut++;
            results.onResult(kind, row, null, ts, step);
        }
    }

    @Override
    public boolean onRow(final RowView made, final int ordinal)
    {
        final boolean holds;
        try
        {
            holds = condition.acceptsAll() || condition.test(input, made);
        }
        catch (final RuntimeException e)
        {
            fail(e, input, DeadLetterReason.PREDICATE_FAILED);
            return false;
        }
        if (holds)
        {
            kept++;
            counters.rowsOut++;
            results.onResult(kind, input, made, ts, step);
        }
        return true;
    }

    private void fail(final RuntimeException e, final RowView row, final DeadLetterReason reason)
    {
        failed = true;
        counters.badInputs++;
        counters.predicateFailures++;
        if (errors != null)
        {
            errors.onError(e); // a user condition's failure; the row's dead letter says which row
        }
        deadLetters.onDeadLetter(Side.LEFT, kind, row, ts, step, reason);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        counters.watermark = Math.max(counters.watermark, watermark);
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        counters.watermark = Math.max(counters.watermark, watermark);
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
    }

    @Override
    public void onEndOfInput(final long step)
    {
    }

    @Override
    public OperatorCounters counters()
    {
        return counters;
    }

    @Override
    public void close()
    {
    }
}
