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
     * With a {@link StateConfig#stateDirectory()} the operator keeps its state in files there: a missing or
     * empty directory starts fresh, a clean image (left by {@link JoinOperator#close()} or
     * {@link JoinOperator#persist()}) of the same spec and layout is reopened where it stopped, and
     * anything else is refused before anything is changed.
     *
     * @param spec        the join.
     * @param config      the sizing of the operator's off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @return a new operator for the spec's kind.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
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
            case MULTI:
                return new MultiJoin(spec, config, results, deadLetters);
            case ASOF:
                return new AsofJoin(spec, config, results, deadLetters);
            default:
                return new WindowJoin(spec, config, results, deadLetters);
        }
    }

    /**
     * The key-hash seed durable state was built with: a runtime that reopens a partition's state must
     * route rows with the same seed (and the operator refuses a configuration that fixes another one).
     *
     * @param stateDirectory a partition's state directory ({@link StateConfig#stateDirectory()}).
     * @return the seed of the clean image there, or empty when there is none (no marker).
     * @throws DurableStateException when its marker is damaged or of another format.
     */
    public static java.util.OptionalLong durableHashSeed(final java.nio.file.Path stateDirectory)
    {
        return DurableState.storedHashSeed(stateDirectory);
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
