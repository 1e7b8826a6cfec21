package io.junction.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A multi-way join (docs/SEMANTICS.md "Multi-way joins", SEMANTICS 10): 2 to {@link #MAX_INPUTS} named inputs
 * on a common key, joined left-deep in declaration order, {@code ((i0 ⋈ i1) ⟕ i2) ...}: every input after
 * the first is {@link JoinType#INNER inner} or {@link JoinType#LEFT left} joined to all the inputs before it,
 * its rows matching when their key equals the first input's key. Each input has its own key fields (same
 * arity as the first's), pre-join {@link FieldFilter filters} and state TTL; a condition term compares a
 * field of one input with a field of another ({@code "orders.amt" >= "payments.amt"}) and belongs to the
 * ON clause of the later of the two. Run it as {@link JoinSpec#multi(MultiJoinSpec)}.
 *
 * <pre>{@code
 * Schema schema = Schema.of("id", "amt", "order_id", "pid", "sh");
 * MultiJoinSpec multi = MultiJoinSpec.builder(schema)
 *     .input("orders", "id")
 *     .input("payments", JoinType.INNER, "order_id")
 *     .input("shipments", JoinType.LEFT, "order_id")
 *     .condition("orders.amt", CompareOp.GE, "payments.amt")
 *     .build();
 * JoinSpec spec = JoinSpec.multi(multi);
 * }</pre>
 * Configuration errors throw {@link IllegalArgumentException} from {@link Builder#build()}, naming the
 * field as the JSON spec does ({@code inputs[1].key}, {@code condition[0].left}). Immutable and thread safe.
 */
public final class MultiJoinSpec
{
    /** The most inputs of one multi-way join. */
    public static final int MAX_INPUTS = 16;

    /** One condition term, resolved: {@code leftInput.leftField op rightInput.rightField}. Immutable. */
    public static final class Condition
    {
        private final int leftInput;
        private final String leftField;
        private final CompareOp op;
        private final int rightInput;
        private final String rightField;

        Condition(final int leftInput, final String leftField, final CompareOp op, final int rightInput, final String rightField)
        {
            this.leftInput = leftInput;
            this.leftField = leftField;
            this.op = op;
            this.rightInput = rightInput;
            this.rightField = rightField;
        }

        /** @return the input index of the left operand. */
        public int leftInput()
        {
            return leftInput;
        }

        /** @return the field of the left operand. */
        public String leftField()
        {
            return leftField;
        }

        /** @return the comparison. */
        public CompareOp op()
        {
            return op;
        }

        /** @return the input index of the right operand. */
        public int rightInput()
        {
            return rightInput;
        }

        /** @return the field of the right operand. */
        public String rightField()
        {
            return rightField;
        }

        /** @return the input whose ON clause the term belongs to: the later of the two. */
        public int level()
        {
            return Math.max(leftInput, rightInput);
        }
    }

    private final List<String> names;
    private final List<Schema> schemas;
    private final List<JoinType> types;
    private final List<List<String>> keys;
    private final List<List<FieldFilter>> filters;
    private final long[] stateTtl;
    private final List<Expansion> expansions;
    private final List<Condition> conditions;
    private final long maxFanOut;

    private MultiJoinSpec(final Builder b, final List<Condition> conditions)
    {
        final int n = b.names.size();
        this.names = Collections.unmodifiableList(new ArrayList<>(b.names));
        this.schemas = Collections.unmodifiableList(new ArrayList<>(b.schemas));
        this.expansions = Collections.unmodifiableList(new ArrayList<>(b.expansions));
        this.types = Collections.unmodifiableList(new ArrayList<>(b.types));
        final List<List<String>> k = new ArrayList<>(n);
        final List<List<FieldFilter>> f = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            k.add(List.copyOf(b.keys.get(i)));
            f.add(List.copyOf(b.filters.get(i)));
        }
        this.keys = Collections.unmodifiableList(k);
        this.filters = Collections.unmodifiableList(f);
        this.stateTtl = new long[n];
        for (int i = 0; i < n; i++)
        {
            stateTtl[i] = b.ttls.get(i);
        }
        this.conditions = Collections.unmodifiableList(conditions);
        this.maxFanOut = b.maxFanOut;
    }

    /**
     * @param schema the schema of every input that does not name its own.
     * @return a builder.
     */
    public static Builder builder(final Schema schema)
    {
        return new Builder(schema);
    }

    /** @return the number of inputs. */
    public int inputs()
    {
        return names.size();
    }

    /** @return the input names, in join order. */
    public List<String> names()
    {
        return names;
    }

    /**
     * @param name an input name.
     * @return its index, or -1 when no input has that name.
     */
    public int indexOf(final String name)
    {
        return names.indexOf(name);
    }

    /**
     * @param i an input index, 0-based.
     * @return the schema of input {@code i}.
     */
    public Schema schema(final int i)
    {
        return schemas.get(i);
    }

    /**
     * @param i an input index, 0-based.
     * @return how input {@code i} joins the inputs before it; null for the first input.
     */
    public JoinType type(final int i)
    {
        return types.get(i);
    }

    /**
     * @param i an input index, 0-based.
     * @return the key fields of input {@code i}.
     */
    public List<String> key(final int i)
    {
        return keys.get(i);
    }

    /**
     * @param i an input index, 0-based.
     * @return the pre-join filter terms of input {@code i} (ANDed).
     */
    public List<FieldFilter> filter(final int i)
    {
        return filters.get(i);
    }

    /**
     * @param i an input index, 0-based.
     * @return the expansion of input {@code i}'s rows before the join (docs/SEMANTICS.md 12), or null.
     */
    public Expansion expansion(final int i)
    {
        return expansions.get(i);
    }

    /**
     * @param i an input index, 0-based.
     * @return the state TTL of input {@code i}, ms of event time, 0 for none.
     */
    public long stateTtl(final int i)
    {
        return stateTtl[i];
    }

    /**
     * @return the declared output budget of one inserted row (docs/SEMANTICS.md 1.5): the most combinations it may
     *         join, the product of the other inputs' rows under its key; 0: unbounded (the default).
     */
    public long maxFanOut()
    {
        return maxFanOut;
    }

    /** @return the condition terms (ANDed into the ON clause of each term's later input). */
    public List<Condition> conditions()
    {
        return conditions;
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("multi[");
        for (int i = 0; i < names.size(); i++)
        {
            if (i > 0)
            {
                sb.append(' ').append(types.get(i).name().toLowerCase(Locale.ROOT)).append(' ');
            }
            sb.append(names.get(i)).append(keys.get(i)).append(" schema=").append(schemas.get(i));
            if (!filters.get(i).isEmpty())
            {
                sb.append(" where ").append(filters.get(i));
            }
            if (stateTtl[i] != 0)
            {
                sb.append(" ttl=").append(stateTtl[i]);
            }
        }
        for (final Condition c : conditions)
        {
            sb.append(" on ").append(names.get(c.leftInput)).append('.').append(c.leftField).append(' ')
                .append(c.op.symbol()).append(' ').append(names.get(c.rightInput)).append('.').append(c.rightField);
        }
        return sb.append(']').toString();
    }

    /** Builds a {@link MultiJoinSpec}; validates everything in {@link #build()}. Not thread safe. */
    public static final class Builder
    {
        private final Schema schema;
        private final List<String> names = new ArrayList<>();
        private final List<Schema> schemas = new ArrayList<>();
        private final List<JoinType> types = new ArrayList<>();
        private final List<List<String>> keys = new ArrayList<>();
        private final List<List<FieldFilter>> filters = new ArrayList<>();
        private final List<Long> ttls = new ArrayList<>();
        private final List<Expansion> expansions = new ArrayList<>();
        private final List<String[]> conditionTerms = new ArrayList<>();
        private final List<CompareOp> conditionOps = new ArrayList<>();
        private long maxFanOut;
        /** The first problem found while adding, reported by build() (so that the builder never throws early). */
        private String problem;

        private Builder(final Schema schema)
        {
            this.schema = schema;
        }

        /**
         * Adds the first input (it has no join type).
         *
         * @param name the input's name (unique, non-empty, without '.').
         * @param key  its key fields.
         * @return this builder.
         */
        public Builder input(final String name, final String... key)
        {
            return input(name, null, null, key);
        }

        /**
         * Adds a later input, joined to every input before it.
         *
         * @param name the input's name.
         * @param type {@link JoinType#INNER} or {@link JoinType#LEFT}.
         * @param key  its key fields, as many as the first input's.
         * @return this builder.
         */
        public Builder input(final String name, final JoinType type, final String... key)
        {
            return input(name, null, type, key);
        }

        /**
         * Adds an input with its own schema.
         *
         * @param name   the input's name.
         * @param schema its schema, or null for the builder's.
         * @param type   null for the first input, else {@link JoinType#INNER} or {@link JoinType#LEFT}.
         * @param key    its key fields.
         * @return this builder.
         */
        public Builder input(final String name, final Schema schema, final JoinType type, final String... key)
        {
            names.add(name);
            schemas.add(schema != null ? schema : this.schema);
            types.add(type);
            final List<String> fields = new ArrayList<>();
            if (key != null)
            {
                Collections.addAll(fields, key);
            }
            keys.add(fields);
            filters.add(new ArrayList<>());
            ttls.add(0L);
            expansions.add(null);
            return this;
        }

        /**
         * Expands each row of an input before the join (docs/SEMANTICS.md 12): the rows it makes take part as
         * that input's rows, with the input row's step, time and op; the fields it adds are appended to the
         * input's schema.
         *
         * @param input     the input's name.
         * @param expansion what each of its rows is expanded to.
         * @return this builder.
         */
        public Builder expand(final String input, final Expansion expansion)
        {
            final int i = names.indexOf(input);
            if (i < 0 || expansion == null)
            {
                problem = problem != null ? problem : "expand: " + (i < 0 ? "unknown input '" + input + "'" : "null expansion");
                return this;
            }
            if (expansion.field() != null && schemas.get(i).indexOf(expansion.field()) < 0)
            {
                problem = problem != null ? problem : "inputs[" + i + "].expand: unknown field '" + expansion.field() + "'";
                return this;
            }
            expansions.set(i, expansion);
            schemas.set(i, schemas.get(i).withAdded(expansion.addedFields(), "inputs[" + i + "].expand"));
            return this;
        }

        /**
         * Adds a pre-join filter term to an input (terms of one input are ANDed).
         *
         * @param input  the input's name.
         * @param filter the term.
         * @return this builder.
         */
        public Builder filter(final String input, final FieldFilter filter)
        {
            final int i = names.indexOf(input);
            if (i < 0 || filter == null)
            {
                problem = problem != null ? problem : "filter: " + (i < 0 ? "unknown input '" + input + "'" : "null filter");
                return this;
            }
            filters.get(i).add(filter);
            return this;
        }

        /**
         * @param input  the input's name.
         * @param millis its state TTL, ms of event time (0: keep forever).
         * @return this builder.
         */
        public Builder stateTtl(final String input, final long millis)
        {
            final int i = names.indexOf(input);
            if (i < 0)
            {
                problem = problem != null ? problem : "stateTtl: unknown input '" + input + "'";
                return this;
            }
            ttls.set(i, millis);
            return this;
        }

        /**
         * Adds a condition term over two inputs' fields, each written {@code "input.field"}.
         *
         * @param left  the left operand.
         * @param op    the comparison (not IN).
         * @param right the right operand.
         * @return this builder.
         */
        public Builder condition(final String left, final CompareOp op, final String right)
        {
            conditionTerms.add(new String[] {left, right});
            conditionOps.add(op);
            return this;
        }

        /**
         * Declares the output budget of one inserted row (docs/SEMANTICS.md 1.5): the most combinations of the other
         * inputs' rows under its key that it may join, their counts multiplied (a left-joined input without rows
         * counts 1, its padding). An insert past it is refused as a {@link DeadLetterReason#FANOUT_EXCEEDED} dead
         * letter before anything of it is emitted or stored; its later retraction is then a retraction of a row not
         * in state.
         *
         * @param combinations the budget, &gt;= 0; 0 is unbounded (the default).
         * @return this builder.
         */
        public Builder maxFanOut(final long combinations)
        {
            this.maxFanOut = combinations;
            return this;
        }

        /**
         * @return the validated spec.
         * @throws IllegalArgumentException naming the field when the spec is not valid.
         */
        public MultiJoinSpec build()
        {
            if (problem != null)
            {
                throw new IllegalArgumentException(problem);
            }
            if (maxFanOut < 0)
            {
                throw new IllegalArgumentException("maxFanOut must be >= 0 (0: unbounded): " + maxFanOut);
            }
            final int n = names.size();
            if (n < 2 || n > MAX_INPUTS)
            {
                throw new IllegalArgumentException("inputs: a multi-way join has 2 to " + MAX_INPUTS + " inputs, not " + n);
            }
            for (int i = 0; i < n; i++)
            {
                final String what = "inputs[" + i + "]";
                final String name = names.get(i);
                if (name == null || name.isEmpty() || name.indexOf('.') >= 0)
                {
                    throw new IllegalArgumentException(what + ".name: must be a non-empty name without '.', got " +
                        (name == null ? "null" : "'" + name + "'"));
                }
                if (names.indexOf(name) != i)
                {
                    throw new IllegalArgumentException(what + ".name: duplicate input name '" + name + "'");
                }
                if (schemas.get(i) == null)
                {
                    throw new IllegalArgumentException(what + ".schema: no schema (MultiJoinSpec.builder(schema) or input(name, schema, ...))");
                }
                final JoinType type = types.get(i);
                if (i == 0 && type != null)
                {
                    throw new IllegalArgumentException(what + ".type: the first input has no type (it is joined to nothing)");
                }
                if (i > 0 && type != JoinType.INNER && type != JoinType.LEFT)
                {
                    throw new IllegalArgumentException(what + ".type: inner or left, not " +
                        (type == null ? "nothing (required)" : type.name().toLowerCase(Locale.ROOT)));
                }
                final List<String> key = keys.get(i);
                if (key.isEmpty())
                {
                    throw new IllegalArgumentException(what + ".key: at least one key field is required");
                }
                if (key.size() != keys.get(0).size())
                {
                    throw new IllegalArgumentException(what + ".key: key arity mismatch, inputs[0].key has " +
                        keys.get(0).size() + " fields " + keys.get(0) + ", this input has " + key.size() + " " + key);
                }
                for (final String field : key)
                {
                    SpecFields.resolve(schemas.get(i), field, what + ".key");
                }
                SpecFields.resolveFilter(schemas.get(i), filters.get(i), what + ".filter.field");
                if (ttls.get(i) < 0)
                {
                    throw new IllegalArgumentException(what + ".stateTtl: must be >= 0, got " + ttls.get(i));
                }
            }
            final List<Condition> conditions = new ArrayList<>();
            for (int t = 0; t < conditionTerms.size(); t++)
            {
                final String what = "condition[" + t + "]";
                final CompareOp op = conditionOps.get(t);
                if (op == null || op == CompareOp.IN)
                {
                    throw new IllegalArgumentException(what + ".op: a comparison (== != < <= > >=), not " + op);
                }
                final String[] operands = conditionTerms.get(t);
                final int leftInput = inputOf(operands[0], what + ".left");
                final int rightInput = inputOf(operands[1], what + ".right");
                final String leftField = operands[0].substring(operands[0].indexOf('.') + 1);
                final String rightField = operands[1].substring(operands[1].indexOf('.') + 1);
                if (leftInput == 0 && rightInput == 0)
                {
                    throw new IllegalArgumentException(what + ": names the first input '" + names.get(0) +
                        "' alone (it has no ON clause: use its filter)");
                }
                SpecFields.resolve(schemas.get(leftInput), leftField, what + ".left");
                SpecFields.resolve(schemas.get(rightInput), rightField, what + ".right");
                conditions.add(new Condition(leftInput, leftField, op, rightInput, rightField));
            }
            return new MultiJoinSpec(this, conditions);
        }

        private int inputOf(final String operand, final String what)
        {
            final int dot = operand == null ? -1 : operand.indexOf('.');
            if (dot <= 0 || dot == operand.length() - 1)
            {
                throw new IllegalArgumentException(what + ": must be \"input.field\", got " +
                    (operand == null ? "null" : "'" + operand + "'"));
            }
            final int input = names.indexOf(operand.substring(0, dot));
            if (input < 0)
            {
                throw new IllegalArgumentException(what + ": unknown input '" + operand.substring(0, dot) + "' (inputs: " + names + ")");
            }
            return input;
        }
    }
}
