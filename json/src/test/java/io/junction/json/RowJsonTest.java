package io.junction.json;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.FieldType;
import io.junction.api.RowView;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import java.util.Arrays;

/** The JSON row codec: canonical bytes, SPEC's number rules, and a faithful way back to JSON. */
class RowJsonTest
{
    private final Schema schema = Schema.of("k", "name", "flag", "n", "v", "s", "t", "f", "l", "d", "tiny", "huge",
        "e", "big", "\"odd name\"", "a", "b", "c", "inner");
    private final RowJson codec = new RowJson(schema);

    private byte[] encode(final String json) throws BadInputException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        final int length = codec.encode(json, buffer, 0, 4096);
        assertTrue(length > 0, "encoded " + json);
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private RowView view(final String json) throws BadInputException
    {
        final byte[] bytes = encode(json);
        final RowView view = new RowView().wrap(new UnsafeBuffer(bytes), 0, bytes.length);
        assertEquals(null, view.validate());
        return view;
    }

    private static JsonNode tree(final String json) throws Exception
    {
        return RowJson.mapper().readTree(json);
    }

    @Test
    void equalRowsHaveEqualBytesWhateverTheKeyOrder() throws Exception
    {
        final byte[] a = encode("{\"k\":1,\"name\":\"x\",\"flag\":true,\"n\":null}");
        final byte[] b = encode("{\"n\":null,\"flag\":true,\"name\":\"x\",\"k\":1}");
        assertArrayEquals(a, b);
        assertArrayEquals(encode("{\"k\":1}"), encode("{\"k\":1.0}"), "SEMANTICS 1: 1 equals 1.0");
        assertFalse(Arrays.equals(encode("{\"k\":1}"), encode("{\"k\":\"1\"}")), "\"1\" and 1 differ");
        assertFalse(Arrays.equals(encode("{\"k\":null}"), encode("{}")), "explicit null is not absent");
    }

    @Test
    void numbersFollowSpecEquality() throws Exception
    {
        assertEquals(FieldType.LONG, view("{\"v\":3}").type(schema.indexOf("v")));
        assertEquals(FieldType.LONG, view("{\"v\":3.0}").type(schema.indexOf("v")));
        assertEquals(FieldType.LONG, view("{\"v\":-0.0}").type(schema.indexOf("v")));
        assertEquals(FieldType.LONG, view("{\"v\":9007199254740991.0}").type(schema.indexOf("v")));
        assertEquals(FieldType.LONG, view("{\"v\":9007199254740992.0}").type(schema.indexOf("v")), "2^53 is integral and fits");
        assertEquals(FieldType.DOUBLE, view("{\"v\":3.5}").type(schema.indexOf("v")));
        assertEquals(Long.MAX_VALUE, view("{\"v\":9223372036854775807}").getLong(schema.indexOf("v")));
        final RowView big = view("{\"v\":100000000000000000000000}");
        assertEquals(FieldType.DOUBLE, big.type(schema.indexOf("v")), "an integer beyond a long is a double");
        assertEquals(1e23, big.getDouble(schema.indexOf("v")));
    }

