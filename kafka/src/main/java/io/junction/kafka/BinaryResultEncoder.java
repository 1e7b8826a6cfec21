package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.MultiJoinSpec;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Side;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;
import io.junction.api.ResultKey;

/** {@link ResultEncoder#binary(JoinSpec)}: thread safe (per-thread scratch for the key). */
final class BinaryResultEncoder implements ResultEncoder
{
    private final int[] leftKey;
    private final int[] rightKey;
    /** A multi-way join's key fields per input, or null for the binary kinds. */
    private final int[][] inputKeys;
    private final ThreadLocal<KeyScratch> scratch = ThreadLocal.withInitial(KeyScratch::new);
    /**
     * Upsert output (SEMANTICS 4.5-4.7): the unique-key fields of each side in the result key, or null when that side
     * is not part of it; both null for the retraction changelog.
     */
    private final int[] leftResultKey;
    private final int[] rightResultKey;

    BinaryResultEncoder(final JoinSpec spec)
    {
        this.leftKey = indexes(spec, Side.LEFT, spec.leftKey());
        this.rightKey = indexes(spec, Side.RIGHT, spec.rightKey());
        final ResultKey resultKey = spec.resultKey();
        this.leftResultKey = resultKey != null && resultKey.includes(Side.LEFT) ? indexes(spec, Side.LEFT, spec.leftUniqueKey()) : null;
        this.rightResultKey = resultKey != null && resultKey.includes(Side.RIGHT) ? indexes(spec, Side.RIGHT, spec.rightUniqueKey()) : null;
        if (spec.kind() == JoinKind.MULTI)
        {
            final MultiJoinSpec multi = spec.multi();
            inputKeys = new int[multi.inputs()][];
            for (int i = 0; i < inputKeys.length; i++)
            {
                final List<String> fields = multi.key(i);
                inputKeys[i] = new int[fields.size()];
                for (int f = 0; f < fields.size(); f++)
                {
                    inputKeys[i][f] = multi.schema(i).indexOf(fields.get(f));
                }
            }
        }
        else
        {
            inputKeys = null;
        }
    }

    @Override
    public byte[] key(final ChangeKind kind, final RowView[] rows, final long timestamp)
    {
        if (inputKeys == null)
        {
            return rows.length == 2 ? key(kind, rows[0], rows[1], timestamp) : null;
        }
        for (int i = 0; i < rows.length; i++)
        {
            if (rows[i] != null)
            {
                return keyOf(rows[i], inputKeys[i]);
            }
        }
        return null;
    }

    @Override
    public byte[] value(final ChangeKind kind, final RowView[] rows, final long timestamp)
    {
        int bytes = BinaryMultiResult.HEADER_BYTES;
        for (final RowView row : rows)
        {
            bytes += Integer.BYTES + (row == null ? 0 : row.length());
        }
        final ByteBuffer out = ByteBuffer.allocate(bytes);
        out.put((byte)kind.ordinal());
        out.put((byte)rows.length);
        for (final RowView row : rows)
        {
            putRow(out, row);
        }
        out.putLong(timestamp);
        return out.array();
    }

    /**
     * Upsert output's record key: a binary row of the result key's fields, the left unique key's then the
     * right's (each null for a padded side), so that one result key is one record key of a compacted topic.
     */
    private byte[] resultKey(final RowView left, final RowView right)
    {
        final int leftFields = leftResultKey == null ? 0 : leftResultKey.length;
        final int rightFields = rightResultKey == null ? 0 : rightResultKey.length;
        final KeyScratch s = scratch.get();
        s.writer.wrap(s.buffer, 0, RowFormat.MAX_ROW_LENGTH, leftFields + rightFields);
        for (int i = 0; i < leftFields; i++)
        {
            if (left == null)
            {
                s.writer.putNull(i);
            }
            else
            {
                s.writer.putField(i, left, leftResultKey[i]);
            }
        }
        for (int i = 0; i < rightFields; i++)
        {
            if (right == null)
            {
                s.writer.putNull(leftFields + i);
            }
            else
            {
                s.writer.putField(leftFields + i, right, rightResultKey[i]);
            }
        }
        return s.finish();
    }

    private static int[] indexes(final JoinSpec spec, final Side side, final List<String> fields)
    {
        final int[] indexes = new int[fields.size()];
        for (int i = 0; i < indexes.length; i++)
        {
            indexes[i] = spec.schema(side).indexOf(fields.get(i));
        }
        return indexes;
    }

    @Override
    public byte[] key(final ChangeKind kind, final RowView left, final RowView right, final long timestamp)
    {
        if (leftResultKey != null || rightResultKey != null)
        {
            return resultKey(left, right);
        }
        final RowView row = left != null ? left : right;
        if (row == null)
        {
            return null;
        }
        return keyOf(row, left != null ? leftKey : rightKey);
    }

    private byte[] keyOf(final RowView row, final int[] fields)
    {
        final KeyScratch s = scratch.get();
        s.writer.wrap(s.buffer, 0, RowFormat.MAX_ROW_LENGTH, fields.length);
        for (int i = 0; i < fields.length; i++)
        {
            s.writer.putField(i, row, fields[i]);
        }
        return s.finish();
    }

    @Override
    public byte[] value(final ChangeKind kind, final RowView left, final RowView right, final long timestamp)
    {
        if ((leftResultKey != null || rightResultKey != null) && !kind.isAccumulate())
        {
            return null; // upsert output: a delete is a tombstone of its result key
        }
        final int leftLength = left == null ? 0 : left.length();
        final int rightLength = right == null ? 0 : right.length();
        final ByteBuffer out = ByteBuffer.allocate(BinaryResult.HEADER_BYTES + leftLength + rightLength);
        out.put((byte)kind.ordinal());
        putRow(out, left);
        putRow(out, right);
        out.putLong(timestamp);
        return out.array();
    }

    private static void putRow(final ByteBuffer out, final RowView row)
    {
        if (row == null)
        {
            out.putInt(-1);
            return;
        }
        out.putInt(row.length());
        row.buffer().getBytes(row.offset(), out, out.position(), row.length());
        out.position(out.position() + row.length());
    }

    @Override
    public String toString()
    {
        return "binary";
    }

    /** A key row is written here, then copied out at its length. */
    private static final class KeyScratch
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
        final RowWriter writer = new RowWriter();

        /** @return the key row the writer wrote, copied out at its length; null when it could not be finished. */
        byte[] finish()
        {
            final int length = writer.finish();
            if (length < 0)
            {
                return null;
            }
            final byte[] key = new byte[length];
            buffer.getBytes(0, key);
            return key;
        }
    }
}
