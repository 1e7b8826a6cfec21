package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.api.Expansion;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows an {@link Expansion} makes from a row of the log (docs/SEMANTICS.md section 12), built over the JSON
 * row so the explanation can name and decide each made row as the engine joined it: the input's fields, then
 * the new fields, then the ordinality (or, for the standalone kind's right row, the added fields only). Whether
 * an expansion failed is not judged here: the replay's {@code expansion_failed} dead letter says so, and a row
 * this finds malformed makes no rows. Only the kinds a JSON spec can name (unnest, split) are built; a Java
 * table function makes no rows here.
 */
final class ExplainExpansion
{
    /** What one input row made: the rows, and why there are none (null when there are some). */
    record Made(List<JsonNode> rows, List<Integer> positions, String none)
    {
    }

    private ExplainExpansion()
    {
    }

    /** @return a short name of the expansion for sentences: {@code unnest of ads}, {@code split of csv at ','} */
    static String name(final Expansion e)
    {
        switch (e.kind())
        {
            case UNNEST:
                return "unnest of " + e.field();
            case SPLIT:
                return "split of " + e.field() + " at '" + e.separator() + "'";
            default:
                return "the table function " + e.function().getClass().getSimpleName();
        }
    }

    /**
     * @param e             the expansion
     * @param row           the input row
     * @param outer         whether a row that makes nothing makes one padded row (position 0)
     * @param newFieldsOnly whether a made row holds the added fields only (the standalone kind's right row)
     * @return the rows made, in element order, with their 1-based positions
     */
    static Made expand(final Expansion e, final JsonNode row, final boolean outer, final boolean newFieldsOnly)
    {
        final List<JsonNode> rows = new ArrayList<>();
        final List<Integer> positions = new ArrayList<>();
        final JsonNode source = e.field() == null ? null : row.get(e.field());
        final String none;
        switch (e.kind())
        {
            case UNNEST:
                if (source == null || source.isNull())
                {
                    none = e.field() + " is " + (source == null ? "absent" : "null");
                }
                else if (!source.isArray())
                {
                    none = e.field() + " is not an array";
                }
                else if (source.isEmpty())
                {
                    none = e.field() + " is empty";
                }
                else
                {
                    none = null;
                    for (int i = 0; i < source.size(); i++)
                    {
                        rows.add(made(e, row, values(e, source.get(i)), i + 1, newFieldsOnly));
                        positions.add(i + 1);
                    }
                }
                break;
            case SPLIT:
                if (source == null || source.isNull())
                {
                    none = e.field() + " is " + (source == null ? "absent" : "null");
                }
                else if (!source.isTextual())
                {
                    none = e.field() + " is not a string";
                }
                else
                {
                    none = null;
                    final List<String> pieces = split(source.textValue(), e.separator());
                    for (int i = 0; i < pieces.size(); i++)
                    {
                        rows.add(made(e, row, List.of(JsonNodeFactory.instance.textNode(pieces.get(i))), i + 1, newFieldsOnly));
                        positions.add(i + 1);
                    }
                }
                break;
            default:
                none = "a table function is not run by the explanation";
                break;
        }
        if (rows.isEmpty() && outer)
        {
            rows.add(made(e, row, null, 0, newFieldsOnly));
            positions.add(0);
        }
        return new Made(rows, positions, none);
    }

    /** The new fields' values of one element, in the order of {@link Expansion#newFields()}. */
    private static List<JsonNode> values(final Expansion e, final JsonNode element)
    {
        final List<JsonNode> values = new ArrayList<>();
        if (e.elementFields() == null)
        {
            values.add(element);
            return values;
        }
        for (final String name : e.elementFields())
        {
            // a null element, or an element that lacks a named field, gives null
            final JsonNode v = element.isObject() ? element.get(name) : null;
            values.add(v == null ? JsonNodeFactory.instance.nullNode() : v);
        }
        return values;
    }

    /** One made row; {@code values} null gives the padded row (every added field null). */
    private static JsonNode made(final Expansion e, final JsonNode row, final List<JsonNode> values, final int position,
        final boolean newFieldsOnly)
    {
        final ObjectNode made = JsonNodeFactory.instance.objectNode();
        if (!newFieldsOnly)
        {
            made.setAll((ObjectNode) row.deepCopy());
        }
        for (int k = 0; k < e.newFields().size(); k++)
        {
            made.set(e.newFields().get(k), values == null ? JsonNodeFactory.instance.nullNode() : values.get(k));
        }
        if (e.ordinality() != null)
        {
            made.set(e.ordinality(), values == null ? JsonNodeFactory.instance.nullNode()
                : JsonNodeFactory.instance.numberNode((long) position));
        }
        return made;
    }

    /** Cuts at every occurrence of the separator, leftmost first, keeping empty pieces (section 12). */
    private static List<String> split(final String s, final String separator)
    {
        final List<String> pieces = new ArrayList<>();
        int from = 0;
        while (true)
        {
            final int at = s.indexOf(separator, from);
            if (at < 0)
            {
                pieces.add(s.substring(from));
                return pieces;
            }
            pieces.add(s.substring(from, at));
            from = at + separator.length();
        }
    }
}
