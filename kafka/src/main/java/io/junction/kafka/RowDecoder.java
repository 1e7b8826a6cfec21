package io.junction.kafka;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Turns a Kafka record's value into a binary row ({@link io.junction.api.RowFormat}) of the input's schema.
 * One decoder per input ({@link KafkaJoinConfig.Builder#leftDecoder}); called on the runner's consumer thread
 * only, so it may keep scratch state.
 */
@FunctionalInterface
public interface RowDecoder
{
    /** Returned by {@link #decode} for a value that is not a row: the record becomes a counted dead letter. */
    int MALFORMED = -1;
    /** Returned by {@link #decode} for a value its format cannot read (invalid JSON, not a row of the schema): dead letter {@code UNDECODABLE_VALUE}. */
    int UNDECODABLE = -2;
    /** Returned by {@link #decode} for a value whose row is larger than a row may be: dead letter {@code ROW_TOO_LARGE}. */
    int TOO_LARGE = -3;

    /**
     * @param value the record's value; never null (a null value is a dead letter before any decoder).
     * @param out   a reusable buffer to write the row into, from index 0; its capacity is
     *              {@link io.junction.api.RowFormat#MAX_ROW_LENGTH}.
     * @return the row's length in bytes, or a negative code ({@link #MALFORMED}, {@link #UNDECODABLE},
     *         {@link #TOO_LARGE}) when the value is not a row.
     */
    int decode(byte[] value, MutableDirectBuffer out);

    /**
     * How the runner decodes: the row of {@code value}, which the runner then reads from {@code row}. By default
     * {@link #decode} writes it into {@code scratch} and {@code row} is pointed at {@code scratch}; the
     * {@link #binary()} decoder points {@code row} at the value itself, without a copy.
     *
     * @param value   the record's value; never null.
     * @param row     the buffer the runner reads the row from, from index 0: pointed here at the row.
     * @param scratch a reusable buffer to decode into, as {@link #decode}'s {@code out}.
     * @return the row's length in bytes, or a negative code as {@link #decode} returns it.
     */
    default int decodeInto(final byte[] value, final DirectBuffer row, final MutableDirectBuffer scratch)
    {
        row.wrap(scratch);
        return decode(value, scratch);
    }

    /**
     * Why the last {@link #decode} returned a negative code, for the runner's warning beside the dead letter
     * (the JSON parser's message, the field that does not fit); called on the consumer thread after a failed
     * decode only.
     *
     * @return the reason, or null when the decoder does not say.
     */
    default String lastError()
    {
        return null;
    }

    /**
     * The decoder of values that already are binary rows ({@link io.junction.api.RowCodec} or
     * {@link io.junction.api.RowWriter} bytes): the runner reads them in place, without a copy, and the
     * engine validates them (a malformed one is a dead letter).
     *
     * @return the binary decoder.
     */
    static RowDecoder binary()
    {
        return BinaryRowDecoder.INSTANCE;
    }
}
