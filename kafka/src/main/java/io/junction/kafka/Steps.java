package io.junction.kafka;

/**
 * The step a runner gives each event it publishes, and how a step names the record that caused a result or a
 * dead letter. A record of input {@code s} at offset {@code o} is step {@code o * n + s}: one step per record
 * and input, in offset order within the partition. A watermark or an idleness mark carries the complement
 * {@code ~step} of the record that advanced it, so that every mark's step is negative and still names its
 * record. Immutable: the consumer thread encodes, the partition threads decode.
 */
final class Steps
{
    /** No step yet: below every record's and every mark's. */
    static final long NONE = Long.MIN_VALUE;

    /** The inputs. */
    private final int n;

    Steps(final int n)
    {
        this.n = n;
    }

    /** @return the step of the record at {@code offset} of input {@code input}. */
    long ofRecord(final long offset, final int input)
    {
        return offset * n + input;
    }

    /** @return the step of a watermark or an idleness mark that the record of {@code recordStep} advanced. */
    static long ofMark(final long recordStep)
    {
        return ~recordStep;
    }

    /** @return whether a watermark or an idleness mark, not a record, caused the step. */
    static boolean isMark(final long step)
    {
        return step < 0;
    }

    /** @return the step of the record that caused {@code step}: itself, or the record that advanced the mark. */
    static long cause(final long step)
    {
        return step < 0 ? ~step : step;
    }

    /** @return the offset of the record of step {@code cause} (a {@link #cause(long)}). */
    long offset(final long cause)
    {
        return cause / n;
    }

    /** @return the input of the record of step {@code cause} (a {@link #cause(long)}). */
    int input(final long cause)
    {
        return (int)(cause % n);
    }
}
