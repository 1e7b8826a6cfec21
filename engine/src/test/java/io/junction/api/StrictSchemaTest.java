package io.junction.api;

import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.lang.reflect.Constructor;
import java.util.Arrays;

/** A schema is fixed once made: an unknown field name is an error, never a new column. */
class StrictSchemaTest
{
    @Test
    void shouldRejectAnUnknownFieldNameNamingItAndLeaveTheSchemaAsItWas()
    {
        final Schema schema = Schema.of("id", "name");
        final RowCodec codec = new RowCodec(schema);
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> codec.encode(Row.of("id", 1L, "nmae", "typo"), buffer, 0, 256));
        assertTrue(e.getMessage().contains("'nmae'"), e.getMessage());
        assertEquals(2, schema.size(), "the typo did not become a column");
        assertEquals(-1, schema.indexOf("nmae"));
    }

    @Test
    void shouldHaveNoPublicWayToAddANameOrMakeAnEmptySchema()
    {
        for (final Method m : Schema.class.getMethods())
        {
            assertFalse(m.getName().equals("register"), "Schema.register is public: " + m);
        }
        for (final Constructor<?> c : Schema.class.getDeclaredConstructors())
        {
            assertFalse(Modifier.isPublic(c.getModifiers()), "Schema has a public constructor: " + c);
        }
    }

    @Test
    void shouldCopyTheNamesItIsMadeOf()
    {
        final String[] names = {"a", "b"};
        final Schema schema = Schema.of(names);
        names[0] = "z";
        assertEquals("a", schema.nameOf(0));
        final List<String> list = new ArrayList<>(List.of("x", "y"));
        final Schema fromList = Schema.of(list);
        list.add("w");
        assertEquals(2, fromList.size());
    }

    @Test
    void shouldRejectDuplicateNullAndTooManyNames()
    {
        assertThrows(IllegalArgumentException.class, () -> Schema.of("a", "a"));
        assertThrows(IllegalArgumentException.class, () -> Schema.of("a", null));
        final String[] tooMany = new String[Schema.MAX_FIELDS + 1];
        for (int i = 0; i < tooMany.length; i++)
        {
            tooMany[i] = "f" + i;
        }
        assertThrows(IllegalArgumentException.class, () -> Schema.of(tooMany));
        assertEquals(Schema.MAX_FIELDS, Schema.of(Arrays.copyOf(tooMany, Schema.MAX_FIELDS)).size());
    }

    @Test
    void shouldRefuseATypedPublishWithATypoBeforeItClaimsASlot()
    {
        final Schema schema = Schema.of("id", "l", "r");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(schema, schema)
            .leftKey("id").rightKey("id").build();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(8)
                .withState(StateConfig.defaults().withMaxKeys(1024)))
            .resultHandler(results)
            .start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "l", "a"), 1, 0));
            for (int i = 0; i < 20; i++)
            {
                // more typos than the ring has slots: a claimed, unpublished slot would stall the next publish
                assertEquals(Publisher.SCHEMA_MISMATCH,
                    publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "rr", "typo"), 2, 1));
                assertEquals("field 'rr' is not in the schema (did you mean 'r'?)", publisher.lastRefusal().toString());
            }
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "r", "b"), 3, 2));
        }
        final List<CollectingResultHandler.Result> out = results.results();
        assertEquals(1, out.size(), out.toString());
        assertEquals(Row.of("id", 1L, "r", "b"), out.get(0).right());
    }
}
