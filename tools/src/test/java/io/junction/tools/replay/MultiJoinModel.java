package io.junction.tools.replay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.json.JsonNumbers;
import io.junction.json.RowJson;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.io.IOException;
import java.util.Arrays;

/**
 * A brute-force model of SEMANTICS 10 (multi-way joins), written from the SPEC alone and sharing no code with the
 * engine: the inputs' current contents as lists of JSON rows, and after every step the left-deep chain of
 * binary regular joins {@code ((i0 ⋈ i1) ⟕ i2) ...} recomputed over them from scratch. The expected output of
 * a step is the multiset difference of the chain's results before and after it, which is the minimal
 * changelog (no step has both signs of one combination); the expected dead letters are the retractions of
 * rows not in their input. Rows compare by value ({@link ReplayComparison#canonical}); keys as SQL: a null or
 * missing key field matches nothing, {@code "1"} and {@code 1} differ, {@code 1} and {@code 1.0} are equal.
 * Reads the spec and the log as JSON text, as the replay does.
 */
final class MultiJoinModel
{
    private record Stored(JsonNode row, String canonical, long ts)
    {
    }

    private record Term(int leftInput, String leftField, String op, int rightInput, String rightField)
    {
    }

    private final List<String> names = new ArrayList<>();
    private final List<Boolean> leftJoin = new ArrayList<>();
    private final List<List<String>> keys = new ArrayList<>();
    private final List<JsonNode> filters = new ArrayList<>();
    private final List<Long> ttls = new ArrayList<>();
    /** Terms per level: the later input of the two. */
    private final List<List<Term>> terms = new ArrayList<>();
    /** A combination's canonical text to the first way it was written (rows exactly as given). */
    private final Map<String, String> shown = new HashMap<>();

    MultiJoinModel(final String specJson)
    {
        final JsonNode spec = read(specJson);
        final long defaultTtl = spec.has("stateTtl") ? spec.get("stateTtl").asLong() : 0;
        for (final JsonNode input : spec.get("inputs"))
        {
            names.add(input.get("name").textValue());
            leftJoin.add(input.has("type") && "left".equals(input.get("type").textValue()));
            final List<String> key = new ArrayList<>();
            input.get("key").forEach(k -> key.add(k.textValue()));
            keys.add(key);
            filters.add(input.get("filter"));
            ttls.add(input.has("stateTtl") ? input.get("stateTtl").asLong() : defaultTtl);
            terms.add(new ArrayList<>());
        }
        if (spec.has("condition"))
        {
            for (final JsonNode term : spec.get("condition"))
            {
                final String left = term.get("left").textValue();
                final String right = term.get("right").textValue();
                final int li = names.indexOf(left.substring(0, left.indexOf('.')));
                final int ri = names.indexOf(right.substring(0, right.indexOf('.')));
                terms.get(Math.max(li, ri)).add(new Term(li, left.substring(left.indexOf('.') + 1), term.get("op").textValue(),
                    ri, right.substring(right.indexOf('.') + 1)));
            }
        }
    }

    /** What the model expects of a log: the result lines and the dead-letter lines. */
    record Expected(List<String> results, List<String> deadLetters)
    {
    }

