package io.junction.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.CompareOp;
import io.junction.api.Expansion;
import io.junction.api.FieldFilter;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import io.junction.api.MultiJoinSpec;
import java.util.Collections;

import static io.junction.json.SpecFilters.filters;
import static io.junction.json.SpecFilters.op;
import static io.junction.json.SpecNodes.checkFields;
import static io.junction.json.SpecNodes.keyFields;
import static io.junction.json.SpecNodes.nonNegative;
import static io.junction.json.SpecNodes.requireList;
import static io.junction.json.SpecNodes.requireObject;
import static io.junction.json.SpecNodes.requiredString;

/**
 * A multi-way join's inputs as the spec gives them (SEMANTICS 10), bound to a schema by {@link #spec(Schema)}, and
 * the parse of its {@code "inputs"} and {@code "condition"} ({@link #multi(JsonNode)}) for {@link JoinSpecJson}. Immutable;
 * the parse is stateless (setup only, any thread).
 */
final class MultiInputs
{
    final List<String> names;
    final List<JoinType> types;
    final List<List<String>> keys;
    final List<List<FieldFilter>> filters;
    final List<Long> ttls;
    /** {@code {left, op symbol, right}} per term. */
    final List<String[]> conditions;
    /** The declared output budget of one inserted row (docs/SEMANTICS.md 1.5); 0: unbounded. */
    final long maxFanOut;
    /** Per input, its rows' expansion before the join (docs/SEMANTICS.md 12), or null. */
    final List<Expansion> expansions;

    MultiInputs(final List<String> names, final List<JoinType> types, final List<List<String>> keys,
        final List<List<FieldFilter>> filters, final List<Long> ttls, final List<String[]> conditions, final long maxFanOut,
        final List<Expansion> expansions)
    {
        this.maxFanOut = maxFanOut;
        this.expansions = Collections.unmodifiableList(new ArrayList<>(expansions));
        this.names = List.copyOf(names);
        this.types = Collections.unmodifiableList(new ArrayList<>(types));
        this.keys = List.copyOf(keys);
        this.filters = List.copyOf(filters);
        this.ttls = List.copyOf(ttls);
        this.conditions = List.copyOf(conditions);
    }

    JoinSpec spec(final Schema schema)
    {
        final MultiJoinSpec.Builder builder = MultiJoinSpec.builder(schema).maxFanOut(maxFanOut);
        for (int i = 0; i < names.size(); i++)
        {
            builder.input(names.get(i), null, types.get(i), keys.get(i).toArray(new String[0]));
        }
        for (int i = 0; i < names.size(); i++)
        {
            for (final FieldFilter f : filters.get(i))
            {
                builder.filter(names.get(i), f);
            }
            builder.stateTtl(names.get(i), ttls.get(i));
            if (expansions.get(i) != null)
            {
                builder.expand(names.get(i), expansions.get(i));
            }
        }
        for (final String[] term : conditions)
        {
            builder.condition(term[0], CompareOp.fromSymbol(term[1]), term[2]);
        }
        try
        {
            return JoinSpec.multi(builder.build());
        }
        catch (final IllegalArgumentException e)
        {
            final String message = String.valueOf(e.getMessage());
            final int colon = message.indexOf(": ");
            if (colon > 0 && !message.substring(0, colon).contains(" "))
            {
                return rethrow(new JoinSpecException(message.substring(0, colon), message.substring(colon + 2)));
            }
            return rethrow(new JoinSpecException("inputs", message));
        }
    }

    private static JoinSpec rethrow(final JoinSpecException e)
    {
        throw e;
    }

    private static final Set<String> MULTI_TOP_LEVEL = Set.of("join", "inputs", "condition", "stateTtl", "schema", "maxFanOut");
    private static final Set<String> MULTI_INPUT_FIELDS = Set.of("name", "key", "type", "filter", "stateTtl", "expand");
    private static final Set<String> MULTI_CONDITION_FIELDS = Set.of("left", "op", "right");

