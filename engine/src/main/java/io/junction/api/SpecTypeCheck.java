package io.junction.api;

import java.util.List;

/**
 * The spec-time half of typed schemas ({@link Schema#of(Field...)}): a spec that compares values of
 * incompatible types would silently never match (a string key against a long key, a long field filtered
 * against a string literal), so {@link JoinSpec.Builder#build()} rejects it with a message naming the
 * spec field. Only fields that both have a type are compared: an untyped ({@link Field#ANY}) field, and
 * every field of a names-only schema, is compatible with everything. Numbers (long, double) are
 * compatible with each other; a null literal with every type.
 *
 * <p>Set-up only; not for hot paths.
 */
final class SpecTypeCheck
{
    private SpecTypeCheck()
    {
    }

    static void check(final JoinSpec spec)
    {
        final Schema left = spec.leftSchema();
        final Schema right = spec.rightSchema();
        if (!left.isTyped() && !right.isTyped())
        {
            return;
        }
        final List<String> leftKey = spec.leftKey();
        final List<String> rightKey = spec.rightKey();
        noArray(left, leftKey, "leftKey");
        noArray(right, rightKey, "rightKey");
        noArray(left, spec.uniqueKey(Side.LEFT), "leftUniqueKey");
        noArray(right, spec.uniqueKey(Side.RIGHT), "rightUniqueKey");
        for (final ConditionTerm term : spec.condition())
        {
            noArray(left, List.of(term.leftField()), "condition.left");
            noArray(right, List.of(term.rightField()), "condition.right");
        }
        for (int i = 0; i < leftKey.size() && i < rightKey.size(); i++)
        {
            final byte l = typeOf(left, leftKey.get(i));
            final byte r = typeOf(right, rightKey.get(i));
            if (!compatible(l, r))
            {
                throw new IllegalArgumentException("rightKey: field '" + rightKey.get(i) + "' is " + FieldType.name(r) +
                    " but leftKey field '" + leftKey.get(i) + "' is " + FieldType.name(l) + ": the keys could never be equal");
            }
        }
        for (final FieldFilter filter : spec.leftFilter())
        {
            checkFilter("leftFilter", left, filter);
        }
        for (final FieldFilter filter : spec.rightFilter())
        {
            checkFilter("rightFilter", right, filter);
        }
        for (final ConditionTerm term : spec.condition())
        {
            final byte l = typeOf(left, term.leftField());
            final byte r = typeOf(right, term.rightField());
            if (!compatible(l, r))
            {
                throw new IllegalArgumentException("condition: left field '" + term.leftField() + "' is " + FieldType.name(l) +
                    " and right field '" + term.rightField() + "' is " + FieldType.name(r) + ": they cannot be compared");
            }
            if (term.leftOffset() != 0 && l != Field.ANY && !FieldType.isNumber(l))
            {
                throw new IllegalArgumentException("condition: left field '" + term.leftField() + "' is " + FieldType.name(l) +
                    ": an offset needs a number");
            }
        }
    }

    private static void checkFilter(final String where, final Schema schema, final FieldFilter filter)
    {
        if (filter.isAny())
        {
            for (final FieldFilter alternative : filter.alternatives())
            {
                checkFilter(where, schema, alternative);
            }
            return;
        }
        final byte type = typeOf(schema, filter.field());
        noArray(schema, List.of(filter.field()), where);
        final List<Literal> values = filter.values();
        if (values != null && !values.isEmpty())
        {
            for (final Literal value : values)
            {
                checkLiteral(where, filter.field(), type, value);
            }
        }
        else if (filter.value() != null)
        {
            checkLiteral(where, filter.field(), type, filter.value());
        }
    }

    private static void checkLiteral(final String where, final String field, final byte type, final Literal value)
    {
        if (value.type() != FieldType.NULL && !compatible(type, value.type()))
        {
            throw new IllegalArgumentException(where + ": field '" + field + "' is " + FieldType.name(type) +
                ", compared with the " + FieldType.name(value.type()) + " " + value);
        }
    }

    /** @return the field's type, or {@link Field#ANY} when untyped or not in the schema (build() names that). */
    /** Arrays are carried, never compared (docs/SEMANTICS.md 12): not a key, filter or condition operand. */
    private static void noArray(final Schema schema, final List<String> fields, final String where)
    {
        for (final String field : fields)
        {
            if (typeOf(schema, field) == FieldType.ARRAY)
            {
                throw new IllegalArgumentException(where + ": field '" + field + "' is declared an array: arrays are never " +
                    "keys, filters or condition operands");
            }
        }
    }

    private static byte typeOf(final Schema schema, final String name)
    {
        final int index = schema.indexOf(name);
        return index < 0 ? Field.ANY : schema.field(index).type();
    }

    private static boolean compatible(final byte a, final byte b)
    {
        return a == Field.ANY || b == Field.ANY || a == b || (FieldType.isNumber(a) && FieldType.isNumber(b));
    }
}
