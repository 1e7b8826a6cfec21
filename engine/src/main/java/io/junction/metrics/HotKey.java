package io.junction.metrics;

import io.junction.api.FieldType;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * One key of a partition's hot-key report: a key the partition's heavy-hitters sketch (Space-Saving
 * over the 64-bit key hash, {@code junction.metrics.hotKeys} counters) tracks, with what it cost the
 * partition. Counts are since the key last entered the sketch; the key's true counts lie in
 * {@code [count, count + error]} for each measure ({@link #error}: the weight the key inherited from
 * the key it displaced, 0 for a key tracked since its first row). Immutable.
 */
public final class HotKey
{
    /** The engine's seeded hash of the join key. */
    public final long keyHash;
    /** Bytes of the join key in all; {@link #key()} holds at most the first {@link #SAMPLE_LENGTH}. */
    public final int keyLength;
    /** Rows of this key stored (both sides) since the key entered the sketch. */
    public final long storedRows;
    /** Stored rows that probes of this key visited (compared with the probing row) since it entered the sketch. */
    public final long visitedRows;
    /** Rows of this key live in state (both sides) when the report was taken, -1 when not known. */
    public final long liveRows;
    /** How much {@link #storedRows} and {@link #visitedRows} may each understate the key's true counts. */
    public final long error;
    /** Row events of this key counted since it entered the sketch (inserts and retractions). */
    public final long rowEvents;
    /**
     * The fan-out of those rows added up (docs/SEMANTICS.md 1.5): the stored rows each joined, in a multi-way join
     * the product of the other inputs' rows; divided by {@link #rowEvents}, the key's {@link #amplification()}.
     */
    public final long fanOutRows;
    private final byte[] key;

    /** Bytes of the join key a report keeps. */
    public static final int SAMPLE_LENGTH = 32;

    /**
     * A report entry; built by the operators.
     *
     * @param keyHash     the key hash.
     * @param key         the first bytes of the join key (copied).
     * @param keyLength   the join key's full length in bytes.
     * @param storedRows  rows stored.
     * @param visitedRows rows visited by probes.
     * @param liveRows    live rows, -1 when not known.
     * @param error       the Space-Saving error bound of both counts.
     */
    public HotKey(
        final long keyHash, final byte[] key, final int keyLength, final long storedRows, final long visitedRows,
        final long liveRows, final long error)
    {
        this(keyHash, key, keyLength, storedRows, visitedRows, liveRows, error, 0, 0);
    }

    /**
     * A report entry with the key's amplification; built by the operators.
     *
     * @param keyHash     the key hash.
     * @param key         the first bytes of the join key (copied).
     * @param keyLength   the join key's full length in bytes.
     * @param storedRows  rows stored.
     * @param visitedRows rows visited by probes.
     * @param liveRows    live rows, -1 when not known.
     * @param error       the Space-Saving error bound of both counts.
     * @param rowEvents   row events counted.
     * @param fanOutRows  their fan-out added up.
     */
    public HotKey(
        final long keyHash, final byte[] key, final int keyLength, final long storedRows, final long visitedRows,
        final long liveRows, final long error, final long rowEvents, final long fanOutRows)
    {
        this.rowEvents = rowEvents;
        this.fanOutRows = fanOutRows;
        this.keyHash = keyHash;
        this.key = key.clone();
        this.keyLength = keyLength;
        this.storedRows = storedRows;
        this.visitedRows = visitedRows;
        this.liveRows = liveRows;
        this.error = error;
    }

    /**
     * @return the key's amplification: result lines its rows joined per input row ({@link #fanOutRows} /
     *         {@link #rowEvents}), 0 before any row was counted. A key far above the others is the one a
     *         {@code maxFanOut} budget would refuse first (docs/OPERATIONS.md "Hot keys").
     */
    public double amplification()
    {
        return rowEvents == 0 ? 0 : (double)fanOutRows / rowEvents;
    }

    /** @return a copy of the first bytes of the join key, in the engine's key format (a type tag and payload per field). */
    public byte[] key()
    {
        return key.clone();
    }

    /**
     * @return the join key as text: its fields' values separated by {@code |} (strings quoted), as far
     *         as the sample holds them ({@code ...} marks a cut), or the sample in hex where a field's
     *         type is not one a key holds.
     */
    public String keyText()
    {
        final ByteBuffer bytes = ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN);
        final StringBuilder text = new StringBuilder();
        boolean cut = false;
        while (bytes.hasRemaining())
        {
            if (text.length() > 0)
            {
                text.append('|');
            }
            final byte type = bytes.get();
            if (type == FieldType.LONG && bytes.remaining() >= Long.BYTES)
            {
                text.append(bytes.getLong());
            }
            else if (type == FieldType.DOUBLE && bytes.remaining() >= Double.BYTES)
            {
                text.append(Double.longBitsToDouble(bytes.getLong()));
            }
            else if (type == FieldType.BOOLEAN && bytes.remaining() >= 1)
            {
                text.append(bytes.get() != 0);
            }
            else if (type == FieldType.STRING && bytes.remaining() >= Short.BYTES)
            {
                final int length = bytes.getShort() & 0xFFFF;
                final int present = Math.min(length, bytes.remaining());
                text.append('"').append(new String(key, bytes.position(), present, StandardCharsets.UTF_8));
                bytes.position(bytes.position() + present);
                cut |= present < length;
                text.append(present < length ? "...\"" : "\"");
            }
            else if (type == FieldType.LONG || type == FieldType.DOUBLE || type == FieldType.BOOLEAN || type == FieldType.STRING)
            {
                text.append("...");
                cut = true;
                break;
            }
            else
            {
                return hex();
            }
        }
        if (key.length < keyLength && !cut)
        {
            text.append("...");
        }
        return text.toString();
    }

    private String hex()
    {
        final StringBuilder text = new StringBuilder("0x");
        for (final byte b : key)
        {
            text.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return text.toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof HotKey))
        {
            return false;
        }
        final HotKey other = (HotKey)o;
        return keyHash == other.keyHash && keyLength == other.keyLength && storedRows == other.storedRows &&
            visitedRows == other.visitedRows && liveRows == other.liveRows && error == other.error &&
            rowEvents == other.rowEvents && fanOutRows == other.fanOutRows &&
            Arrays.equals(key, other.key);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(keyHash) * 31 + Long.hashCode(visitedRows);
    }

    /** @return the key and its counts on one line, as the JMX attribute and the tools print them. */
    @Override
    public String toString()
    {
        return "key=" + keyText() + " visited=" + visitedRows + " stored=" + storedRows +
            " live=" + (liveRows < 0 ? "?" : Long.toString(liveRows)) + " error=" + error +
            " hash=" + Long.toHexString(keyHash) + " rows=" + rowEvents +
            " amplification=" + String.format(Locale.ROOT, "%.2f", amplification());
    }
}
