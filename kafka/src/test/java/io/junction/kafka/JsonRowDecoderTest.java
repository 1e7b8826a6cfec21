package io.junction.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.FieldType;
import io.junction.api.RowCodec;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.Schema;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** JSON record values: a value that is not a row and a row too large are told apart from a malformed binary row. */
class JsonRowDecoderTest
{
    private final JsonRowDecoder decoder = new JsonRowDecoder(Schema.of("k", "v"));
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);

    private int decode(final String json)
    {
        return decoder.decode(json.getBytes(StandardCharsets.UTF_8), out);
    }

    @Test
    void invalidJsonAndUnknownFieldsAreUndecodableAndAHugeRowIsTooLarge()
    {
        assertTrue(decode("{\"k\":1,\"v\":2}") > 0);
        assertEquals(RowDecoder.UNDECODABLE, decode("{\"k\":1,"));
        assertEquals(RowDecoder.UNDECODABLE, decode("{\"k\":1,\"nope\":2}"));
        assertEquals(RowDecoder.TOO_LARGE, decode("{\"k\":1,\"v\":\"" + "x".repeat(RowFormat.MAX_ROW_LENGTH) + "\"}"));
    }

    @Test
    void aFailedDecodeSaysWhyAndABadKindHeaderIsNamed()
    {
        assertEquals(RowDecoder.UNDECODABLE, decode("{\"k\":1,"));
        assertTrue(decoder.lastError().startsWith("invalid JSON: "), decoder.lastError());
        assertFalse(decoder.lastError().contains("com.fasterxml"), decoder.lastError());
        assertEquals(RowDecoder.UNDECODABLE, decode("{\"k\":1,\"nope\":2}"));
        assertTrue(decoder.lastError().contains("nope"), decoder.lastError());
        final String header = RecordIngest.badKindHeader("XX".getBytes(StandardCharsets.UTF_8));
        assertTrue(header.contains("\"XX\"") && header.contains("junction.kind"), header);
        assertFalse(header.contains("binary row"), header);
    }

    @Test
    void arraysDecodeToTheBinaryRowAndANestedArrayIsUndecodable()
    {
        final int length = decode("{\"k\":1,\"v\":[{\"sku\":\"A\",\"qty\":2},null]}");
        assertTrue(length > 0, decoder.lastError());
        final RowView row = new RowView().wrap(out, 0, length);
        assertEquals(null, row.validate());
        assertEquals(FieldType.ARRAY, row.type(1));
        assertEquals(Arrays.asList(Map.of("qty", 2L, "sku", "A"), null),
            RowCodec.decode(Schema.of("k", "v"), row).get("v"));
        assertEquals(RowDecoder.UNDECODABLE, decode("{\"k\":1,\"v\":[[1]]}"));
        assertTrue(decoder.lastError().contains("do not nest"), decoder.lastError());
    }
}
