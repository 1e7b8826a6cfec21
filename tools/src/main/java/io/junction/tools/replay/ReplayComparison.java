package io.junction.tools.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.JoinKind;
import io.junction.json.JsonNumbers;
import io.junction.json.RowJson;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares a replay's output with an expected output as {@code conformance/README.md} defines it.
 * <ul>
 *   <li>{@link Mode#STEP}: for every step, the multiset of (sign of op, left, right, row, window) must be
 *       equal (a multi-way join's lines carry {@code rows} instead of left and right, SEMANTICS 10: compared as
 *       one value, input names in any order, a padded input {@code null} or absent alike); the multiset must be
 *       equal ({@code row}: a window coGroup's computed row, SEMANTICS 6.4); {@code +I}/{@code +U} count as {@code +}, {@code -D}/{@code -U} as {@code -}.</li>
 *   <li>{@link Mode#FINAL}: applying each changelog in order must give equal final multisets, and
 *       for every join but the regular join the actual output must be append-only.</li>
 *   <li>Dead letters: the multisets of (step, row) must be equal; reasons are free text.</li>
 * </ul>
 * Rows compare as JSON values: key order is irrelevant and numbers compare by value ({@code 1} equals
 * {@code 1.0}), which is done by reducing every value to a canonical text first.
 * <p>
 * Immutable.
 */
public final class ReplayComparison
{
    /** How many differences {@link #describe()} lists before summarising the rest. */
    private static final int MAX_LISTED = 40;

    /** The comparison modes of a case ({@code NAME.mode}). */
    public enum Mode
    {
        /** Per-step multisets must be equal. */
        STEP,
        /** Final multisets after applying the changelogs must be equal. */
        FINAL;

        /**
         * @param text {@code step} or {@code final}, surrounding white space ignored
         * @return the mode
         * @throws IllegalArgumentException for any other text
         */
        public static Mode parse(final String text)
        {
            final String t = text.trim().toLowerCase(Locale.ROOT);
            if ("step".equals(t))
            {
                return STEP;
            }
            if ("final".equals(t))
            {
                return FINAL;
            }
            throw new IllegalArgumentException("unknown comparison mode '" + text.trim() + "' (expected step or final)");
        }
    }

    /** A counted item: a step (0 in final mode) and the canonical text of what is counted. */
    private record Item(long step, String body)
    {
        static final Comparator<Item> ORDER = Comparator.comparingLong(Item::step).thenComparing(Item::body);
    }

    private final List<String> differences;

    private ReplayComparison(final List<String> differences)
    {
        this.differences = Collections.unmodifiableList(differences);
    }

    /**
     * Compares result lines.
     *
     * @param mode     how to compare
     * @param kind     the join kind (output of every kind but regular and asof, whose eager mode corrects with -U/+U, must be append-only in final mode)
     * @param expected expected lines (blank lines ignored)
     * @param actual   actual lines (blank lines ignored)
     * @return the comparison
     */
    public static ReplayComparison outputs(
        final Mode mode, final JoinKind kind, final List<String> expected, final List<String> actual)
    {
        final List<String> differences = new ArrayList<>();
        final Map<Item, Integer> counts = new TreeMap<>(Item.ORDER);
        count(mode, expected, -1, "expected", counts, differences, false);
        count(mode, actual, +1, "actual", counts, differences,
            mode == Mode.FINAL && kind != JoinKind.REGULAR && kind != JoinKind.MULTI && kind != JoinKind.ASOF);
        report(counts, mode == Mode.STEP, differences);
        return new ReplayComparison(differences);
    }

    /**
     * Compares dead-letter lines by their (step, row) multisets.
     *
     * @param expected expected lines (blank lines ignored)
     * @param actual   actual lines (blank lines ignored)
     * @return the comparison
     */
    public static ReplayComparison deadLetters(final List<String> expected, final List<String> actual)
    {
        final List<String> differences = new ArrayList<>();
        final Map<Item, Integer> counts = new TreeMap<>(Item.ORDER);
        countDeadLetters(expected, -1, "expected", counts, differences);
        countDeadLetters(actual, +1, "actual", counts, differences);
        report(counts, true, differences);
        return new ReplayComparison(differences);
    }

    /** @return true when no difference was found */
    public boolean matches()
    {
        return differences.isEmpty();
    }

    /** @return every difference found, one sentence each */
    public List<String> differences()
    {
        return differences;
    }

    /** @return the differences as one text, for assertion messages and the command line */
    public String describe()
    {
        if (differences.isEmpty())
        {
            return "equal";
        }
        final StringBuilder sb = new StringBuilder();
        sb.append(differences.size()).append(" difference(s):");
        for (int i = 0; i < Math.min(MAX_LISTED, differences.size()); i++)
        {
            sb.append("\n  ").append(differences.get(i));
        }
        if (differences.size() > MAX_LISTED)
        {
            sb.append("\n  ... and ").append(differences.size() - MAX_LISTED).append(" more");
        }
        return sb.toString();
    }

    private static void count(
        final Mode mode, final List<String> lines, final int weight, final String which, final Map<Item, Integer> counts,
        final List<String> differences, final boolean appendOnly)
    {
        // SEMANTICS 4.5-4.7 upsert lines in final mode: the table by key that applying them in step order leaves
        final Map<String, long[]> upsertSteps = new TreeMap<>();
        final Map<String, String> upserted = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (line.isBlank())
            {
                continue;
            }
            final JsonNode node = parse(line, which, i, differences);
            if (node == null)
            {
                continue;
            }
            final JsonNode step = node.get("step");
            final JsonNode op = node.get("op");
            if (step == null || !step.canConvertToLong() || op == null || !op.isTextual())
            {
                differences.add(which + " line " + (i + 1) + " lacks a step or an op: " + line);
                continue;
            }
            if ("upsert".equals(op.textValue()) || "delete".equals(op.textValue()))
            {
                final String key = "key=" + canonical(node.get("key"));
                final String rows = "left=" + canonical(node.get("left")) + " right=" + canonical(node.get("right"));
                if (mode == Mode.STEP)
                {
                    counts.merge(new Item(step.longValue(), op.textValue() + " " + key + " " + rows), weight, Integer::sum);
                }
                else
                {
                    final long[] last = upsertSteps.get(key);
                    if (last == null || last[0] <= step.longValue())
                    {
                        upsertSteps.put(key, new long[] {step.longValue()});
                        if ("upsert".equals(op.textValue()))
                        {
                            upserted.put(key, rows);
                        }
                        else
                        {
                            upserted.remove(key);
                        }
                    }
                }
                continue;
            }
            final String sign = sign(op.textValue());
            if (sign == null)
            {
                differences.add(which + " line " + (i + 1) + " has an unknown op " + op + ": " + line);
                continue;
            }
            if (appendOnly && "-".equals(sign))
            {
                differences.add("not append-only: " + which + " line " + (i + 1) + " retracts: " + line);
            }
            final String rows = node.has("rows") ? "rows=" + canonicalRows(node.get("rows")) :
                "left=" + canonical(node.get("left")) + " right=" + canonical(node.get("right")) +
                (node.has("row") ? " row=" + canonical(node.get("row")) : "") +
                (node.has("window") ? " window=" + canonical(node.get("window")) : "");
            final Item item;
            int delta = weight;
            if (mode == Mode.STEP)
            {
                item = new Item(step.longValue(), sign + " " + rows);
            }
            else
            {
                item = new Item(0, rows);
                if ("-".equals(sign))
                {
                    delta = -weight;
                }
            }
            counts.merge(item, delta, Integer::sum);
        }
        for (final Map.Entry<String, String> row : upserted.entrySet())
        {
            counts.merge(new Item(0, "upserted " + row.getKey() + " " + row.getValue()), weight, Integer::sum);
        }
    }

    private static void countDeadLetters(
        final List<String> lines, final int weight, final String which, final Map<Item, Integer> counts,
        final List<String> differences)
    {
        for (int i = 0; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (line.isBlank())
            {
                continue;
            }
            final JsonNode node = parse(line, which, i, differences);
            if (node == null)
            {
                continue;
            }
            final JsonNode step = node.get("step");
            if (step == null || !step.canConvertToLong())
            {
                differences.add(which + " dead letter " + (i + 1) + " lacks a step: " + line);
                continue;
            }
            final String body;
            if (node.has("row"))
            {
                body = "row=" + canonical(node.get("row"));
            }
            else if (node.has("line"))
            {
                body = "line=" + canonical(node.get("line"));
            }
            else
            {
                body = "row=null";
            }
            counts.merge(new Item(step.longValue(), body), weight, Integer::sum);
        }
    }

    private static JsonNode parse(final String line, final String which, final int index, final List<String> differences)
    {
        try
        {
            final JsonNode node = RowJson.mapper().readTree(line);
            if (node != null && node.isObject())
            {
                return node;
            }
        }
        catch (final JsonProcessingException e)
        {
            // reported below
        }
        differences.add(which + " line " + (index + 1) + " is not a JSON object: " + line);
        return null;
    }

    /**
     * Lists the items whose counts differ: a positive net count is actual output the expectation
     * lacks, a negative one expected output that is missing.
     */
    private static void report(final Map<Item, Integer> counts, final boolean withStep, final List<String> differences)
    {
        for (final Map.Entry<Item, Integer> entry : counts.entrySet())
        {
            final int net = entry.getValue();
            if (net == 0)
            {
                continue;
            }
            final Item item = entry.getKey();
            final String where = withStep ? "at step " + item.step() + ": " : "in the final multiset: ";
            if (net > 0)
            {
                differences.add("unexpected " + (net > 1 ? net + "x " : "") + where + item.body());
            }
            else
            {
                differences.add("missing " + (net < -1 ? -net + "x " : "") + where + item.body());
            }
        }
    }

    private static String sign(final String op)
    {
        switch (op)
        {
            case "+I":
            case "+U":
                return "+";
            case "-D":
            case "-U":
                return "-";
            default:
                return null;
        }
    }

    /**
     * A multi-way join's {@code "rows"} (SEMANTICS 10) as a canonical text: input names sorted, a padded input
     * ({@code null}) the same as an absent one, each row canonical.
     *
     * @param rows the {@code rows} object
     * @return its canonical text
     */
    static String canonicalRows(final JsonNode rows)
    {
        if (rows == null || !rows.isObject())
        {
            return canonical(rows);
        }
        final TreeMap<String, String> sorted = new TreeMap<>();
        for (final Map.Entry<String, JsonNode> input : rows.properties())
        {
            if (input.getValue() != null && !input.getValue().isNull())
            {
                sorted.put(input.getKey(), canonical(input.getValue()));
            }
        }
        final StringBuilder sb = new StringBuilder("{");
        for (final Map.Entry<String, String> input : sorted.entrySet())
        {
            if (sb.length() > 1)
            {
                sb.append(',');
            }
            RowJson.appendString(sb, input.getKey()).append(':').append(input.getValue());
        }
        return sb.append('}').toString();
    }

    /**
     * Reduces a JSON value to a canonical text: object keys sorted, numbers by value
     * ({@code 1}, {@code 1.0}, {@code 1e0} and {@code 1.00000000000000001} all become {@code 1}),
     * strings escaped one way.
     *
     * @param node a JSON value; null or missing counts as JSON null
     * @return its canonical text
     */
    public static String canonical(final JsonNode node)
    {
        final StringBuilder sb = new StringBuilder();
        appendCanonical(node, sb);
        return sb.toString();
    }

    private static void appendCanonical(final JsonNode node, final StringBuilder sb)
    {
        if (node == null || node.isNull() || node.isMissingNode())
        {
            sb.append("null");
        }
        else if (node.isObject())
        {
            sb.append('{');
            boolean first = true;
            final TreeMap<String, JsonNode> sorted = new TreeMap<>();
            for (final Map.Entry<String, JsonNode> field : node.properties())
            {
                sorted.put(field.getKey(), field.getValue());
            }
            for (final Map.Entry<String, JsonNode> field : sorted.entrySet())
            {
                if (!first)
                {
                    sb.append(',');
                }
                first = false;
                RowJson.appendString(sb, field.getKey()).append(':');
                appendCanonical(field.getValue(), sb);
            }
            sb.append('}');
        }
        else if (node.isArray())
        {
            sb.append('[');
            for (int i = 0; i < node.size(); i++)
            {
                if (i > 0)
                {
                    sb.append(',');
                }
                appendCanonical(node.get(i), sb);
            }
            sb.append(']');
        }
        else if (node.isNumber())
        {
            // by the value the engine gives the number (JsonNumbers), so expected files may write it any way
            if (JsonNumbers.isLong(node))
            {
                sb.append(JsonNumbers.longValue(node));
            }
            else if (Double.isFinite(node.doubleValue()))
            {
                sb.append(BigDecimal.valueOf(node.doubleValue()).stripTrailingZeros().toPlainString());
            }
            else
            {
                sb.append(node.doubleValue());
            }
        }
        else if (node.isTextual())
        {
            RowJson.appendString(sb, node.textValue());
        }
        else
        {
            sb.append(node.asText());
        }
    }
}
