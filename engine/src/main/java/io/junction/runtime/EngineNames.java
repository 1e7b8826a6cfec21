package io.junction.runtime;

import io.junction.internal.metrics.EngineBeans;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The names of the engines started and not yet closed in this JVM: an engine's name is its JMX identity
 * ({@link EngineBeans}), so it must be its own. A starting engine reserves its name before it allocates
 * anything ({@link #reserve}); its close, or its failed start, releases it ({@link #release}). Any thread:
 * the set is concurrent.
 */
final class EngineNames
{
    private static final Set<String> RUNNING_NAMES = ConcurrentHashMap.newKeySet();
    private static final AtomicLong DEFAULT_NAMES = new AtomicLong();

    private EngineNames()
    {
    }

    /** Claims a name for a starting engine: the one given, or the first free {@code join-N}. */
    static String reserve(final String requested)
    {
        if (requested != null)
        {
            if (!RUNNING_NAMES.add(requested))
            {
                throw new IllegalStateException("an engine named '" + requested + "' is already running in this JVM " +
                    "(its JMX bean is " + EngineBeans.engineName(requested) + "); give each engine its own JoinEngine.Builder.name(...)");
            }
            return requested;
        }
        while (true)
        {
            final String candidate = "join-" + DEFAULT_NAMES.incrementAndGet();
            if (RUNNING_NAMES.add(candidate))
            {
                return candidate;
            }
        }
    }

    /** Frees a name: its engine has stopped (or never started). */
    static void release(final String name)
    {
        RUNNING_NAMES.remove(name);
    }
}
