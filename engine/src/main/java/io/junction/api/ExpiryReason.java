package io.junction.api;

/** Why a regular join dropped a stored row before it was retracted ({@link ExpiryHandler}). */
public enum ExpiryReason
{
    /** The watermark passed the row's {@code ts + stateTtl} (SEMANTICS 1, {@code stateTtl}). */
    STATE_TTL("state-ttl"),
    /** The state was full and the {@code expire-oldest} policy evicted the row with the earliest TTL deadline. */
    EVICTED("expire-oldest");

    private final String jsonName;

    ExpiryReason(final String jsonName)
    {
        this.jsonName = jsonName;
    }

    /** @return the reason as replay's {@code --expired} lines write it. */
    public String jsonName()
    {
        return jsonName;
    }
}
