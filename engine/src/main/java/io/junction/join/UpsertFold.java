package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.ResultHandler;
import io.junction.api.ResultKey;
import io.junction.api.RowView;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.BufferCompare;
import io.junction.internal.row.KeyExtractor;
import org.agrona.concurrent.UnsafeBuffer;
import io.junction.api.Side;

/**
 * Folds a regular join's retraction changelog into upserts and deletes by result key, per step
 * (docs/SEMANTICS.md "Upsert output"). The operator hands it its retraction lines and calls
 * {@link #flush} at the end of every event; lines of one step are kept, in a buffer reused from step to
 * step, by result key (the declared unique-key fields of the side(s) {@link ResultKey} names, a padded
 * side's part null). Per key the last line wins: an accumulating last line leaves as an upsert
 * ({@link ChangeKind#UPDATE_AFTER}) of its rows, a retracting one as a delete ({@link ChangeKind#DELETE})
 * carrying the deleted rows; so a {@code -(l, null)}, {@code +(l, r)} pair of one key is one upsert and
 * a step emits at most one line per key. One event's lines all come from one partition, so the fold
 * needs nothing across partitions. A step of a flush also ends when a line of another step arrives.
 *
 * <p>Pass-through: most steps make one line (a show, or a click whose pair replaces its show's padded
 * line in one line), and a step's only line leaves as it came: the fold holds it by reference ({@link HeldLine}: where the
 * caller's views point: an input row, a stored record) with no copy of its bytes, no key and no hash, and
 * hands views over those same bytes downstream at {@link #flush}. A next line of the held line's result key
 * (the click's {@code +(show, click)} after {@code -(show, null)}) takes its place, held the same way, since the
 * last line of a key wins: its key is equal without extraction when its part lies over the held row's bytes (the
 * same stored record), else both parts are extracted and compared. Only a line of another key copies the held
 * one into the buffer (and keys both). The caller's views are valid during its call only, so
 * the held line's bytes must stay where they are until the step ends: the operator's input row does (the
 * operator flushes at the end of every event, inside its own call), and so does a stored record unless
 * the operator frees it in the middle of the step (an expiry or an eviction after the record's padded
 * line): the operator calls {@link #copyHeld} before it frees a record in a step (Emitter's
 * {@code beforeFree}), which copies a held line into the buffer first.
 *
 * <p>Key bytes in the buffer, per part of the result key: a presence byte (0: the side is padded,
 * 1: its unique-key bytes follow, 2: a null unique-key field), a little-endian u16 length, the bytes.
 *
 * <p>Bounded: the buffer ({@link #BUFFER_BYTES}) and the per-line tables ({@link #MAX_LINES} lines) are
 * allocated once, with the fold, and never grow, so a step with many result keys (one right row padding
 * or matching a million left rows) cannot take the heap. A line that does not fit (the tables are full,
 * or the buffer has no room for its key and rows) spills: the lines folded so far leave at once, in their
 * order, and the line starts the step's fold anew, held by reference as a step's first line is. The output
 * is then still an upsert changelog whose table is exact after every step (a key's later line leaves after
 * its earlier one), only folded less: a key may have more than one line in such a step. Nothing is
 * dropped. The fold allocates nothing per event.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class UpsertFold implements ResultHandler
{
    private static final int PART_HEADER = 3;
    /** The most distinct result keys folded at once; a step with more spills (class Javadoc). */
    static final int MAX_LINES = 1024;
    /** The bytes of keys and rows folded at once: 256 KiB, 256 bytes a line on average; a step with more spills. */
    static final int BUFFER_BYTES = 256 * 1024;
    /** {@code keyLength} of a copied first line ({@link #copyHeld}) until a second line needs its key. */
    private static final int UNKEYED = -1;

    private final ResultHandler downstream;
    private final JoinCounters counters;
    /** The unique-key fields of a side that is part of the result key, else null. */
    private final KeyExtractor leftKey;
    private final KeyExtractor rightKey;
    private final UnsafeBuffer data;
    private int used;
    private int lines;
    private final int maxLines;
    private final int[] keyOffset;
    private final int[] keyLength;
    private final int[] leftOffset;
    private final int[] leftLength;
    private final int[] rightOffset;
    private final int[] rightLength;
    private final int[] tableSlot;
    private final long[] keyHash;
    private final long[] timestamp;
    private final boolean[] accumulate;
    /** Open addressing over the step's lines: line index + 1, 0 for empty; at most half full. */
    private final int[] table;
    /** Spills so far (tests). */
    private long spills;
    private long step;
    private final RowView leftView = new RowView();
    private final RowView rightView = new RowView();
    /** The step's one line so far, when it is held by reference rather than in the buffer. */
    private final HeldLine held = new HeldLine();

    /**
     * @param key        which unique keys key the result.
     * @param leftFields the left unique key's fields (null unless {@code key} includes the left side).
     * @param rightFields the right unique key's fields (null unless {@code key} includes the right side).
     * @param downstream receives the folded lines.
     * @param counters   the operator's counters: lines folded away are taken back from rows out.
     */
    UpsertFold(
        final ResultKey key, final KeyExtractor leftFields, final KeyExtractor rightFields, final ResultHandler downstream,
        final JoinCounters counters)
    {
        this(key, leftFields, rightFields, downstream, counters, MAX_LINES, BUFFER_BYTES);
    }

    /**
     * A fold with other bounds (tests).
     *
     * @param maxLines    the most lines folded at once, at least 1.
     * @param bufferBytes the bytes of keys and rows folded at once, at least 1.
     */
    UpsertFold(
        final ResultKey key, final KeyExtractor leftFields, final KeyExtractor rightFields, final ResultHandler downstream,
        final JoinCounters counters, final int maxLines, final int bufferBytes)
    {
        if (maxLines < 1 || maxLines > 1 << 28 || bufferBytes < 1)
        {
            throw new IllegalArgumentException("fold bounds must be >= 1 (lines at most 2^28): " + maxLines + " lines, " + bufferBytes + " bytes");
        }
        this.maxLines = maxLines;
        this.data = new UnsafeBuffer(new byte[bufferBytes]);
        this.keyOffset = new int[maxLines];
        this.keyLength = new int[maxLines];
        this.leftOffset = new int[maxLines];
        this.leftLength = new int[maxLines];
        this.rightOffset = new int[maxLines];
        this.rightLength = new int[maxLines];
        this.tableSlot = new int[maxLines];
        this.keyHash = new long[maxLines];
        this.timestamp = new long[maxLines];
        this.accumulate = new boolean[maxLines];
        this.table = new int[Integer.highestOneBit(maxLines) * 4];
        this.downstream = downstream;
        this.counters = counters;
        this.leftKey = key.includes(Side.LEFT) ? leftFields : null;
        this.rightKey = key.includes(Side.RIGHT) ? rightFields : null;
    }

    @Override
    public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
    {
        if ((held.present() || lines > 0) && step != this.step)
        {
            flush();
        }
        this.step = step;
        if (lines == 0)
        {
            if (!held.present())
            {
                held.hold(kind, left, right, ts);
                return;
            }
            if (sameKeyAsHeld(left, right))
            {
                // A second line of the held line's key (a click's -(show, null), +(show, click)): the last line
                // wins, so it is held in place of the first, by reference too: no copy, no hash.
                counters.rowsOut--;
                held.hold(kind, left, right, ts);
                return;
            }
            // A second line of another key: the held one is copied and keyed now (its bytes are still the caller's).
            if (!materialize(true))
            {
                spill(kind, left, right, ts);
                return;
            }
        }
        else if (lines == 1 && keyLength[0] == UNKEYED && !keyFirstLine())
        {
            spill(kind, left, right, ts);
            return;
        }
        if (!append(kind, left, right, ts))
        {
            spill(kind, left, right, ts);
        }
    }

    /**
     * Folds a line into the buffer: its key's line takes it, or it is added.
     *
     * @return false, with nothing changed, when the line does not fit: no room for its key and rows, or a new key
     *         with the tables full.
     */
    private boolean append(final ChangeKind kind, final RowView left, final RowView right, final long ts)
    {
        final int keyStart = used;
        if (!appendKey(left, right) || !fits(rowBytes(left) + rowBytes(right)))
        {
            used = keyStart;
            return false;
        }
        final int length = used - keyStart;
        final long hash = hash(keyStart, length);
        int line = find(hash, keyStart, length);
        if (line >= 0)
        {
            used = keyStart;
            counters.rowsOut--;
        }
        else if (lines == maxLines)
        {
            used = keyStart;
            return false;
        }
        else
        {
            line = add(hash, keyStart, length);
        }
        fill(line, kind.isAccumulate(), ts, left, right);
        return true;
    }

    /**
     * The buffer cannot take the line: the lines folded so far (or the held one) leave now, in their order, and
     * the line starts the fold anew, held by reference (its bytes are the caller's until the step ends, as a
     * step's first line's). Less folded, never dropped (class Javadoc).
     */
    private void spill(final ChangeKind kind, final RowView left, final RowView right, final long ts)
    {
        spills++;
        flush();
        held.hold(kind, left, right, ts);
    }

    /** Emits the step's folded lines (or its held line, as it came), then forgets them; nothing when there are none. */
    void flush()
    {
        if (held.present())
        {
            held.clear();
            downstream.onResult(held.accumulate() ? ChangeKind.UPDATE_AFTER : ChangeKind.DELETE, held.left(), held.right(), held.ts(), step);
            return;
        }
        if (lines == 0)
        {
            return;
        }
        final int count = lines;
        try
        {
            for (int i = 0; i < count; i++)
            {
                final RowView left = leftLength[i] < 0 ? null : leftView.wrap(data, leftOffset[i], leftLength[i]);
                final RowView right = rightLength[i] < 0 ? null : rightView.wrap(data, rightOffset[i], rightLength[i]);
                downstream.onResult(accumulate[i] ? ChangeKind.UPDATE_AFTER : ChangeKind.DELETE, left, right, timestamp[i], step);
            }
        }
        finally
        {
            for (int i = 0; i < count; i++)
            {
                if (keyLength[i] != UNKEYED)
                {
                    table[tableSlot[i]] = 0;
                }
            }
            lines = 0;
            used = 0;
        }
    }

    /**
     * The bytes of the held line (if any) are about to be freed or overwritten before the step ends: copies
     * the line into the buffer (unkeyed: its key is extracted only if a second line comes).
     */
    void copyHeld()
    {
        if (held.present() && !materialize(false))
        {
            // No room for its rows: it leaves now, while its bytes are still there.
            spills++;
            flush();
        }
    }

    /** @return how many times a step's lines left early because the buffer was full (tests). */
    long spills()
    {
        return spills;
    }

    /** @return true while the step's only line is held by reference, uncopied (tests). */
    boolean holding()
    {
        return held.present();
    }

    /**
     * Whether a line with these rows has the held line's result key: a key part over the same bytes as the held
     * line's (the same row, or both sides padded) is equal without a look; else both parts are extracted into the
     * buffer's free end and compared, then dropped ({@link #used} is left where it was).
     */
    private boolean sameKeyAsHeld(final RowView left, final RowView right)
    {
        return (leftKey == null || samePart(leftKey, held.left(), left)) &&
            (rightKey == null || samePart(rightKey, held.right(), right));
    }

    /** @return whether the key part of {@code row} equals the held row's (null: the side is padded). */
    private boolean samePart(final KeyExtractor fields, final RowView heldRow, final RowView row)
    {
        if (row == null || heldRow == null)
        {
            return row == null && heldRow == null;
        }
        if (HeldLine.sameBytes(heldRow, row))
        {
            return true;
        }
        final int start = used;
        if (!appendKeyPart(fields, heldRow))
        {
            // No room to compare: taken as another key, which folds less and loses nothing.
            return false;
        }
        final int middle = used;
        final boolean equal = appendKeyPart(fields, row) &&
            used - middle == middle - start && BufferCompare.equals(data, start, data, middle, middle - start);
        used = start;
        return equal;
    }

    /**
     * Copies the held line into the buffer as line 0, keyed (with its table slot) or not.
     *
     * @return false, with the line still held and nothing changed, when the buffer has no room for it.
     */
    private boolean materialize(final boolean keyed)
    {
        final RowView left = held.left();
        final RowView right = held.right();
        final int keyStart = used;
        if (keyed && !appendKey(left, right) || !fits(rowBytes(left) + rowBytes(right)))
        {
            used = keyStart;
            return false;
        }
        held.clear();
        final int line = lines++;
        if (keyed)
        {
            final int length = used - keyStart;
            keyHash[line] = hash(keyStart, length);
            keyOffset[line] = keyStart;
            keyLength[line] = length;
            insert(line);
        }
        else
        {
            keyLength[line] = UNKEYED;
        }
        fill(line, held.accumulate(), held.ts(), left, right);
        return true;
    }

    /** Sets a line's change, ts and rows, the rows' bytes appended to the buffer. */
    private void fill(final int line, final boolean isAccumulate, final long ts, final RowView left, final RowView right)
    {
        accumulate[line] = isAccumulate;
        timestamp[line] = ts;
        leftOffset[line] = used;
        leftLength[line] = appendRow(left);
        rightOffset[line] = used;
        rightLength[line] = appendRow(right);
    }

    /** @return lines waiting for {@link #flush}, the held one included (tests). */
    int pending()
    {
        return lines + (held.present() ? 1 : 0);
    }

    /** Appends the result key of a line with these rows. @return false when the buffer has no room for it. */
    private boolean appendKey(final RowView left, final RowView right)
    {
        return (leftKey == null || appendKeyPart(leftKey, left)) && (rightKey == null || appendKeyPart(rightKey, right));
    }

    /**
     * Gives the step's first line, copied without its key, its key (from its copied rows) and its table slot.
     *
     * @return false, with nothing changed, when the buffer has no room for the key.
     */
    private boolean keyFirstLine()
    {
        final RowView left = leftLength[0] < 0 ? null : leftView.wrap(data, leftOffset[0], leftLength[0]);
        final RowView right = rightLength[0] < 0 ? null : rightView.wrap(data, rightOffset[0], rightLength[0]);
        final int keyStart = used;
        if (!appendKey(left, right))
        {
            used = keyStart;
            return false;
        }
        final int length = used - keyStart;
        keyHash[0] = hash(keyStart, length);
        keyOffset[0] = keyStart;
        keyLength[0] = length;
        insert(0);
        return true;
    }

    /** @return false, with {@link #used} where it was, when the buffer has no room for the key part. */
    private boolean appendKeyPart(final KeyExtractor fields, final RowView row)
    {
        if (!fits(PART_HEADER))
        {
            return false;
        }
        final int header = used;
        if (row == null)
        {
            data.putByte(header, (byte)0);
            data.putShort(header + 1, (short)0);
            used += PART_HEADER;
            return true;
        }
        final int length = fields.extract(row, data, header + PART_HEADER, data.capacity() - header - PART_HEADER);
        if (length == KeyExtractor.KEY_TOO_LONG)
        {
            return false;
        }
        if (length == KeyExtractor.NULL_KEY)
        {
            data.putByte(header, (byte)2);
            data.putShort(header + 1, (short)0);
            used += PART_HEADER;
            return true;
        }
        data.putByte(header, (byte)1);
        data.putShort(header + 1, (short)length);
        used += PART_HEADER + length;
        return true;
    }

    private static int rowBytes(final RowView row)
    {
        return row == null ? 0 : row.length();
    }

    /** @return the row's length, its bytes copied at {@link #used} (room checked by the caller), or -1 for no row. */
    private int appendRow(final RowView row)
    {
        if (row == null)
        {
            return -1;
        }
        final int length = row.length();
        data.putBytes(used, row.buffer(), row.offset(), length);
        used += length;
        return length;
    }

    private long hash(final int offset, final int length)
    {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < length; i++)
        {
            h ^= data.getByte(offset + i) & 0xFF;
            h *= 0x100000001b3L;
        }
        return h ^ (h >>> 29);
    }

    private int find(final long hash, final int offset, final int length)
    {
        final int mask = table.length - 1;
        for (int slot = (int)hash & mask; ; slot = (slot + 1) & mask)
        {
            final int entry = table[slot];
            if (entry == 0)
            {
                return -1;
            }
            final int line = entry - 1;
            if (keyHash[line] == hash && keyLength[line] == length &&
                BufferCompare.equals(data, keyOffset[line], data, offset, length))
            {
                return line;
            }
        }
    }

    /** Adds a line of a new key; the caller checked that the tables have room ({@link #maxLines}). */
    private int add(final long hash, final int offset, final int length)
    {
        final int line = lines++;
        keyHash[line] = hash;
        keyOffset[line] = offset;
        keyLength[line] = length;
        insert(line);
        return line;
    }

    private void insert(final int line)
    {
        final int mask = table.length - 1;
        int slot = (int)keyHash[line] & mask;
        while (table[slot] != 0)
        {
            slot = (slot + 1) & mask;
        }
        table[slot] = line + 1;
        tableSlot[line] = slot;
    }

    /** @return whether {@code bytes} more fit the buffer. */
    private boolean fits(final int bytes)
    {
        return bytes <= data.capacity() - used;
    }
}
