package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.json.ResultJson;
import java.nio.charset.StandardCharsets;
import io.junction.api.JoinKind;
import io.junction.api.ResultKey;
import io.junction.api.Side;
import java.util.List;

/**
 * Writes each result as one JSON object, the replay's output line without its step (the provenance
 * headers say which input caused it): {@code {"op":"+I","left":{...},"right":null,"ts":1000}}. The key is
 * the binary encoder's ({@link ResultEncoder#binary}), so equal join keys have equal record keys.
 * A multi-way join's result has {@code "rows"} keyed by input name instead of left and right.
 * <p>
 * With upsert output ({@code JoinSpec.output() == UPSERT}, docs/SEMANTICS.md 4.6) the records are those of a
 * compacted topic: the key is the result key as the replay writes it, {@code {"left":{"log_id":1}}}
 * ({@link ResultJson#appendResultKey}), an upsert's value the replay's upsert line without its step,
 * {@code {"op":"upsert","key":{"left":{"log_id":1}},"left":{...},"right":null,"ts":1000}}, and a delete's
 * value null: a tombstone, as the binary encoder writes it, so that compaction drops a deleted result key.
 * The lines are {@link ResultJson}'s, so they are the replay's output format. Needs {@code io.junction:junction-json}
 * on the class path (an optional dependency of this module). Thread safe: it keeps no state between calls.
 */
public final class JsonResultEncoder implements ResultEncoder
{
    private final Schema leftSchema;
    private final Schema rightSchema;
    private final ResultEncoder keys;
    /** A multi-way join's input names and schemas, or null. */
    private final List<String> inputNames;
    private final Schema[] inputSchemas;
    /**
     * Upsert output: the unique-key fields of each side in the result key, or null when that side is not
     * part of it; both null for the retraction changelog.
     */
    private final int[] leftResultKey;
    private final int[] rightResultKey;

    /** @param spec the join: its schemas name the fields, its keys make the record key */
    public JsonResultEncoder(final JoinSpec spec)
    {
        if (spec == null)
        {
            throw new IllegalArgumentException("spec is required");
        }
        this.leftSchema = spec.leftSchema();
        this.rightSchema = spec.rightSchema();
        this.keys = ResultEncoder.binary(spec);
        final ResultKey resultKey = spec.resultKey();
        this.leftResultKey = resultKey != null && resultKey.includes(Side.LEFT) ? indexes(leftSchema, spec.leftUniqueKey()) : null;
        this.rightResultKey = resultKey != null && resultKey.includes(Side.RIGHT) ? indexes(rightSchema, spec.rightUniqueKey()) : null;
        if (spec.kind() == JoinKind.MULTI)
        {
            inputNames = spec.multi().names();
            inputSchemas = new Schema[inputNames.size()];
            for (int i = 0; i < inputSchemas.length; i++)
            {
                inputSchemas[i] = spec.multi().schema(i);
            }
        }
        else
        {
            inputNames = null;
            inputSchemas = null;
        }
    }

    @Override
    public byte[] key(final ChangeKind kind, final RowView[] rows, final long timestamp)
    {
        return keys.key(kind, rows, timestamp);
    }

    /** A multi-way join's result (SEMANTICS 10): {@code {"op":"+I","rows":{"orders":{...},"payments":null},"ts":1000}}. */
    @Override
    public byte[] value(final ChangeKind kind, final RowView[] rows, final long timestamp)
    {
        if (inputNames == null)
        {
            return ResultEncoder.super.value(kind, rows, timestamp);
        }
        final StringBuilder out = new StringBuilder(128).append('{');
        ResultJson.appendMultiChange(out, kind, inputNames, inputSchemas, rows);
        out.append(",\"ts\":").append(timestamp).append('}');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] key(final ChangeKind kind, final RowView left, final RowView right, final long timestamp)
    {
        if (leftResultKey != null || rightResultKey != null)
        {
            return ResultJson.appendResultKey(new StringBuilder(64), leftSchema, left, leftResultKey, rightSchema, right,
                rightResultKey).toString().getBytes(StandardCharsets.UTF_8);
        }
        return keys.key(kind, left, right, timestamp);
    }

    @Override
    public byte[] value(final ChangeKind kind, final RowView left, final RowView right, final long timestamp)
    {
        if (leftResultKey != null || rightResultKey != null)
        {
            if (!kind.isAccumulate())
            {
                return null; // upsert output: a delete is a tombstone of its result key
            }
            final StringBuilder out = new StringBuilder(160).append('{');
            ResultJson.appendUpsert(out, kind, leftSchema, left, leftResultKey, rightSchema, right, rightResultKey);
            return out.append(",\"ts\":").append(timestamp).append('}').toString().getBytes(StandardCharsets.UTF_8);
        }
        return ResultJson.toJson(kind, leftSchema, left, rightSchema, right, timestamp).getBytes(StandardCharsets.UTF_8);
    }

    private static int[] indexes(final Schema schema, final List<String> fields)
    {
        final int[] indexes = new int[fields.size()];
        for (int i = 0; i < indexes.length; i++)
        {
            indexes[i] = schema.indexOf(fields.get(i));
        }
        return indexes;
    }

    @Override
    public String toString()
    {
        return "JsonResultEncoder";
    }
}
