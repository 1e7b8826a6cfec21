package io.junction.tools.replay;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.JoinSpec;
import io.junction.api.OutputMode;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.json.ResultJson;
import io.junction.json.RowJson;
import java.util.ArrayList;
import java.util.List;
import io.junction.api.MultiJoinSpec;

/**
 * The result and dead-letter handler of one partition during a replay. Rows handed to a handler are
 * flyweights valid only during the call, so each result is rendered to its JSON line at once and
 * kept with its step; the replay merges the partitions' lines by step after the engine has closed.
 * <p>
 * Not thread safe: called by its partition thread only; read by the replay thread after
 * {@link io.junction.runtime.JoinEngine#close()} has returned (which waits for the partition thread,
 * so the lists are safely published).
 */
final class PartitionCollector implements ResultHandler, DeadLetterHandler, ExpiryHandler
{
    private final Schema schema;
    /** {@link #schema} as the one schema of every input of a multi-way join. */
    private final Schema[] singleSchema;
    /** The field names of a window coGroup's computed rows, or null. */
    private final Schema coGroupSchema;
    private final StringBuilder line = new StringBuilder(256);
    private final List<StepLine> results = new ArrayList<>();
    private final List<StepLine> deadLetters = new ArrayList<>();
    /** Durable replays: lines go to these files as they are produced (null: kept in the lists). */
    private final Spool resultSpool;
    private final Spool deadLetterSpool;
    /** SEMANTICS 4.5-4.7 upsert output: the unique-key fields of each side in the result key (null: not in it), or both null. */
    private int[] leftKeyFields;
    private int[] rightKeyFields;
    private boolean upsert;
    /** Expired rows ({@code --expired}), kept in memory. */
    private final List<StepLine> expired = new ArrayList<>();
    /** A multi-way join's input names (SEMANTICS 10 output {@code "rows"}), or null. */
    private List<String> inputNames;

    PartitionCollector(final Schema schema, final Schema coGroupSchema)
    {
        this(schema, coGroupSchema, null, null);
    }

    PartitionCollector(final Schema schema, final Schema coGroupSchema, final Spool resultSpool, final Spool deadLetterSpool)
    {
        this.schema = schema;
        this.singleSchema = new Schema[] {schema};
        this.coGroupSchema = coGroupSchema;
        this.resultSpool = resultSpool;
        this.deadLetterSpool = deadLetterSpool;
    }

    /**
     * Takes the output shape of the spec: with upsert output (SEMANTICS 4.5-4.7) lines are
     * {@code {"step":S,"op":"upsert"|"delete","key":{"left":{..},"right":{..}},"left":..,"right":..}}, the key
     * holding the parts {@link JoinSpec#resultKey()} names ({@code null} for a padded side).
     *
     * @param spec the join run
     * @return this
     */
    PartitionCollector output(final JoinSpec spec)
    {
        upsert = spec.output() == OutputMode.UPSERT;
        if (upsert)
        {
            leftKeyFields = spec.resultKey().includes(Side.LEFT) ? indexes(spec.leftSchema(), spec.leftUniqueKey()) : null;
            rightKeyFields = spec.resultKey().includes(Side.RIGHT) ? indexes(spec.rightSchema(), spec.rightUniqueKey()) : null;
        }
        return this;
    }

    private static int[] indexes(final Schema schema, final List<String> names)
    {
        final int[] fields = new int[names.size()];
        for (int i = 0; i < fields.length; i++)
        {
            fields[i] = schema.indexOf(names.get(i));
        }
        return fields;
    }

    /** Visible expiry: {@code {"step":S,"side":"left","reason":"state-ttl","ts":T,"row":{..}}}. */
    @Override
    public void onExpired(final Side side, final RowView row, final long timestamp, final ExpiryReason reason, final long step)
    {
        final StringBuilder sb = line;
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(",\"side\":\"").append(side.jsonName()).append("\",\"reason\":\"")
            .append(reason.jsonName()).append("\",\"ts\":").append(timestamp).append(",\"row\":");
        RowJson.appendJson(schema, row, sb);
        expired.add(new StepLine(step, sb.append('}').toString()));
    }

    /** @return the rendered expired rows, in the order this partition dropped them */
    List<StepLine> expired()
    {
        return expired;
    }

    /** A multi-way join: results are written with {@code "rows"} keyed by input name (SEMANTICS 10). */
    void multiInputs(final MultiJoinSpec multi)
    {
        this.inputNames = multi == null ? null : multi.names();
    }

    /** SEMANTICS 10: {@code {"step":S,"op":"+I","rows":{"orders":{...},"payments":null}}}. */
    @Override
    public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
    {
        final StringBuilder sb = line;
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(',');
        ResultJson.appendMultiChange(sb, kind, inputNames, singleSchema, rows);
        result(step, sb.append('}').toString());
    }

