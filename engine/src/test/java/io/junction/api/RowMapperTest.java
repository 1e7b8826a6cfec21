package io.junction.api;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RowMapper}: records in schema order, resolved once, both ways. */
class RowMapperTest
{
    public record Paid(long order_id, String method, Double amount) { }

    public record Wrong(long order_id, long method, Double amount) { }

    public record Misnamed(long orderId, String method, Double amount) { }

    private static final Schema SCHEMA = Schema.of(Field.longField("order_id").required(), Field.string("method"),
        Field.doubleField("amount"));

    @Test
    void shouldMapViewsAndRowsToRecordsAndBack()
    {
        final RowMapper<Paid> mapper = RowMapper.of(Paid.class, SCHEMA);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        final RowCodec codec = new RowCodec(SCHEMA);
        final RowView view = new RowView();
        view.wrap(buffer, 0, codec.encode(Row.of("order_id", 7L, "method", "card", "amount", 3L), buffer, 0, 128));
        assertEquals(new Paid(7, "card", 3.0), mapper.map(view), "an integral amount (written as a long) reads as a double");
        view.wrap(buffer, 0, codec.encode(Row.of("order_id", 8L), buffer, 0, 128));
        assertEquals(new Paid(8, null, null), mapper.map(view), "absent optional fields are null");
        assertNull(mapper.map((RowView)null), "a padded side");
        final Paid paid = new Paid(9, "cash", 2.5);
        assertEquals(Row.of("order_id", 9L, "method", "cash", "amount", 2.5), mapper.toRow(paid));
        assertEquals(paid, mapper.map(mapper.toRow(paid)));
    }

    @Test
    void shouldRefuseARecordThatDoesNotFitTheSchemaAtSetUp()
    {
        final IllegalArgumentException type = assertThrows(IllegalArgumentException.class, () -> RowMapper.of(Wrong.class, SCHEMA));
        assertTrue(type.getMessage().contains("Wrong.method"), type.getMessage());
        final IllegalArgumentException name = assertThrows(IllegalArgumentException.class, () -> RowMapper.of(Misnamed.class, SCHEMA));
        assertTrue(name.getMessage().contains("'order_id'"), name.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RowMapper.of(Paid.class, Schema.of("order_id", "method")));
    }

    @Test
    void shouldRefuseAMissingValueForAPrimitiveComponent()
    {
        final RowMapper<Paid> mapper = RowMapper.of(Paid.class, Schema.of("order_id", "method", "amount"));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> mapper.map(Row.of("method", "x")));
        assertTrue(e.getMessage().contains("'order_id'"), e.getMessage());
    }
}
