package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link UpsertFold}'s pass-through: a step's only line, held by where its rows lie (the caller's bytes: an input
 * row, a stored record), with no copy, no key and no hash, and handed downstream over those same bytes. The fold
 * owns the rule of when the bytes must be copied (docs/SEMANTICS.md "Upsert output"); this keeps what is held.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class HeldLine
{
    private boolean present;
    private boolean accumulate;
    private long ts;
    /** Where the held line's rows lie; a length of -1 for a padded side. */
    private int leftLength;
    private int rightLength;
    private final UnsafeBuffer leftBuffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer rightBuffer = new UnsafeBuffer(0, 0);
    private final RowView left = new RowView();
    private final RowView right = new RowView();

    /** Holds a line by where its rows lie (null: the side is padded), in place of any line held before. */
    void hold(final ChangeKind kind, final RowView leftRow, final RowView rightRow, final long lineTs)
    {
        present = true;
        accumulate = kind.isAccumulate();
        ts = lineTs;
        leftLength = wrap(leftBuffer, leftRow);
        rightLength = wrap(rightBuffer, rightRow);
    }

    private static int wrap(final UnsafeBuffer held, final RowView row)
    {
        if (row == null)
        {
            return -1;
        }
        held.wrap(row.buffer(), row.offset(), row.length());
        return row.length();
    }

    /** @return whether a line is held. */
    boolean present()
    {
        return present;
    }

    /** Forgets the held line (it was emitted or copied). */
    void clear()
    {
        present = false;
    }

    /** @return whether the held line accumulates (an upsert) rather than retracts. */
    boolean accumulate()
    {
        return accumulate;
    }

    /** @return the held line's timestamp. */
    long ts()
    {
        return ts;
    }

    /** @return a view of the held line's left row, or null when it is padded. */
    RowView left()
    {
        return leftLength < 0 ? null : left.wrap(leftBuffer, 0, leftLength);
    }

    /** @return a view of the held line's right row, or null when it is padded. */
    RowView right()
    {
        return rightLength < 0 ? null : right.wrap(rightBuffer, 0, rightLength);
    }

    /** @return whether two rows lie over the same bytes (the same stored record): their key parts are then equal. */
    static boolean sameBytes(final RowView a, final RowView b)
    {
        final DirectBuffer x = a.buffer();
        final DirectBuffer y = b.buffer();
        return a.length() == b.length() && x.byteArray() == y.byteArray() &&
            x.addressOffset() + a.offset() == y.addressOffset() + b.offset();
    }
}
