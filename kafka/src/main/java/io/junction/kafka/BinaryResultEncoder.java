package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Side;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

/** {@link ResultEncoder#binary(JoinSpec)}: thread safe (per-thread scratch for the key). */
final class BinaryResultEncoder implements ResultEncoder
{
    private final int[] leftKey;
    private final int[] rightKey;
    private final ThreadLocal<KeyScratch> scratch = ThreadLocal.withInitial(KeyScratch::new);

    BinaryResultEncoder(final JoinSpec spec)
    {
        this.leftKey = indexes(spec, Side.LEFT, spec.leftKey());
        this.rightKey = indexes(spec, Side.RIGHT, spec.rightKey());
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
        final RowView row = left != null ? left : right;
        if (row == null)
        {
            return null;
        }
        final int[] fields = left != null ? leftKey : rightKey;
        final KeyScratch s = scratch.get();
        s.writer.wrap(s.buffer, 0, RowFormat.MAX_ROW_LENGTH, fields.length);
        for (int i = 0; i < fields.length; i++)
        {
            s.writer.putField(i, row, fields[i]);
        }
        final int length = s.writer.finish();
        if (length < 0)
        {
            return null;
        }
        final byte[] key = new byte[length];
        s.buffer.getBytes(0, key);
        return key;
    }

    @Override
    public byte[] value(final ChangeKind kind, final RowView left, final RowView right, final long timestamp)
    {
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
    }
}
