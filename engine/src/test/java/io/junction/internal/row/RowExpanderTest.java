package io.junction.internal.row;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.Expansion;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

final class RowExpanderTest
{
    private static final Schema SCHEMA = Schema.of("id", "tags", "csv", "tag", "pos", "sku", "n");

    private static List<Row> expand(final Expansion e, final boolean outer, final Row input, final int[] code)
    {
        final RowExpander expander = new RowExpander(e, SCHEMA, 4096, outer, false);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);
        final int length = new RowCodec(SCHEMA).encode(input, buffer, 0, buffer.capacity());
        final RowView view = new RowView().wrap(buffer, 0, length);
        assertEquals(null, view.validate());
        final List<Row> made = new ArrayList<>();
        code[0] = expander.expand(view, (row, ordinal) ->
        {
            made.add(RowCodec.decode(SCHEMA, row));
            return true;
        });
        return made;
    }

    @Test
    void splitKeepsEmptyPiecesAndAnEmptyStringIsOnePiece()
    {
        final int[] code = new int[1];
        final List<Row> made = expand(Expansion.split("csv", ",", "tag").ordinality("pos"), false, Row.of("id", 1, "csv", "a,,b,"), code);
        assertEquals(4, code[0]);
        assertEquals(List.of(Row.of("id", 1, "csv", "a,,b,", "tag", "a", "pos", 1), Row.of("id", 1, "csv", "a,,b,", "tag", "", "pos", 2),
            Row.of("id", 1, "csv", "a,,b,", "tag", "b", "pos", 3), Row.of("id", 1, "csv", "a,,b,", "tag", "", "pos", 4)), made);
        assertEquals(List.of(Row.of("id", 1, "csv", "", "tag", "")), expand(Expansion.split("csv", ",", "tag"), false, Row.of("id", 1, "csv", ""), code));
        assertEquals(List.of(Row.of("id", 1, "csv", "a", "tag", "a")), expand(Expansion.split("csv", "::", "tag"), false, Row.of("id", 1, "csv", "a"), code));
        assertEquals(List.of("x", "", "y"), tags(expand(Expansion.split("csv", "ab", "tag"), false, Row.of("csv", "xababy"), code)));
    }

    private static List<Object> tags(final List<Row> rows)
    {
        final List<Object> out = new ArrayList<>();
        for (final Row row : rows)
        {
            out.add(row.get("tag"));
        }
        return out;
    }

    @Test
    void unnestGivesOneRowPerElementNullsIncludedAndOuterPadsNothing()
    {
        final int[] code = new int[1];
        assertEquals(Arrays.asList("x", null, 2L), tags(expand(Expansion.unnest("tags", "tag"), false,
            Row.of("id", 1, "tags", Arrays.asList("x", null, 2)), code)));
        assertEquals(List.of(), expand(Expansion.unnest("tags", "tag"), false, Row.of("id", 1, "tags", List.of()), code));
        assertEquals(0, code[0]);
        final List<Row> padded = expand(Expansion.unnest("tags", "tag").ordinality("pos"), true, Row.of("id", 1), code);
        assertEquals(1, code[0]);
        final Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("id", 1L);
        expected.put("tag", null);
        expected.put("pos", null);
        assertEquals(List.of(Row.of(expected)), padded);
    }

    @Test
    void objectElementsAreMappedAndAScalarElementIsABadInput()
    {
        final int[] code = new int[1];
        final Map<String, String> as = new LinkedHashMap<>();
        as.put("sku", "sku");
        as.put("qty", "n");
        final List<Row> made = expand(Expansion.unnestObjects("tags", as), false,
            Row.of("tags", Arrays.asList(Map.of("qty", 2, "sku", "A", "note", "x"), null)), code);
        assertEquals(2, code[0]);
        assertEquals("A", made.get(0).get("sku"));
        assertEquals(2L, made.get(0).get("n"));
        assertTrue(made.get(1).has("sku") && made.get(1).get("sku") == null);
        assertEquals(List.of(), expand(Expansion.unnestObjects("tags", as), false, Row.of("tags", List.of("A")), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
    }

    @Test
    void badInputsMakeNothing()
    {
        final int[] code = new int[1];
        assertEquals(List.of(), expand(Expansion.unnest("tags", "tag"), true, Row.of("tags", 5), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
        assertEquals(List.of(), expand(Expansion.split("csv", ",", "tag"), true, Row.of("csv", List.of("a")), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
        assertEquals(List.of(), expand(Expansion.unnest("tags", "tag"), false, Row.of("tags", List.of("a"), "tag", "b"), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
        assertEquals(List.of(), expand(Expansion.unnest("tags", "tag").maxExpansion(2), false, Row.of("tags", List.of(1, 2, 3)), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
        assertEquals(List.of(), expand(Expansion.split("csv", ",", "tag").maxExpansion(2), false, Row.of("csv", "a,b,c"), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
    }

    @Test
    void aTableFunctionThatThrowsMidWayHandsOverNothing()
    {
        final int[] code = new int[1];
        final Expansion throwing = Expansion.function((row, schema, out) ->
        {
            out.row().putString(0, "first");
            out.row().putString(0, "second");
            throw new IllegalStateException("boom");
        }, "tag");
        assertEquals(List.of(), expand(throwing, false, Row.of("id", 1), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
        final Expansion words = Expansion.function((row, schema, out) ->
        {
            for (final String w : row.getString(schema.indexOf("csv")).split(" "))
            {
                out.row().putString(0, w).putLong(1, w.length());
            }
        }, "tag", "n");
        final List<Row> made = expand(words, false, Row.of("csv", "to be"), code);
        assertEquals(2, code[0]);
        assertEquals(Row.of("csv", "to be", "tag", "be", "n", 2), made.get(1));
        final Expansion many = Expansion.function((row, schema, out) ->
        {
            for (int i = 0; i < 10; i++)
            {
                out.row().putLong(0, i);
            }
        }, "n").maxExpansion(3);
        assertEquals(List.of(), expand(many, false, Row.of("id", 1), code));
        assertEquals(RowExpander.BAD_INPUT, code[0]);
    }

    @Test
    void arraysCompareByValueAndRefuseMixingOrNesting()
    {
        final UnsafeBuffer a = new UnsafeBuffer(new byte[256]);
        final UnsafeBuffer b = new UnsafeBuffer(new byte[256]);
        final RowCodec codec = new RowCodec(SCHEMA);
        final int la = codec.encode(Row.of("tags", List.of(Map.of("b", 1, "a", 2.0))), a, 0, 256);
        final Map<String, Object> reordered = new LinkedHashMap<>();
        reordered.put("a", 2);
        reordered.put("b", 1.0);
        final int lb = codec.encode(Row.of("tags", List.of(reordered)), b, 0, 256);
        assertTrue(new RowView().wrap(a, 0, la).contentEquals(new RowView().wrap(b, 0, lb)));
        assertEquals(Row.of("tags", List.of(Map.of("b", 1, "a", 2.0))), Row.of("tags", List.of(reordered)));
        assertThrows(IllegalArgumentException.class, () -> Row.of("tags", List.of("a", Map.of("x", 1))));
        assertThrows(IllegalArgumentException.class, () -> Row.of("tags", List.of(List.of(1))));
        assertFalse(Row.of("tags", List.of(1, 2)).equals(Row.of("tags", List.of(2, 1))));
        final RowView view = new RowView().wrap(a, 0, la);
        assertEquals(Row.of("tags", List.of(Map.of("a", 2L, "b", 1L))), RowCodec.decode(SCHEMA, view));
        // A damaged array is refused by the publisher's check, never walked off the row.
        a.putShort(view.valueIndex(1) + 1, (short)200, ByteOrder.LITTLE_ENDIAN);
        assertTrue(new RowView().wrap(a, 0, la).validate() != null);
    }
}
