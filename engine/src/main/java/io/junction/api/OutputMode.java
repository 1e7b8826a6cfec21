package io.junction.api;

/**
 * How a regular join's results leave the operator (docs/SEMANTICS.md "Upsert output").
 */
public enum OutputMode
{
    /** The retraction changelog of SEMANTICS 4: {@code +I}/{@code -D} (and the input's kinds for inner joins). */
    RETRACT("retract"),
    /**
     * Upserts and deletes by result key ({@link JoinSpec#resultKey()}): per step and result key at most
     * one line, {@link ChangeKind#UPDATE_AFTER} for an upsert and {@link ChangeKind#DELETE} for a delete
     * ({@link UpsertHandler} names them).
     */
    UPSERT("upsert");

    private final String jsonName;

    OutputMode(final String jsonName)
    {
        this.jsonName = jsonName;
    }

    /** @return the name in a JSON spec's {@code "output"} field. */
    public String jsonName()
    {
        return jsonName;
    }

    /**
     * @param name {@code retract} or {@code upsert}.
     * @return the mode, or null for any other name.
     */
    public static OutputMode fromName(final String name)
    {
        for (final OutputMode mode : values())
        {
            if (mode.jsonName.equals(name))
            {
                return mode;
            }
        }
        return null;
    }
}
