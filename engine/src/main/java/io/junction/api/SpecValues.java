package io.junction.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The values of a {@link JoinSpec} and the rules they must keep. A {@link JoinSpec.Builder} owns one draft, which its
 * setters write and {@link #check()} validates ({@link JoinSpec.Builder#build()}, on the caller's thread); the spec
 * keeps a frozen copy ({@link #SpecValues(SpecValues)}: unmodifiable lists, never written after the copy, published
 * through the spec's final field), which any thread may read. Package-private: the public face is the spec's
 * accessors and the builder's setters.
 */
final class SpecValues
{
    final JoinKind kind;
    final JoinType type;
    Schema leftSchema;
    Schema rightSchema;
    final List<String> leftKey;
    final List<String> rightKey;
    final List<String> leftUniqueKey;
    final List<String> rightUniqueKey;
    /** Set by a call to the unique-key setters, so that a declaration without fields is an error, not "none". */
    boolean leftUniqueKeyDeclared;
    boolean rightUniqueKeyDeclared;
    final List<FieldFilter> leftFilter;
    final List<FieldFilter> rightFilter;
    final List<ConditionTerm> condition;
    final List<RowFilter> leftRowFilters;
    final List<RowFilter> rightRowFilters;
    final List<PairCondition> pairConditions;
    IntervalBounds interval;
    WindowSpec window;
    AsofSpec asof;
    long allowedLateness;
    long leftStateTtl;
    long rightStateTtl;
    CoGroupFunction coGroup;
    Schema coGroupSchema;
    CoGroupBuiltin coGroupBuiltin;
    long paddedDelay = -1;
    boolean paddedDelaySet;
    OutputMode output = OutputMode.RETRACT;
    ResultKey resultKey;
    boolean padOnExpiry;
    long maxFanOut;
    /** Set by {@link JoinSpec#multi(MultiJoinSpec)} only. */
    MultiJoinSpec multi;
    /** Row expansions (docs/SEMANTICS.md, "Row expansion"): before the join per side, or the standalone kind's. */
    Expansion leftExpand;
    Expansion rightExpand;
    Expansion expand;

    /** A builder's draft: empty lists, the defaults. */
    SpecValues(final JoinKind kind, final JoinType type)
    {
        this.kind = kind;
        this.type = type;
        leftKey = new ArrayList<>();
        rightKey = new ArrayList<>();
        leftUniqueKey = new ArrayList<>();
        rightUniqueKey = new ArrayList<>();
        leftFilter = new ArrayList<>();
        rightFilter = new ArrayList<>();
        condition = new ArrayList<>();
        leftRowFilters = new ArrayList<>();
        rightRowFilters = new ArrayList<>();
        pairConditions = new ArrayList<>();
    }

    /** The frozen copy of a checked draft that a {@link JoinSpec} keeps. */
    SpecValues(final SpecValues b)
    {
        kind = b.kind;
        type = b.type;
        leftSchema = b.leftSchema;
        rightSchema = b.rightSchema;
        leftKey = Collections.unmodifiableList(new ArrayList<>(b.leftKey));
        rightKey = Collections.unmodifiableList(new ArrayList<>(b.rightKey));
        leftUniqueKey = Collections.unmodifiableList(new ArrayList<>(b.leftUniqueKey));
        rightUniqueKey = Collections.unmodifiableList(new ArrayList<>(b.rightUniqueKey));
        leftFilter = Collections.unmodifiableList(new ArrayList<>(b.leftFilter));
        rightFilter = Collections.unmodifiableList(new ArrayList<>(b.rightFilter));
        condition = Collections.unmodifiableList(new ArrayList<>(b.condition));
        leftRowFilters = Collections.unmodifiableList(new ArrayList<>(b.leftRowFilters));
        rightRowFilters = Collections.unmodifiableList(new ArrayList<>(b.rightRowFilters));
        pairConditions = Collections.unmodifiableList(new ArrayList<>(b.pairConditions));
        interval = b.interval;
        window = b.window;
        asof = b.asof;
        allowedLateness = b.allowedLateness;
        leftStateTtl = b.leftStateTtl;
        rightStateTtl = b.rightStateTtl;
        coGroup = b.coGroup;
        coGroupSchema = b.coGroupSchema;
        coGroupBuiltin = b.coGroupBuiltin;
        paddedDelay = b.paddedDelay;
        output = b.output;
        resultKey = b.resultKey;
        padOnExpiry = b.padOnExpiry;
        maxFanOut = b.maxFanOut;
        multi = b.multi;
        leftExpand = b.leftExpand;
        rightExpand = b.rightExpand;
        expand = b.expand;
        leftUniqueKeyDeclared = b.leftUniqueKeyDeclared;
        rightUniqueKeyDeclared = b.rightUniqueKeyDeclared;
        paddedDelaySet = b.paddedDelaySet;
    }

    /** @see JoinSpec#fingerprint() */
    long fingerprint()
    {
        final StringBuilder text = new StringBuilder("junction-spec/1|").append(this)
            .append(multi == null ? "" : "|" + multi)
            .append("|left=").append(leftSchema).append("|right=").append(rightSchema)
            .append("|ttl=").append(leftStateTtl).append(',').append(rightStateTtl)
            .append("|lateness=").append(allowedLateness)
            .append("|coGroup=").append(coGroupBuiltin != null ? coGroupBuiltin.name() : coGroup == null ? "-" : "function")
            .append("|coGroupSchema=").append(coGroupSchema);
        if (coGroupBuiltin == null && coGroup != null)
        {
            appendNames(text.append('|'), List.of(coGroup));
        }
        appendNames(text.append("|leftRowFilters="), leftRowFilters);
        appendNames(text.append("|rightRowFilters="), rightRowFilters);
        appendNames(text.append("|pairConditions="), pairConditions);
        long hash = 0xcbf29ce484222325L;
        final byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        for (final byte b : bytes)
        {
            hash ^= b & 0xFF;
            hash *= 0x100000001b3L;
        }
        return hash;
    }

    private static void appendNames(final StringBuilder text, final List<?> predicates)
    {
        for (final Object predicate : predicates)
        {
            final Class<?> type = predicate.getClass();
            text.append(type.isSynthetic() || type.isAnonymousClass() || type.getName().contains("$$") ? "?" : type.getName())
                .append(';');
        }
    }

    @Override
    public String toString()
    {
        return "JoinSpec{" + kind + ' ' + type + " leftKey=" + leftKey + " rightKey=" + rightKey +
            (leftUniqueKey.isEmpty() ? "" : " leftUniqueKey=" + leftUniqueKey) +
            (rightUniqueKey.isEmpty() ? "" : " rightUniqueKey=" + rightUniqueKey) +
            (interval != null ? " interval=" + interval : "") + (window != null ? " window=" + window : "") +
            (asof != null ? " " + asof : "") +
            (leftFilter.isEmpty() ? "" : " leftFilter=" + leftFilter) +
            (rightFilter.isEmpty() ? "" : " rightFilter=" + rightFilter) +
            (condition.isEmpty() ? "" : " condition=" + condition) +
            (leftRowFilters.isEmpty() ? "" : " leftRowFilters=" + leftRowFilters.size()) +
            (rightRowFilters.isEmpty() ? "" : " rightRowFilters=" + rightRowFilters.size()) +
            (pairConditions.isEmpty() ? "" : " pairConditions=" + pairConditions.size()) +
            (allowedLateness != 0 ? " allowedLateness=" + allowedLateness : "") +
            (leftStateTtl == rightStateTtl ? (leftStateTtl != 0 ? " stateTtl=" + leftStateTtl : "")
                : " leftStateTtl=" + leftStateTtl + " rightStateTtl=" + rightStateTtl) +
            (coGroup == null ? "" : " coGroup=" + (coGroupBuiltin != null ? coGroupBuiltin.jsonName() : "function")) +
            (paddedDelay >= 0 ? " paddedDelay=" + paddedDelay : "") +
            (output == OutputMode.UPSERT ? " output=upsert resultKey=" + resultKey : "") +
            (padOnExpiry ? " padOnExpiry" : "") +
            (maxFanOut > 0 ? " maxFanOut=" + maxFanOut : "") +
            (multi == null ? "" : " " + multi) +
            (leftExpand == null ? "" : " leftExpand=" + leftExpand) +
            (rightExpand == null ? "" : " rightExpand=" + rightExpand) +
            (expand == null ? "" : " expand=" + expand) + '}';
    }

    /**
     * The rules of {@link JoinSpec.Builder#build()}, in its order; binds a built-in coGroup and sets the result key.
     *
     * @throws IllegalArgumentException naming the offending field when the spec is not valid.
     */
    void check()
    {
        if (leftSchema == null || rightSchema == null)
        {
            throw new IllegalArgumentException("schemas: both sides need a schema");
        }
        if (kind == JoinKind.EXPAND)
        {
            checkExpand();
            return;
        }
        if (expand != null)
        {
            throw new IllegalArgumentException("expand: only for the standalone kind \"expand\"; before a join use leftExpand or rightExpand");
        }
        if (leftKey.isEmpty())
        {
            throw new IllegalArgumentException("leftKey: at least one key field is required");
        }
        if (leftKey.size() != rightKey.size())
        {
            throw new IllegalArgumentException("rightKey: key arity mismatch, leftKey has " + leftKey.size() +
                " fields " + leftKey + ", rightKey has " + rightKey.size() + " " + rightKey);
        }
        if (allowedLateness < 0)
        {
            throw new IllegalArgumentException("allowedLateness must be >= 0: " + allowedLateness);
        }
        if (leftStateTtl < 0 || rightStateTtl < 0)
        {
            throw new IllegalArgumentException("stateTtl must be >= 0: left " + leftStateTtl + ", right " + rightStateTtl);
        }
        switch (kind)
        {
            case REGULAR:
                if (interval != null)
                {
                    throw new IllegalArgumentException("interval: only for interval joins");
                }
                if (window != null)
                {
                    throw new IllegalArgumentException("window: only for window joins");
                }
                break;
            case INTERVAL:
                if (interval == null)
                {
                    throw new IllegalArgumentException("interval: required for an interval join");
                }
                if (window != null)
                {
                    throw new IllegalArgumentException("window: only for window joins");
                }
                break;
            case WINDOW:
                if (window == null)
                {
                    throw new IllegalArgumentException("window: required for a window join");
                }
                if (interval != null)
                {
                    throw new IllegalArgumentException("interval: only for interval joins");
                }
                break;
            case MULTI:
                checkMulti();
                break;
            case ASOF:
                checkAsof();
                break;
            default:
                checkVersioned();
        }
        if (kind != JoinKind.ASOF && asof != null)
        {
            throw new IllegalArgumentException("asof: only for asof joins, this is a " + kind.name().toLowerCase(Locale.ROOT) + " join");
        }
        if (kind != JoinKind.REGULAR && (leftStateTtl != 0 || rightStateTtl != 0))
        {
            throw new IllegalArgumentException("stateTtl: only for regular joins (interval and window state is bounded by time)");
        }
        checkExpansions();
        checkUniqueKey("leftUniqueKey", leftUniqueKey, leftUniqueKeyDeclared);
        checkUniqueKey("rightUniqueKey", rightUniqueKey, rightUniqueKeyDeclared);
        checkCoGroup();
        checkShaping();
        checkMaxFanOut();
    }

    /** Appends the fields the expansions add to the schemas they add them to (before {@link #check()}). */
    void addExpansionFields()
    {
        if (leftSchema == null || rightSchema == null)
        {
            return; // check() says it
        }
        if (kind == JoinKind.EXPAND && expand != null)
        {
            leftSchema = leftSchema.withAdded(expand.addedFields(), "expand");
            rightSchema = leftSchema;
            return;
        }
        if (leftExpand != null)
        {
            final boolean shared = leftSchema == rightSchema;
            leftSchema = leftSchema.withAdded(leftExpand.addedFields(), "leftExpand");
            if (shared)
            {
                rightSchema = leftSchema;
            }
        }
        if (rightExpand != null)
        {
            final boolean shared = leftSchema == rightSchema;
            rightSchema = rightSchema.withAdded(rightExpand.addedFields(), "rightExpand");
            if (shared)
            {
                leftSchema = rightSchema;
            }
        }
    }

    /**
     * The standalone kind: one input, no key, no state; leftFilter and condition are its ON clause, its type
     * (inner or left) says whether a row that keeps nothing is emitted padded.
     */
    private void checkExpand()
    {
        if (expand == null)
        {
            throw new IllegalArgumentException("expand: required for an expand join");
        }
        if (type != JoinType.INNER && type != JoinType.LEFT)
        {
            throw new IllegalArgumentException("type: an expand join is inner or left, not " + type.name().toLowerCase(Locale.ROOT));
        }
        if (expand.outer())
        {
            throw new IllegalArgumentException("expand.outer: an expand join's type says it (left: a row that keeps nothing is emitted padded)");
        }
        if (!leftKey.isEmpty() || !rightKey.isEmpty() || interval != null || window != null || asof != null ||
            !rightFilter.isEmpty() || !rightRowFilters.isEmpty() || leftStateTtl != 0 || rightStateTtl != 0 ||
            leftUniqueKeyDeclared || rightUniqueKeyDeclared || coGroup != null || paddedDelaySet || padOnExpiry ||
            output != OutputMode.RETRACT || maxFanOut != 0 || leftExpand != null || rightExpand != null || allowedLateness != 0)
        {
            throw new IllegalArgumentException("expand: an expand join takes expand, type, leftFilter and condition only " +
                "(no keys, interval, window, asof, rightFilter, stateTtl, unique keys, shaping, lateness or other expansions)");
        }
        checkAdded(expand, leftSchema, "expand");
        checkAdded(expand, rightSchema, "expand");
    }

    /** Before a join: both sides of regular, interval and window joins; the left side of the versioned and ASOF kinds. */
    private void checkExpansions()
    {
        if (rightExpand != null && kind != JoinKind.REGULAR && kind != JoinKind.INTERVAL && kind != JoinKind.WINDOW)
        {
            throw new IllegalArgumentException("rightExpand: a " + kind.name().toLowerCase(Locale.ROOT) +
                " join expands its left side only (leftExpand)");
        }
        if ((leftExpand != null || rightExpand != null) && kind == JoinKind.MULTI)
        {
            throw new IllegalArgumentException("leftExpand: a multi-way join expands per input (MultiJoinSpec)");
        }
        if (leftExpand != null)
        {
            checkAdded(leftExpand, leftSchema, "leftExpand");
        }
        if (rightExpand != null)
        {
            checkAdded(rightExpand, rightSchema, "rightExpand");
        }
    }

    /** The field read is in the schema, each added field is, and no added field is named twice or is the field read. */
    private static void checkAdded(final Expansion e, final Schema schema, final String what)
    {
        final List<String> added = e.addedFields();
        for (int i = 0; i < added.size(); i++)
        {
            final String name = added.get(i);
            if (name.equals(e.field()))
            {
                throw new IllegalArgumentException(what + ".as: new field '" + name + "' is the field it expands");
            }
            if (added.indexOf(name) != i)
            {
                throw new IllegalArgumentException(what + ".as: new field '" + name + "' is named twice");
            }
            if (schema.indexOf(name) < 0)
            {
                throw new IllegalArgumentException(what + ".as: new field '" + name + "' is not in the schema " + schema);
            }
        }
        if (e.field() != null && schema.indexOf(e.field()) < 0)
        {
            throw new IllegalArgumentException(what + ": unknown field '" + e.field() + "' (schema has " + schema + ")");
        }
        if (e.field() != null && schema.isTyped())
        {
            final byte type = schema.field(schema.indexOf(e.field())).type();
            final byte wanted = e.kind() == Expansion.Kind.UNNEST ? FieldType.ARRAY : FieldType.STRING;
            if (type != Field.ANY && type != wanted)
            {
                throw new IllegalArgumentException(what + ": field '" + e.field() + "' is declared " + FieldType.name(type) +
                    (wanted == FieldType.ARRAY ? ", unnest reads an array" : ", split reads a string"));
            }
        }
    }

    /** A multi-way join is built by {@link JoinSpec#multi(MultiJoinSpec)}: its filters, conditions and TTLs are per input. */
    private void checkMulti()
    {
        if (multi == null)
        {
            throw new IllegalArgumentException("multi: a multi-way join is built with JoinSpec.multi(MultiJoinSpec)");
        }
        if (interval != null || window != null || allowedLateness != 0 || !leftFilter.isEmpty() || !rightFilter.isEmpty() ||
            !condition.isEmpty() || !leftRowFilters.isEmpty() || !rightRowFilters.isEmpty() || !pairConditions.isEmpty() ||
            leftUniqueKeyDeclared || rightUniqueKeyDeclared)
        {
            throw new IllegalArgumentException("multi: filters, conditions and TTLs of a multi-way join are per input (MultiJoinSpec)");
        }
    }

    /** The output budget: >= 0, and only for the kinds whose rows can join more than one stored row. */
    private void checkMaxFanOut()
    {
        if (maxFanOut < 0)
        {
            throw new IllegalArgumentException("maxFanOut must be >= 0 (0: unbounded): " + maxFanOut);
        }
        if (maxFanOut > 0 && (kind == JoinKind.TEMPORAL || kind == JoinKind.LOOKUP || kind == JoinKind.ASOF))
        {
            throw new IllegalArgumentException("maxFanOut: a " + kind.name().toLowerCase(Locale.ROOT) +
                " join emits at most one line per row, so it takes no output budget");
        }
        if (maxFanOut > 0 && kind == JoinKind.WINDOW)
        {
            // A window's pairs leave when it fires, not when a row arrives: refused rather than left unenforced.
            throw new IllegalArgumentException("maxFanOut: not supported for window joins and coGroup (a window " +
                "emits its pairs when it fires, not per row); bound them with the window's size and junction.state limits");
        }
    }

    /** SEMANTICS 4.5-4.7: paddedDelay, upsert output and padOnExpiry, and the result key upsert output needs. */
    private void checkShaping()
    {
        final String typeName = type.name().toLowerCase(Locale.ROOT);
        final boolean outer = type.isOuter(Side.LEFT) || type.isOuter(Side.RIGHT);
        if (paddedDelaySet)
        {
            if (kind != JoinKind.REGULAR)
            {
                throw new IllegalArgumentException("paddedDelay: only for regular joins");
            }
            if (!outer)
            {
                throw new IllegalArgumentException("paddedDelay: only for left, right or full joins (it delays their " +
                    "padded rows), not " + typeName);
            }
            if (paddedDelay < 0)
            {
                throw new IllegalArgumentException("paddedDelay must be >= 0: " + paddedDelay);
            }
        }
        if (padOnExpiry)
        {
            if (kind != JoinKind.REGULAR || !outer)
            {
                throw new IllegalArgumentException("padOnExpiry: only for regular left, right or full joins");
            }
            if (!(type.isOuter(Side.LEFT) && leftStateTtl > 0) && !(type.isOuter(Side.RIGHT) && rightStateTtl > 0))
            {
                throw new IllegalArgumentException("padOnExpiry: needs a stateTtl on an outer side (rows that never expire " +
                    "are never padded at expiry)");
            }
        }
        resultKey = null;
        if (output == OutputMode.UPSERT)
        {
            if (kind != JoinKind.REGULAR)
            {
                throw new IllegalArgumentException("output: upsert only for regular joins");
            }
            resultKey = resultKey();
        }
    }

    /** @return which unique keys key the result, or throws naming why the result is not keyed. */
    private ResultKey resultKey()
    {
        final boolean left = leftUniqueKeyDeclared;
        final boolean right = rightUniqueKeyDeclared;
        if (type.isSemiOrAnti())
        {
            if (!left)
            {
                throw new IllegalArgumentException("output: upsert output of a " + type.name().toLowerCase(Locale.ROOT) +
                    " join is keyed by the left row: declare leftUniqueKey");
            }
            return ResultKey.LEFT;
        }
        if (left && right && (type == JoinType.INNER || type == JoinType.LEFT) && rightKey.containsAll(rightUniqueKey))
        {
            return ResultKey.LEFT;
        }
        if (left && right && type == JoinType.RIGHT && leftKey.containsAll(leftUniqueKey))
        {
            return ResultKey.RIGHT;
        }
        if (left && right)
        {
            return ResultKey.BOTH;
        }
        throw new IllegalArgumentException("output: upsert output needs a keyed result: declare " +
            (left ? "rightUniqueKey" : right ? "leftUniqueKey" : "leftUniqueKey and rightUniqueKey") +
            " (a " + type.name().toLowerCase(Locale.ROOT) + " join is keyed by both unique keys, or by one " +
            "side's when the other side's unique key lies in its join key)");
    }

    private void checkCoGroup()
    {
        if (coGroup == null && coGroupBuiltin == null)
        {
            return;
        }
        if (kind != JoinKind.WINDOW)
        {
            throw new IllegalArgumentException("coGroup: only for window joins");
        }
        if (type.isSemiOrAnti())
        {
            throw new IllegalArgumentException("coGroup: type must be inner, left, right or full (which groups are " +
                "called), not " + type.name().toLowerCase(Locale.ROOT));
        }
        if (!condition.isEmpty() || !pairConditions.isEmpty())
        {
            throw new IllegalArgumentException("condition: not with coGroup (the function sees every row of a group)");
        }
        if (coGroupBuiltin != null)
        {
            coGroupSchema = coGroupBuiltin.outputSchema(leftKey);
            coGroup = coGroupBuiltin.function(leftSchema, leftKey, rightSchema, rightKey);
        }
    }

    /**
     * The temporal and lookup joins' own rules: the right side is a table keyed by {@code rightKey} (its
     * primary key, which is the join key), the left side a stream; inner and left only, nothing of the
     * other kinds (their time bound is the version's validity, not an interval, window, lateness or TTL).
     */
    private void checkVersioned()
    {
        final String name = kind.name().toLowerCase(Locale.ROOT);
        if (type != JoinType.INNER && type != JoinType.LEFT)
        {
            throw new IllegalArgumentException("type: a " + name + " join is inner or left, not " +
                type.name().toLowerCase(Locale.ROOT));
        }
        if (interval != null)
        {
            throw new IllegalArgumentException("interval: only for interval joins, this is a " + name + " join");
        }
        if (window != null)
        {
            throw new IllegalArgumentException("window: only for window joins, this is a " + name + " join");
        }
        if (allowedLateness != 0)
        {
            throw new IllegalArgumentException("allowedLateness: not for a " + name + " join (a left row below the " +
                "watermark is late, as its version may already be gone)");
        }
    }

    /**
     * The ASOF join's own rules (SEMANTICS 11): its options are required; inner or left only; no interval or
     * window (its time bound is the direction and tolerance); allowed lateness, filters and a condition apply.
     */
    private void checkAsof()
    {
        if (asof == null)
        {
            throw new IllegalArgumentException("asof: required for an asof join (direction, tolerance, emit)");
        }
        if (type != JoinType.INNER && type != JoinType.LEFT)
        {
            throw new IllegalArgumentException("type: an asof join is inner or left, not " +
                type.name().toLowerCase(Locale.ROOT));
        }
        if (interval != null)
        {
            throw new IllegalArgumentException("interval: only for interval joins, this is an asof join");
        }
        if (window != null)
        {
            throw new IllegalArgumentException("window: only for window joins, this is an asof join");
        }
    }

    /** The fields' existence in the schema is checked when the spec compiles, as the join key's. */
    private void checkUniqueKey(final String what, final List<String> fields, final boolean declared)
    {
        if (!declared)
        {
            return;
        }
        if (kind != JoinKind.REGULAR)
        {
            throw new IllegalArgumentException(what + ": only for regular joins (interval and window joins take " +
                "append-only input, which has no updates to find by key; a temporal or lookup join's right key is " +
                "its table's primary key)");
        }
        if (fields.isEmpty())
        {
            throw new IllegalArgumentException(what + ": at least one field is required");
        }
        for (int i = 0; i < fields.size(); i++)
        {
            final String field = fields.get(i);
            if (field == null)
            {
                throw new IllegalArgumentException(what + ": field " + i + " is null");
            }
            if (fields.indexOf(field) != i)
            {
                throw new IllegalArgumentException(what + ": duplicate field '" + field + "' in " + fields);
            }
        }
    }
}
