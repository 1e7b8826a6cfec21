package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.json.ResultJson;
import java.nio.charset.StandardCharsets;
import io.junction.api.JoinKind;
import java.util.List;

/**
 * Writes each result as one JSON object, the replay's output line without its step (the provenance
 * headers say which input caused it): {@code {"op":"+I","left":{...},"right":null,"ts":1000}}. The key is
 * the binary encoder's ({@link ResultEncoder#binary}), so equal join keys have equal record keys.
 * A multi-way join's result has {@code "rows"} keyed by input name instead of left and right.
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
        return keys.key(kind, left, right, timestamp);
    }

    @Override
    public byte[] value(final ChangeKind kind, final RowView left, final RowView right, final long timestamp)
    {
        return ResultJson.toJson(kind, leftSchema, left, rightSchema, right, timestamp).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString()
    {
        return "JsonResultEncoder";
    }
}
