package io.junction.json;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.junction.api.AsofSpec;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.CompareOp;
import io.junction.api.ConditionTerm;
import io.junction.api.Expansion;
import io.junction.api.FieldFilter;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import io.junction.api.Field;
import java.util.HashSet;

import static io.junction.json.MultiInputs.multi;
import static io.junction.json.KindSections.asof;
import static io.junction.json.KindSections.coGroup;
import static io.junction.json.KindSections.interval;
import static io.junction.json.KindSections.uniqueKey;
import static io.junction.json.KindSections.window;
import static io.junction.json.SpecFilters.filters;
import static io.junction.json.SpecFilters.op;
import static io.junction.json.SpecNodes.checkFields;
import static io.junction.json.SpecNodes.keyFields;
import static io.junction.json.SpecNodes.nonNegative;
import static io.junction.json.SpecNodes.optionalBoolean;
import static io.junction.json.SpecNodes.requireList;
import static io.junction.json.SpecNodes.requireObject;
import static io.junction.json.SpecNodes.requiredString;

/**
 * Reads a join spec file ({@code *.join.json}, SEMANTICS 1 "Join spec") into a validated {@link Parsed} spec,
 * which builds the {@link JoinSpec} against a {@link Schema}.
 * <p>
 * A wrong spec runs nothing (docs/SEMANTICS.md 1.1) and says which field is wrong, so this parser is strict
 * where a lenient one would silently run a different join: unknown fields at any level, missing
 * required fields, wrong JSON types, unknown ops and key arity mismatches all throw a
 * {@link JoinSpecException} whose message starts with the field's path. The engine's own checks
 * (empty interval, window sizes, stateTtl on a non-regular join) are reported the same way, at parse
 * time. Hostile specs are rejected the same way, never with a crash: a file over {@link #MAX_SPEC_BYTES},
 * text that is not UTF-8, nesting deeper than {@link #MAX_NESTING_DEPTH}, more than {@link #MAX_TERMS}
 * key fields, filter terms or condition terms in one list.
 * <p>
 * A {@link Schema} is immutable, and the replay's schema holds the event log's field names too, so
 * parsing does not take a schema: {@link Parsed#fieldNames()} lists every name the spec uses (keys,
 * unique keys, filter fields, condition fields, in that order), and {@link Parsed#spec(Schema)} builds the spec
 * against a schema that holds them. Java-style comments are allowed in spec files (the spec examples
 * in docs/SEMANTICS.md carry them); event logs stay plain JSON.
 * <p>
 * Thread safe (stateless; a {@link Parsed} is immutable).
 */
public final class JoinSpecJson
{
    /** The longest spec file read, in bytes: a spec is a few hundred bytes. */
    public static final int MAX_SPEC_BYTES = 1 << 20;
    /**
     * How deep a spec may nest: a spec object holds arrays of term objects (depth 3); each level of
     * {@code any} adds two and an {@code in} list one, so the engine's {@link FieldFilter#MAX_DEPTH}
     * levels of {@code any} fit.
     */
    public static final int MAX_NESTING_DEPTH = 24;
    /** The most entries of one list: {@code leftKey}, {@code rightKey}, each unique key, each filter, {@code condition}. */
    public static final int MAX_TERMS = 256;

    private static final ObjectMapper SPEC_MAPPER = JsonMapper.builder(RowJson.factory(MAX_NESTING_DEPTH))
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
        .build();

    private static final Set<String> TOP_LEVEL = Set.of(
        "join", "type", "leftKey", "rightKey", "leftUniqueKey", "rightUniqueKey", "interval", "window", "leftFilter", "rightFilter", "condition",
        "allowedLateness", "stateTtl", "leftStateTtl", "rightStateTtl", "coGroup", "asof",
        "paddedDelay", "output", "padOnExpiry", "schema", "maxFanOut", "expand", "leftExpand", "rightExpand");
    private static final Set<String> CONDITION_FIELDS = Set.of("left", "leftOffset", "op", "right");
    private static final Set<String> SCHEMA_FIELD_FIELDS = Set.of("name", "type", "required");

