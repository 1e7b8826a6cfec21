package io.junction.api;

import java.util.List;

/**
 * Checks at build time that every field a spec names is in its schema, with errors that name the spec's field
 * ({@code leftKey: unknown field 'x' (schema has ...)}). The operators resolve the same names to indices when
 * they compile a spec ({@code internal.row}, which the api may not import: docs/ARCHITECTURE.md, "Layering"),
 * in the same order and with the same message, so a spec that builds always compiles.
 */
final class SpecFields
{
    private SpecFields()
    {
    }

    /**
     * @param what the spec field being resolved, for the error message (for example {@code leftKey}).
     * @return the index of {@code field} in {@code schema}.
     * @throws IllegalArgumentException naming {@code what} when the schema has no such field.
     */
    static int resolve(final Schema schema, final String field, final String what)
    {
        final int index = schema.indexOf(field);
        if (index < 0)
        {
            throw new IllegalArgumentException(what + ": unknown field '" + field + "' (schema has " + schema + ")");
        }
        return index;
    }

    /** Resolves every field of {@code fields}, in order. */
    static void resolveAll(final Schema schema, final List<String> fields, final String what)
    {
        for (final String field : fields)
        {
            resolve(schema, field, what);
        }
    }

    /** Resolves the field of every term of a pre-join filter, in order, disjunctions depth first. */
    static void resolveFilter(final Schema schema, final List<FieldFilter> terms, final String what)
    {
        for (final FieldFilter term : terms)
        {
            if (term.isAny())
            {
                resolveFilter(schema, term.alternatives(), what);
            }
            else
            {
                resolve(schema, term.field(), what);
            }
        }
    }

    /**
     * Checks a binary spec's names in the order the operators compile them: the keys, the unique keys, the
     * filters, then the condition's terms (left field, then right).
     *
     * @throws IllegalArgumentException naming the spec field of the first unknown name.
     */
    static void check(final JoinSpec spec)
    {
        resolveAll(spec.leftSchema(), spec.leftKey(), "leftKey");
        resolveAll(spec.rightSchema(), spec.rightKey(), "rightKey");
        resolveAll(spec.leftSchema(), spec.uniqueKey(Side.LEFT), "leftUniqueKey");
        resolveAll(spec.rightSchema(), spec.uniqueKey(Side.RIGHT), "rightUniqueKey");
        resolveFilter(spec.leftSchema(), spec.leftFilter(), "leftFilter.field");
        resolveFilter(spec.rightSchema(), spec.rightFilter(), "rightFilter.field");
        for (final ConditionTerm term : spec.condition())
        {
            resolve(spec.leftSchema(), term.leftField(), "condition.left");
            resolve(spec.rightSchema(), term.rightField(), "condition.right");
        }
    }
}
