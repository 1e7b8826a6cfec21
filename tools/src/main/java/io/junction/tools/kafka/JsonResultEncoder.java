package io.junction.tools.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.kafka.ResultEncoder;
import io.junction.tools.json.RowJson;
import java.nio.charset.StandardCharsets;

/**
 * Writes each result as one JSON object, the replay's output line without its step (the provenance
 * headers say which input caused it): {@code {"op":"+I","left":{...},"right":null,"ts":1000}}. The key is
 * the binary encoder's ({@link ResultEncoder#binary}), so equal join keys have equal record keys.
 * Thread safe: it keeps no state between calls.
 */
public final class JsonResultEncoder implements ResultEncoder {
    private final Schema leftSchema;
    private final Schema rightSchema;
    private final ResultEncoder keys;

    /** @param spec the join: its schemas name the fields, its keys make the record key */
    public JsonResultEncoder(final JoinSpec spec) {
        this.leftSchema = spec.leftSchema();
        this.rightSchema = spec.rightSchema();
        this.keys = ResultEncoder.binary(spec);
    }

    @Override
    public byte[] key(final ChangeKind kind, final RowView left, final RowView right, final long timestamp) {
        return keys.key(kind, left, right, timestamp);
    }

    @Override
    public byte[] value(final ChangeKind kind, final RowView left, final RowView right, final long timestamp) {
        final StringBuilder out = new StringBuilder(128);
        out.append("{\"op\":\"").append(kind.shortString()).append("\",\"left\":");
        if (left == null) {
            out.append("null");
        } else {
            RowJson.appendJson(leftSchema, left, out);
        }
        out.append(",\"right\":");
        if (right == null) {
            out.append("null");
        } else {
            RowJson.appendJson(rightSchema, right, out);
        }
        out.append(",\"ts\":").append(timestamp).append('}');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "JsonResultEncoder";
    }
}
