package io.junction.testing;

import io.junction.api.ChangeKind;

import java.util.Map;

/**
 * One join output, copied out of the flyweights handed to the result handler. Immutable.
 *
 * @param kind      the change kind.
 * @param left      the decoded left row, or null when padded.
 * @param right     the decoded right row, or null when padded.
 * @param timestamp the result's event time.
 * @param step      the input step that produced it.
 */
public record Output(ChangeKind kind, Map<String, Object> left, Map<String, Object> right, long timestamp, long step)
{
    /** @return '+' for {@code +I}/{@code +U}, '-' for {@code -D}/{@code -U}. */
    public char sign()
    {
        return kind.isAccumulate() ? '+' : '-';
    }

    /** @return sign, left and right in canonical text: what the tools compare, e.g. {@code +{id=1} null}. */
    public String signed()
    {
        return sign() + Rows.format(left) + " " + Rows.format(right);
    }

    /** @return kind, left and right in canonical text, e.g. {@code +I {id=1} null}. */
    public String kinded()
    {
        return kind.shortString() + " " + Rows.format(left) + " " + Rows.format(right);
    }

    @Override
    public String toString()
    {
        return kinded() + " @ts=" + timestamp + " step=" + step;
    }
}
