package io.junction.api;

import java.util.Locale;

/** Why an input row was not processed. Each is counted; none stops the partition. */
public enum DeadLetterReason
{
    /**
     * An interval-join or ASOF-join row older than the join watermark minus the allowed lateness; a
     * temporal-join left row older than the join watermark (a temporal join's right row is never late).
     */
    LATE("late: ts < join watermark - allowedLateness (interval join, SEMANTICS 5; asof join, SEMANTICS 11.4), or a temporal join's left row with ts < join watermark (SEMANTICS 7.2)"),
    /** A window-join row all of whose windows have already fired. */
    LATE_WINDOW("late window: every window of the row already fired (SEMANTICS 6.2)"),
    /** A retraction for which no equal row is stored. */
    RETRACTION_NOT_IN_STATE("retraction of a row not in state: never inserted, already retracted or expired (SEMANTICS 4.1)"),
    /**
     * A change kind other than {@code +I} in an interval, window or ASOF join, or on the left input of a
     * temporal or lookup join.
     */
    NOT_APPEND_ONLY("not append-only: interval, window and asof joins, and the left input of temporal and lookup joins, take +I only (SEMANTICS 5, 6, 7.1, 11.4)"),
    /** A join key, or a declared unique key, longer than the configured maximum key length. */
    KEY_TOO_LONG("key too long: the join key (or declared unique key) is longer than junction.state.maxKeyLength (SEMANTICS 1.4)"),
    /** A row that does not fit a ring slot. */
    ROW_TOO_LARGE("row too large: the row does not fit a ring slot, junction.ring.slotCapacity (SEMANTICS 1.4)"),
    /** Bytes that are not a well-formed binary row. */
    MALFORMED_ROW("malformed row: the bytes are not a well-formed binary row (SEMANTICS 1.4)"),
    /** The partition is at a state limit (live rows, bytes, keys), or the OS refused memory. */
    STATE_FULL("state full: the partition is at its live-row, byte or key limit, or the OS refused memory (junction.state.*, SEMANTICS 1.4)"),
    /**
     * A regular-join row that breaks its side's declared unique key ({@link JoinSpec#uniqueKey(Side)}):
     * a null unique-key field, or an insert whose unique key is already live on its side in a row of the
     * same join key (both rows able to match); with upsert output, in any live row of its side.
     */
    UNIQUE_KEY_VIOLATION("unique key violation: a null unique-key field, or an insert whose unique key is already live on its side with the same join key, with upsert output in any row (SEMANTICS 4.4)"),
    /**
     * A row whose user pre-join filter ({@link RowFilter}) threw, or, in a regular join, for one of whose
     * pairs a user {@link PairCondition} threw: the row had no effect (both run before anything else the
     * row does).
     */
    PREDICATE_FAILED("user predicate failed: the side's RowFilter threw on this row, or in a regular join a PairCondition threw for one of its pairs (SEMANTICS 2.3)"),
    /**
     * A window row whose group's {@link CoGroupFunction} threw when the window fired: the call emitted
     * nothing, and the row left state with its window (one dead letter per failed call the row was in).
     */
    COGROUP_FAILED("user function failed: the CoGroupFunction threw on this row's window and key; the call emitted nothing (SEMANTICS 6.4)"),
    /**
     * A row that does not fit its side's {@link Schema}: more field slots than the schema has fields, or,
     * with a typed schema ({@link Schema#of(Field...)}), a value of another type than its field's or a
     * required field absent or null. Refused at the door ({@code Publisher.SCHEMA_MISMATCH}), it never
     * reaches a partition; {@code Publisher.lastRefusal()} names the field and why.
     */
    SCHEMA_MISMATCH("schema mismatch: the row does not fit its side's schema: more field slots than fields, a mistyped value or a missing required field (SEMANTICS 1.4)"),
    /**
     * A Kafka record value its input's format cannot read: invalid JSON, or not a row of the input's fields
     * (last, so that the other reasons keep their ordinals).
     */
    UNDECODABLE_VALUE("undecodable value: the record's value is not a row in the input's format, such as invalid JSON or an unknown field, or its junction.kind header is no change kind (SEMANTICS 1.4)"),
    /**
     * A Kafka record with a null key, or, when the runner checks keys against a key format, a key that is not
     * its row's join key in that format: the record may sit in another partition than its key's rows, where it
     * would silently never meet them (last, so that the other reasons keep their ordinals).
     */
    MISROUTED("misrouted: the record's key is null, or not its row's join key in the runner's input key format, so it may sit in another partition than its key's rows (SEMANTICS 1.4)"),
    /**
     * An inserted row that would join more stored rows than the spec's declared output budget
     * ({@link JoinSpec.Builder#maxFanOut}, {@link MultiJoinSpec.Builder#maxFanOut}): refused before anything of it
     * is emitted or stored, so the changelog stays exact (last, so that the other reasons keep their ordinals).
     */
    FANOUT_EXCEEDED("fanout exceeded: the row would join more stored rows than the spec's maxFanOut, so it was neither stored nor joined (SEMANTICS 1.5)"),
    /**
     * A row whose expansion failed ({@link Expansion}): a field of the wrong type, a new field the row already
     * has, a throwing table function or more rows than {@code maxExpansion}; nothing of it was emitted or stored
     * (last, so that the other reasons keep their ordinals).
     */
    EXPANSION_FAILED("expansion failed: the row's expansion read a field of the wrong type, would add a field the row already has, ran a table function that threw, or made more rows than maxExpansion; nothing of the row was emitted or stored (SEMANTICS 12)");

    private final String message;

    DeadLetterReason(final String message)
    {
        this.message = message;
    }

    /**
     * @return a sentence for logs and the replay's dead-letter output: it starts with the reason's name as
     *         docs/SEMANTICS.md 1.4 lists it, and cites the section that says when it applies.
     */
    public String message()
    {
        return message;
    }

    /** @return a stable code for programs: the constant's name in lower case ({@code late}, {@code state_full}, ...). */
    public String code()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
