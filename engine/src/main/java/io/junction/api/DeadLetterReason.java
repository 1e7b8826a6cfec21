package io.junction.api;

/** Why an input row was not processed. Each is counted; none stops the partition. */
public enum DeadLetterReason
{
    /** An interval-join row older than the join watermark minus the allowed lateness; a temporal-join left row older than the join watermark (a right row is never late). */
    LATE("late: ts < join watermark - allowedLateness (SPEC 2.2)"),
    /** A window-join row all of whose windows have already fired. */
    LATE_WINDOW("late: every window of the row already fired (SPEC 2.3)"),
    /** A retraction for which no equal row is stored. */
    RETRACTION_NOT_IN_STATE("bad input: retraction of a row not in state (never inserted, already retracted or expired), SPEC 1"),
    /** A change kind other than {@code +I} in an interval or window join, or on the left input of a temporal or lookup join. */
    NOT_APPEND_ONLY("bad input: interval and window joins, and the left input of temporal and lookup joins, take append-only input (+I), SPEC 1"),
    /** A join key, or a declared unique key, longer than the configured maximum key length. */
    KEY_TOO_LONG("bad input: join key (or declared unique key) longer than the key buffer"),
    /** A row that does not fit a ring slot. */
    ROW_TOO_LARGE("bad input: row larger than a ring slot"),
    /** Bytes that are not a well-formed binary row. */
    MALFORMED_ROW("bad input: malformed binary row"),
    /** The partition is at a state limit (live rows, bytes, keys), or the OS refused memory. */
    STATE_FULL("state full: the partition is at its live-row, byte or key limit, or the OS refused memory (junction.state.*)"),
    /**
     * A regular-join row that breaks its side's declared unique key ({@link JoinSpec#uniqueKey(Side)}):
     * a null unique-key field, or an insert whose unique key is already live on its side in a row of the
     * same join key (both rows able to match).
     */
    UNIQUE_KEY_VIOLATION("bad input: a null unique-key field, or an insert whose unique key is already live on its side with the same join key"),
    /**
     * A row whose user pre-join filter ({@link RowFilter}) threw: the row had no effect (its filter runs
     * before anything else the row does).
     */
    PREDICATE_FAILED("user predicate failed: the side's RowFilter threw on this row"),
    /**
     * A window row whose group's {@link CoGroupFunction} threw when the window fired: the call emitted
     * nothing, and the row left state with its window (one dead letter per failed call the row was in).
     */
    COGROUP_FAILED("user function failed: the CoGroupFunction threw on this row's window and key; the call emitted nothing");

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
