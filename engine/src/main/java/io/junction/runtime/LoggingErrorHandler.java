package io.junction.runtime;

import org.agrona.ErrorHandler;

import java.util.HashMap;
import java.util.Map;

/**
 * The default {@link ErrorHandler} of a {@link JoinEngine}: logs through {@link System.Logger} (so
 * errors go wherever the host application routes its logging) without ever flooding it. A cause is
 * the exception's class, its message and where it was thrown (its top stack frame).
 * <ul>
 *   <li>The first occurrence of a cause is logged at {@code WARNING} with its stack trace.</li>
 *   <li>Repeats are counted, and the count is logged at 10, 100, 1,000, ... occurrences.</li>
 *   <li>{@link #logSummary()} (the engine calls it on close) logs every count not logged yet.</li>
 *   <li>At most {@link #MAX_DISTINCT_CAUSES} causes are told apart; later new causes share one
 *       "other causes" entry, so messages that embed a value cannot flood the log either.</li>
 * </ul>
 *
 * <p>Thread safe: one handler may serve every partition. Errors are rare, so it takes a lock; it is
 * never on the path of an event that does not fail.
 */
public final class LoggingErrorHandler implements ErrorHandler
{
    /** Causes told apart before new ones are counted together. */
    public static final int MAX_DISTINCT_CAUSES = 64;

    private static final String OTHER_CAUSES = "other causes (more than " + MAX_DISTINCT_CAUSES + " distinct causes)";

    private final System.Logger logger;
    private final Map<String, long[]> counts = new HashMap<>();

    /** Logs to {@code System.getLogger("io.junction.runtime")}. */
    public LoggingErrorHandler()
    {
        this(System.getLogger("io.junction.runtime"));
    }

    /**
     * Logs to the given logger.
     *
     * @param logger where the causes and their counts go.
     */
    public LoggingErrorHandler(final System.Logger logger)
    {
        if (logger == null)
        {
            throw new IllegalArgumentException("logger is required");
        }
        this.logger = logger;
    }

    @Override
    public void onError(final Throwable throwable)
    {
        final String cause = cause(throwable);
        final long count;
        final String key;
        synchronized (counts)
        {
            long[] entry = counts.get(cause);
            String k = cause;
            if (entry == null && counts.size() >= MAX_DISTINCT_CAUSES)
            {
                k = OTHER_CAUSES;
                entry = counts.get(OTHER_CAUSES);
            }
            if (entry == null)
            {
                // [0] occurrences, [1] the count last logged
                entry = new long[2];
                counts.put(k, entry);
            }
            count = ++entry[0];
            key = k;
            if (count == 1 || isPowerOfTen(count))
            {
                entry[1] = count;
            }
        }
        if (count == 1)
        {
            logger.log(System.Logger.Level.WARNING, "junction: error in partition thread " +
                Thread.currentThread().getName() + " (first occurrence of " + key + "; repeats are counted): " + throwable,
                throwable);
        }
        else if (isPowerOfTen(count))
        {
            logger.log(System.Logger.Level.WARNING, "junction: " + key + " happened " + count + " times");
        }
    }

    /** Logs the count of every cause that grew since it was last logged. */
    public void logSummary()
    {
        final StringBuilder summary = new StringBuilder();
        synchronized (counts)
        {
            for (final Map.Entry<String, long[]> entry : counts.entrySet())
            {
                final long[] count = entry.getValue();
                if (count[0] != count[1])
                {
                    summary.append(summary.length() == 0 ? "" : "; ").append(entry.getKey())
                        .append(" happened ").append(count[0]).append(" times");
                    count[1] = count[0];
                }
            }
        }
        if (summary.length() > 0)
        {
            logger.log(System.Logger.Level.WARNING, "junction: partition errors: " + summary);
        }
    }

    /** @return how many causes are told apart now (the "other causes" entry counts as one). */
    public int distinctCauses()
    {
        synchronized (counts)
        {
            return counts.size();
        }
    }

    private static String cause(final Throwable throwable)
    {
        final StackTraceElement[] stack = throwable.getStackTrace();
        final String origin = stack.length == 0 ? "unknown origin" :
            stack[0].getClassName() + "." + stack[0].getMethodName() + ":" + stack[0].getLineNumber();
        return throwable.getClass().getName() + ": " + throwable.getMessage() + " at " + origin;
    }

    private static boolean isPowerOfTen(final long count)
    {
        long power = 10;
        while (power < count && power <= Long.MAX_VALUE / 10)
        {
            power *= 10;
        }
        return power == count;
    }
}
