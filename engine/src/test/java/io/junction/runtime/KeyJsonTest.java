package io.junction.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.Row;
import org.junit.jupiter.api.Test;

/** The JMX inspect's key: a flat JSON object of scalars, each value of the type the replay format reads. */
final class KeyJsonTest
{
    @Test
    void readsScalarsAsTheReplayFormatDoes()
    {
        final Row row = KeyJson.parse(" {\"s\": \"a\\\"b\\u00e9\", \"n\": -12, \"d\": 1.5, \"b\": true, \"z\": null} ");
        assertEquals("a\"b\u00e9", row.get("s"));
        assertEquals(-12L, row.get("n"));
        assertEquals(1.5, row.get("d"));
        assertEquals(Boolean.TRUE, row.get("b"));
        assertTrue(row.has("z") && row.get("z") == null);
        assertEquals(0, KeyJson.parse("{}").fields().size());
    }

    @Test
    void refusesWhatIsNoFlatObjectSayingWhere()
    {
        for (final String bad : new String[] {null, "", "[1]", "{\"a\": {}}", "{\"a\": [1]}", "{\"a\": 1", "{\"a\" 1}",
            "{\"a\": 1} x", "{\"a\": 1, \"a\": 2}", "{\"a\": 12345678901234567890}", "{\"a\": \"\\x\"}", "{a: 1}"})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyJson.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("the key must be a JSON object"), e.getMessage());
        }
    }
}
