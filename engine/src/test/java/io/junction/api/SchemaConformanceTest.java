package io.junction.api;

import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A published row must fit its side's schema (point 3): a flyweight row written with more
 * field slots than the schema has is refused with {@link Publisher#SCHEMA_MISMATCH} and never reaches a
 * partition, where decoding its result would index past the schema's names.
 */
class SchemaConformanceTest
{
    private static final Schema SCHEMA = Schema.of("log_id", "ts", "show_params", "click_params");

    private static JoinSpec spec()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("log_id").rightKey("log_id").build();
    }

    private static int write(final UnsafeBuffer buffer, final int slots, final String id)
    {
        final RowWriter writer = new RowWriter().wrap(buffer, 0, buffer.capacity(), slots).putAscii(0, id).putLong(1, 5);
        if (slots > 4)
        {
            writer.putAscii(slots - 1, "extra");
        }
        return writer.finish();
    }

    @Test
    void shouldRefuseARowWithMoreSlotsThanTheSchemaAndNeverJoinIt()
    {
        final JoinSpec spec = spec();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final long refused;
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler(results).start())
        {
            final Publisher publisher = engine.publisher();
            int length = write(buffer, 6, "a");
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1, 1, System.nanoTime()),
                "six slots on a four-field schema");
            length = write(buffer, 5, "a");
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.tryPublish(Side.RIGHT, ChangeKind.INSERT, buffer, 0, length, 1, 2, System.nanoTime()));
            assertEquals(Publisher.SCHEMA_MISMATCH,
                publisher.publish(0, Side.RIGHT, ChangeKind.INSERT, buffer, 0, length, 1, 3, System.nanoTime()),
                "also when the caller names the partition");
            // exactly the schema's slots, and fewer (sparse rows), are fine
            length = write(buffer, 4, "a");
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1, 4, System.nanoTime()));
            length = write(buffer, 2, "a");
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, buffer, 0, length, 1, 5, System.nanoTime()));
            publisher.endOfInput(6);
            refused = engine.refusedRows();
        }
        assertEquals(3, refused, "each refusal is counted");
        final List<CollectingResultHandler.Result> out = results.results();
        assertEquals(1, out.size(), "only the conforming pair joined: " + out);
        assertEquals("a", out.get(0).left().get("log_id"));
    }

    @Test
    void shouldNameTheCodeAsADeadLetterReason()
    {
        assertTrue(DeadLetterReason.SCHEMA_MISMATCH.message().contains("schema"), DeadLetterReason.SCHEMA_MISMATCH.message());
        assertTrue(Publisher.SCHEMA_MISMATCH < 0 && Publisher.SCHEMA_MISMATCH != Publisher.MALFORMED_ROW);
    }
}
