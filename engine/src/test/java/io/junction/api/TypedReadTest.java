package io.junction.api;

import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A typed read returns the declared type: a whole number in a double field (101.0, stored as a long
 * by the canonical encoding) reads back as a {@link Double} through {@link RowCodec} and
 * {@link RowView#getDouble(FieldRef)}; a {@link Row} keeps the number type it was given, and still
 * equals a row holding the long of the same value.
 */
class TypedReadTest
{
    private static final Schema QUOTES = Schema.of(Field.string("sym").required(), Field.doubleField("bid"), Field.any("n"));

    @Test
    void shouldReadAWholeDoubleAsADouble()
    {
        final Row written = Row.of("sym", "X", "bid", 101.0, "n", 3);
        assertInstanceOf(Double.class, written.get("bid"), "a Row keeps the Double it was given");
        assertEquals(Row.of("sym", "X", "bid", 101L, "n", 3L), written, "an integral double equals the long of the same value");
        assertEquals(Row.of("sym", "X", "bid", 101L, "n", 3L).hashCode(), written.hashCode());

        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        final RowCodec codec = new RowCodec(QUOTES);
        final RowView view = new RowView();
        view.wrap(buffer, 0, codec.encode(written, buffer, 0, 128));
        assertEquals(FieldType.LONG, view.type(1), "canonical bytes: an integral double is written as a long");
        assertEquals(101.0, view.getDouble(QUOTES.ref("bid")), "a double field reads as a double through its ref");
        final Row read = codec.decode(view);
        assertInstanceOf(Double.class, read.get("bid"), read.toString());
        assertEquals(101.0, (Double)read.get("bid"));
        assertInstanceOf(Long.class, read.get("n"), "an untyped field keeps the stored type");

        final UnsafeBuffer other = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        final int length = codec.encode(Row.of("sym", "X", "bid", 101L, "n", 3L), other, 0, 128);
        assertEquals(view.length(), length);
        for (int i = 0; i < length; i++)
        {
            assertEquals(buffer.getByte(i), other.getByte(i), "equal rows have equal bytes (byte " + i + ")");
        }
    }

    @Test
    void shouldDeliverAWholeDoubleAsADoubleThroughTheEngine()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(QUOTES, QUOTES)
            .leftKey("sym").rightKey("sym").build();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).resultHandler(results).start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("sym", "X", "bid", 101.0), 1, 0));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("sym", "X", "bid", 102), 1, 1));
            publisher.endOfInput(2);
        }
        final List<CollectingResultHandler.Result> out = results.results();
        assertEquals(1, out.size(), out.toString());
        assertEquals(101.0, (Double)out.get(0).left().get("bid"));
        assertEquals(102.0, (Double)out.get(0).right().get("bid"));
    }
}
