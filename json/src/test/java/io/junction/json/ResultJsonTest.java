package io.junction.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Schema;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Assertions;

/** The result JSON: the members shared by the replay's lines and the Kafka runner's JSON records. */
class ResultJsonTest
{
    private final Schema schema = Schema.of("k", "v", "s");

    private RowView row(final String json) throws BadInputException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = new RowJson(schema).encode(json, buffer, 0, 256);
        return new RowView().wrap(buffer, 0, length);
    }

    @Test
    void aTwoInputResultWithAPaddedSide() throws Exception
    {
        assertEquals("{\"op\":\"+I\",\"left\":{\"k\":1,\"v\":2.5},\"right\":null,\"ts\":1000}",
            ResultJson.toJson(ChangeKind.INSERT, schema, row("{\"v\":2.5,\"k\":1}"), schema, null, 1000));
        final StringBuilder out = new StringBuilder("{\"step\":3,");
        ResultJson.appendChange(out, ChangeKind.DELETE, schema, row("{\"k\":1}"), schema, row("{\"k\":1,\"s\":\"a\\\"b\"}"));
        assertEquals("{\"step\":3,\"op\":\"-D\",\"left\":{\"k\":1},\"right\":{\"k\":1,\"s\":\"a\\\"b\"}", out.toString());
    }

    @Test
    void aMultiWayResultKeysRowsByInputName() throws Exception
    {
        final StringBuilder out = new StringBuilder("{");
        ResultJson.appendMultiChange(out, ChangeKind.UPDATE_AFTER, List.of("orders", "payments"),
            new Schema[] {schema}, new RowView[] {row("{\"k\":7}"), null});
        assertEquals("{\"op\":\"+U\",\"rows\":{\"orders\":{\"k\":7},\"payments\":null}", out.toString());
    }

    @Test
    void anUpsertLineNamesItsResultKeyAndADeleteSaysSo() throws Exception
    {
        final int[] k = {0};
        assertEquals("{\"left\":{\"k\":1},\"right\":null}",
            ResultJson.appendResultKey(new StringBuilder(), schema, row("{\"k\":1,\"v\":2}"), k, schema, null, k).toString());
        assertEquals("{\"right\":{\"k\":\"x\"}}",
            ResultJson.appendResultKey(new StringBuilder(), schema, null, null, schema, row("{\"k\":\"x\"}"), k).toString());
        final StringBuilder out = new StringBuilder("{");
        ResultJson.appendUpsert(out, ChangeKind.UPDATE_AFTER, schema, row("{\"k\":1,\"v\":2}"), k, schema, null, null);
        assertEquals("{\"op\":\"upsert\",\"key\":{\"left\":{\"k\":1}},\"left\":{\"k\":1,\"v\":2},\"right\":null",
            out.toString());
        out.setLength(0);
        ResultJson.appendUpsert(out, ChangeKind.DELETE, schema, row("{\"k\":1}"), k, schema, null, null);
        assertEquals("\"op\":\"delete\",\"key\":{\"left\":{\"k\":1}},\"left\":{\"k\":1},\"right\":null", out.toString());
    }

    @Test
    void theEntryPointsRefuseNothingToWorkOn()
    {
        Assertions.assertThrows(IllegalArgumentException.class, () -> new RowJson((Schema) null));
        final JoinSpecException e = Assertions.assertThrows(JoinSpecException.class,
            () -> JoinSpecJson.parse((String) null));
        assertEquals("spec", e.field());
    }
}
