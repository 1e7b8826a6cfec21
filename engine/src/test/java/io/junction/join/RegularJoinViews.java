package io.junction.join;

import io.junction.api.Side;
import io.junction.internal.state.UniqueKeyIndex;

/** Test fixture: what a {@link RegularJoin} chose for each side, read from the side's state view. */
final class RegularJoinViews
{
    private RegularJoinViews()
    {
    }

    /** @return the state shape of a side, by its view's class. */
    static RegularJoin.UniqueKeyShape shape(final RegularJoin op, final Side side)
    {
        final JoinRecordStateView view = view(op, side);
        if (view instanceof InputSideHasUniqueKey)
        {
            return RegularJoin.UniqueKeyShape.INDEXED;
        }
        if (view instanceof JoinKeyContainsUniqueKey)
        {
            return RegularJoin.UniqueKeyShape.IN_JOIN_KEY;
        }
        if (view instanceof InputSideHasNoUniqueKey)
        {
            return RegularJoin.UniqueKeyShape.NONE;
        }
        throw new AssertionError("a view of no known shape: " + view);
    }

    /** @return the unique-key index of a side, or null unless its shape is {@link RegularJoin.UniqueKeyShape#INDEXED}. */
    static UniqueKeyIndex uniqueKeys(final RegularJoin op, final Side side)
    {
        final JoinRecordStateView view = view(op, side);
        return view instanceof InputSideHasUniqueKey ? ((InputSideHasUniqueKey)view).index : null;
    }

    private static JoinRecordStateView view(final RegularJoin op, final Side side)
    {
        return side == Side.LEFT ? op.left : op.right;
    }
}
