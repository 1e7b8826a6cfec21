package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.Side;

import java.util.Map;

/**
 * One dead letter, copied. Immutable.
 *
 * @param row the decoded row, or null when it could not be read.
 */
public record DeadLetter(Side side, ChangeKind kind, Map<String, Object> row, long ts, long step, DeadLetterReason reason)
{
    @Override
    public String toString()
    {
        return side + " " + kind.shortString() + " " + Rows.format(row) + " @ts=" + ts + " step=" + step + ": " + reason;
    }
}
