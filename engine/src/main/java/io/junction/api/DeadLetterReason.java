package io.junction.api;

/** Why an input row was not processed. Each is counted; none stops the partition. */
public enum DeadLetterReason
{
    LATE("late: ts < join watermark - allowedLateness (SPEC 2.2)"),
    LATE_WINDOW("late: every window of the row already fired (SPEC 2.3)"),
    RETRACTION_NOT_IN_STATE("bad input: retraction of a row not in state (never inserted, already retracted or expired), SPEC 1"),
    NOT_APPEND_ONLY("bad input: interval and window joins take append-only input (+I), SPEC 1"),
    KEY_TOO_LONG("bad input: join key longer than the key buffer"),
    ROW_TOO_LARGE("bad input: row larger than a ring slot"),
    MALFORMED_ROW("bad input: malformed binary row"),
    STATE_FULL("state full: the partition is at its live-row, byte or key limit, or the OS refused memory (junction.state.*)");

    private final String message;

    DeadLetterReason(final String message)
    {
        this.message = message;
    }

    /** @return a sentence for logs and the replay's dead-letter output. */
    public String message()
    {
        return message;
    }
}
