package io.junction.join;

import java.util.Locale;

/**
 * What a partition does with a row it would store when its state is at a limit
 * ({@link StateConfig#maxLiveRows()}, {@link StateConfig#maxStateBytes()}, the key index's capacity, or
 * memory the OS refuses). Whatever the policy, such a row is never lost silently and never half
 * stored: it is processed whole or dead-lettered whole.
 */
public enum FullPolicy
{
    /** The row is not processed: it is dead-lettered with {@code STATE_FULL} and counted. */
    REJECT,
    /**
     * Publishers hold back: {@code tryPublish} returns {@code STATE_FULL} (and {@code publish} waits)
     * while the row's partition is at its limit; a row that reaches a full partition anyway (it was
     * in flight) is rejected as with {@link #REJECT}.
     */
    BACK_PRESSURE,
    /**
     * Regular joins with a state TTL make room by expiring their rows with the earliest TTL deadline
     * first (counted as expired rows, emitting nothing, as TTL expiry does); other operators reject
     * as with {@link #REJECT}.
     */
    EXPIRE_OLDEST;

    /**
     * @param name a policy name, case-insensitive.
     * @return the policy named ({@code reject}, {@code back-pressure}, {@code expire-oldest}), or null.
     */
    public static FullPolicy fromName(final String name)
    {
        final String normalised = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final FullPolicy policy : values())
        {
            if (policy.name().equals(normalised))
            {
                return policy;
            }
        }
        return null;
    }
}
