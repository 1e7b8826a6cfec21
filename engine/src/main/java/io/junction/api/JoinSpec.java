package io.junction.api;

import java.util.Collections;
import java.util.List;

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
    /** The spec's values, frozen ({@link SpecValues#SpecValues(SpecValues)}). */
    private final SpecValues values;

    private JoinSpec(final SpecValues b)
    {
        values = new SpecValues(b);

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
        builder.draft.multi = multi;
        return builder.build();
    }

    /**
     * @param side a side.
     * @return the expansion its rows go through before the join (docs/SEMANTICS.md, "Row expansion"), or null.
     */
    public Expansion expansion(final Side side)
    {
        return side == Side.LEFT ? values.leftExpand : values.rightExpand;
    }

    /** @return the standalone kind's expansion ({@link JoinKind#EXPAND}), or null. */
    public Expansion expand()
    {
        return values.expand;
    }

    /** @return the inputs of a {@link JoinKind#MULTI} join; null for every other kind. */
    public MultiJoinSpec multi()
    {
        return values.multi;
    }

    /** @return the join kind. */
    public JoinKind kind()
    {
        return values.kind;
    }

    /** @return the join type. */
    public JoinType type()
    {
        return values.type;
    }

    /** @return the schema of the left rows. */
    public Schema leftSchema()
    {
        return values.leftSchema;
    }

    /** @return the schema of the right rows. */
    public Schema rightSchema()
    {
        return values.rightSchema;
    }

    /**
     * @param side an input.
     * @return the schema of one side.
     */
    public Schema schema(final Side side)
    {
        return side == Side.LEFT ? values.leftSchema : values.rightSchema;
    }

    /** @return the key fields of the left row, in order; unmodifiable. */
    public List<String> leftKey()
    {
        return values.leftKey;
    }

    /** @return the key fields of the right row, in order; unmodifiable. */
    public List<String> rightKey()
    {
        return values.rightKey;
    }

    /** @return the declared unique key of the left rows, in order; empty when none is declared; unmodifiable. */
    public List<String> leftUniqueKey()
    {
        return values.leftUniqueKey;
    }

    /** @return the declared unique key of the right rows, in order; empty when none is declared; unmodifiable. */
    public List<String> rightUniqueKey()
    {
        return values.rightUniqueKey;
    }

    /**
     * @param side an input.
     * @return the declared unique key of one side; empty when none is declared; unmodifiable.
     */
    public List<String> uniqueKey(final Side side)
    {
        return side == Side.LEFT ? values.leftUniqueKey : values.rightUniqueKey;
    }

    /** @return the pre-join filter terms of the left side (all must hold); unmodifiable. */
    public List<FieldFilter> leftFilter()
    {
        return values.leftFilter;
    }

    /** @return the pre-join filter terms of the right side (all must hold); unmodifiable. */
    public List<FieldFilter> rightFilter()
    {
        return values.rightFilter;
    }

    /** @return the post-join condition terms (all must hold); unmodifiable. */
    public List<ConditionTerm> condition()
    {
        return values.condition;
    }

    /**
     * @param side an input.
     * @return the user filters of one side ({@link Builder#leftFilter(RowFilter)}), ANDed after its
     *         declarative terms; unmodifiable.
     */
    public List<RowFilter> rowFilters(final Side side)
    {
        return side == Side.LEFT ? values.leftRowFilters : values.rightRowFilters;
    }

    /** @return the user post-join conditions ({@link Builder#condition(PairCondition)}), ANDed after the terms; unmodifiable. */
    public List<PairCondition> pairConditions()
    {
        return values.pairConditions;
    }

    /** @return true when the spec has a user predicate, which the JSON spec (replay) cannot express. */
    public boolean hasUserPredicates()
    {
        return !values.leftRowFilters.isEmpty() || !values.rightRowFilters.isEmpty() || !values.pairConditions.isEmpty();
    }

    /** @return the interval of an interval join, else null. */
    public IntervalBounds interval()
    {
        return values.interval;
    }

    /** @return the windows of a window join, else null. */
    public WindowSpec window()
    {
        return values.window;
    }

    /** @return the options of an ASOF join (direction, tolerance, emission), else null. */
    public AsofSpec asof()
    {
        return values.asof;
    }

    /** @return ms of event time a row may lag the watermark and still be joined (interval, window and asof joins). */
    public long allowedLateness()
    {
        return values.allowedLateness;
    }

    /**
     * @return the longest a regular join keeps a row behind the watermark, ms of event time: 0 (forever)
     *         when either side keeps its rows forever, else the larger of the two sides' TTLs; the same as
     *         {@link #stateTtl(Side)} when both sides have one TTL ({@link Builder#stateTtl(long)}).
     */
    public long stateTtl()
    {
        return values.leftStateTtl == 0 || values.rightStateTtl == 0 ? 0 : Math.max(values.leftStateTtl, values.rightStateTtl);
    }

    /**
     * @param side an input.
     * @return ms of event time a regular join keeps a row of that side behind the watermark; 0 keeps them forever.
     */
    public long stateTtl(final Side side)
    {
        return side == Side.LEFT ? values.leftStateTtl : values.rightStateTtl;
    }

    /**
     * @return the window coGroup's function ({@link Builder#coGroup(CoGroupFunction)}), or null for a join:
     *         a window join with one calls it per fired window and key instead of joining pairs.
     */
    public CoGroupFunction coGroup()
    {
        return values.coGroup;
    }

    /** @return the schema of the coGroup's computed rows ({@link CoGroupCollector#row()}), or null when it emits input rows only. */
    public Schema coGroupSchema()
    {
        return values.coGroupSchema;
    }

    /** @return the built-in the coGroup function is ({@link Builder#coGroup(CoGroupBuiltin)}), or null. */
    public CoGroupBuiltin coGroupBuiltin()
    {
        return values.coGroupBuiltin;
    }

    /**
     * @return the padded-row delay of a regular outer join in ms of event time (SEMANTICS 4.5-4.7): an unmatched
     *         row is padded only once the join watermark passes {@code ts + paddedDelay}; -1 when none is
     *         set (padded at once, SEMANTICS 4).
     */
    public long paddedDelay()
    {
        return values.paddedDelay;
    }

    /** @return true when a padded-row delay is set ({@link Builder#paddedDelay}). */
    public boolean hasPaddedDelay()
    {
        return values.paddedDelay >= 0;
    }

    /** @return how results leave the join: the retraction changelog (default) or upserts by result key. */
    public OutputMode output()
    {
        return values.output;
    }

    /**
     * @return the declared output budget of one inserted row (docs/SEMANTICS.md 1.5): the most stored rows it may
     *         join, the other side's rows under its key (a multi-way join: the product of the other inputs' rows
     *         under it); a row past it is refused {@link DeadLetterReason#FANOUT_EXCEEDED} before it has any effect.
     *         0: unbounded (the default).
     */
    public long maxFanOut()
    {
        return values.maxFanOut;
    }

    /** @return which unique keys key the results of upsert output, or null for the retraction changelog. */
    public ResultKey resultKey()
    {
        return values.resultKey;
    }

    /**
     * @return true when an outer row of a side with a state TTL that is still unmatched when it expires is
     *         padded at its expiry, its padding waiting for the expiry unless a padded-row delay ends first.
     */
    public boolean padOnExpiry()
    {
        return values.padOnExpiry;
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
        return values.fingerprint();
    }

    @Override
    public String toString()
    {
        return values.toString();
    }

    /** Collects and validates a {@link JoinSpec}. Not thread safe. */
    public static final class Builder
    {
        /** What the setters collect; {@link #build()} checks it. */
        private final SpecValues draft;

        private Builder(final JoinKind kind, final JoinType type)
        {
            if (kind == null || type == null)
            {
                throw new IllegalArgumentException("join kind and type are required: kind=" + kind + " type=" + type);
            }
            draft = new SpecValues(kind, type);
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
            draft.leftSchema = left;
            draft.rightSchema = right;
            return this;
        }

        /**
         * Expands each left row before the join (docs/SEMANTICS.md, "Row expansion"): the rows it makes
         * take part as left rows, with the input row's step, time and op. Regular, interval, window,
         * temporal, lookup and ASOF joins. The fields it adds are appended to the left schema.
         *
         * @param expansion what each row is expanded to.
         * @return this builder.
         */
        public Builder leftExpand(final Expansion expansion)
        {
            draft.leftExpand = expansion;
            return this;
        }

        /**
         * Expands each right row before the join, as {@link #leftExpand}: regular, interval and window joins.
         *
         * @param expansion what each row is expanded to.
         * @return this builder.
         */
        public Builder rightExpand(final Expansion expansion)
        {
            draft.rightExpand = expansion;
            return this;
        }

        /**
         * The standalone kind's expansion ({@link JoinKind#EXPAND}): each left row is emitted with each row it
         * makes as {@code (left: the row, right: the new fields)}, kept only where {@code leftFilter} and
         * {@code condition} (whose right field is a new field) hold; a left expand join emits a row that keeps
         * nothing once padded. Its schemas: the left one, with the new fields appended, serves both sides.
         *
         * @param expansion what each row is expanded to; its {@code outer} is the type's to say.
         * @return this builder.
         */
        public Builder expand(final Expansion expansion)
        {
            draft.expand = expansion;
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
            Collections.addAll(draft.leftKey, fields);
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
            Collections.addAll(draft.rightKey, fields);
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
            draft.leftUniqueKeyDeclared = true;
            Collections.addAll(draft.leftUniqueKey, fields);
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
            draft.rightUniqueKeyDeclared = true;
            Collections.addAll(draft.rightUniqueKey, fields);
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
            draft.leftFilter.add(new FieldFilter(field, op, value));
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
            draft.rightFilter.add(new FieldFilter(field, op, value));
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
            draft.condition.add(new ConditionTerm(leftField, op, rightField));
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
            draft.leftFilter.add(requireNonNull(filter, "leftFilter"));
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
            draft.rightFilter.add(requireNonNull(filter, "rightFilter"));
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
            draft.leftRowFilters.add(requireNonNull(filter, "leftFilter"));
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
            draft.rightRowFilters.add(requireNonNull(filter, "rightFilter"));
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
            draft.pairConditions.add(requireNonNull(condition, "condition"));
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
            draft.condition.add(new ConditionTerm(leftField, leftOffset, op, rightField));
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
            draft.interval = bounds;
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
            draft.window = window;
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
            draft.asof = requireNonNull(options, "asof");
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
            draft.allowedLateness = millis;
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
            draft.leftStateTtl = millis;
            draft.rightStateTtl = millis;
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
                draft.leftStateTtl = millis;
            }
            else
            {
                draft.rightStateTtl = millis;
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
            draft.paddedDelay = millis;
            draft.paddedDelaySet = true;
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
            draft.output = requireNonNull(mode, "output");
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
            draft.maxFanOut = rows;
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
            draft.padOnExpiry = pad;
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
            draft.coGroup = requireNonNull(function, "coGroup");
            draft.coGroupSchema = output;
            draft.coGroupBuiltin = null;
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
            draft.coGroupBuiltin = requireNonNull(builtin, "coGroup");
            draft.coGroup = null;
            draft.coGroupSchema = null;
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
            draft.addExpansionFields();
            draft.check();
            final JoinSpec spec = new JoinSpec(draft);
            SpecTypeCheck.check(spec); // typed schemas: no comparison of incompatible types
            return spec;
        }
    }
}
