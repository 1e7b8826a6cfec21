package io.junction.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What to join, validated: kind and type, the key fields of each side, per-side
 * pre-join filters, the post-join condition, interval, window or ASOF options ({@link AsofSpec}), allowed
 * lateness and state TTL (SEMANTICS 1). Immutable and thread safe once built.
 *
 * <pre>{@code
 * Schema schema = Schema.of("log_id", "ts", "show_params", "click_params");
 * JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
 *     .schemas(schema, schema)
 *     .leftKey("log_id").rightKey("log_id")
 *     .build();
 * }</pre>
 * A regular join may declare a side's unique key ({@link Builder#leftUniqueKey}): a promise, as a
 * primary key, that at most one live row of that side has each value of those fields, which lets the
 * operator keep and find that side's rows by it (docs/SEMANTICS.md, "Unique keys").
 * Filters and conditions are declarative (comparisons, {@link FieldFilter#in IN lists}, {@link FieldFilter#any
 * disjunctions}, condition offsets: what a JSON spec can say) or, in Java, user functions over the rows
 * ({@link RowFilter}, {@link PairCondition}), ANDed after the declarative terms.
 * A window join may be a window coGroup instead ({@link Builder#coGroup(CoGroupFunction)}): a user function,
 * or a {@link CoGroupBuiltin}, gets each fired window's rows of one key, both sides.
 * Configuration errors (an unknown field, key arity mismatch, an empty interval, a missing interval
 * or window) throw {@link IllegalArgumentException} from {@link Builder#build()} naming the field.
 */
public final class JoinSpec
{
    private final JoinKind kind;
    private final JoinType type;
    private final Schema leftSchema;
    private final Schema rightSchema;
    private final List<String> leftKey;
    private final List<String> rightKey;
    private final List<String> leftUniqueKey;
    private final List<String> rightUniqueKey;
    private final List<FieldFilter> leftFilter;
    private final List<FieldFilter> rightFilter;
    private final List<ConditionTerm> condition;
    private final List<RowFilter> leftRowFilters;
    private final List<RowFilter> rightRowFilters;
    private final List<PairCondition> pairConditions;
    private final IntervalBounds interval;
    private final WindowSpec window;
    private final AsofSpec asof;
    private final long allowedLateness;
    private final long leftStateTtl;
    private final long rightStateTtl;
    private final CoGroupFunction coGroup;
    private final Schema coGroupSchema;
    private final CoGroupBuiltin coGroupBuiltin;
    private final long paddedDelay;
    private final OutputMode output;
    private final ResultKey resultKey;
    private final boolean padOnExpiry;
    private final long maxFanOut;
    /** The inputs of a {@link JoinKind#MULTI} join; null for every other kind. */
    private final MultiJoinSpec multi;

    private JoinSpec(final Builder b)
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

        // checked here, as the operators compile them, so that an unknown field fails the build, naming it
        SpecFields.check(this);
    }

    /**
     * @param kind regular, interval, window, temporal, lookup or asof.
     * @param type inner, left, right, full, semi or anti (temporal, lookup and asof joins: inner or left).
     * @return a builder for a join of this kind and type.
     */
    public static Builder builder(final JoinKind kind, final JoinType type)
    {
        return new Builder(kind, type);
    }

    /**
     * A multi-way join ({@link JoinKind#MULTI}, SEMANTICS 10) of the given inputs. The binary view of the spec
     * ({@link #leftKey()}, {@link #rightKey()}, {@link #leftSchema()}, {@link #rightSchema()}) describes its
     * first two inputs; everything else is in {@link #multi()}.
     *
     * @param multi the inputs, validated.
     * @return the spec.
     * @throws IllegalArgumentException when {@code multi} is null.
     */
    public static JoinSpec multi(final MultiJoinSpec multi)
    {
        if (multi == null)
        {
            throw new IllegalArgumentException("multi: the inputs are required");
        }
        final Builder builder = new Builder(JoinKind.MULTI, JoinType.INNER)
            .schemas(multi.schema(0), multi.schema(1))
            .leftKey(multi.key(0).toArray(new String[0]))
            .rightKey(multi.key(1).toArray(new String[0]))
            .maxFanOut(multi.maxFanOut());
        builder.multi = multi;
        return builder.build();
    }

    /** @return the inputs of a {@link JoinKind#MULTI} join; null for every other kind. */
    public MultiJoinSpec multi()
    {
        return multi;
    }

    /** @return the join kind. */
    public JoinKind kind()
    {
        return kind;
    }

    /** @return the join type. */
    public JoinType type()
    {
        return type;
    }

    /** @return the schema of the left rows. */
    public Schema leftSchema()
    {
        return leftSchema;
    }

    /** @return the schema of the right rows. */
    public Schema rightSchema()
    {
        return rightSchema;
    }

    /**
     * @param side an input.
     * @return the schema of one side.
     */
    public Schema schema(final Side side)
    {
        return side == Side.LEFT ? leftSchema : rightSchema;
    }

    /** @return the key fields of the left row, in order; unmodifiable. */
    public List<String> leftKey()
    {
        return leftKey;
    }

    /** @return the key fields of the right row, in order; unmodifiable. */
    public List<String> rightKey()
    {
        return rightKey;
    }

    /** @return the declared unique key of the left rows, in order; empty when none is declared; unmodifiable. */
    public List<String> leftUniqueKey()
    {
        return leftUniqueKey;
    }

    /** @return the declared unique key of the right rows, in order; empty when none is declared; unmodifiable. */
    public List<String> rightUniqueKey()
    {
        return rightUniqueKey;
    }

    /**
     * @param side an input.
     * @return the declared unique key of one side; empty when none is declared; unmodifiable.
     */
    public List<String> uniqueKey(final Side side)
    {
        return side == Side.LEFT ? leftUniqueKey : rightUniqueKey;
    }

    /** @return the pre-join filter terms of the left side (all must hold); unmodifiable. */
    public List<FieldFilter> leftFilter()
    {
        return leftFilter;
    }

    /** @return the pre-join filter terms of the right side (all must hold); unmodifiable. */
    public List<FieldFilter> rightFilter()
    {
        return rightFilter;
    }

    /** @return the post-join condition terms (all must hold); unmodifiable. */
    public List<ConditionTerm> condition()
    {
        return condition;
    }

    /**
     * @param side an input.
     * @return the user filters of one side ({@link Builder#leftFilter(RowFilter)}), ANDed after its
     *         declarative terms; unmodifiable.
     */
    public List<RowFilter> rowFilters(final Side side)
    {
        return side == Side.LEFT ? leftRowFilters : rightRowFilters;
    }

    /** @return the user post-join conditions ({@link Builder#condition(PairCondition)}), ANDed after the terms; unmodifiable. */
    public List<PairCondition> pairConditions()
    {
        return pairConditions;
    }

    /** @return true when the spec has a user predicate, which the JSON spec (replay) cannot express. */
    public boolean hasUserPredicates()
    {
        return !leftRowFilters.isEmpty() || !rightRowFilters.isEmpty() || !pairConditions.isEmpty();
    }

    /** @return the interval of an interval join, else null. */
    public IntervalBounds interval()
    {
        return interval;
    }

    /** @return the windows of a window join, else null. */
    public WindowSpec window()
    {
        return window;
    }

    /** @return the options of an ASOF join (direction, tolerance, emission), else null. */
    public AsofSpec asof()
    {
        return asof;
    }

    /** @return ms of event time a row may lag the watermark and still be joined (interval, window and asof joins). */
    public long allowedLateness()
    {
        return allowedLateness;
    }

    /**
     * @return the longest a regular join keeps a row behind the watermark, ms of event time: 0 (forever)
     *         when either side keeps its rows forever, else the larger of the two sides' TTLs; the same as
     *         {@link #stateTtl(Side)} when both sides have one TTL ({@link Builder#stateTtl(long)}).
     */
    public long stateTtl()
    {
        return leftStateTtl == 0 || rightStateTtl == 0 ? 0 : Math.max(leftStateTtl, rightStateTtl);
    }

    /**
     * @param side an input.
     * @return ms of event time a regular join keeps a row of that side behind the watermark; 0 keeps them forever.
     */
    public long stateTtl(final Side side)
    {
        return side == Side.LEFT ? leftStateTtl : rightStateTtl;
    }

    /**
     * @return the window coGroup's function ({@link Builder#coGroup(CoGroupFunction)}), or null for a join:
     *         a window join with one calls it per fired window and key instead of joining pairs.
     */
    public CoGroupFunction coGroup()
    {
        return coGroup;
    }

    /** @return the schema of the coGroup's computed rows ({@link CoGroupCollector#row()}), or null when it emits input rows only. */
    public Schema coGroupSchema()
    {
        return coGroupSchema;
    }

    /** @return the built-in the coGroup function is ({@link Builder#coGroup(CoGroupBuiltin)}), or null. */
    public CoGroupBuiltin coGroupBuiltin()
    {
        return coGroupBuiltin;
    }

    /**
     * @return the padded-row delay of a regular outer join in ms of event time (SEMANTICS 4.5-4.7): an unmatched
     *         row is padded only once the join watermark passes {@code ts + paddedDelay}; -1 when none is
     *         set (padded at once, SEMANTICS 4).
     */
    public long paddedDelay()
    {
        return paddedDelay;
    }

    /** @return true when a padded-row delay is set ({@link Builder#paddedDelay}). */
    public boolean hasPaddedDelay()
    {
        return paddedDelay >= 0;
    }

    /** @return how results leave the join: the retraction changelog (default) or upserts by result key. */
    public OutputMode output()
    {
        return output;
    }

    /**
     * @return the declared output budget of one inserted row (docs/SEMANTICS.md 1.5): the most stored rows it may
     *         join, the other side's rows under its key (a multi-way join: the product of the other inputs' rows
     *         under it); a row past it is refused {@link DeadLetterReason#FANOUT_EXCEEDED} before it has any effect.
     *         0: unbounded (the default).
     */
    public long maxFanOut()
    {
        return maxFanOut;
    }

    /** @return which unique keys key the results of upsert output, or null for the retraction changelog. */
    public ResultKey resultKey()
    {
        return resultKey;
    }

    /**
     * @return true when an outer row of a side with a state TTL that is still unmatched when it expires is
     *         padded at its expiry, its padding waiting for the expiry unless a padded-row delay ends first.
     */
    public boolean padOnExpiry()
    {
        return padOnExpiry;
    }

    /**
     * A stable 64-bit fingerprint of everything that defines the join's semantics and state layout:
     * kind, type, schemas, keys, unique keys, bounds, window, lateness, TTLs, filters and condition, the
     * coGroup (built-in name, or a function's class name and output schema), and the user predicates (their number and, for a named class, its name; a lambda's is not stable across
     * JVMs). Not the handlers. The same spec gives the same value in any JVM (FNV-1a over a canonical
     * text), so durable state and checkpoints written for one join are refused by another.
     *
     * @return the fingerprint.
     */
    public long fingerprint()
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
            (multi == null ? "" : " " + multi) + '}';
    }

    /** Collects and validates a {@link JoinSpec}. Not thread safe. */
    public static final class Builder
    {
        private final JoinKind kind;
        private final JoinType type;
        private Schema leftSchema;
        private Schema rightSchema;
        private final List<String> leftKey = new ArrayList<>();
        private final List<String> rightKey = new ArrayList<>();
        private final List<String> leftUniqueKey = new ArrayList<>();
        private final List<String> rightUniqueKey = new ArrayList<>();
        /** Set by a call to the unique-key setters, so that a declaration without fields is an error, not "none". */
        private boolean leftUniqueKeyDeclared;
        private boolean rightUniqueKeyDeclared;
        private final List<FieldFilter> leftFilter = new ArrayList<>();
        private final List<FieldFilter> rightFilter = new ArrayList<>();
        private final List<ConditionTerm> condition = new ArrayList<>();
        private final List<RowFilter> leftRowFilters = new ArrayList<>();
        private final List<RowFilter> rightRowFilters = new ArrayList<>();
        private final List<PairCondition> pairConditions = new ArrayList<>();
        private IntervalBounds interval;
        private WindowSpec window;
        private AsofSpec asof;
        private long allowedLateness;
        private long leftStateTtl;
        private long rightStateTtl;
        private CoGroupFunction coGroup;
        private Schema coGroupSchema;
        private CoGroupBuiltin coGroupBuiltin;
        private long paddedDelay = -1;
        private boolean paddedDelaySet;
        private OutputMode output = OutputMode.RETRACT;
        private ResultKey resultKey;
        private boolean padOnExpiry;
        private long maxFanOut;
        /** Set by {@link JoinSpec#multi(MultiJoinSpec)} only. */
        private MultiJoinSpec multi;

        private Builder(final JoinKind kind, final JoinType type)
        {
            if (kind == null || type == null)
            {
                throw new IllegalArgumentException("join kind and type are required: kind=" + kind + " type=" + type);
            }
            this.kind = kind;
            this.type = type;
        }

        /**
         * Sets the row schemas of the two sides; they may be the same instance.
         *
         * @param left  the schema of the left rows.
         * @param right the schema of the right rows.
         * @return this builder.
         */
        public Builder schemas(final Schema left, final Schema right)
        {
            this.leftSchema = left;
            this.rightSchema = right;
            return this;
        }

        /**
         * Appends key fields of the left row, in order.
         *
         * @param fields field names of the left schema.
         * @return this builder.
         */
        public Builder leftKey(final String... fields)
        {
            Collections.addAll(leftKey, fields);
            return this;
        }

        /**
         * Appends key fields of the right row, in order.
         *
         * @param fields field names of the right schema.
         * @return this builder.
         */
        public Builder rightKey(final String... fields)
        {
            Collections.addAll(rightKey, fields);
            return this;
        }

        /**
         * Declares (appends fields of) the unique key of the left rows: at most one live left row has
         * each value of these fields, as a primary key. Regular joins only. A left row that breaks the
         * promise in a way the join sees alike under any partitioning (a null field, or an insert whose
         * unique key is already live with the same join key) is dead-lettered
         * {@link DeadLetterReason#UNIQUE_KEY_VIOLATION}.
         *
         * @param fields field names of the left schema, at least one, no duplicates.
         * @return this builder.
         */
        public Builder leftUniqueKey(final String... fields)
        {
            leftUniqueKeyDeclared = true;
            Collections.addAll(leftUniqueKey, fields);
            return this;
        }

        /**
         * Declares (appends fields of) the unique key of the right rows, as {@link #leftUniqueKey}.
         *
         * @param fields field names of the right schema, at least one, no duplicates.
         * @return this builder.
         */
        public Builder rightUniqueKey(final String... fields)
        {
            rightUniqueKeyDeclared = true;
            Collections.addAll(rightUniqueKey, fields);
            return this;
        }

        /**
         * Adds a pre-join filter term on the left side.
         *
         * @param field a field of the left schema.
         * @param op    the comparison.
         * @param value the literal compared with.
         * @return this builder.
         */
        public Builder leftFilter(final String field, final CompareOp op, final Literal value)
        {
            leftFilter.add(new FieldFilter(field, op, value));
            return this;
        }

        /**
         * Adds a pre-join filter term on the right side.
         *
         * @param field a field of the right schema.
         * @param op    the comparison.
         * @param value the literal compared with.
         * @return this builder.
         */
        public Builder rightFilter(final String field, final CompareOp op, final Literal value)
        {
            rightFilter.add(new FieldFilter(field, op, value));
            return this;
        }

        /**
         * Adds a post-join condition term {@code left.leftField op right.rightField}.
         *
         * @param leftField  a field of the left schema.
         * @param op         the comparison.
         * @param rightField a field of the right schema.
         * @return this builder.
         */
        public Builder condition(final String leftField, final CompareOp op, final String rightField)
        {
            condition.add(new ConditionTerm(leftField, op, rightField));
            return this;
        }

        /**
         * Adds a pre-join filter term on the left side: a comparison, an IN list ({@link FieldFilter#in})
         * or a disjunction ({@link FieldFilter#any}).
         *
         * @param filter the term, over fields of the left schema.
         * @return this builder.
         */
        public Builder leftFilter(final FieldFilter filter)
        {
            leftFilter.add(requireNonNull(filter, "leftFilter"));
            return this;
        }

        /**
         * Adds a pre-join filter term on the right side, as {@link #leftFilter(FieldFilter)}.
         *
         * @param filter the term, over fields of the right schema.
         * @return this builder.
         */
        public Builder rightFilter(final FieldFilter filter)
        {
            rightFilter.add(requireNonNull(filter, "rightFilter"));
            return this;
        }

        /**
         * Adds a user pre-join filter on the left side, ANDed with the declarative terms and evaluated
         * after them (see {@link RowFilter} for its contract). Java only: the JSON spec cannot express it.
         *
         * @param filter the filter.
         * @return this builder.
         */
        public Builder leftFilter(final RowFilter filter)
        {
            leftRowFilters.add(requireNonNull(filter, "leftFilter"));
            return this;
        }

        /**
         * Adds a user pre-join filter on the right side, as {@link #leftFilter(RowFilter)}.
         *
         * @param filter the filter.
         * @return this builder.
         */
        public Builder rightFilter(final RowFilter filter)
        {
            rightRowFilters.add(requireNonNull(filter, "rightFilter"));
            return this;
        }

        /**
         * Adds a user post-join condition, ANDed with the declarative terms and evaluated after them and
         * after any interval bounds or window (see {@link PairCondition} for its contract). Java only.
         *
         * @param condition the condition.
         * @return this builder.
         */
        public Builder condition(final PairCondition condition)
        {
            pairConditions.add(requireNonNull(condition, "condition"));
            return this;
        }

        private static <T> T requireNonNull(final T value, final String what)
        {
            if (value == null)
            {
                throw new IllegalArgumentException(what + ": must not be null");
            }
            return value;
        }

        /**
         * Adds a post-join condition term {@code left.leftField + leftOffset op right.rightField}, for
         * example {@code condition("ts", 1000, CompareOp.LT, "ts")} for {@code l.ts + 1000 < r.ts}. The
         * addition saturates at the long range; a left value that is not a number makes the term false.
         *
         * @param leftField  a field of the left schema.
         * @param leftOffset added to the left value.
         * @param op         the comparison.
         * @param rightField a field of the right schema.
         * @return this builder.
         */
        public Builder condition(final String leftField, final long leftOffset, final CompareOp op, final String rightField)
        {
            condition.add(new ConditionTerm(leftField, leftOffset, op, rightField));
            return this;
        }

        /**
         * Sets the bounds of an interval join.
         *
         * @param bounds the bounds of {@code right.ts - left.ts}.
         * @return this builder.
         */
        public Builder interval(final IntervalBounds bounds)
        {
            this.interval = bounds;
            return this;
        }

        /**
         * Sets the windows of a window join.
         *
         * @param window the windows.
         * @return this builder.
         */
        public Builder window(final WindowSpec window)
        {
            this.window = window;
            return this;
        }

        /**
         * Sets the options of an ASOF join ({@link JoinKind#ASOF}): direction, tolerance and emission mode.
         *
         * @param options the options.
         * @return this builder.
         */
        public Builder asof(final AsofSpec options)
        {
            this.asof = requireNonNull(options, "asof");
            return this;
        }

        /**
         * Sets the allowed lateness in ms of event time, >= 0.
         *
         * @param millis the lateness, ms.
         * @return this builder.
         */
        public Builder allowedLateness(final long millis)
        {
            this.allowedLateness = millis;
            return this;
        }

        /**
         * Sets the regular-join state TTL in ms of event time, >= 0 (0 = keep forever).
         *
         * @param millis the TTL, ms.
         * @return this builder.
         */
        public Builder stateTtl(final long millis)
        {
            this.leftStateTtl = millis;
            this.rightStateTtl = millis;
            return this;
        }

        /**
         * Sets one side's regular-join state TTL in ms of event time, >= 0 (0 = keep that side's rows
         * forever), as Flink SQL's per-table {@code STATE_TTL} hint: the sides may differ.
         *
         * @param side   the input.
         * @param millis the TTL, ms.
         * @return this builder.
         */
        public Builder stateTtl(final Side side, final long millis)
        {
            if (side == null)
            {
                throw new IllegalArgumentException("side is required");
            }
            if (side == Side.LEFT)
            {
                this.leftStateTtl = millis;
            }
            else
            {
                this.rightStateTtl = millis;
            }
            return this;
        }

        /**
         * Sets the padded-row delay of a regular left, right or full join, ms of event time, >= 0 (SEMANTICS 4.5-4.7):
         * a row without a match is emitted null-padded only at the first join watermark above
         * {@code ts + millis}, if still unmatched then; a match before that emits the joined row directly.
         *
         * @param millis the delay, ms.
         * @return this builder.
         */
        public Builder paddedDelay(final long millis)
        {
            this.paddedDelay = millis;
            this.paddedDelaySet = true;
            return this;
        }

        /**
         * Sets how results leave a regular join (SEMANTICS 4.5-4.7): {@link OutputMode#UPSERT} needs unique keys
         * that make the result keyed ({@link JoinSpec#resultKey()}).
         *
         * @param mode the output mode.
         * @return this builder.
         */
        public Builder output(final OutputMode mode)
        {
            this.output = requireNonNull(mode, "output");
            return this;
        }

        /**
         * Declares the output budget of one inserted row (docs/SEMANTICS.md 1.5): the most stored rows of the other
         * side under its key that it may join (regular and interval joins). An insert past it is refused as a
         * {@link DeadLetterReason#FANOUT_EXCEEDED} dead letter before anything of it is emitted or stored, so the
         * changelog stays exact; its later retraction is then a retraction of a row not in state. Temporal, lookup
         * and asof joins emit at most one line per row and take no budget; window joins (and coGroup) emit a window's
         * pairs when it fires and refuse one. A multi-way join declares it with
         * {@link MultiJoinSpec.Builder#maxFanOut}.
         *
         * @param rows the budget, &gt;= 0; 0 is unbounded (the default).
         * @return this builder.
         */
        public Builder maxFanOut(final long rows)
        {
            this.maxFanOut = rows;
            return this;
        }

        /**
         * Pads an outer row that is still unmatched when its state TTL expires it, at the expiry (its
         * padding waits for the expiry unless a padded-row delay ends first). Regular outer joins with a
         * state TTL on an outer side.
         *
         * @param pad whether to.
         * @return this builder.
         */
        public Builder padOnExpiry(final boolean pad)
        {
            this.padOnExpiry = pad;
            return this;
        }

        /**
         * Makes a window join a window coGroup (docs/SEMANTICS.md 6.4): per fired window and key the
         * function gets both sides' rows and emits input rows through its collector. The join type says
         * which groups are called (inner, left, right or full; see {@link CoGroupFunction}); windows,
         * firing, lateness, null keys and pre-join filters are the window join's. No post-join condition:
         * the function sees every row of the group. One instance serves every partition: it must be
         * thread safe (stateless, or with per-thread state).
         *
         * @param function the function.
         * @return this builder.
         */
        public Builder coGroup(final CoGroupFunction function)
        {
            return coGroup(function, null);
        }

        /**
         * As {@link #coGroup(CoGroupFunction)}, for a function that also emits computed rows in
         * {@code output} ({@link CoGroupCollector#row()}).
         *
         * @param function the function.
         * @param output   the schema of its computed rows, or null when it emits input rows only.
         * @return this builder.
         */
        public Builder coGroup(final CoGroupFunction function, final Schema output)
        {
            this.coGroup = requireNonNull(function, "coGroup");
            this.coGroupSchema = output;
            this.coGroupBuiltin = null;
            return this;
        }

        /**
         * As {@link #coGroup(CoGroupFunction, Schema)} with a built-in function, bound to this builder's
         * schemas and keys when the spec is built.
         *
         * @param builtin the built-in.
         * @return this builder.
         */
        public Builder coGroup(final CoGroupBuiltin builtin)
        {
            this.coGroupBuiltin = requireNonNull(builtin, "coGroup");
            this.coGroup = null;
            this.coGroupSchema = null;
            return this;
        }

        /**
         * Validates and builds the spec. A temporal or lookup join ({@link JoinKind#TEMPORAL}, {@link JoinKind#LOOKUP})
         * is inner or left, its {@code rightKey} is the right table's primary key, and it takes no interval,
         * window, allowed lateness, state TTL or unique key. An ASOF join ({@link JoinKind#ASOF}) needs its
         * {@link #asof options}, is inner or left, and takes no interval, window, state TTL or unique key.
         *
         * @return the validated spec.
         * @throws IllegalArgumentException naming the offending field when the spec is not valid.
         */
        public JoinSpec build()
        {
            if (leftSchema == null || rightSchema == null)
            {
                throw new IllegalArgumentException("schemas: both sides need a schema");
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
            checkUniqueKey("leftUniqueKey", leftUniqueKey, leftUniqueKeyDeclared);
            checkUniqueKey("rightUniqueKey", rightUniqueKey, rightUniqueKeyDeclared);
            checkCoGroup();
            checkShaping();
            checkMaxFanOut();
            final JoinSpec spec = new JoinSpec(this);
            SpecTypeCheck.check(spec); // typed schemas: no comparison of incompatible types
            return spec;
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
}
