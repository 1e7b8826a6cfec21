package io.junction.internal.row;

import io.junction.api.CompareOp;
import io.junction.api.FieldFilter;
import io.junction.api.Literal;
import io.junction.api.RowFilter;
import io.junction.api.RowView;
import io.junction.api.Schema;

import java.util.List;

/**
 * A compiled pre-join filter over one side: the conjunction of its terms, with field names resolved
 * to indices, then the user's {@link RowFilter}s. Plain comparisons stay in flat arrays (the common
 * case); IN lists and disjunctions compile to a small tree. Allocation-free. An empty filter accepts
 * every row. Immutable.
 */
public final class RowPredicate
{
    private final int[] fields;
    private final CompareOp[] ops;
    private final Literal[] values;
    /** IN lists and disjunctions, after the plain comparisons. */
    private final Term[] terms;
    private final RowFilter[] user;

    public RowPredicate(final List<FieldFilter> terms, final Schema schema, final String what)
    {
        this(terms, List.of(), schema, what);
    }

    /**
     * @param terms   the declarative terms, ANDed.
     * @param user    the user filters, ANDed after the terms.
     * @param schema  the side's schema.
     * @param what    the spec field named by an unknown-field error.
     */
    public RowPredicate(final List<FieldFilter> terms, final List<RowFilter> user, final Schema schema, final String what)
    {
        int plain = 0;
        for (final FieldFilter term : terms)
        {
            plain += isPlain(term) ? 1 : 0;
        }
        fields = new int[plain];
        ops = new CompareOp[plain];
        values = new Literal[plain];
        this.terms = new Term[terms.size() - plain];
        int p = 0;
        int c = 0;
        for (final FieldFilter term : terms)
        {
            if (isPlain(term))
            {
                fields[p] = Fields.resolve(schema, term.field(), what);
                ops[p] = term.op();
                values[p] = term.value();
                p++;
            }
            else
            {
                this.terms[c++] = Term.of(term, schema, what);
            }
        }
        this.user = user.toArray(new RowFilter[0]);
    }

    private static boolean isPlain(final FieldFilter term)
    {
        return !term.isAny() && term.op() != CompareOp.IN;
    }

    /** @return true when the filter has no terms. */
    public boolean acceptsAll()
    {
        return fields.length == 0 && terms.length == 0 && user.length == 0;
    }

    /** @return true when the filter has a user filter, which may throw. */
    public boolean hasUserFilter()
    {
        return user.length != 0;
    }

    /**
     * @return true when every term holds for the row.
     * @throws RuntimeException whatever a user filter throws; the declarative terms never throw.
     */
    public boolean test(final RowView row)
    {
        for (int i = 0; i < fields.length; i++)
        {
            if (!ops[i].test(FieldCompare.compare(row, fields[i], values[i])))
            {
                return false;
            }
        }
        for (final Term term : terms)
        {
            if (!term.test(row))
            {
                return false;
            }
        }
        for (final RowFilter filter : user)
        {
            if (!filter.test(row))
            {
                return false;
            }
        }
        return true;
    }

    /** One compiled term: a comparison, an IN list (any literal equal) or a disjunction (any alternative holds). */
    private static final class Term
    {
        /** -1 for a disjunction. */
        private final int field;
        private final CompareOp op;
        private final Literal[] literals;
        private final Term[] alternatives;

        private Term(final int field, final CompareOp op, final Literal[] literals, final Term[] alternatives)
        {
            this.field = field;
            this.op = op;
            this.literals = literals;
            this.alternatives = alternatives;
        }

        static Term of(final FieldFilter filter, final Schema schema, final String what)
        {
            if (filter.isAny())
            {
                final List<FieldFilter> list = filter.alternatives();
                final Term[] alternatives = new Term[list.size()];
                for (int i = 0; i < alternatives.length; i++)
                {
                    alternatives[i] = of(list.get(i), schema, what);
                }
                return new Term(-1, null, null, alternatives);
            }
            return new Term(Fields.resolve(schema, filter.field(), what), filter.op(),
                filter.values().toArray(new Literal[0]), null);
        }

        boolean test(final RowView row)
        {
            if (field < 0)
            {
                for (final Term alternative : alternatives)
                {
                    if (alternative.test(row))
                    {
                        return true;
                    }
                }
                return false;
            }
            // a comparison holds one literal; IN is an OR of equalities, each false against null
            for (final Literal literal : literals)
            {
                if (op.test(FieldCompare.compare(row, field, literal)))
                {
                    return true;
                }
            }
            return false;
        }
    }
}