    /** SEMANTICS 10: {@code "join": "multi"} with {@code "inputs"} and an optional {@code "condition"} over {@code "input.field"}. */
    static MultiInputs multi(final JsonNode root)
    {
        checkFields(root, "", MULTI_TOP_LEVEL);
        final long defaultTtl = nonNegative(root, "stateTtl");
        final JsonNode inputs = root.get("inputs");
        if (inputs == null)
        {
            throw new JoinSpecException("inputs", "required for a multi-way join");
        }
        requireList(inputs, "inputs");
        if (inputs.size() < 2 || inputs.size() > MultiJoinSpec.MAX_INPUTS)
        {
            throw new JoinSpecException("inputs", "a multi-way join has 2 to " + MultiJoinSpec.MAX_INPUTS +
                " inputs, not " + inputs.size());
        }
        final List<String> names = new ArrayList<>();
        final List<JoinType> types = new ArrayList<>();
        final List<List<String>> keys = new ArrayList<>();
        final List<List<FieldFilter>> filters = new ArrayList<>();
        final List<Long> ttls = new ArrayList<>();
        final List<Expansion> expansions = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++)
        {
            final String path = "inputs[" + i + "]";
            final JsonNode input = inputs.get(i);
            requireObject(input, path);
            checkFields(input, path + ".", MULTI_INPUT_FIELDS);
            final String name = requiredString(input, "name", path + ".");
            if (name.isEmpty() || name.indexOf('.') >= 0)
            {
                throw new JoinSpecException(path + ".name", "must be a non-empty name without '.', got '" + name + "'");
            }
            if (names.contains(name))
            {
                throw new JoinSpecException(path + ".name", "duplicate input name '" + name + "'");
            }
            names.add(name);
            final JsonNode typeNode = input.get("type");
            if (i == 0)
            {
                if (typeNode != null)
                {
                    throw new JoinSpecException(path + ".type", "the first input has no type (it is joined to nothing)");
                }
                types.add(null);
            }
            else
            {
                final String typeName = requiredString(input, "type", path + ".");
                final JoinType type = JoinType.fromName(typeName);
                if (type != JoinType.INNER && type != JoinType.LEFT)
                {
                    throw new JoinSpecException(path + ".type", "unknown type '" + typeName + "' (expected inner or left)");
                }
                types.add(type);
            }
            final List<String> key = keyFields(input, "key", path + ".");
            if (i > 0 && key.size() != keys.get(0).size())
            {
                throw new JoinSpecException(path + ".key", "key arity mismatch: inputs[0].key has " + keys.get(0).size() +
                    " field(s) " + keys.get(0) + ", this input has " + key.size() + " " + key);
            }
            keys.add(key);
            filters.add(filters(input, "filter", path + "."));
            ttls.add(input.has("stateTtl") ? nonNegative(input, "stateTtl", path + ".") : defaultTtl);
            expansions.add(input.has("expand") ? SpecExpansions.parse(input.get("expand"), path + ".expand", false) : null);
        }
        final List<String[]> conditions = new ArrayList<>();
        final JsonNode conditionNode = root.get("condition");
        if (conditionNode != null)
        {
            requireList(conditionNode, "condition");
            for (int i = 0; i < conditionNode.size(); i++)
            {
                final String path = "condition[" + i + "]";
                final JsonNode term = conditionNode.get(i);
                requireObject(term, path);
                checkFields(term, path + ".", MULTI_CONDITION_FIELDS);
                final String left = requiredString(term, "left", path + ".");
                final CompareOp op = op(term, path);
                if (op == CompareOp.IN)
                {
                    throw new JoinSpecException(path + ".op", "'in' is for filters over a list of literals, not for conditions");
                }
                final String right = requiredString(term, "right", path + ".");
                final int leftInput = conditionInput(left, names, path + ".left");
                final int rightInput = conditionInput(right, names, path + ".right");
                if (leftInput == 0 && rightInput == 0)
                {
                    throw new JoinSpecException(path, "names the first input '" + names.get(0) +
                        "' alone (it has no ON clause: use its filter)");
                }
                conditions.add(new String[] {left, op.symbol(), right});
            }
        }
        return new MultiInputs(names, types, keys, filters, ttls, conditions, nonNegative(root, "maxFanOut"), expansions);
    }

    private static int conditionInput(final String operand, final List<String> names, final String path)
    {
        final int dot = operand.indexOf('.');
        if (dot <= 0 || dot == operand.length() - 1)
        {
            throw new JoinSpecException(path, "must be \"input.field\", got '" + operand + "'");
        }
        final int input = names.indexOf(operand.substring(0, dot));
        if (input < 0)
        {
            throw new JoinSpecException(path, "unknown input '" + operand.substring(0, dot) + "' (inputs: " + names + ")");
        }
        return input;
    }
}
