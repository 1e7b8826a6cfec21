package io.junction.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.CompareOp;
import io.junction.api.FieldFilter;
import io.junction.api.Literal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.junction.json.SpecNodes.checkFields;
import static io.junction.json.SpecNodes.requireList;
import static io.junction.json.SpecNodes.requireObject;
import static io.junction.json.SpecNodes.requiredString;

/**
 * The pre-join filter terms of a spec for {@link JoinSpecJson} and {@link MultiInputs}: comparisons, {@code in} lists,
 * {@code any} disjunctions, their literals and ops. Stateless (setup only, any thread).
 */
final class SpecFilters
{
    private static final Set<String> FILTER_FIELDS = Set.of("field", "op", "value");
    private static final Set<String> ANY_FIELDS = Set.of("any");

    private SpecFilters()
    {
    }

    static List<FieldFilter> filters(final JsonNode root, final String name)
    {
        return filters(root, name, "");
    }

    static List<FieldFilter> filters(final JsonNode root, final String field, final String prefix)
    {
        final String name = prefix + field;
        final List<FieldFilter> result = new ArrayList<>();
        final JsonNode array = root.get(field);
        if (array == null)
        {
            return result;
        }
        requireList(array, name);
        for (int i = 0; i < array.size(); i++)
        {
            result.add(filter(array.get(i), name + "[" + i + "]", 0));
        }
        return result;
    }

    /**
     * One filter term: {@code {"field", "op", "value"}} (with op {@code in}, value a list of literals) or
     * {@code {"any": [term, ...]}}, which holds when one of its terms does.
     *
     * @param depth how many {@code any} enclose the term
     */
    private static FieldFilter filter(final JsonNode term, final String path, final int depth)
    {
        requireObject(term, path);
        final JsonNode any = term.get("any");
        if (any != null)
        {
            checkFields(term, path + ".", ANY_FIELDS);
            requireList(any, path + ".any");
            if (any.isEmpty())
            {
                throw new JoinSpecException(path + ".any", "at least one filter is required");
            }
            if (depth + 1 > FieldFilter.MAX_DEPTH)
            {
                throw new JoinSpecException(path + ".any", "nested more than " + FieldFilter.MAX_DEPTH + " levels deep");
            }
            final List<FieldFilter> alternatives = new ArrayList<>();
            for (int i = 0; i < any.size(); i++)
            {
                alternatives.add(filter(any.get(i), path + ".any[" + i + "]", depth + 1));
            }
            return FieldFilter.any(alternatives);
        }
        checkFields(term, path + ".", FILTER_FIELDS);
        final String field = requiredString(term, "field", path + ".");
        final CompareOp op = op(term, path);
        final JsonNode value = term.get("value");
        if (value == null)
        {
            throw new JoinSpecException(path + ".value", op == CompareOp.IN ? "required (a list of literals)"
                : "required (use null for a null literal)");
        }
        if (op == CompareOp.IN)
        {
            if (!value.isArray())
            {
                throw new JoinSpecException(path + ".value", "op 'in' needs a list of literals, got " + RowJson.kindOf(value));
            }
            requireList(value, path + ".value");
            if (value.isEmpty())
            {
                throw new JoinSpecException(path + ".value", "an 'in' list needs at least one literal");
            }
            final List<Literal> literals = new ArrayList<>();
            for (int i = 0; i < value.size(); i++)
            {
                literals.add(literal(value.get(i), path + ".value[" + i + "]"));
            }
            return FieldFilter.in(field, literals);
        }
        if (value.isArray())
        {
            throw new JoinSpecException(path + ".value", "a list of literals needs op 'in', not '" + op.symbol() + "'");
        }
        return new FieldFilter(field, op, literal(value, path + ".value"));
    }

    private static Literal literal(final JsonNode value, final String path)
    {
        if (value.isNull())
        {
            return Literal.ofNull();
        }
        if (value.isBoolean())
        {
            return Literal.of(value.booleanValue());
        }
        if (value.isTextual())
        {
            return Literal.of(value.textValue());
        }
        if (value.isNumber() && JsonNumbers.isLong(value))
        {
            return Literal.of(JsonNumbers.longValue(value));
        }
        if (value.isNumber() && Double.isFinite(value.doubleValue()))
        {
            return Literal.of(value.doubleValue());
        }
        throw new JoinSpecException(path, "must be a string, number, boolean or null, got " + RowJson.kindOf(value));
    }

    static CompareOp op(final JsonNode term, final String path)
    {
        final String symbol = requiredString(term, "op", path + ".");
        final CompareOp op = CompareOp.fromSymbol(symbol);
        if (op == null)
        {
            throw new JoinSpecException(path + ".op", "unknown op '" + symbol + "' (expected one of == != < <= > >= in)");
        }
        return op;
    }
}