    private JoinSpecJson()
    {
    }

    /**
     * A validated spec, not yet bound to a schema. Immutable.
     */
    public static final class Parsed
    {
        private final JoinKind kind;
        private final JoinType type;
        private final List<String> leftKey;
        private final List<String> rightKey;
        private final List<String> leftUniqueKey;
        private final List<String> rightUniqueKey;
        private final IntervalBounds interval;
        private final WindowSpec window;
        /** Set once by {@link #parse(JsonNode)} before the spec is checked and returned. */
        private AsofSpec asof;
        private final List<FieldFilter> leftFilter;
        private final List<FieldFilter> rightFilter;
        private final List<ConditionTerm> condition;
        private final long allowedLateness;
        private final long leftStateTtl;
        private final long rightStateTtl;
        private List<String> fieldNames;
        /** The fields the expansions add (docs/SEMANTICS.md 12): in {@link #fieldNames}, never declared by a schema. */
        private List<String> addedNames = List.of();
        /** Row expansions, set once by {@link #parse(JsonNode)}: the standalone kind's, or before the join per side. */
        private Expansion expand;
        private Expansion leftExpand;
        private Expansion rightExpand;
        /** Set once by {@link #parse(JsonNode)} before the spec is checked and returned. */
        private CoGroupBuiltin coGroup;
        /** SEMANTICS 4.5-4.7, set once by {@link #parse(JsonNode)}: the padded-row delay (-1: none), the output mode, padOnExpiry. */
        private long paddedDelay = -1;
        private OutputMode output = OutputMode.RETRACT;
        private boolean padOnExpiry;
        /** The declared output budget of one inserted row (docs/SEMANTICS.md 1.5), set once by {@link #parse(JsonNode)}; 0: unbounded. */
        private long maxFanOut;
        /** A multi-way join's inputs and condition (SEMANTICS 10), or null. */
        private final MultiInputs multi;
        /** The rows' fields the spec declares ({@code "schema"}), set once by {@link #parse(JsonNode)}; null: none. */
        private Schema schema;

        private Parsed(final JoinKind kind, final JoinType type, final List<String> leftKey, final List<String> rightKey,
            final List<String> leftUniqueKey, final List<String> rightUniqueKey, final IntervalBounds interval, final WindowSpec window, final List<FieldFilter> leftFilter,
            final List<FieldFilter> rightFilter, final List<ConditionTerm> condition,
            final long allowedLateness, final long leftStateTtl, final long rightStateTtl)
        {
            this.kind = kind;
            this.type = type;
            this.leftKey = List.copyOf(leftKey);
            this.rightKey = List.copyOf(rightKey);
            this.leftUniqueKey = leftUniqueKey == null ? null : List.copyOf(leftUniqueKey);
            this.rightUniqueKey = rightUniqueKey == null ? null : List.copyOf(rightUniqueKey);
            this.interval = interval;
            this.window = window;
            this.leftFilter = List.copyOf(leftFilter);
            this.rightFilter = List.copyOf(rightFilter);
            this.condition = List.copyOf(condition);
            this.allowedLateness = allowedLateness;
            this.leftStateTtl = leftStateTtl;
            this.rightStateTtl = rightStateTtl;
            this.multi = null;
            final Set<String> names = new LinkedHashSet<>(leftKey);
            names.addAll(rightKey);
            if (leftUniqueKey != null)
            {
                names.addAll(leftUniqueKey);
            }
            if (rightUniqueKey != null)
            {
                names.addAll(rightUniqueKey);
            }
            for (final FieldFilter f : leftFilter)
            {
                addFields(f, names);
            }
            for (final FieldFilter f : rightFilter)
            {
                addFields(f, names);
            }
            for (final ConditionTerm term : condition)
            {
                names.add(term.leftField());
                names.add(term.rightField());
            }
            this.fieldNames = List.copyOf(names);
        }