    @Test
    void aNumberIsALongWhenItIsIntegralAndFitsOneOtherwiseTheNearestDouble() throws Exception
    {
        final int v = schema.indexOf("v");
        assertArrayEquals(encode("{\"v\":9007199254740992}"), encode("{\"v\":9007199254740992.0}"),
            "one key on both sides of 2^53");
        assertArrayEquals(encode("{\"v\":1}"), encode("{\"v\":1e0}"));
        assertArrayEquals(encode("{\"v\":1}"), encode("{\"v\":1.00000000000000001}"), "the nearest double is 1.0");
        assertArrayEquals(encode("{\"v\":0}"), encode("{\"v\":-0.0}"));
        assertEquals(9007199254740993L, view("{\"v\":9007199254740993.0}").getLong(v),
            "integral and fits a long: exact, not rounded through a double");
        assertArrayEquals(encode("{\"v\":9007199254740993}"), encode("{\"v\":9007199254740993.0}"));
        assertEquals(4611686018427387904L, view("{\"v\":4.611686018427387904e18}").getLong(v), "2^62 as a decimal");
        assertEquals(Long.MIN_VALUE, view("{\"v\":-9223372036854775808.0}").getLong(v));
        final RowView twoTo63 = view("{\"v\":9223372036854775808.0}");
        assertEquals(FieldType.DOUBLE, twoTo63.type(v), "2^63 does not fit a long");
        assertEquals(0x1p63, twoTo63.getDouble(v));
        assertEquals(FieldType.DOUBLE, view("{\"v\":9223372036854775808}").type(v));
        assertEquals(FieldType.DOUBLE, view("{\"v\":0.5}").type(v));
        assertEquals(0L, view("{\"v\":1e-400}").getLong(v), "underflows to 0.0, which is the integer 0");
        assertEquals(0L, view("{\"v\":1e-999999999}").getLong(v), "a huge exponent is decided without expanding it");
        assertThrows(BadInputException.class, () -> encode("{\"v\":1e999999999}"), "outside the double range");
        assertThrows(BadInputException.class, () -> encode("{\"v\":" + "9".repeat(5_000) + "}"), "too long a number");
    }

    @Test
    void rejectsAFieldNameTheSchemaDoesNotHave()
    {
        final BadInputException e = assertThrows(BadInputException.class, () -> encode("{\"k\":1,\"nope\":2}"));
        assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
        assertEquals(-1, schema.indexOf("nope"), "a schema never grows");
    }

    @Test
    void roundTripsThroughJson() throws Exception
    {
        final String json = "{\"s\":\"quote \\\" backslash \\\\ newline \\n tab \\t ctrl \\u0001 é 😀\"," +
            "\"t\":true,\"f\":false,\"n\":null,\"l\":-42,\"d\":0.1,\"tiny\":4.9E-324,\"huge\":1.7976931348623157E308," +
            "\"e\":1.0E-7,\"big\":1.0E20,\"\\\"odd name\\\"\":1}";
        final String back = RowJson.toJson(schema, view(json));
        assertEquals(tree(json), tree(back), back);
        // and the text is canonical: encoding it again gives the same bytes
        assertArrayEquals(encode(json), encode(back));
    }

    @Test
    void absentFieldsAreOmitted() throws Exception
    {
        encode("{\"a\":1,\"b\":2,\"c\":3}");
        assertEquals("{\"b\":2}", RowJson.toJson(schema, view("{\"b\":2}")));
        assertEquals("{}", RowJson.toJson(schema, view("{}")));
    }

    @Test
    void rejectsRowsThatAreNotFlatObjects()
    {
        final BadInputException nested = assertThrows(BadInputException.class, () -> encode("{\"k\":1,\"inner\":{\"x\":1}}"));
        assertTrue(nested.getMessage().contains("'inner'"), nested.getMessage());
        final BadInputException array = assertThrows(BadInputException.class, () -> encode("{\"list\":[1,2]}"));
        assertTrue(array.getMessage().contains("'list'"), array.getMessage());
        assertThrows(BadInputException.class, () -> encode("[1,2]"));
        assertThrows(BadInputException.class, () -> encode("{\"k\":1,\"k\":2}"), "duplicate names are ambiguous");
        assertThrows(BadInputException.class, () -> encode("{\"k\":1} trailing"));
        assertThrows(BadInputException.class, () -> encode("{\"k\":1e400}"), "outside the double range");
    }

    @Test
    void reportsRowsThatDoNotFit() throws Exception
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        assertEquals(RowJson.TOO_LARGE, codec.encode("{\"s\":\"" + "x".repeat(100) + "\"}", buffer, 0, 64));
        final UnsafeBuffer max = new UnsafeBuffer(new byte[70_000]);
        assertEquals(RowJson.TOO_LARGE, codec.encode("{\"s\":\"" + "x".repeat(66_000) + "\"}", max, 0, 70_000),
            "a string over 64 KiB cannot be held by the row format");
    }
}
