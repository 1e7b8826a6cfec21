package io.junction.runtime;

/**
 * The runtime tests' replacement operators, handed to the engine's one operator seam
 * ({@code JoinEngine.Builder.stateOperatorFactory}).
 */
final class EngineOperators
{
    private EngineOperators()
    {
    }

    /**
     * @param factory creates each partition's operator, which brings its own state config.
     * @return the factory as the engine's seam takes it: the partition's state config is not used.
     */
    static JoinEngine.StateOperatorFactory ignoringState(final PartitionWorker.OperatorFactory factory)
    {
        return (state, results, deadLetters) -> factory.create(results, deadLetters);
    }
}
