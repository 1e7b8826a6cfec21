package io.junction.internal.row;

import io.junction.api.JoinSpec;
import io.junction.api.Side;

import java.util.List;

/**
 * A spec's keys, pre-join filters and post-join condition compiled against its schemas into the forms
 * the hot path evaluates over binary rows without allocating. Compiled once per operator or publisher;
 * {@link JoinSpec} checks the same names in the same order when it is built (the api imports nothing of
 * ours), so an unknown field fails there, naming it, and a built spec always compiles.
 */
public final class CompiledJoin
{
    private final KeyExtractor leftKey;
    private final KeyExtractor rightKey;
    /** Null for a side without a declared unique key. */
    private final KeyExtractor leftUniqueKey;
    private final KeyExtractor rightUniqueKey;
    private final RowPredicate leftFilter;
    private final RowPredicate rightFilter;
    private final JoinCondition condition;

    private CompiledJoin(final JoinSpec spec)
    {
        leftKey = new KeyExtractor(resolveAll(spec, Side.LEFT));
        rightKey = new KeyExtractor(resolveAll(spec, Side.RIGHT));
        leftUniqueKey = uniqueKey(spec, Side.LEFT);
        rightUniqueKey = uniqueKey(spec, Side.RIGHT);
        leftFilter = new RowPredicate(spec.leftFilter(), spec.rowFilters(Side.LEFT), spec.leftSchema(), "leftFilter.field");
        rightFilter = new RowPredicate(spec.rightFilter(), spec.rowFilters(Side.RIGHT), spec.rightSchema(), "rightFilter.field");
        condition = new JoinCondition(spec.condition(), spec.pairConditions(), spec.leftSchema(), spec.rightSchema());
    }

    /**
     * @return the spec compiled.
     * @throws IllegalArgumentException naming the spec field when a field name is not in its schema.
     */
    public static CompiledJoin of(final JoinSpec spec)
    {
        return new CompiledJoin(spec);
    }

    private static int[] resolveAll(final JoinSpec spec, final Side side)
    {
        final List<String> fields = side == Side.LEFT ? spec.leftKey() : spec.rightKey();
        final String what = side == Side.LEFT ? "leftKey" : "rightKey";
        final int[] indices = new int[fields.size()];
        for (int i = 0; i < indices.length; i++)
        {
            indices[i] = Fields.resolve(spec.schema(side), fields.get(i), what);
        }
        return indices;
    }

    private static KeyExtractor uniqueKey(final JoinSpec spec, final Side side)
    {
        final List<String> fields = spec.uniqueKey(side);
        if (fields.isEmpty())
        {
            return null;
        }
        final String what = side == Side.LEFT ? "leftUniqueKey" : "rightUniqueKey";
        final int[] indices = new int[fields.size()];
        for (int i = 0; i < indices.length; i++)
        {
            indices[i] = Fields.resolve(spec.schema(side), fields.get(i), what);
        }
        return new KeyExtractor(indices);
    }

    /** @return the declared unique key of one side, or null when none is declared. */
    public KeyExtractor uniqueKey(final Side side)
    {
        return side == Side.LEFT ? leftUniqueKey : rightUniqueKey;
    }

    /** @return the key of one side. */
    public KeyExtractor key(final Side side)
    {
        return side == Side.LEFT ? leftKey : rightKey;
    }

    /** @return the pre-join filter of one side. */
    public RowPredicate filter(final Side side)
    {
        return side == Side.LEFT ? leftFilter : rightFilter;
    }

    /** @return the post-join condition. */
    public JoinCondition condition()
    {
        return condition;
    }
}
