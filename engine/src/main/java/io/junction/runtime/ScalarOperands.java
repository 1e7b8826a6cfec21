package io.junction.runtime;

import io.junction.api.ConditionTerm;
import io.junction.api.FieldFilter;
import io.junction.api.FieldType;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;

import java.util.ArrayList;
import java.util.List;

/**
 * The fields of one side that a join reads as scalars (keys, unique keys, filter and condition operands):
 * a row holding an array in one of them is a bad input (docs/SEMANTICS.md 1: arrays are carried, never
 * compared), refused by the publisher before anything is claimed. One loop over a few type tags per row.
 */
final class ScalarOperands
{
    private final int[] fields;
    private final Schema schema;

    private ScalarOperands(final int[] fields, final Schema schema)
    {
        this.fields = fields;
        this.schema = schema;
    }

    static ScalarOperands of(final JoinSpec spec, final Side side)
    {
        final Schema schema = spec.schema(side);
        final List<String> names = new ArrayList<>(side == Side.LEFT ? spec.leftKey() : spec.rightKey());
        names.addAll(spec.uniqueKey(side));
        addFilter(side == Side.LEFT ? spec.leftFilter() : spec.rightFilter(), names);
        for (final ConditionTerm term : spec.condition())
        {
            names.add(side == Side.LEFT ? term.leftField() : term.rightField());
        }
        final List<Integer> indices = new ArrayList<>();
        for (final String name : names)
        {
            final int index = schema.indexOf(name);
            if (index >= 0 && !indices.contains(index))
            {
                indices.add(index);
            }
        }
        final int[] fields = new int[indices.size()];
        for (int i = 0; i < fields.length; i++)
        {
            fields[i] = indices.get(i);
        }
        return new ScalarOperands(fields, schema);
    }

    private static void addFilter(final List<FieldFilter> terms, final List<String> names)
    {
        for (final FieldFilter term : terms)
        {
            if (term.isAny())
            {
                addFilter(term.alternatives(), names);
            }
            else
            {
                names.add(term.field());
            }
        }
    }

    /**
     * @param row a validated row of the side.
     * @param out where the reason is written when the row is refused.
     * @return whether one of the fields holds an array (the reason appended to {@code out}).
     */
    boolean holdsArray(final RowView row, final StringBuilder out)
    {
        for (final int field : fields)
        {
            if (row.type(field) == FieldType.ARRAY)
            {
                out.setLength(0);
                out.append("field '").append(schema.nameOf(field))
                    .append("' holds an array: keys, filters and conditions read scalars only");
                return true;
            }
        }
        return false;
    }
}