        /** A multi-way join (SEMANTICS 10). */
        private Parsed(final MultiInputs multi)
        {
            this.kind = JoinKind.MULTI;
            this.type = JoinType.INNER;
            this.leftKey = multi.keys.get(0);
            this.rightKey = multi.keys.get(1);
            this.leftUniqueKey = null;
            this.rightUniqueKey = null;
            this.interval = null;
            this.window = null;
            this.leftFilter = List.of();
            this.rightFilter = List.of();
            this.condition = List.of();
            this.allowedLateness = 0;
            this.leftStateTtl = 0;
            this.rightStateTtl = 0;
            this.multi = multi;
            final Set<String> names = new LinkedHashSet<>();
            for (final List<String> key : multi.keys)
            {
                names.addAll(key);
            }
            for (final List<FieldFilter> filters : multi.filters)
            {
                for (final FieldFilter f : filters)
                {
                    addFields(f, names);
                }
            }
            for (final String[] term : multi.conditions)
            {
                names.add(term[0].substring(term[0].indexOf('.') + 1));
                names.add(term[2].substring(term[2].indexOf('.') + 1));
            }
            final Set<String> added = new LinkedHashSet<>();
            for (final Expansion e : multi.expansions)
            {
                if (e != null)
                {
                    names.add(e.field());
                    added.addAll(e.addedFields());
                }
            }
            names.addAll(added);
            this.fieldNames = List.copyOf(names);
            this.addedNames = List.copyOf(added);
        }

        /** @return the fields the spec's expansions add (docs/SEMANTICS.md 12), each once; part of {@link #fieldNames()} */
        public List<String> addedFieldNames()
        {
            return addedNames;
        }

        /** @return a multi-way join's input names in order, or null for the binary kinds */
        public List<String> inputNames()
        {
            return multi == null ? null : multi.names;
        }

        private static void addFields(final FieldFilter filter, final Set<String> names)
        {
            if (filter.isAny())
            {
                for (final FieldFilter alternative : filter.alternatives())
                {
                    addFields(alternative, names);
                }
            }
            else
            {
                names.add(filter.field());
            }
        }

        /** @return the join kind */
        public JoinKind kind()
        {
            return kind;
        }

        /** @return the built-in coGroup function of a window coGroup ({@code "coGroup"}), or null for a join */
        public CoGroupBuiltin coGroup()
        {
            return coGroup;
        }

        /** @return every field name the spec uses, each once: keys, unique keys, filter fields, condition fields */
        public List<String> fieldNames()
        {
            return fieldNames;
        }

        /**
         * @return the rows' fields as the spec's {@code "schema"} declares them (typed, checked at the
         *     publish), or null when the spec declares none (the names are then learnt from the rows)
         */
        public Schema schema()
        {
            return schema;
        }

        /**
         * @return the spec built against its declared {@link #schema()}, or without one against a schema of
         *     exactly {@link #fieldNames()}
         */
        public JoinSpec spec()
        {
            return spec(schema != null ? schema : Schema.of(fieldNames));
        }

        /**
         * @param schema the schema of both sides; it must hold every name of {@link #fieldNames()}
         * @return the spec built against it
         * @throws JoinSpecException when the engine rejects the spec
         * @throws IllegalArgumentException when the schema lacks one of the spec's field names
         */
        public JoinSpec spec(final Schema schema)
        {
            for (final String name : fieldNames)
            {
                if (schema.indexOf(name) < 0)
                {
                    throw new IllegalArgumentException("the schema lacks the spec's field '" + name + "'");
                }
            }
            if (multi != null)
            {
                return multi.spec(schema);
            }
            final JoinSpec.Builder builder = JoinSpec.builder(kind, type).schemas(schema, schema)
                .leftKey(leftKey.toArray(new String[0])).rightKey(rightKey.toArray(new String[0]));
            if (leftUniqueKey != null)
            {
                builder.leftUniqueKey(leftUniqueKey.toArray(new String[0]));
            }
            if (rightUniqueKey != null)
            {
                builder.rightUniqueKey(rightUniqueKey.toArray(new String[0]));
            }
            if (interval != null)
            {
                builder.interval(interval);
            }
            if (window != null)
            {
                builder.window(window);
            }
            if (asof != null)
            {
                builder.asof(asof);
            }
            for (final FieldFilter f : leftFilter)
            {
                builder.leftFilter(f);
            }
            for (final FieldFilter f : rightFilter)
            {
                builder.rightFilter(f);
            }
            for (final ConditionTerm term : condition)
            {
                builder.condition(term.leftField(), term.leftOffset(), term.op(), term.rightField());
            }
            builder.allowedLateness(allowedLateness).stateTtl(Side.LEFT, leftStateTtl).stateTtl(Side.RIGHT, rightStateTtl);
            if (coGroup != null)
            {
                builder.coGroup(coGroup);
            }
            if (paddedDelay >= 0)
            {
                builder.paddedDelay(paddedDelay);
            }
            builder.output(output).padOnExpiry(padOnExpiry).maxFanOut(maxFanOut);
            if (expand != null)
            {
                builder.expand(expand);
            }
            if (leftExpand != null)
            {
                builder.leftExpand(leftExpand);
            }
            if (rightExpand != null)
            {
                builder.rightExpand(rightExpand);
            }
            try
            {
                return builder.build();
            }
            catch (final IllegalArgumentException e)
            {
                throw fromEngine(e);
            }
        }
    }

