package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.CompareOp;
import io.junction.api.ConditionTerm;
import io.junction.api.FieldFilter;
import io.junction.api.FieldType;
import io.junction.api.Literal;
import io.junction.json.JsonNumbers;
import io.junction.json.RowJson;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The value rules of docs/SEMANTICS.md section 2, over JSON values as an event log gives them: the
 * canonical form that tells rows apart (section 2.2), key equality by type and value, comparison for
 * filters and conditions (numbers by value, strings by UTF-8 bytes, null false under every operator,
 * values of different types unequal and unordered), and the sentences that name a failed term.
 * The explain model runs over the parsed log, not over the engine's binary rows, so it keeps these
 * rules itself, term for term as the engine applies them. Thread safe (stateless).
 */
final class ExplainValues
{
    private ExplainValues()
    {
    }

    /** @return whether the value is absent or null (a key field that never matches, an operand that compares false) */
    static boolean isNull(final JsonNode value)
    {
        return value == null || value.isNull() || value.isMissingNode();
    }

    /**
     * @param row a row object
     * @return its canonical text: fields sorted by name, numbers in their normal form (section 2.1), so that
     *     two rows are equal exactly when their texts are
     */
    static String canonical(final JsonNode row)
    {
        final StringBuilder sb = new StringBuilder();
        appendCanonical(sb, row);
        return sb.toString();
    }

    private static void appendCanonical(final StringBuilder sb, final JsonNode value)
    {
        if (isNull(value))
        {
            sb.append("null");
        }
        else if (value.isObject())
        {
            final Map<String, JsonNode> sorted = new TreeMap<>();
            for (final Map.Entry<String, JsonNode> f : value.properties())
            {
                sorted.put(f.getKey(), f.getValue());
            }
            sb.append('{');
            String sep = "";
            for (final Map.Entry<String, JsonNode> f : sorted.entrySet())
            {
                sb.append(sep);
                RowJson.appendString(sb, f.getKey()).append(':');
                appendCanonical(sb, f.getValue());
                sep = ",";
            }
            sb.append('}');
        }
        else if (value.isArray())
        {
            sb.append('[');
            for (int i = 0; i < value.size(); i++)
            {
                sb.append(i == 0 ? "" : ",");
                appendCanonical(sb, value.get(i));
            }
            sb.append(']');
        }
        else
        {
            sb.append(text(value));
        }
    }

    /** @return a scalar's normal JSON text: a number in its normal form, a string quoted */
    static String text(final JsonNode value)
    {
        if (isNull(value))
        {
            return "null";
        }
        if (value.isNumber())
        {
            return JsonNumbers.isLong(value) ? Long.toString(JsonNumbers.longValue(value))
                : RowJson.appendDouble(new StringBuilder(), JsonNumbers.doubleValue(value)).toString();
        }
        if (value.isTextual())
        {
            return RowJson.appendString(new StringBuilder(), value.textValue()).toString();
        }
        return value.toString();
    }

    /** @return a value as a sentence shows it: strings in single quotes, absent fields as "absent" */
    static String show(final JsonNode value)
    {
        if (value == null || value.isMissingNode())
        {
            return "absent";
        }
        if (value.isTextual())
        {
            return "'" + value.textValue() + "'";
        }
        return text(value);
    }

    /** @return a literal as a sentence shows it */
    static String show(final Literal literal)
    {
        final String text = literal.toString();
        return literal.type() == FieldType.STRING ? "'" + text.substring(1, text.length() - 1) + "'" : text;
    }

    /** @return the key values of a row, null for a missing field */
    static JsonNode[] key(final JsonNode row, final List<String> fields)
    {
        final JsonNode[] key = new JsonNode[fields.size()];
        for (int i = 0; i < key.length; i++)
        {
            key[i] = row.get(fields.get(i));
        }
        return key;
    }

    /** @return the index of the first null or absent key field, or -1 */
    static int nullField(final JsonNode[] key)
    {
        for (int i = 0; i < key.length; i++)
        {
            if (isNull(key[i]))
            {
                return i;
            }
        }
        return -1;
    }

