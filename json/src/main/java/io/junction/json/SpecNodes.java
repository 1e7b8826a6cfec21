package io.junction.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static io.junction.json.JoinSpecJson.MAX_TERMS;

/**
 * Typed reads of a spec's JSON nodes, each failing with a {@link JoinSpecException} that names the field's path, and
 * the unknown-field check with its "did you mean" hint. Stateless (setup only, any thread).
 */
final class SpecNodes
{
    private SpecNodes()
    {
    }

    static List<String> keyFields(final JsonNode root, final String name)
    {
        return keyFields(root, name, "");
    }

    static List<String> keyFields(final JsonNode root, final String member, final String prefix)
    {
        final String name = prefix + member;
        final JsonNode array = root.get(member);
        if (array == null)
        {
            throw new JoinSpecException(name, "required");
        }
        requireList(array, name);
        if (array.isEmpty())
        {
            throw new JoinSpecException(name, "at least one key field is required");
        }
        final List<String> fields = new ArrayList<>();
        for (int i = 0; i < array.size(); i++)
        {
            final JsonNode field = array.get(i);
            if (!field.isTextual())
            {
                throw new JoinSpecException(name + "[" + i + "]", "must be a field name (string), got " + RowJson.kindOf(field));
            }
            fields.add(field.textValue());
        }
        return fields;
    }

    static long nonNegative(final JsonNode root, final String name)
    {
        return nonNegative(root, name, "");
    }

    static long nonNegative(final JsonNode root, final String name, final String prefix)
    {
        final long value = optionalLong(root, name, prefix, 0);
        if (value < 0)
        {
            throw new JoinSpecException(prefix + name, "must be >= 0, got " + value);
        }
        return value;
    }

    static void checkFields(final JsonNode node, final String prefix, final Set<String> allowed)
    {
        for (final Map.Entry<String, JsonNode> field : node.properties())
        {
            if (!allowed.contains(field.getKey()))
            {
                throw new JoinSpecException(prefix + field.getKey(), "unknown field (allowed here: " +
                    String.join(", ", new TreeSet<>(allowed)) + ")" + didYouMean(field.getKey(), allowed));
            }
        }
    }

    /**
     * @return {@code "; did you mean 'X'?"} for the allowed name closest to a misspelt one (case-insensitive
     *     edit distance at most a third of its length, and at least 2), as {@link Schema} hints field names; else ""
     */
    static String didYouMean(final String name, final Set<String> allowed)
    {
        String closest = null;
        int best = Integer.MAX_VALUE;
        for (final String candidate : new TreeSet<>(allowed))
        {
            final int distance = distance(name.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
            if (distance < best)
            {
                best = distance;
                closest = candidate;
            }
        }
        return closest != null && best <= Math.max(2, closest.length() / 3) ? "; did you mean '" + closest + "'?" : "";
    }

    /**
     * Levenshtein distance (setup only). A deliberate copy of {@link Schema}'s private one: this module uses only
     * the engine's public API, and an edit distance is no part of it.
     */
    private static int distance(final String a, final String b)
    {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    static void requireObject(final JsonNode node, final String path)
    {
        if (!node.isObject())
        {
            throw new JoinSpecException(path, "must be an object, got " + RowJson.kindOf(node));
        }
    }

    static void requireList(final JsonNode node, final String path)
    {
        if (!node.isArray())
        {
            throw new JoinSpecException(path, "must be an array, got " + RowJson.kindOf(node));
        }
        if (node.size() > MAX_TERMS)
        {
            throw new JoinSpecException(path, node.size() + " entries, more than the " + MAX_TERMS + " allowed");
        }
    }

    static String requiredString(final JsonNode parent, final String name, final String prefix)
    {
        final JsonNode node = parent.get(name);
        if (node == null)
        {
            throw new JoinSpecException(prefix + name, "required");
        }
        if (!node.isTextual())
        {
            throw new JoinSpecException(prefix + name, "must be a string, got " + RowJson.kindOf(node));
        }
        return node.textValue();
    }

    static long requiredLong(final JsonNode parent, final String name, final String prefix)
    {
        final JsonNode node = parent.get(name);
        if (node == null)
        {
            throw new JoinSpecException(prefix + name, "required");
        }
        return toLong(node, prefix + name);
    }

    static long optionalLong(final JsonNode parent, final String name, final String prefix, final long dflt)
    {
        final JsonNode node = parent.get(name);
        return node == null ? dflt : toLong(node, prefix + name);
    }

    static long toLong(final JsonNode node, final String path)
    {
        if (node.isNumber())
        {
            if (JsonNumbers.isLong(node))
            {
                return JsonNumbers.longValue(node);
            }
            throw new JoinSpecException(path, "must be an integer in the signed 64-bit range, got " + node.asText());
        }
        throw new JoinSpecException(path, "must be an integer (ms), got " + RowJson.kindOf(node));
    }

    static boolean optionalBoolean(final JsonNode parent, final String name, final String prefix, final boolean dflt)
    {
        final JsonNode node = parent.get(name);
        if (node == null)
        {
            return dflt;
        }
        if (!node.isBoolean())
        {
            throw new JoinSpecException(prefix + name, "must be true or false, got " + RowJson.kindOf(node));
        }
        return node.booleanValue();
    }
}