    /**
     * Reads a spec file.
     *
     * @param path the {@code *.join.json} file
     * @return the validated spec
     * @throws IOException       when the file cannot be read
     * @throws JoinSpecException when the spec is rejected (too large, not UTF-8, not a valid spec)
     */
    public static Parsed read(final Path path) throws IOException
    {
        final long size = Files.size(path);
        if (size > MAX_SPEC_BYTES)
        {
            throw new JoinSpecException("spec", "file of " + size + " bytes, more than the " + MAX_SPEC_BYTES +
                " a spec may have");
        }
        final byte[] bytes = Files.readAllBytes(path);
        final String text;
        try
        {
            text = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes)).toString();
        }
        catch (final CharacterCodingException e)
        {
            throw new JoinSpecException("spec", "not valid UTF-8 text");
        }
        return parse(text);
    }

    /**
     * Parses a spec text.
     *
     * @param json the spec (a leading byte order mark is ignored)
     * @return the validated spec
     * @throws JoinSpecException when the spec is rejected
     */
    public static Parsed parse(final String json)
    {
        if (json == null)
        {
            throw new JoinSpecException("spec", "no spec text (null)");
        }
        final String text = !json.isEmpty() && json.charAt(0) == '\uFEFF' ? json.substring(1) : json;
        if (text.length() > MAX_SPEC_BYTES)
        {
            throw new JoinSpecException("spec", "text of " + text.length() + " characters, more than the " +
                MAX_SPEC_BYTES + " a spec may have");
        }
        final JsonNode root;
        try
        {
            root = SPEC_MAPPER.readTree(text);
        }
        catch (final JsonProcessingException e)
        {
            final JsonLocation where = e.getLocation();
            // Jackson's own wording of a second value names its classes and features: say what it means.
            final String what = e.getOriginalMessage().startsWith("Trailing token")
                ? "more than one JSON value (a spec is one object; an event log has one per line)" : e.getOriginalMessage();
            throw new JoinSpecException("spec", "invalid JSON: " + what +
                (where == null ? "" : " at line " + where.getLineNr() + ", column " + where.getColumnNr()));
        }
        return parse(root);
    }

    /**
     * Validates a parsed spec.
     *
     * @param root the spec object
     * @return the validated spec
     * @throws JoinSpecException when the spec is rejected
     */
    public static Parsed parse(final JsonNode root)
    {
        if (root == null || !root.isObject())
        {
            throw new JoinSpecException("spec", "must be a JSON object, got " + RowJson.kindOf(root));
        }
        final JsonNode joinNode = root.get("join");
        if (joinNode != null && joinNode.isTextual() && "multi".equals(joinNode.textValue()))
        {
            final Parsed parsed = new Parsed(multi(root));
            declaredSchema(root, parsed);
            parsed.spec();
            return parsed;
        }
        checkFields(root, "", TOP_LEVEL);

        final String kindName = requiredString(root, "join", "");
        final JoinKind kind = JoinKind.fromName(kindName);
        if (kind == null)
        {
            throw new JoinSpecException("join", "unknown join '" + kindName + "' (expected regular, interval, window, temporal, lookup, asof, multi or expand)");
        }
        final String typeName = requiredString(root, "type", "");
        final JoinType type = JoinType.fromName(typeName);
        if (type == null)
        {
            throw new JoinSpecException("type", "unknown type '" + typeName +
                "' (expected inner, left, right, full, semi or anti)");
        }
        // The standalone expansion has one input and no key (docs/SEMANTICS.md 12): expansions() refuses one.
        final boolean keyed = kind != JoinKind.EXPAND;
        final List<String> leftKey = keyed || root.has("leftKey") ? keyFields(root, "leftKey") : List.of();
        final List<String> rightKey = keyed || root.has("rightKey") ? keyFields(root, "rightKey") : List.of();
        if (leftKey.size() != rightKey.size())
        {
            throw new JoinSpecException("rightKey", "key arity mismatch: leftKey has " + leftKey.size() +
                " field(s) " + leftKey + ", rightKey has " + rightKey.size() + " " + rightKey);
        }
        final List<String> leftUniqueKey = uniqueKey(root, "leftUniqueKey", kind, kindName);
        final List<String> rightUniqueKey = uniqueKey(root, "rightUniqueKey", kind, kindName);

        final JsonNode intervalNode = root.get("interval");
        if (kind == JoinKind.INTERVAL && intervalNode == null)
        {
            throw new JoinSpecException("interval", "required for an interval join");
        }
        IntervalBounds interval = null;
        if (intervalNode != null)
        {
            if (kind != JoinKind.INTERVAL)
            {
                throw new JoinSpecException("interval", "only for interval joins, this is a " + kindName + " join");
            }
            interval = interval(intervalNode);
        }
        final JsonNode windowNode = root.get("window");
        if (kind == JoinKind.WINDOW && windowNode == null)
        {
            throw new JoinSpecException("window", "required for a window join");
        }
        WindowSpec window = null;
        if (windowNode != null)
        {
            if (kind != JoinKind.WINDOW)
            {
                throw new JoinSpecException("window", "only for window joins, this is a " + kindName + " join");
            }
            window = window(windowNode);
        }

        final List<FieldFilter> leftFilter = filters(root, "leftFilter");
        final List<FieldFilter> rightFilter = filters(root, "rightFilter");
        final List<ConditionTerm> condition = new ArrayList<>();
        final JsonNode conditionNode = root.get("condition");
        if (conditionNode != null)
        {
            requireList(conditionNode, "condition");
            for (int i = 0; i < conditionNode.size(); i++)
            {
                final String path = "condition[" + i + "]";
                final JsonNode term = conditionNode.get(i);
                requireObject(term, path);
                checkFields(term, path + ".", CONDITION_FIELDS);
                final String left = requiredString(term, "left", path + ".");
                final CompareOp op = op(term, path);
                if (op == CompareOp.IN)
                {
                    throw new JoinSpecException(path + ".op", "'in' is for filters over a list of literals, not for conditions");
                }
                final String right = requiredString(term, "right", path + ".");
                final JsonNode offset = term.get("leftOffset");
                if (offset != null && !(offset.isNumber() && JsonNumbers.isLong(offset)))
                {
                    throw new JoinSpecException(path + ".leftOffset", "must be an integer in the signed 64-bit range, got " +
                        (offset.isNumber() ? offset.asText() : RowJson.kindOf(offset)));
                }
                condition.add(new ConditionTerm(left, offset == null ? 0 : JsonNumbers.longValue(offset), op, right));
            }
        }
        final Parsed parsed = new Parsed(kind, type, leftKey, rightKey, leftUniqueKey, rightUniqueKey, interval, window, leftFilter, rightFilter,
            condition, nonNegative(root, "allowedLateness"), stateTtl(root, "leftStateTtl"), stateTtl(root, "rightStateTtl"));
        parsed.coGroup = coGroup(root, kind, kindName);
        parsed.asof = asof(root, kind, kindName);
        shaping(root, parsed, kind, kindName);
        parsed.maxFanOut = nonNegative(root, "maxFanOut");
        expansions(root, parsed, kind);
        declaredSchema(root, parsed);
        // the engine's own checks, now, so that a rejected spec is rejected before any event is read
        parsed.spec();
        return parsed;
    }

    /** docs/SEMANTICS.md 12: the standalone kind's {@code "expand"}, or {@code "leftExpand"}/{@code "rightExpand"}. */
    private static void expansions(final JsonNode root, final Parsed parsed, final JoinKind kind)
    {
        if (kind == JoinKind.EXPAND)
        {
            if (!root.has("expand"))
            {
                throw new JoinSpecException("expand", "required for an expand join");
            }
            for (final String name : List.of("leftExpand", "rightExpand", "leftKey", "rightKey"))
            {
                if (root.has(name))
                {
                    throw new JoinSpecException(name, "not for an expand join (one input, no key: expand, type, leftFilter and condition)");
                }
            }
            parsed.expand = SpecExpansions.parse(root.get("expand"), "expand", true);
        }
        else if (root.has("expand"))
        {
            throw new JoinSpecException("expand", "only for an expand join; before a join use leftExpand or rightExpand");
        }
        if (root.has("leftExpand"))
        {
            parsed.leftExpand = SpecExpansions.parse(root.get("leftExpand"), "leftExpand", false);
        }
        if (root.has("rightExpand"))
        {
            parsed.rightExpand = SpecExpansions.parse(root.get("rightExpand"), "rightExpand", false);
        }
        final Set<String> names = new LinkedHashSet<>(parsed.fieldNames);
        final Set<String> added = new LinkedHashSet<>();
        for (final Expansion e : new Expansion[] {parsed.expand, parsed.leftExpand, parsed.rightExpand})
        {
            if (e != null)
            {
                if (e.field() != null)
                {
                    names.add(e.field());
                }
                added.addAll(e.addedFields());
            }
        }
        names.addAll(added);
        parsed.fieldNames = List.copyOf(names);
        parsed.addedNames = List.copyOf(added);
    }

    /**
     * {@code "schema"}: the rows' fields, the spec's twin of {@code Schema.of(Field...)} and of the replay's
     * {@code --fields}: {@code [{"name":"order_id","type":"long","required":true}, {"name":"note"}]}, one
     * list for every input (the replay format names a field the same on each side). {@code type} is
     * {@code long}, {@code double}, {@code boolean}, {@code string} or {@code any} (the default);
     * {@code required} defaults to false. A field the spec uses (keys, unique keys, filters, conditions)
     * that the list lacks rejects the spec, naming the field; comparisons of incompatible types are
     * rejected by the engine's build (type checks).
     */
    private static void declaredSchema(final JsonNode root, final Parsed parsed)
    {
        final JsonNode node = root.get("schema");
        if (node == null)
        {
            return;
        }
        if (!node.isArray())
        {
            throw new JoinSpecException("schema", "must be an array of fields, got " + RowJson.kindOf(node));
        }
        if (node.size() == 0)
        {
            throw new JoinSpecException("schema", "declares no field; leave it out to learn the fields from the rows");
        }
        if (node.size() > Schema.MAX_FIELDS)
        {
            throw new JoinSpecException("schema", "has " + node.size() + " fields, more than " + Schema.MAX_FIELDS);
        }
        final Field[] fields = new Field[node.size()];
        final Set<String> seen = new HashSet<>();
        for (int i = 0; i < fields.length; i++)
        {
            final String path = "schema[" + i + "]";
            final JsonNode field = node.get(i);
            requireObject(field, path);
            checkFields(field, path + ".", SCHEMA_FIELD_FIELDS);
            final String name = requiredString(field, "name", path + ".");
            if (name.isEmpty())
            {
                throw new JoinSpecException(path + ".name", "must not be empty");
            }
            if (!seen.add(name))
            {
                throw new JoinSpecException(path + ".name", "duplicate field '" + name + "'");
            }
            final JsonNode typeNode = field.get("type");
            final String type;
            if (typeNode == null)
            {
                type = "any";
            }
            else if (typeNode.isTextual())
            {
                type = typeNode.textValue();
            }
            else
            {
                throw new JoinSpecException(path + ".type", "must be a string, got " + RowJson.kindOf(typeNode));
            }
            Field f;
            switch (type)
            {
                case "any":
                    f = Field.any(name);
                    break;
                case "long":
                    f = Field.longField(name);
                    break;
                case "double":
                    f = Field.doubleField(name);
                    break;
                case "boolean":
                    f = Field.booleanField(name);
                    break;
                case "string":
                    f = Field.string(name);
                    break;
                case "array":
                case "array<object>":
                    f = Field.array(name);
                    break;
                default:
                    throw new JoinSpecException(path + ".type", "unknown type '" + type
                        + "' (expected long, double, boolean, string, array, array<object> or any)");
            }
            fields[i] = optionalBoolean(field, "required", path + ".", false) ? f.required() : f;
        }
        final Schema declared = Schema.of(fields);
        for (final String name : parsed.addedNames)
        {
            if (declared.indexOf(name) >= 0)
            {
                throw new JoinSpecException("schema", "declares '" + name + "', a field the spec's expansion adds: new " +
                    "fields are not declared (their types are the elements'; an ordinality is a long)");
            }
        }
        final Schema schema = declared.withAdded(parsed.addedNames, "expansion");
        for (final String name : parsed.fieldNames)
        {
            if (schema.indexOf(name) < 0)
            {
                throw new JoinSpecException("schema", "does not declare the spec's field '" + name + "' (declared: "
                    + schema + ")");
            }
        }
        parsed.schema = schema;
    }

    /** SEMANTICS 4.5-4.7: {@code paddedDelay}, {@code output}, {@code padOnExpiry} (the engine checks the join types). */
    private static void shaping(final JsonNode root, final Parsed parsed, final JoinKind kind, final String kindName)
    {
        for (final String name : List.of("paddedDelay", "output", "padOnExpiry"))
        {
            if (root.has(name) && kind != JoinKind.REGULAR)
            {
                throw new JoinSpecException(name, "only for regular joins, this is a " + kindName + " join");
            }
        }
        if (root.has("paddedDelay"))
        {
            if (root.get("paddedDelay").isNull())
            {
                throw new JoinSpecException("paddedDelay", "must be an integer (ms), got null");
            }
            parsed.paddedDelay = nonNegative(root, "paddedDelay");
        }
        final JsonNode output = root.get("output");
        if (output != null)
        {
            if (!output.isTextual())
            {
                throw new JoinSpecException("output", "must be a string, got " + RowJson.kindOf(output));
            }
            final OutputMode mode = OutputMode.fromName(output.textValue());
            if (mode == null)
            {
                throw new JoinSpecException("output", "unknown output '" + output.textValue() + "' (expected retract or upsert)");
            }
            parsed.output = mode;
        }
        parsed.padOnExpiry = optionalBoolean(root, "padOnExpiry", "", false);
    }

    /** @return a side's state TTL: its own field when given, else {@code stateTtl} (both sides), else 0. */
    private static long stateTtl(final JsonNode root, final String sideField)
    {
        return root.has(sideField) ? nonNegative(root, sideField) : nonNegative(root, "stateTtl");
    }

    /** Re-labels an engine validation error with the field path it starts with, when it names one. */
    static JoinSpecException fromEngine(final IllegalArgumentException e)
    {
        final String message = String.valueOf(e.getMessage());
        int end = 0;
        while (end < message.length() && (Character.isJavaIdentifierPart(message.charAt(end)) || message.charAt(end) == '.'))
        {
            end++;
        }
        final String head = message.substring(0, end);
        final String top = head.contains(".") ? head.substring(0, head.indexOf('.')) : head;
        if (TOP_LEVEL.contains(top))
        {
            final String rest = message.substring(end).replaceFirst("^\\s*:?\\s*", "");
            return new JoinSpecException(head, rest);
        }
        return new JoinSpecException("spec", message);
    }
}
