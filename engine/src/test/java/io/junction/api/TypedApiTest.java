package io.junction.api;

import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The typed layer: rows as objects in, results as objects out, through the real runtime. */
class TypedApiTest
{
    @Test
    void shouldRoundTripRowsThroughTheCodecCanonically()
    {
        final Schema schema = Schema.of("a", "b", "c", "d");
        final RowCodec codec = new RowCodec(schema);
        final UnsafeBuffer x = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final UnsafeBuffer y = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final int xl = codec.encode(Row.of("b", "s", "a", 1.0, "c", true, "d", null), x, 0, 256);
        final int yl = codec.encode(Row.of("d", null, "c", true, "a", 1L, "b", "s"), y, 0, 256);
        final RowView vx = new RowView().wrap(x, 0, xl);
        assertEquals(xl, yl);
        assertEquals(true, vx.contentEquals(new RowView().wrap(y, 0, yl)), "field order and 1.0 vs 1 do not change the bytes");
        assertEquals(Row.of("a", 1L, "b", "s", "c", true, "d", null), codec.decode(vx));
        assertEquals(-1, codec.encode(Row.of("a", "x".repeat(300)), x, 0, 256), "too large for the capacity");
    }

    @Test
    void shouldRejectValuesOfUnsupportedTypes()
    {
        assertThrows(IllegalArgumentException.class, () -> Row.of("a", new Object()));
        assertThrows(IllegalArgumentException.class, () -> Row.of("a"));
    }

    @Test
    void shouldJoinTypedRowsThroughTheEngine()
    {
        final Schema schema = Schema.of("log_id", "show", "click");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(schema, schema)
            .leftKey("log_id").rightKey("log_id").build();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(2).withState(StateConfig.defaults().withMaxKeys(1024)))
            .resultHandler(results)
            .start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", "1", "show", "a"), 10, 0));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("log_id", "1", "click", "b"), 12, 1));
        }
        final List<CollectingResultHandler.Result> out = results.results();
        assertEquals(3, out.size(), out.toString());
        assertEquals(ChangeKind.INSERT, out.get(0).kind());
        assertEquals(Row.of("log_id", "1", "show", "a"), out.get(0).left());
        assertNull(out.get(0).right());
        assertEquals(ChangeKind.DELETE, out.get(1).kind(), "the padded row is retracted when its first match arrives");
        assertEquals(Row.of("log_id", "1", "click", "b"), out.get(2).right());
        assertEquals(12, out.get(2).timestamp(), "pairs carry max(left.ts, right.ts)");
    }
}
