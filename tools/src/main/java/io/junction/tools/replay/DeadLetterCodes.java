package io.junction.tools.replay;

import io.junction.api.DeadLetterReason;

/**
 * The machine-readable {@code "code"} of a replay dead-letter line, written beside its free-text
 * {@code "reason"} (docs/CLI.md, "Dead-letter lines"): the engine's reasons are their
 * {@link DeadLetterReason} names in lower case ({@code late}, {@code late_window},
 * {@code retraction_not_in_state}, {@code not_append_only}, {@code key_too_long}, {@code row_too_large},
 * {@code malformed_row}, {@code state_full}, {@code unique_key_violation}, {@code predicate_failed},
 * {@code cogroup_failed}, {@code schema_mismatch}, and any added later); the replay's own are
 * {@code bad_input} (a line that is not a valid event: not JSON, a missing or bad field, a nested value),
 * {@code schema_mismatch} (a row field that {@code --fields} does not declare) and {@code schema_full}
 * (a log naming more than {@code Schema.MAX_FIELDS} fields).
 *
 * <p>Thread safe (stateless).
 */
public final class DeadLetterCodes
{
    /** A line that is not a valid event. */
    public static final String BAD_INPUT = "bad_input";
    /** A log naming more fields than a schema holds. */
    public static final String SCHEMA_FULL = "schema_full";

    private static final DeadLetterReason[] REASONS = DeadLetterReason.values();

    private DeadLetterCodes()
    {
    }

    /**
     * @param reason an engine dead-letter reason
     * @return its code
     */
    public static String of(final DeadLetterReason reason)
    {
        return reason.code();
    }

    /**
     * @param reason the free text of a dead-letter line the replay wrote
     * @return its code: that of the engine reason whose message it starts with, else the replay's own
     */
    public static String ofText(final String reason)
    {
        for (final DeadLetterReason r : REASONS)
        {
            if (reason.startsWith(r.message()))
            {
                return of(r);
            }
        }
        if (reason.startsWith("schema is full"))
        {
            return SCHEMA_FULL;
        }
        if (reason.contains("' is not in the schema"))
        {
            return of(DeadLetterReason.SCHEMA_MISMATCH);
        }
        return BAD_INPUT;
    }
}
