package io.junction.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.junction.api.Field;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * JSON numbers are typed by shape ({@code 101} is a long), but a schema-typed read of a double field
 * gives a double; a row field the schema lacks is named with the closest field.
 */
class TypedRowJsonTest
{
    private static final Schema QUOTES = Schema.of(Field.string("sym"), Field.doubleField("bid"), Field.longField("size"), Field.any("n"));

    @Test
    void shouldDecodeAWholeJsonNumberInADoubleFieldAsADouble() throws BadInputException
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = new RowJson(QUOTES).encode("{\"sym\":\"X\",\"bid\":101,\"size\":3,\"n\":4}", buffer, 0, 256);
        final Row row = RowCodec.decode(QUOTES, new RowView().wrap(buffer, 0, length));
        assertInstanceOf(Double.class, row.get("bid"), row.toString());
        assertEquals(101.0, (Double)row.get("bid"));
        assertInstanceOf(Long.class, row.get("size"), "a long field stays a long");
        assertInstanceOf(Long.class, row.get("n"), "an untyped field keeps the JSON number's shape");
        assertEquals(101.0, new RowView().wrap(buffer, 0, length).getDouble(QUOTES.ref("bid")));
    }

    @Test
    void shouldNameTheClosestFieldOfAnUnknownOne()
    {
        final BadInputException e = assertThrows(BadInputException.class,
            () -> new RowJson(QUOTES).encode("{\"sym\":\"X\",\"bdi\":1}", new UnsafeBuffer(new byte[256]), 0, 256));
        assertEquals("row field 'bdi' is not in the schema (did you mean 'bid'?)", e.getMessage());
    }
}
