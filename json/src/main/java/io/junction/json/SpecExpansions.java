package io.junction.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.Expansion;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.junction.json.SpecNodes.checkFields;
import static io.junction.json.SpecNodes.optionalBoolean;
import static io.junction.json.SpecNodes.requireObject;
import static io.junction.json.SpecNodes.requiredString;

/**
 * The spec's row expansions (docs/SEMANTICS.md 12): {@code "expand"} of the standalone kind, and
 * {@code "leftExpand"} / {@code "rightExpand"} before a join.
 * {@code {"unnest": "tags", "as": "tag", "ordinality": "pos", "outer": false, "maxExpansion": 100}}, or
 * {@code {"function": "split", "args": ["csv", ","], "as": "part"}}; an object unnest's {@code "as"} maps
 * element fields to new fields.
 */
final class SpecExpansions
{
    private static final Set<String> FIELDS = Set.of("unnest", "function", "args", "as", "ordinality", "outer", "maxExpansion");
    /** The built-in table functions a spec can name. */
    private static final List<String> FUNCTIONS = List.of("split");

    private SpecExpansions()
    {
    }

    /**
     * @param node       the expansion object.
     * @param path       its name in the spec, for messages.
     * @param standalone whether it is the standalone kind's (its type, not {@code outer}, says what a row that
     *                   makes nothing gives).
     * @return the expansion.
     */
    static Expansion parse(final JsonNode node, final String path, final boolean standalone)
    {
        requireObject(node, path);
        checkFields(node, path + ".", FIELDS);
        final boolean unnest = node.has("unnest");
        final boolean function = node.has("function");
        if (unnest == function)
        {
            throw new JoinSpecException(path, unnest ? "names both unnest and function: an expansion has one"
                : "needs \"unnest\" (an array field) or \"function\" (" + String.join(", ", FUNCTIONS) + ")");
        }
        final JsonNode as = node.get("as");
        if (as == null)
        {
            throw new JoinSpecException(path + ".as", "required: the new field (or, for object elements, a map of element field to new field)");
        }
        Expansion expansion;
        try
        {
            if (unnest)
            {
                if (node.has("args"))
                {
                    throw new JoinSpecException(path + ".args", "only for a function; unnest names its field itself");
                }
                final String field = requiredString(node, "unnest", path + ".");
                if (as.isTextual())
                {
                    expansion = Expansion.unnest(field, as.textValue());
                }
                else if (as.isObject())
                {
                    final Map<String, String> map = new LinkedHashMap<>();
                    for (final Map.Entry<String, JsonNode> e : as.properties())
                    {
                        if (!e.getValue().isTextual())
                        {
                            throw new JoinSpecException(path + ".as." + e.getKey(), "must be a string (the new field), got " +
                                RowJson.kindOf(e.getValue()));
                        }
                        map.put(e.getKey(), e.getValue().textValue());
                    }
                    expansion = Expansion.unnestObjects(field, map);
                }
                else
                {
                    throw new JoinSpecException(path + ".as", "must be a string (scalar elements) or an object (object elements), got " +
                        RowJson.kindOf(as));
                }
            }
            else
            {
                final String name = requiredString(node, "function", path + ".");
                if (!FUNCTIONS.contains(name))
                {
                    throw new JoinSpecException(path + ".function", "unknown function '" + name + "' (expected " +
                        String.join(", ", FUNCTIONS) + ")");
                }
                final JsonNode args = node.get("args");
                if (args == null || !args.isArray() || args.size() != 2 || !args.get(0).isTextual() || !args.get(1).isTextual())
                {
                    throw new JoinSpecException(path + ".args", "split takes [field, separator], two strings");
                }
                if (args.get(1).textValue().isEmpty())
                {
                    throw new JoinSpecException(path + ".args", "split's separator must not be empty");
                }
                if (!as.isTextual())
                {
                    throw new JoinSpecException(path + ".as", "must be a string (the new field), got " + RowJson.kindOf(as));
                }
                expansion = Expansion.split(args.get(0).textValue(), args.get(1).textValue(), as.textValue());
            }
            final JsonNode ordinality = node.get("ordinality");
            if (ordinality != null)
            {
                if (!ordinality.isTextual())
                {
                    throw new JoinSpecException(path + ".ordinality", "must be a string (the new field), got " + RowJson.kindOf(ordinality));
                }
                expansion = expansion.ordinality(ordinality.textValue());
            }
            if (node.has("outer"))
            {
                if (standalone)
                {
                    throw new JoinSpecException(path + ".outer", "not for an expand join: its type says it (left: a row that " +
                        "keeps nothing is emitted padded)");
                }
                expansion = expansion.outer(optionalBoolean(node, "outer", path + ".", false));
            }
            final JsonNode max = node.get("maxExpansion");
            if (max != null)
            {
                if (!max.isIntegralNumber() || !max.canConvertToInt() || max.intValue() < 1)
                {
                    throw new JoinSpecException(path + ".maxExpansion", "must be an integer from 1 to " + Integer.MAX_VALUE +
                        ", got " + (max.isNumber() ? max.asText() : RowJson.kindOf(max)));
                }
                expansion = expansion.maxExpansion(max.intValue());
            }
        }
        catch (final IllegalArgumentException e)
        {
            if (e instanceof JoinSpecException)
            {
                throw e;
            }
            throw new JoinSpecException(path, e.getMessage());
        }
        return expansion;
    }
}