    Expected run(final String events)
    {
        final int n = names.size();
        final List<List<Stored>> contents = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            contents.add(new ArrayList<>());
        }
        final long[] watermarks = new long[n];
        Arrays.fill(watermarks, Long.MIN_VALUE);
        long joinWatermark = Long.MIN_VALUE;
        final List<String> results = new ArrayList<>();
        final List<String> deadLetters = new ArrayList<>();
        Map<String, Integer> before = chain(contents);
        long step = 0;
        for (final String line : events.split("\n", -1))
        {
            if (line.isBlank())
            {
                continue;
            }
            final JsonNode event = read(line);
            if (event.has("watermark"))
            {
                final long value = event.get("watermark").asLong();
                if (event.has("side"))
                {
                    final int i = names.indexOf(event.get("side").textValue());
                    watermarks[i] = Math.max(watermarks[i], value);
                }
                else
                {
                    for (int i = 0; i < n; i++)
                    {
                        watermarks[i] = Math.max(watermarks[i], value);
                    }
                }
                long min = Long.MAX_VALUE;
                for (final long w : watermarks)
                {
                    min = Math.min(min, w);
                }
                joinWatermark = Math.max(joinWatermark, min);
                for (int i = 0; i < n; i++)
                {
                    final long ttl = ttls.get(i);
                    if (ttl > 0)
                    {
                        final long w = joinWatermark;
                        contents.get(i).removeIf(s -> s.ts() + ttl < w);
                    }
                }
            }
            else
            {
                final int i = event.has("side") && event.get("side").isTextual() ? names.indexOf(event.get("side").textValue()) : -1;
                if (i < 0)
                {
                    // not an input of this join: a bad line, which changes nothing
                    deadLetters.add("{\"step\":" + step + ",\"reason\":\"bad input: field 'side' names no input\",\"line\":" +
                        write(RowJson.mapper().getNodeFactory().textNode(line)) + "}");
                    step++;
                    continue;
                }
                final String op = event.has("op") ? event.get("op").textValue() : "+I";
                final long ts = event.has("ts") ? event.get("ts").asLong() : 0;
                final JsonNode row = event.get("row");
                final String canonical = ReplayComparison.canonical(row);
                if (op.startsWith("+"))
                {
                    final long ttl = ttls.get(i);
                    if (!(ttl > 0 && ts + ttl < joinWatermark))
                    {
                        contents.get(i).add(new Stored(row, canonical, ts));
                    }
                }
                else
                {
                    boolean found = false;
                    for (int k = 0; k < contents.get(i).size(); k++)
                    {
                        if (contents.get(i).get(k).canonical().equals(canonical))
                        {
                            contents.get(i).remove(k);
                            found = true;
                            break;
                        }
                    }
                    if (!found)
                    {
                        deadLetters.add("{\"step\":" + step + ",\"reason\":\"bad input: retraction of a row not in state " +
                            "(never inserted, already retracted or expired), SEMANTICS 1\",\"side\":\"" + names.get(i) + "\",\"row\":" +
                            write(row) + "}");
                    }
                }
            }
            final Map<String, Integer> after = chain(contents);
            final TreeMap<String, Integer> diff = new TreeMap<>();
            after.forEach((k, v) -> diff.merge(k, v, Integer::sum));
            before.forEach((k, v) -> diff.merge(k, -v, Integer::sum));
            for (final Map.Entry<String, Integer> change : diff.entrySet())
            {
                final int count = change.getValue();
                for (int c = 0; c < Math.abs(count); c++)
                {
                    results.add("{\"step\":" + step + ",\"op\":\"" + (count > 0 ? "+I" : "-D") + "\",\"rows\":" + shown.get(change.getKey()) + "}");
                }
            }
            before = after;
            step++;
        }
        return new Expected(results, deadLetters);
    }

    /** @return the chain's result over the contents, as a multiset of combinations ({@code "rows"} objects as text) */
    private Map<String, Integer> chain(final List<List<Stored>> contents)
    {
        final int n = names.size();
        List<JsonNode[]> prefixes = new ArrayList<>();
        for (final Stored s : contents.get(0))
        {
            final JsonNode[] combo = new JsonNode[n];
            combo[0] = s.row();
            prefixes.add(combo);
        }
        for (int j = 1; j < n; j++)
        {
            final List<JsonNode[]> next = new ArrayList<>();
            for (final JsonNode[] p : prefixes)
            {
                int matched = 0;
                for (final Stored s : contents.get(j))
                {
                    final JsonNode[] combo = p.clone();
                    combo[j] = s.row();
                    if (on(j, combo))
                    {
                        matched++;
                        next.add(combo);
                    }
                }
                if (matched == 0 && leftJoin.get(j))
                {
                    next.add(p.clone());
                }
            }
            prefixes = next;
        }
        final Map<String, Integer> result = new HashMap<>();
        for (final JsonNode[] combo : prefixes)
        {
            final ObjectNode rows = RowJson.mapper().createObjectNode();
            for (int i = 0; i < n; i++)
            {
                rows.set(names.get(i), combo[i] == null ? RowJson.mapper().nullNode() : combo[i]);
            }
            final String canonical = ReplayComparison.canonicalRows(rows);
            shown.putIfAbsent(canonical, write(rows));
            result.merge(canonical, 1, Integer::sum);
        }
        return result;
    }

    /** Input {@code j}'s ON clause over the combination (its row at {@code j}, the prefix before it). */
    private boolean on(final int j, final JsonNode[] combo)
    {
        final List<String> k0 = key(0, combo[0]);
        final List<String> kj = key(j, combo[j]);
        if (k0 == null || kj == null || !k0.equals(kj) || !passes(0, combo[0]) || !passes(j, combo[j]))
        {
            return false;
        }
        for (final Term t : terms.get(j))
        {
            final JsonNode a = combo[t.leftInput()];
            final JsonNode b = combo[t.rightInput()];
            if (a == null || b == null || !holds(a.get(t.leftField()), t.op(), b.get(t.rightField())))
            {
                return false;
            }
        }
        return true;
    }

    private List<String> key(final int input, final JsonNode row)
    {
        final List<String> key = new ArrayList<>();
        for (final String field : keys.get(input))
        {
            final JsonNode value = row.get(field);
            if (value == null || value.isNull())
            {
                return null;
            }
            key.add((value.isTextual() ? "s" : value.isBoolean() ? "b" : "n") + ReplayComparison.canonical(value));
        }
        return key;
    }

    private boolean passes(final int input, final JsonNode row)
    {
        final JsonNode filter = filters.get(input);
        if (filter == null)
        {
            return true;
        }
        for (final JsonNode term : filter)
        {
            if (!holds(row.get(term.get("field").textValue()), term.get("op").textValue(), term.get("value")))
            {
                return false;
            }
        }
        return true;
    }

    /** SQL comparison: null never holds; numbers by value; strings (ASCII here) lexicographically; other types: only != holds. */
    static boolean holds(final JsonNode a, final String op, final JsonNode b)
    {
        if (a == null || b == null || a.isNull() || b.isNull())
        {
            return false;
        }
        final int cmp;
        if (a.isNumber() && b.isNumber())
        {
            if (JsonNumbers.isLong(a) && JsonNumbers.isLong(b))
            {
                cmp = Long.compare(JsonNumbers.longValue(a), JsonNumbers.longValue(b));
            }
            else
            {
                cmp = Double.compare(a.doubleValue(), b.doubleValue());
            }
        }
        else if (a.isTextual() && b.isTextual())
        {
            cmp = a.textValue().compareTo(b.textValue());
        }
        else if (a.isBoolean() && b.isBoolean())
        {
            cmp = Boolean.compare(a.booleanValue(), b.booleanValue());
        }
        else
        {
            return "!=".equals(op);
        }
        switch (op)
        {
            case "==":
                return cmp == 0;
            case "!=":
                return cmp != 0;
            case "<":
                return cmp < 0;
            case "<=":
                return cmp <= 0;
            case ">":
                return cmp > 0;
            default:
                return cmp >= 0;
        }
    }

    private static JsonNode read(final String json)
    {
        try
        {
            return RowJson.mapper().readTree(json);
        }
        catch (final IOException e)
        {
            throw new IllegalArgumentException(json, e);
        }
    }

    private static String write(final JsonNode node)
    {
        try
        {
            return RowJson.mapper().writeValueAsString(node);
        }
        catch (final IOException e)
        {
            throw new IllegalStateException(e);
        }
    }
}
