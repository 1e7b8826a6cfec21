package io.junction.api;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Field names resolved once to positions: the same reads as by index, and a misspelt name fails at setup. */
class FieldRefTest
{
    private final Schema schema = Schema.of(
        Field.longField("order_id").required(), Field.string("method"), Field.doubleField("amount"), Field.any("note"),
        Field.booleanField("paid"));

    @Test
    void readsAndWritesThroughAReferenceAreThePositionalOnes()
    {
        final FieldRef orderId = schema.ref("order_id");
        final FieldRef method = schema.ref("method", FieldType.STRING);
        final FieldRef amount = schema.ref("amount");
        final FieldRef note = schema.ref("note");
        final FieldRef paid = schema.ref("paid");
        assertEquals(0, orderId.index());
        assertEquals(2, amount.index());
        assertEquals(FieldType.LONG, orderId.type());
        assertEquals(Field.ANY, note.type());

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = new RowWriter().wrap(buffer, 0, 256, schema.size())
            .putLong(orderId, 42).putAscii(method, "card").putDouble(amount, 9.5).putNull(note).putBoolean(paid, true)
            .finish();
        final RowView row = new RowView().wrap(buffer, 0, length);
        assertTrue(schema.conforms(row));
        assertEquals(42, row.getLong(orderId));
        assertEquals(row.getLong(0), row.getLong(orderId));
        assertEquals("card", row.getString(method));
        assertEquals(4, row.stringLength(method));
        assertEquals(row.stringBytesIndex(1), row.stringBytesIndex(method));
        assertEquals(9.5, row.getDouble(amount));
        assertEquals(9.5, row.getNumberAsDouble(amount));
        assertTrue(row.isNull(note));
        assertEquals(FieldType.NULL, row.type(note));
        assertTrue(row.getBoolean(paid));
        assertFalse(row.isNull(orderId));
    }

    @Test
    void aMisspeltNameFailsAtResolutionNamingTheClosestField()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> schema.ref("ordr_id"));
        assertTrue(e.getMessage().startsWith("no field 'ordr_id' in Schema["), e.getMessage());
        assertTrue(e.getMessage().endsWith("did you mean 'order_id'?"), e.getMessage());
        final IllegalArgumentException far = assertThrows(IllegalArgumentException.class, () -> schema.ref("zzzzzzzz"));
        assertFalse(far.getMessage().contains("did you mean"), far.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Schema.of("a", "b").ref(null));
    }

    @Test
    void aTypedReferenceRefusesAFieldDeclaredOfAnotherType()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> schema.ref("order_id", FieldType.STRING));
        assertTrue(e.getMessage().startsWith("field 'order_id' is declared long, not string"), e.getMessage());
        assertEquals(3, schema.ref("note", FieldType.LONG).index(), "an untyped field is taken as any type");
        assertEquals(1, Schema.of("a", "b").ref("b", FieldType.DOUBLE).index());
        final FieldRef ref = schema.ref("paid");
        assertSame(ref.name(), ref.name());
        assertEquals("paid@4", ref.toString());
    }
}
