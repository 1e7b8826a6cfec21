package io.junction.tools.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.junction.api.CompareOp;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Schema;
import io.junction.api.WindowSpec;
import io.junction.tools.json.RowJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads a join spec file ({@code *.join.json}, SPEC 1 "Join spec") into a validated {@link JoinSpec}.
 * <p>
 * SPEC asks that a wrong spec runs nothing and says which field is wrong, so this parser is strict
 * where a lenient one would silently run a different join: unknown fields at any level, missing
 * required fields, wrong JSON types, unknown ops and key arity mismatches all throw a
 * {@link JoinSpecException} whose message starts with the field's path. The engine's own checks
 * (empty interval, window sizes, stateTtl on a non-regular join) are reported the same way.
 * <p>
 * Every field name the spec uses (keys, filter fields, condition fields) is registered in the given
 * {@link Schema} before the spec is built, because the engine resolves names to indices at build time
 * and the replay encodes rows of both sides against that one schema. Java-style comments are allowed
 * in spec files (the SPEC's own example carries them); event logs stay plain JSON.
 * <p>
 * Thread safe (stateless).
 */
public final class JoinSpecJson {
    private static final ObjectMapper SPEC_MAPPER = JsonMapper.builder()
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
        .build();

    private static final Set<String> TOP_LEVEL = Set.of(
        "join", "type", "leftKey", "rightKey", "interval", "window", "leftFilter", "rightFilter", "condition",
        "allowedLateness", "stateTtl");
    private static final Set<String> INTERVAL_FIELDS = Set.of("lower", "upper", "lowerInclusive", "upperInclusive");
    private static final Set<String> TUMBLING_FIELDS = Set.of("kind", "size", "offset");
    private static final Set<String> SLIDING_FIELDS = Set.of("kind", "size", "slide", "offset");
    private static final Set<String> SESSION_FIELDS = Set.of("kind", "gap");
    private static final Set<String> FILTER_FIELDS = Set.of("field", "op", "value");
    private static final Set<String> CONDITION_FIELDS = Set.of("left", "op", "right");
    private static final double LONG_RANGE = 0x1p63;

    private JoinSpecJson() {
    }

    /**
     * Reads a spec file.
     *
     * @param path   the {@code *.join.json} file
     * @param schema where the spec's field names are registered (shared by both sides)
     * @return the validated spec
     * @throws IOException       when the file cannot be read
     * @throws JoinSpecException when the spec is rejected
     */
    public static JoinSpec read(final Path path, final Schema schema) throws IOException {
        return parse(Files.readString(path, StandardCharsets.UTF_8), schema);
    }

    /**
     * Parses a spec text.
     *
     * @param json   the spec
     * @param schema where the spec's field names are registered (shared by both sides)
     * @return the validated spec
     * @throws JoinSpecException when the spec is rejected
     */
    public static JoinSpec parse(final String json, final Schema schema) {
        final JsonNode root;
        try {
            root = SPEC_MAPPER.readTree(json);
        } catch (final JsonProcessingException e) {
            throw new JoinSpecException("spec", "invalid JSON: " + e.getOriginalMessage() +
                " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        }
        return parse(root, schema);
    }

    /**
     * Validates a parsed spec.
     *
     * @param root   the spec object
     * @param schema where the spec's field names are registered (shared by both sides)
     * @return the validated spec
     * @throws JoinSpecException when the spec is rejected
     */
    public static JoinSpec parse(final JsonNode root, final Schema schema) {
        if (root == null || !root.isObject()) {
            throw new JoinSpecException("spec", "must be a JSON object, got " + RowJson.kindOf(root));
        }
        checkFields(root, "", TOP_LEVEL);

        final String kindName = requiredString(root, "join", "");
        final JoinKind kind = JoinKind.fromName(kindName);
        if (kind == null) {
            throw new JoinSpecException("join", "unknown join '" + kindName + "' (expected regular, interval or window)");
        }
        final String typeName = requiredString(root, "type", "");
        final JoinType type = JoinType.fromName(typeName);
        if (type == null) {
            throw new JoinSpecException("type", "unknown type '" + typeName +
                "' (expected inner, left, right, full, semi or anti)");
        }
        final List<String> leftKey = keyFields(root, "leftKey");
        final List<String> rightKey = keyFields(root, "rightKey");
        if (leftKey.size() != rightKey.size()) {
            throw new JoinSpecException("rightKey", "key arity mismatch: leftKey has " + leftKey.size() +
                " field(s) " + leftKey + ", rightKey has " + rightKey.size() + " " + rightKey);
        }

        final JoinSpec.Builder builder = JoinSpec.builder(kind, type).schemas(schema, schema);
        registerAll(schema, leftKey);
        registerAll(schema, rightKey);
        builder.leftKey(leftKey.toArray(new String[0])).rightKey(rightKey.toArray(new String[0]));

        final JsonNode interval = root.get("interval");
        if (kind == JoinKind.INTERVAL && interval == null) {
            throw new JoinSpecException("interval", "required for an interval join");
        }
        if (interval != null) {
            if (kind != JoinKind.INTERVAL) {
                throw new JoinSpecException("interval", "only for interval joins, this is a " + kindName + " join");
            }
            builder.interval(interval(interval));
        }
        final JsonNode window = root.get("window");
        if (kind == JoinKind.WINDOW && window == null) {
            throw new JoinSpecException("window", "required for a window join");
        }
        if (window != null) {
            if (kind != JoinKind.WINDOW) {
                throw new JoinSpecException("window", "only for window joins, this is a " + kindName + " join");
            }
            builder.window(window(window));
        }

        for (final Filter f : filters(root, "leftFilter")) {
            schema.register(f.field);
            builder.leftFilter(f.field, f.op, f.value);
        }
        for (final Filter f : filters(root, "rightFilter")) {
            schema.register(f.field);
            builder.rightFilter(f.field, f.op, f.value);
        }
        final JsonNode condition = root.get("condition");
        if (condition != null) {
            requireArray(condition, "condition");
            for (int i = 0; i < condition.size(); i++) {
                final String path = "condition[" + i + "]";
                final JsonNode term = condition.get(i);
                requireObject(term, path);
                checkFields(term, path + ".", CONDITION_FIELDS);
                final String left = requiredString(term, "left", path + ".");
                final CompareOp op = op(term, path);
                final String right = requiredString(term, "right", path + ".");
                schema.register(left);
                schema.register(right);
                builder.condition(left, op, right);
            }
        }
        builder.allowedLateness(nonNegative(root, "allowedLateness"));
        builder.stateTtl(nonNegative(root, "stateTtl"));

        try {
            return builder.build();
        } catch (final IllegalArgumentException e) {
            throw fromEngine(e);
        }
    }

    private static IntervalBounds interval(final JsonNode node) {
        requireObject(node, "interval");
        checkFields(node, "interval.", INTERVAL_FIELDS);
        final long lower = requiredLong(node, "lower", "interval.");
        final long upper = requiredLong(node, "upper", "interval.");
        final boolean lowerInclusive = optionalBoolean(node, "lowerInclusive", "interval.", true);
        final boolean upperInclusive = optionalBoolean(node, "upperInclusive", "interval.", true);
        try {
            return new IntervalBounds(lower, upper, lowerInclusive, upperInclusive);
        } catch (final IllegalArgumentException e) {
            throw new JoinSpecException("interval", e.getMessage());
        }
    }

    private static WindowSpec window(final JsonNode node) {
        requireObject(node, "window");
        final String kind = requiredString(node, "kind", "window.");
        try {
            switch (kind) {
                case "tumbling":
                    checkFields(node, "window.", TUMBLING_FIELDS);
                    return WindowSpec.tumbling(requiredLong(node, "size", "window."),
                        optionalLong(node, "offset", "window.", 0));
                case "sliding":
                    checkFields(node, "window.", SLIDING_FIELDS);
                    return WindowSpec.sliding(requiredLong(node, "size", "window."),
                        requiredLong(node, "slide", "window."), optionalLong(node, "offset", "window.", 0));
                case "session":
                    checkFields(node, "window.", SESSION_FIELDS);
                    return WindowSpec.session(requiredLong(node, "gap", "window."));
                default:
                    throw new JoinSpecException("window.kind", "unknown window kind '" + kind +
                        "' (expected tumbling, sliding or session)");
            }
        } catch (final JoinSpecException e) {
            throw e;
        } catch (final IllegalArgumentException e) {
            throw fromEngine(e);
        }
    }

    /** A parsed filter term. */
    private static final class Filter {
        final String field;
        final CompareOp op;
        final Literal value;

        Filter(final String field, final CompareOp op, final Literal value) {
            this.field = field;
            this.op = op;
            this.value = value;
        }
    }

    private static List<Filter> filters(final JsonNode root, final String name) {
        final List<Filter> result = new ArrayList<>();
        final JsonNode array = root.get(name);
        if (array == null) {
            return result;
        }
        requireArray(array, name);
        for (int i = 0; i < array.size(); i++) {
            final String path = name + "[" + i + "]";
            final JsonNode term = array.get(i);
            requireObject(term, path);
            checkFields(term, path + ".", FILTER_FIELDS);
            final String field = requiredString(term, "field", path + ".");
            final CompareOp op = op(term, path);
            final JsonNode value = term.get("value");
            if (value == null) {
                throw new JoinSpecException(path + ".value", "required (use null for a null literal)");
            }
            result.add(new Filter(field, op, literal(value, path + ".value")));
        }
        return result;
    }

    private static Literal literal(final JsonNode value, final String path) {
        if (value.isNull()) {
            return Literal.ofNull();
        }
        if (value.isBoolean()) {
            return Literal.of(value.booleanValue());
        }
        if (value.isTextual()) {
            return Literal.of(value.textValue());
        }
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return Literal.of(value.longValue());
        }
        if (value.isNumber() && Double.isFinite(value.doubleValue())) {
            return Literal.of(value.doubleValue());
        }
        throw new JoinSpecException(path, "must be a string, number, boolean or null, got " + RowJson.kindOf(value));
    }

    private static CompareOp op(final JsonNode term, final String path) {
        final String symbol = requiredString(term, "op", path + ".");
        final CompareOp op = CompareOp.fromSymbol(symbol);
        if (op == null) {
            throw new JoinSpecException(path + ".op", "unknown op '" + symbol + "' (expected one of == != < <= > >=)");
        }
        return op;
    }

    private static List<String> keyFields(final JsonNode root, final String name) {
        final JsonNode array = root.get(name);
        if (array == null) {
            throw new JoinSpecException(name, "required");
        }
        requireArray(array, name);
        if (array.isEmpty()) {
            throw new JoinSpecException(name, "at least one key field is required");
        }
        final List<String> fields = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            final JsonNode field = array.get(i);
            if (!field.isTextual()) {
                throw new JoinSpecException(name + "[" + i + "]", "must be a field name (string), got " + RowJson.kindOf(field));
            }
            fields.add(field.textValue());
        }
        return fields;
    }

    private static void registerAll(final Schema schema, final List<String> names) {
        for (final String name : names) {
            schema.register(name);
        }
    }

    private static long nonNegative(final JsonNode root, final String name) {
        final long value = optionalLong(root, name, "", 0);
        if (value < 0) {
            throw new JoinSpecException(name, "must be >= 0, got " + value);
        }
        return value;
    }

    private static void checkFields(final JsonNode node, final String prefix, final Set<String> allowed) {
        for (final Map.Entry<String, JsonNode> field : node.properties()) {
            if (!allowed.contains(field.getKey())) {
                throw new JoinSpecException(prefix + field.getKey(), "unknown field (allowed here: " +
                    String.join(", ", new TreeSet<>(allowed)) + ")");
            }
        }
    }

    private static void requireObject(final JsonNode node, final String path) {
        if (!node.isObject()) {
            throw new JoinSpecException(path, "must be an object, got " + RowJson.kindOf(node));
        }
    }

    private static void requireArray(final JsonNode node, final String path) {
        if (!node.isArray()) {
            throw new JoinSpecException(path, "must be an array, got " + RowJson.kindOf(node));
        }
    }

    private static String requiredString(final JsonNode parent, final String name, final String prefix) {
        final JsonNode node = parent.get(name);
        if (node == null) {
            throw new JoinSpecException(prefix + name, "required");
        }
        if (!node.isTextual()) {
            throw new JoinSpecException(prefix + name, "must be a string, got " + RowJson.kindOf(node));
        }
        return node.textValue();
    }

    private static long requiredLong(final JsonNode parent, final String name, final String prefix) {
        final JsonNode node = parent.get(name);
        if (node == null) {
            throw new JoinSpecException(prefix + name, "required");
        }
        return toLong(node, prefix + name);
    }

    private static long optionalLong(final JsonNode parent, final String name, final String prefix, final long dflt) {
        final JsonNode node = parent.get(name);
        return node == null ? dflt : toLong(node, prefix + name);
    }

    private static long toLong(final JsonNode node, final String path) {
        if (node.isIntegralNumber() && node.canConvertToLong()) {
            return node.longValue();
        }
        if (node.isNumber()) {
            final double d = node.doubleValue();
            if (d == Math.rint(d) && d >= -LONG_RANGE && d < LONG_RANGE) {
                return (long) d;
            }
            throw new JoinSpecException(path, "must be an integer in the signed 64-bit range, got " + node.asText());
        }
        throw new JoinSpecException(path, "must be an integer (ms), got " + RowJson.kindOf(node));
    }

    private static boolean optionalBoolean(final JsonNode parent, final String name, final String prefix, final boolean dflt) {
        final JsonNode node = parent.get(name);
        if (node == null) {
            return dflt;
        }
        if (!node.isBoolean()) {
            throw new JoinSpecException(prefix + name, "must be true or false, got " + RowJson.kindOf(node));
        }
        return node.booleanValue();
    }

    /** Re-labels an engine validation error with the field path it starts with, when it names one. */
    private static JoinSpecException fromEngine(final IllegalArgumentException e) {
        final String message = String.valueOf(e.getMessage());
        int end = 0;
        while (end < message.length() && (Character.isJavaIdentifierPart(message.charAt(end)) || message.charAt(end) == '.')) {
            end++;
        }
        final String head = message.substring(0, end);
        final String top = head.contains(".") ? head.substring(0, head.indexOf('.')) : head;
        if (TOP_LEVEL.contains(top)) {
            final String rest = message.substring(end).replaceFirst("^\\s*:?\\s*", "");
            return new JoinSpecException(head, rest);
        }
        return new JoinSpecException("spec", message);
    }
}
