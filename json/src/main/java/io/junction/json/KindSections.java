package io.junction.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.AsofSpec;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.WindowSpec;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static io.junction.json.SpecNodes.checkFields;
import static io.junction.json.SpecNodes.keyFields;
import static io.junction.json.SpecNodes.optionalBoolean;
import static io.junction.json.SpecNodes.optionalLong;
import static io.junction.json.SpecNodes.requireObject;
import static io.junction.json.SpecNodes.requiredLong;
import static io.junction.json.SpecNodes.requiredString;
import static io.junction.json.SpecNodes.toLong;
import static io.junction.json.JoinSpecJson.fromEngine;

/**
 * The binary kinds' own sections of a spec for {@link JoinSpecJson}: {@code interval}, {@code window}, {@code asof},
 * {@code coGroup} and the unique keys, each checked for the kind it belongs to. Stateless (setup only, any thread).
 */
final class KindSections
{
    private static final Set<String> ASOF_FIELDS = Set.of("direction", "tolerance", "emit");
    private static final Set<String> INTERVAL_FIELDS = Set.of("lower", "upper", "lowerInclusive", "upperInclusive");
    private static final Set<String> TUMBLING_FIELDS = Set.of("kind", "size", "offset");
    private static final Set<String> SLIDING_FIELDS = Set.of("kind", "size", "slide", "offset");
    private static final Set<String> SESSION_FIELDS = Set.of("kind", "gap");

    private KindSections()
    {
    }

    /** SEMANTICS 6.4: {@code "coGroup": "count"} names a built-in function; window joins only. */
    static CoGroupBuiltin coGroup(final JsonNode root, final JoinKind kind, final String kindName)
    {
        final JsonNode node = root.get("coGroup");
        if (node == null)
        {
            return null;
        }
        if (kind != JoinKind.WINDOW)
        {
            throw new JoinSpecException("coGroup", "only for window joins, this is a " + kindName + " join");
        }
        if (!node.isTextual())
        {
            throw new JoinSpecException("coGroup", "must be a string naming a built-in function, got " + RowJson.kindOf(node));
        }
        final CoGroupBuiltin builtin = CoGroupBuiltin.fromName(node.textValue());
        if (builtin == null)
        {
            throw new JoinSpecException("coGroup", "unknown function '" + node.textValue() + "' (expected one of " +
                String.join(", ", CoGroupBuiltin.names()) + ")");
        }
        return builtin;
    }

    /**
     * SEMANTICS 11: {@code "asof": {"direction": "backward" | "forward" | "nearest", "tolerance": T, "emit": "final" | "eager"}};
     * required for asof joins and only for them; {@code direction} required, {@code tolerance} (ms, >= 0)
     * absent or null for none, {@code emit} {@code final} when absent.
     */
    static AsofSpec asof(final JsonNode root, final JoinKind kind, final String kindName)
    {
        final JsonNode node = root.get("asof");
        if (node == null)
        {
            if (kind == JoinKind.ASOF)
            {
                throw new JoinSpecException("asof", "required for an asof join ({\"direction\": \"backward\" | \"forward\" | " +
                    "\"nearest\", \"tolerance\": T, \"emit\": \"final\" | \"eager\"})");
            }
            return null;
        }
        if (kind != JoinKind.ASOF)
        {
            throw new JoinSpecException("asof", "only for asof joins, this is a " + kindName + " join");
        }
        requireObject(node, "asof");
        checkFields(node, "asof.", ASOF_FIELDS);
        final String directionName = requiredString(node, "direction", "asof.");
        final AsofSpec.Direction direction = AsofSpec.Direction.fromName(directionName);
        if (direction == null)
        {
            throw new JoinSpecException("asof.direction", "unknown direction '" + directionName +
                "' (expected backward, forward or nearest)");
        }
        AsofSpec asof = AsofSpec.of(direction);
        final JsonNode tolerance = node.get("tolerance");
        if (tolerance != null && !tolerance.isNull())
        {
            final long millis = toLong(tolerance, "asof.tolerance");
            if (millis < 0)
            {
                throw new JoinSpecException("asof.tolerance", "must be >= 0, got " + millis);
            }
            asof = asof.withTolerance(millis);
        }
        final JsonNode emitNode = node.get("emit");
        if (emitNode != null)
        {
            if (!emitNode.isTextual())
            {
                throw new JoinSpecException("asof.emit", "must be a string (final or eager), got " + RowJson.kindOf(emitNode));
            }
            final AsofSpec.Emit emit = AsofSpec.Emit.fromName(emitNode.textValue());
            if (emit == null)
            {
                throw new JoinSpecException("asof.emit", "unknown emission mode '" + emitNode.textValue() + "' (expected final or eager)");
            }
            asof = asof.withEmit(emit);
        }
        return asof;
    }

    static IntervalBounds interval(final JsonNode node)
    {
        requireObject(node, "interval");
        checkFields(node, "interval.", INTERVAL_FIELDS);
        final long lower = requiredLong(node, "lower", "interval.");
        final long upper = requiredLong(node, "upper", "interval.");
        final boolean lowerInclusive = optionalBoolean(node, "lowerInclusive", "interval.", true);
        final boolean upperInclusive = optionalBoolean(node, "upperInclusive", "interval.", true);
        try
        {
            return new IntervalBounds(lower, upper, lowerInclusive, upperInclusive);
        }
        catch (final IllegalArgumentException e)
        {
            throw new JoinSpecException("interval", e.getMessage());
        }
    }

    static WindowSpec window(final JsonNode node)
    {
        requireObject(node, "window");
        final String kind = requiredString(node, "kind", "window.");
        try
        {
            switch (kind)
            {
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
        }
        catch (final JoinSpecException e)
        {
            throw e;
        }
        catch (final IllegalArgumentException e)
        {
            throw fromEngine(e);
        }
    }

    /** @return the declared unique key, or null when the spec declares none. */
    static List<String> uniqueKey(final JsonNode root, final String name, final JoinKind kind,
        final String kindName)
    {
        if (root.get(name) == null)
        {
            return null;
        }
        if (kind != JoinKind.REGULAR)
        {
            throw new JoinSpecException(name, "only for regular joins, this is a " + kindName + " join");
        }
        final List<String> fields = keyFields(root, name);
        final Set<String> seen = new LinkedHashSet<>();
        for (int i = 0; i < fields.size(); i++)
        {
            if (!seen.add(fields.get(i)))
            {
                throw new JoinSpecException(name + "[" + i + "]", "duplicate field '" + fields.get(i) + "'");
            }
        }
        return fields;
    }
}
