package io.junction.api;

import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A refused publish says which field and why ({@link Publisher#lastRefusal()}): the declared type and
 * what came, a required field missing or null, a field the schema lacks (with the closest name), or
 * the row's width against the schema's. A {@link Row} naming a field the schema lacks is answered with
 * {@link Publisher#SCHEMA_MISMATCH}, as every other bad input of publish is, never an exception.
 */
class RefusalReasonTest
{
    private static final Schema ORDERS = Schema.of(Field.longField("order_id").required(), Field.string("method"),
        Field.doubleField("amount"));
    private static final Schema PAYMENTS = Schema.of(Field.longField("order_id").required(), Field.booleanField("ok"));

    private static JoinEngine start()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(ORDERS, PAYMENTS)
            .leftKey("order_id").rightKey("order_id").build();
        return JoinEngine.builder(spec).resultHandler(new CollectingResultHandler(spec)).start();
    }

    @Test
    void shouldNameTheFieldTheDeclaredTypeAndWhatCame()
    {
        try (JoinEngine engine = start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals("", publisher.lastRefusal().toString(), "nothing refused yet");
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 1L, "amount", "ten"), 1, 0));
            assertEquals("field 'amount' is declared double but the row has a string", publisher.lastRefusal().toString());
            assertEquals(Publisher.SCHEMA_MISMATCH, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("method", "card"), 1, 1));
            assertEquals("required field 'order_id' is missing", publisher.lastRefusal().toString());
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", null, "method", "card"), 1, 2));
            assertEquals("required field 'order_id' is null", publisher.lastRefusal().toString());

            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
            final int length = new RowWriter().wrap(buffer, 0, 128, 5).putLong(0, 1).putLong(4, 1).finish();
            assertEquals(Publisher.SCHEMA_MISMATCH, publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1, 3, 0));
            assertEquals("the row has 5 fields, the schema 3", publisher.lastRefusal().toString());

            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 1L), 1, 4));
            assertEquals("the row has 5 fields, the schema 3", publisher.lastRefusal().toString(),
                "an accepted publish leaves the last refusal's reason as it was (it writes nothing)");
            assertEquals(4, engine.refusedRows());
        }
    }

    @Test
    void shouldAnswerAFieldTheSchemaLacksWithACodeAndTheClosestName()
    {
        try (JoinEngine engine = start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 1L, "amout", 2.5), 1, 0));
            assertEquals("field 'amout' is not in the schema (did you mean 'amount'?)", publisher.lastRefusal().toString());
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("order_id", 1L, "zzzzzz", 1L), 1, 1));
            assertEquals("field 'zzzzzz' is not in the schema [order_id, ok]", publisher.lastRefusal().toString());
            assertEquals(2, engine.refusedRows());
        }
    }

    @Test
    void shouldSayWhyARowDoesNotFitOutsideAPublisher()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        final RowView view = new RowView();
        view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, 128, 2).putLong(0, 1).putLong(1, 7).finish());
        assertEquals("field 'method' is declared string but the row has a long", ORDERS.mismatch(view));
        final StringBuilder out = new StringBuilder("kept: ");
        assertTrue(ORDERS.appendMismatch(view, out));
        assertEquals("kept: field 'method' is declared string but the row has a long", out.toString());
        assertEquals("field 'amout' is not in the schema (did you mean 'amount'?)", ORDERS.notInSchema("amout"));
    }
}