    @Override
    public void onMultiDeadLetter(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step,
        final DeadLetterReason reason)
    {
        final String side = inputNames != null && input >= 0 && input < inputNames.size()
            ? inputNames.get(input) : (input == 0 ? Side.LEFT : Side.RIGHT).jsonName();
        final String json = deadLetterLine(schema, line, side, kind, row, ts, step, reason.message());
        if (deadLetterSpool != null)
        {
            deadLetterSpool.append(json);
        }
        else
        {
            deadLetters.add(new StepLine(step, json));
        }
    }

    private void result(final long step, final String json)
    {
        if (resultSpool != null)
        {
            resultSpool.append(json);
        }
        else
        {
            results.add(new StepLine(step, json));
        }
    }

    /**
     * Records the checkpoint at {@code position} in both spools and makes them durable ({@link Spool#mark}): on
     * the partition thread at the checkpoint's barrier, before the state is persisted.
     */
    void checkpoint(final long position)
    {
        if (resultSpool != null)
        {
            resultSpool.mark(position, "");
            deadLetterSpool.mark(position, "");
        }
    }

    @Override
    public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        if (upsert)
        {
            result(step, upsertLine(kind, left, right, step));
            return;
        }
        result(step, resultLine(kind, left, right, step).append('}').toString());
    }

    private String upsertLine(final ChangeKind kind, final RowView left, final RowView right, final long step)
    {
        final StringBuilder sb = line;
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(',');
        ResultJson.appendUpsert(sb, kind, schema, left, leftKeyFields, schema, right, rightKeyFields);
        return sb.append('}').toString();
    }

    @Override
    public void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right, final long windowStart, final long windowEnd,
        final long step)
    {
        final StringBuilder sb = resultLine(kind, left, right, step);
        sb.append(",\"window\":[").append(windowStart).append(',').append(windowEnd).append("]}");
        result(step, sb.toString());
    }

    /** SEMANTICS 6.4: a computed row is written as {@code "row"}, after left and right, before the window. */
    @Override
    public void onCoGroupResult(
        final RowView left, final RowView right, final RowView row, final long windowStart, final long windowEnd,
        final long step)
    {
        final StringBuilder sb = resultLine(ChangeKind.INSERT, left, right, step);
        sb.append(",\"row\":");
        RowJson.appendJson(coGroupSchema, row, sb);
        sb.append(",\"window\":[").append(windowStart).append(',').append(windowEnd).append("]}");
        result(step, sb.toString());
    }

    @Override
    public void onDeadLetter(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
        final DeadLetterReason reason)
    {
        final String json = deadLetterLine(schema, line, side, kind, row, ts, step, reason.message());
        if (deadLetterSpool != null)
        {
            deadLetterSpool.append(json);
        }
        else
        {
            deadLetters.add(new StepLine(step, json));
        }
    }

    private StringBuilder resultLine(final ChangeKind kind, final RowView left, final RowView right, final long step)
    {
        final StringBuilder sb = line;
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(',');
        return ResultJson.appendChange(sb, kind, schema, left, schema, right);
    }

    private void appendRow(final StringBuilder sb, final RowView row)
    {
        if (row == null)
        {
            sb.append("null");
        }
        else
        {
            RowJson.appendJson(schema, row, sb);
        }
    }

    /**
     * Renders a dead letter of a row: {@code {"step":S,"reason":"...","code":"late","side":"left","op":"+I","ts":T,"row":{...}}}
     * ({@link DeadLetterCodes}).
     *
     * @param schema field names
     * @param sb     a reusable builder (cleared first)
     * @param side   the row's input
     * @param kind   its change kind
     * @param row    the row, or null when it could not be read
     * @param ts     its event time
     * @param step   its step
     * @param reason why it was not processed
     * @return the line
     */
    static String deadLetterLine(
        final Schema schema, final StringBuilder sb, final Side side, final ChangeKind kind, final RowView row,
        final long ts, final long step, final String reason)
    {
        return deadLetterLine(schema, sb, side.jsonName(), kind, row, ts, step, reason);
    }

    /** As {@link #deadLetterLine(Schema, StringBuilder, Side, ChangeKind, RowView, long, long, String)}, the side by name. */
    static String deadLetterLine(
        final Schema schema, final StringBuilder sb, final String side, final ChangeKind kind, final RowView row,
        final long ts, final long step, final String reason)
    {
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(",\"reason\":");
        RowJson.appendString(sb, reason);
        sb.append(",\"code\":\"").append(DeadLetterCodes.ofText(reason)).append('"');
        sb.append(",\"side\":");
        RowJson.appendString(sb, side);
        sb.append(",\"op\":\"").append(kind.shortString())
            .append("\",\"ts\":").append(ts).append(",\"row\":");
        if (row == null)
        {
            sb.append("null");
        }
        else
        {
            RowJson.appendJson(schema, row, sb);
        }
        return sb.append('}').toString();
    }

    /** @return the rendered results, in the order this partition produced them */
    List<StepLine> results()
    {
        return results;
    }

    /** @return the rendered dead letters, in the order this partition produced them */
    List<StepLine> deadLetters()
    {
        return deadLetters;
    }
}
