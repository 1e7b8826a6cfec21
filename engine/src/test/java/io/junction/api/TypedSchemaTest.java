package io.junction.api;

import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Typed schemas: a mistyped value, a missing required field or a row of another arity is
 * refused at publish with {@link Publisher#SCHEMA_MISMATCH}, never published; a spec naming a field the
 * schema lacks, or comparing incompatible types, is rejected at build().
 */
class TypedSchemaTest
{
    private static final Schema ORDERS = Schema.of(Field.longField("order_id").required(), Field.string("method"),
        Field.doubleField("amount"), Field.any("note"));
    private static final Schema PAYMENTS = Schema.of(Field.longField("order_id").required(), Field.booleanField("ok"));

    private static JoinSpec.Builder builder()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(ORDERS, PAYMENTS).leftKey("order_id").rightKey("order_id");
    }

    @Test
    void shouldRefuseMistypedMissingAndWideRowsAndJoinTheRest()
    {
        final JoinSpec spec = builder().build();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        final long refused;
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler(results).start())
        {
            final Publisher publisher = engine.publisher();
            // the case: a string id against long keys never matched, silently
            assertEquals(Publisher.SCHEMA_MISMATCH, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", "2"), 1, 1));
            assertEquals(Publisher.SCHEMA_MISMATCH, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("method", "card"), 1, 2),
                "required order_id absent");
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", null, "method", "card"), 1, 3), "required order_id null");
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 2L, "method", 7L), 1, 4), "method is a string field");
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("order_id", 2L, "ok", "yes"), 1, 5));
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
            final int length = new RowWriter().wrap(buffer, 0, 128, 3).putLong(0, 2).putLong(2, 1).finish();
            assertEquals(Publisher.SCHEMA_MISMATCH, publisher.publish(Side.RIGHT, ChangeKind.INSERT, buffer, 0, length, 1, 6, 0),
                "three slots on a two-field schema");

            // fitting rows: a long in a double field, anything in an untyped one, optional fields absent or null
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT,
                Row.of("order_id", 2L, "method", "card", "amount", 3L, "note", true), 1, 7));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("order_id", 2L, "ok", null), 1, 8));
            publisher.endOfInput(9);
            refused = engine.refusedRows();
        }
        assertEquals(6, refused);
        final List<CollectingResultHandler.Result> out = results.results();
        assertEquals(1, out.size(), out.toString());
        assertEquals(2L, out.get(0).left().getLong("order_id"));
    }

    @Test
    void shouldSayWhyARowDoesNotFit()
    {
        final RowCodec codec = new RowCodec(ORDERS);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        final RowView view = new RowView();
        view.wrap(buffer, 0, codec.encode(Row.of("order_id", "2"), buffer, 0, 128));
        assertFalse(ORDERS.conforms(view));
        assertEquals("field 'order_id' is declared long but the row has a string", ORDERS.mismatch(view));
        view.wrap(buffer, 0, codec.encode(Row.of("order_id", 2L, "amount", 2.5), buffer, 0, 128));
        assertTrue(ORDERS.conforms(view));
        assertNull(ORDERS.mismatch(view));
        assertTrue(ORDERS.isTyped());
        assertFalse(Schema.of("a", "b").isTyped());
        assertEquals(Field.ANY, Schema.of("a").field(0).type());
        assertTrue(ORDERS.field(0).isRequired());
    }

    @Test
    void shouldRejectAtBuildASpecFieldTheSchemaLacks()
    {
        final IllegalArgumentException key = assertThrows(IllegalArgumentException.class,
            () -> JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(ORDERS, PAYMENTS).leftKey("orderid").rightKey("order_id").build());
        assertTrue(key.getMessage().contains("orderid"), key.getMessage());
        final IllegalArgumentException filter = assertThrows(IllegalArgumentException.class,
            () -> builder().leftFilter("methd", CompareOp.EQ, Literal.of("card")).build());
        assertTrue(filter.getMessage().contains("methd"), filter.getMessage());
        final IllegalArgumentException condition = assertThrows(IllegalArgumentException.class,
            () -> builder().condition("amount", CompareOp.LE, "okk").build());
        assertTrue(condition.getMessage().contains("okk"), condition.getMessage());
    }

    @Test
    void shouldRejectAtBuildComparisonsOfIncompatibleTypes()
    {
        final Schema stringKeyed = Schema.of(Field.string("order_id"), Field.booleanField("ok"));
        final IllegalArgumentException key = assertThrows(IllegalArgumentException.class,
            () -> JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(ORDERS, stringKeyed)
                .leftKey("order_id").rightKey("order_id").build());
        assertTrue(key.getMessage().startsWith("rightKey:") && key.getMessage().contains("string"), key.getMessage());

        final IllegalArgumentException filter = assertThrows(IllegalArgumentException.class,
            () -> builder().leftFilter("amount", CompareOp.GT, Literal.of("10")).build());
        assertTrue(filter.getMessage().startsWith("leftFilter: field 'amount' is double"), filter.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> builder().leftFilter(FieldFilter.any(new FieldFilter("method", CompareOp.EQ, Literal.of("card")),
                FieldFilter.in("method", Literal.of("cash"), Literal.of(3L)))).build(), "inside any() and IN lists too");

        final IllegalArgumentException condition = assertThrows(IllegalArgumentException.class,
            () -> builder().condition("method", CompareOp.EQ, "ok").build());
        assertTrue(condition.getMessage().startsWith("condition:"), condition.getMessage());

        // compatible: numbers with numbers, untyped with anything, null literals with everything
        builder().leftFilter("amount", CompareOp.GT, Literal.of(10L)).leftFilter("note", CompareOp.EQ, Literal.of("x"))
            .leftFilter("method", CompareOp.NE, Literal.ofNull()).condition("amount", CompareOp.LE, "order_id").build();
        // names-only schemas are never type-checked
        final Schema names = Schema.of("k", "v");
        JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(names, names).leftKey("k").rightKey("k")
            .leftFilter("v", CompareOp.EQ, Literal.of(1L)).rightFilter("v", CompareOp.EQ, Literal.of("a")).build();
    }
}
