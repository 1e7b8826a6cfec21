package io.junction.json;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Schema;
import java.util.List;

/**
 * The result JSON of the replay format (SEMANTICS 1 "Output", SEMANTICS 1.3): the members a result line
 * shares wherever it is written, {@code "op":"+I","left":{...},"right":null} for a two-input join and
 * {@code "op":"+I","rows":{"orders":{...},"payments":null}} for a multi-way join (SEMANTICS 10). The
 * caller adds what its medium needs around them: the replay writes {@code {"step":S, ...}}, the
 * Kafka runner's JSON encoder {@code {..., "ts":T}} (its provenance headers carry the step).
 * <p>
 * Rows are written by {@link RowJson#appendJson(Schema, RowView, StringBuilder)}: absent fields
 * omitted, explicit nulls as {@code null}, a padded (missing) side as {@code null}. The methods read
 * the rows during the call only, so they may be called from a result handler with its flyweights.
 * Thread safe (stateless).
 */
public final class ResultJson
{
    private ResultJson()
    {
    }

    /**
     * Appends {@code "op":"+I","left":...,"right":...} (no braces).
     *
     * @param out         destination
     * @param kind        the change
     * @param leftSchema  names of the left row's fields
     * @param left        the left row, or null when padded
     * @param rightSchema names of the right row's fields
     * @param right       the right row, or null when padded
     * @return out
     */
    public static StringBuilder appendChange(
        final StringBuilder out, final ChangeKind kind, final Schema leftSchema, final RowView left,
        final Schema rightSchema, final RowView right)
    {
        out.append("\"op\":\"").append(kind.shortString()).append("\",\"left\":");
        appendRow(out, leftSchema, left);
        out.append(",\"right\":");
        return appendRow(out, rightSchema, right);
    }

    /**
     * Appends a multi-way join's {@code "op":"+I","rows":{"a":{...},"b":null}} (no braces), the rows keyed
     * by input name in input order.
     *
     * @param out     destination
     * @param kind    the change
     * @param names   the inputs' names, in input order
     * @param schemas the inputs' schemas, in input order (one schema may serve all)
     * @param rows    one row per input, null where padded
     * @return out
     */
    public static StringBuilder appendMultiChange(
        final StringBuilder out, final ChangeKind kind, final List<String> names, final Schema[] schemas,
        final RowView[] rows)
    {
        out.append("\"op\":\"").append(kind.shortString()).append("\",\"rows\":{");
        for (int i = 0; i < rows.length; i++)
        {
            if (i > 0)
            {
                out.append(',');
            }
            RowJson.appendString(out, names.get(i)).append(':');
            appendRow(out, schemas[Math.min(i, schemas.length - 1)], rows[i]);
        }
        return out.append('}');
    }

    /**
     * Appends an upsert output line's members (docs/SEMANTICS.md 4.6), no braces:
     * {@code "op":"upsert","key":{"left":{...}},"left":{...},"right":null}, {@code "delete"} for a change that
     * is not an accumulate. The replay writes {@code {"step":S, ...}} around them, the Kafka runner's JSON
     * encoder {@code {..., "ts":T}} (its record key is {@link #appendResultKey}'s object, a delete a tombstone).
     *
     * @param out            destination
     * @param kind           the change: {@code +I}/{@code +U} an upsert, {@code -U}/{@code -D} a delete
     * @param leftSchema     names of the left row's fields
     * @param left           the left row, or null when padded
     * @param leftKeyFields  the left unique key's field indices, or null when the result key has no left part
     * @param rightSchema    names of the right row's fields
     * @param right          the right row, or null when padded
     * @param rightKeyFields the right unique key's field indices, or null when the result key has no right part
     * @return out
     */
    public static StringBuilder appendUpsert(
        final StringBuilder out, final ChangeKind kind, final Schema leftSchema, final RowView left,
        final int[] leftKeyFields, final Schema rightSchema, final RowView right, final int[] rightKeyFields)
    {
        out.append("\"op\":\"").append(kind.isAccumulate() ? "upsert" : "delete").append("\",\"key\":");
        appendResultKey(out, leftSchema, left, leftKeyFields, rightSchema, right, rightKeyFields);
        out.append(",\"left\":");
        appendRow(out, leftSchema, left);
        out.append(",\"right\":");
        return appendRow(out, rightSchema, right);
    }

    /**
     * Appends upsert output's result key (docs/SEMANTICS.md 4.6) as a JSON object: {@code {"left":{"id":1}}},
     * {@code {"right":{...}}} or both, the parts the result key has, each that side's unique-key fields of its
     * row in declaration order, or {@code null} for a padded side. Equal result keys give equal text.
     *
     * @param out            destination
     * @param leftSchema     names of the left row's fields
     * @param left           the left row, or null when padded
     * @param leftKeyFields  the left unique key's field indices, or null when the result key has no left part
     * @param rightSchema    names of the right row's fields
     * @param right          the right row, or null when padded
     * @param rightKeyFields the right unique key's field indices, or null when the result key has no right part
     * @return out
     */
    public static StringBuilder appendResultKey(
        final StringBuilder out, final Schema leftSchema, final RowView left, final int[] leftKeyFields,
        final Schema rightSchema, final RowView right, final int[] rightKeyFields)
    {
        out.append('{');
        if (leftKeyFields != null)
        {
            out.append("\"left\":");
            appendKeyPart(out, leftSchema, left, leftKeyFields);
        }
        if (rightKeyFields != null)
        {
            if (leftKeyFields != null)
            {
                out.append(',');
            }
            out.append("\"right\":");
            appendKeyPart(out, rightSchema, right, rightKeyFields);
        }
        return out.append('}');
    }

    private static void appendKeyPart(final StringBuilder out, final Schema schema, final RowView row, final int[] fields)
    {
        if (row == null)
        {
            out.append("null");
        }
        else
        {
            RowJson.appendJson(schema, row, fields, out);
        }
    }

    /**
     * Appends a row as a JSON object, or {@code null} for a padded side.
     *
     * @param out    destination
     * @param schema names of the row's fields
     * @param row    the row, or null
     * @return out
     */
    public static StringBuilder appendRow(final StringBuilder out, final Schema schema, final RowView row)
    {
        if (row == null)
        {
            return out.append("null");
        }
        return RowJson.appendJson(schema, row, out);
    }

    /**
     * One result as a standalone JSON object with its event time:
     * {@code {"op":"+I","left":{...},"right":null,"ts":1000}}.
     *
     * @param kind        the change
     * @param leftSchema  names of the left row's fields
     * @param left        the left row, or null when padded
     * @param rightSchema names of the right row's fields
     * @param right       the right row, or null when padded
     * @param timestamp   the result's event time
     * @return the JSON text
     */
    public static String toJson(
        final ChangeKind kind, final Schema leftSchema, final RowView left, final Schema rightSchema,
        final RowView right, final long timestamp)
    {
        final StringBuilder out = new StringBuilder(128).append('{');
        appendChange(out, kind, leftSchema, left, rightSchema, right);
        return out.append(",\"ts\":").append(timestamp).append('}').toString();
    }
}
