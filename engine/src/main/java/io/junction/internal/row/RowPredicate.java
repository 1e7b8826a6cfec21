package io.junction.internal.row;

import io.junction.api.CompareOp;
import io.junction.api.FieldFilter;
import io.junction.api.JoinSpec;
import io.junction.api.Literal;
import io.junction.api.RowView;
import io.junction.api.Schema;

import java.util.List;

/**
 * A compiled pre-join filter over one side: the conjunction of its terms, with field names resolved
 * to indices. Allocation-free. An empty filter accepts every row. Immutable.
 */
public final class RowPredicate
{
    private final int[] fields;
    private final CompareOp[] ops;
    private final Literal[] values;

    public RowPredicate(final List<FieldFilter> terms, final Schema schema, final String what)
    {
        final int n = terms.size();
        fields = new int[n];
        ops = new CompareOp[n];
        values = new Literal[n];
        for (int i = 0; i < n; i++)
        {
            final FieldFilter term = terms.get(i);
            fields[i] = Fields.resolve(schema, term.field(), what);
            ops[i] = term.op();
            values[i] = term.value();
        }
    }

    /** @return true when the filter has no terms. */
    public boolean acceptsAll()
    {
        return fields.length == 0;
    }

    /** @return true when every term holds for the row. */
    public boolean test(final RowView row)
    {
        for (int i = 0; i < fields.length; i++)
        {
            if (!ops[i].test(FieldCompare.compare(row, fields[i], values[i])))
            {
                return false;
            }
        }
        return true;
    }
}