    /** @return whether two non-null keys are equal field by field in type and value (section 2.2) */
    static boolean keysEqual(final JsonNode[] a, final JsonNode[] b)
    {
        for (int i = 0; i < a.length; i++)
        {
            if (isNull(a[i]) || isNull(b[i]) || compare(a[i], b[i]) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return whether two keys differ only in JSON type: every field is equal or the same text as a string on
     *     one side and a number or boolean on the other ({@code "1"} and {@code 1})
     */
    static boolean keysDifferOnlyInType(final JsonNode[] a, final JsonNode[] b)
    {
        boolean differs = false;
        for (int i = 0; i < a.length; i++)
        {
            if (isNull(a[i]) || isNull(b[i]))
            {
                return false;
            }
            if (compare(a[i], b[i]) == 0)
            {
                continue;
            }
            final JsonNode text = a[i].isTextual() ? a[i] : b[i].isTextual() ? b[i] : null;
            final JsonNode other = text == a[i] ? b[i] : a[i];
            if (text == null || other.isTextual() || !(other.isNumber() || other.isBoolean()) || !sameText(text.textValue(), other))
            {
                return false;
            }
            differs = true;
        }
        return differs;
    }

    /** @return whether a string spells a number or boolean value: {@code "1"}, {@code "1.0"} and {@code "1e0"} all spell 1 */
    private static boolean sameText(final String text, final JsonNode value)
    {
        if (text.equals(text(value)))
        {
            return true;
        }
        final JsonNode parsed;
        try
        {
            parsed = RowJson.mapper().readTree(text.strip());
        }
        catch (final IOException e)
        {
            return false;
        }
        return parsed != null && parsed.isValueNode() && !parsed.isTextual() && compare(parsed, value) == 0;
    }

    /** @return a key as a sentence shows it: one value, or the values in brackets */
    static String showKey(final List<String> fields, final JsonNode[] key)
    {
        if (key.length == 1)
        {
            return fields.get(0) + " " + show(key[0]);
        }
        final StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < key.length; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(fields.get(i)).append(' ').append(show(key[i]));
        }
        return sb.append(')').toString();
    }

    /** @return the JSON type of a value, as a sentence names it */
    static String typeName(final JsonNode value)
    {
        if (isNull(value))
        {
            return "null";
        }
        return value.isTextual() ? "string" : value.isNumber() ? "number" : value.isBoolean() ? "boolean" : "array";
    }

    /**
     * Compares two values under section 2.3.
     *
     * @return negative, zero or positive; {@link CompareOp#INCOMPARABLE} when either is null or absent;
     *     {@link CompareOp#DIFFERENT_TYPES} when their types differ (or either is an array)
     */
    static int compare(final JsonNode a, final JsonNode b)
    {
        if (isNull(a) || isNull(b))
        {
            return CompareOp.INCOMPARABLE;
        }
        if (a.isNumber() && b.isNumber())
        {
            if (JsonNumbers.isLong(a) && JsonNumbers.isLong(b))
            {
                return Long.compare(JsonNumbers.longValue(a), JsonNumbers.longValue(b));
            }
            return exact(a).compareTo(exact(b));
        }
        if (a.isTextual() && b.isTextual())
        {
            return compareUtf8(a.textValue(), b.textValue());
        }
        if (a.isBoolean() && b.isBoolean())
        {
            return Boolean.compare(a.booleanValue(), b.booleanValue());
        }
        return CompareOp.DIFFERENT_TYPES;
    }

    private static BigDecimal exact(final JsonNode number)
    {
        return JsonNumbers.isLong(number) ? BigDecimal.valueOf(JsonNumbers.longValue(number))
            : new BigDecimal(JsonNumbers.doubleValue(number));
    }

    private static int compareUtf8(final String a, final String b)
    {
        final byte[] x = a.getBytes(StandardCharsets.UTF_8);
        final byte[] y = b.getBytes(StandardCharsets.UTF_8);
        final int n = Math.min(x.length, y.length);
        for (int i = 0; i < n; i++)
        {
            final int c = Integer.compare(x[i] & 0xFF, y[i] & 0xFF);
            if (c != 0)
            {
                return c;
            }
        }
        return Integer.compare(x.length, y.length);
    }

    private static int compare(final JsonNode value, final Literal literal)
    {
        switch (literal.type())
        {
            case FieldType.NULL:
                return CompareOp.INCOMPARABLE;
            case FieldType.LONG:
                return compare(value, RowJson.mapper().getNodeFactory().numberNode(literal.longValue()));
            case FieldType.DOUBLE:
                return compare(value, RowJson.mapper().getNodeFactory().numberNode(literal.doubleValue()));
            case FieldType.BOOLEAN:
                return compare(value, RowJson.mapper().getNodeFactory().booleanNode(literal.longValue() != 0));
            default:
                final String text = literal.toString();
                return compare(value, RowJson.mapper().getNodeFactory().textNode(text.substring(1, text.length() - 1)));
        }
    }

    /** @return whether a filter term holds for a row (an IN list, an any, or a comparison) */
    static boolean holds(final FieldFilter filter, final JsonNode row)
    {
        if (filter.isAny())
        {
            for (final FieldFilter alternative : filter.alternatives())
            {
                if (holds(alternative, row))
                {
                    return true;
                }
            }
            return false;
        }
        final JsonNode value = row.get(filter.field());
        final CompareOp op = filter.op() == CompareOp.IN ? CompareOp.EQ : filter.op();
        for (final Literal literal : filter.values())
        {
            if (op.test(compare(value, literal)))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @param which  "left", "right" or an input's name, for the sentence
     * @param filters a side's filter terms (ANDed)
     * @param row    the row
     * @return null when every term holds, else a sentence naming the first term that failed and the row's value
     */
    static String failedFilter(final String which, final List<FieldFilter> filters, final JsonNode row)
    {
        for (final FieldFilter filter : filters)
        {
            if (!holds(filter, row))
            {
                return which + " filter " + showFilter(filter) + " failed: " + values(filter, row);
            }
        }
        return null;
    }

    private static String showFilter(final FieldFilter filter)
    {
        if (filter.isAny())
        {
            final StringBuilder sb = new StringBuilder("any(");
            for (int i = 0; i < filter.alternatives().size(); i++)
            {
                sb.append(i == 0 ? "" : " or ").append(showFilter(filter.alternatives().get(i)));
            }
            return sb.append(')').toString();
        }
        if (filter.op() == CompareOp.IN)
        {
            final List<String> shown = new ArrayList<>();
            for (final Literal literal : filter.values())
            {
                shown.add(show(literal));
            }
            return filter.field() + " in " + shown;
        }
        return filter.field() + " " + filter.op().symbol() + " " + show(filter.value());
    }

    private static String values(final FieldFilter filter, final JsonNode row)
    {
        final List<String> fields = new ArrayList<>();
        collectFields(filter, fields);
        final StringBuilder sb = new StringBuilder();
        for (final String field : fields)
        {
            final JsonNode value = row.get(field);
            sb.append(sb.length() == 0 ? "" : ", ").append(field).append(" was ").append(show(value));
            if (isNull(value))
            {
                sb.append(" (null compares false with everything)");
            }
        }
        return sb.toString();
    }

    private static void collectFields(final FieldFilter filter, final List<String> fields)
    {
        if (filter.isAny())
        {
            for (final FieldFilter alternative : filter.alternatives())
            {
                collectFields(alternative, fields);
            }
        }
        else if (!fields.contains(filter.field()))
        {
            fields.add(filter.field());
        }
    }

    /**
     * A condition term over a left and a right value: {@code left + offset op right} (section 2.3: an offset
     * needs a number on the left, adding with saturation).
     */
    static boolean holds(final JsonNode left, final long offset, final CompareOp op, final JsonNode right)
    {
        JsonNode l = left;
        if (offset != 0)
        {
            if (isNull(left) || !left.isNumber())
            {
                return false;
            }
            l = JsonNumbers.isLong(left)
                ? RowJson.mapper().getNodeFactory().numberNode(saturatedAdd(JsonNumbers.longValue(left), offset))
                : RowJson.mapper().getNodeFactory().numberNode(JsonNumbers.doubleValue(left) + offset);
        }
        return op.test(compare(l, right));
    }

    /**
     * @return null when every term holds for the pair, else a sentence naming the first term that failed and
     *     both values
     */
    static String failedCondition(final List<ConditionTerm> terms, final JsonNode left, final JsonNode right)
    {
        for (final ConditionTerm term : terms)
        {
            final JsonNode l = left.get(term.leftField());
            final JsonNode r = right.get(term.rightField());
            if (!holds(l, term.leftOffset(), term.op(), r))
            {
                return "condition " + term + " failed: left " + term.leftField() + " was " + show(l) + ", right " +
                    term.rightField() + " was " + show(r) + reasonOf(l, r, term.leftOffset());
            }
        }
        return null;
    }

    /** @return why a comparison of two values failed when it is not their order: a null, or different types */
    static String reasonOf(final JsonNode l, final JsonNode r, final long offset)
    {
        if (isNull(l) || isNull(r))
        {
            return " (null compares false with everything)";
        }
        if (offset != 0 && !l.isNumber())
        {
            return " (an offset needs a number on the left)";
        }
        if (compare(l, r) == CompareOp.DIFFERENT_TYPES)
        {
            return " (a " + typeName(l) + " and a " + typeName(r) + " are unequal and unordered)";
        }
        return "";
    }

    /** @return a + b, saturating at the ends of the signed 64-bit range */
    static long saturatedAdd(final long a, final long b)
    {
        final long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }

    /** @return a time as a sentence shows it: a number, or minus/plus infinity at the ends */
    static String time(final long t)
    {
        return t == Long.MIN_VALUE ? "-infinity" : t == Long.MAX_VALUE ? "+infinity" : String.format(Locale.ROOT, "%,d", t);
    }
}
