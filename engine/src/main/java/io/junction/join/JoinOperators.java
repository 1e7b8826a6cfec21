package io.junction.join;

import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.WindowSpec;
import io.junction.internal.state.RowStore;
import io.junction.internal.state.WindowBucketDescriptor;
import org.agrona.ErrorHandler;
import java.nio.file.Path;
import java.util.OptionalLong;

/** Creates the operator for a join spec. */
public final class JoinOperators
{
    private JoinOperators()
    {
    }

    /**
     * As {@link #create(JoinSpec, StateConfig, ResultHandler, DeadLetterHandler, ErrorHandler)}, with the result
     * handler as the error handler when it is one (the runtime's partition worker is both), else none.
     *
     * @param spec        the join.
     * @param config      the sizing of the operator's off-heap state.
     * @param results     receives the output, and a user predicate's exception when it is an {@link ErrorHandler}.
     * @param deadLetters receives the rows that cannot be processed.
     * @return a new operator for the spec's kind.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
     */
    public static JoinOperator create(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        return create(spec, config, results, deadLetters, errorHandlerOf(results));
    }

    /**
     * With a {@link StateConfig#stateDirectory()} the operator keeps its state in files there: a missing or
     * empty directory starts fresh, a clean image (left by {@link JoinOperator#close()} or
     * {@link JoinOperator#persist()}) of the same spec and layout is reopened where it stopped, and
     * anything else is refused before anything is changed.
     *
     * <p>Every kind runs on one operator driver ({@code OperatorDriver}) as its {@code JoinAlgorithm} (the window
     * kind's is chosen by the window: tumbling and sliding, or session); the multi-way kind on N inputs, behind
     * {@link MultiJoin}.
     *
     * @param spec        the join.
     * @param config      the sizing of the operator's off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @param errors      receives a user filter's or condition's exception (counted either way); null for none.
     *                    The four-argument {@code create} passes {@code results} here when it is an
     *                    {@link ErrorHandler}.
     * @return a new operator for the spec's kind.
     * @throws DurableStateException when the state directory holds state the operator must not reopen.
     */
    public static JoinOperator create(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final ErrorHandler errors)
    {
        switch (spec.kind())
        {
            case REGULAR:
                return RegularJoin.create(spec, config, results, deadLetters, errors);
            case INTERVAL:
                return new OperatorDriver(spec, config, results, deadLetters, errors, IntervalJoin.LAYOUT, true, IntervalJoin::new);
            case TEMPORAL:
                return new OperatorDriver(spec, config, results, deadLetters, errors, TemporalJoin.LAYOUT, true, TemporalJoin::new);
            case LOOKUP:
                return new OperatorDriver(spec, config, results, deadLetters, errors, LookupJoin.LAYOUT, false, LookupJoin::new);
            case MULTI:
                return new MultiJoin(spec, config, results, deadLetters);
            case ASOF:
                return new OperatorDriver(spec, config, results, deadLetters, errors, AsofJoin.LAYOUT, true, AsofJoin::new);
            case WINDOW:
                // Window buckets are keyed by key and window, not by the routing hash: nothing to read ahead; and
                // window joins keep no hot-key report yet (docs/OPERATIONS.md), so their state counts no keys.
                return new OperatorDriver(spec, config.withHotKeys(0), results, deadLetters, errors, WindowBuckets.layout(spec),
                    RowStore.TIMED_BOTH, DriverShape.DEFAULT.bucketLength(WindowBucketDescriptor.LENGTH).noReadAhead(),
                    spec.window().kind() == WindowSpec.Kind.SESSION ? SessionWindowJoin::new : TimeWindowJoin::new);
            case EXPAND:
                // No state: a durable engine has nothing of it to save, and a restart loses nothing.
                return new ExpandJoin(spec, config, results, deadLetters, errors);
            default:
                throw new IllegalArgumentException("no operator for the join kind " + spec.kind() + ": " + spec);
        }
    }

    /**
     * The one place an error handler is found rather than handed in: the public four-argument {@link #create}'s
     * convenience for a caller whose result handler is also its error handler. The runtime and every operator
     * take theirs handed in (the five-argument {@code create}).
     *
     * @param results a result handler.
     * @return it as an {@link ErrorHandler} when it is one, else null.
     */
    static ErrorHandler errorHandlerOf(final Object results)
    {
        return results instanceof ErrorHandler ? (ErrorHandler)results : null;
    }

    /**
     * The key-hash seed durable state was built with: a runtime that reopens a partition's state must
     * route rows with the same seed (and the operator refuses a configuration that fixes another one).
     *
     * @param stateDirectory a partition's state directory ({@link StateConfig#stateDirectory()}).
     * @return the seed of the clean image there, or empty when there is none (no marker).
     * @throws DurableStateException when its marker is damaged or of another format.
     */
    public static OptionalLong durableHashSeed(final Path stateDirectory)
    {
        return DurableState.storedHashSeed(stateDirectory);
    }
}
