package io.junction.join;

import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;

/** Creates the operator for a join spec. */
public final class JoinOperators
{
    private JoinOperators()
    {
    }

    /**
     * @param spec        the join.
     * @param config      the sizing of the operator's off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @return a new operator for the spec's kind.
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
            case TEMPORAL:
                return new TemporalJoin(spec, config, results, deadLetters);
            case LOOKUP:
                return new LookupJoin(spec, config, results, deadLetters);
            default:
                return new WindowJoin(spec, config, results, deadLetters);
        }
    }

    /** Checks the spec's kind before an operator allocates any state. */
    static void requireKind(final JoinSpec spec, final JoinKind kind)
    {
        if (spec.kind() != kind)
        {
            throw new IllegalArgumentException("this operator runs " + kind + " joins, not: " + spec);
        }
    }
}
