package io.junction.join;

import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;

/** Creates the operator for a join spec. */
public final class JoinOperators
{
    private JoinOperators()
    {
    }

    /**
     * @return a new operator for the spec's kind.
     * @throws UnsupportedOperationException for a kind not implemented yet.
     */
    public static JoinOperator create(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        switch (spec.kind())
        {
            case REGULAR:
                return new RegularJoin(spec, config, results, deadLetters);
            case INTERVAL:
                return new IntervalJoin(spec, config, results, deadLetters);
            default:
                throw new UnsupportedOperationException("window joins are not implemented yet: " + spec);
        }
    }

    /** @return whether {@link #create} supports the spec's kind. */
    public static boolean supports(final JoinSpec spec)
    {
        switch (spec.kind())
        {
            case REGULAR:
            case INTERVAL:
                return true;
            default:
                return false;
        }
    }
}
