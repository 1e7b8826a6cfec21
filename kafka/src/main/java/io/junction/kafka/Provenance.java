package io.junction.kafka;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Where an output record came from, as its headers carry it: the input partition, the input event that
 * caused it (its side and offset) and its ordinal among that event's results.
 * <pre>
 *   junction.partition  i32, big-endian   the input partition p (of both input topics)
 *   junction.side       UTF-8             "L" or "R": a left or right record caused it;
 *                                         "WL" or "WR": a watermark (or an idleness mark) of partition p
 *                                         caused it, advanced by that left or right record;
 *                                         a multi-way join's input name (SEMANTICS 10) when a record of
 *                                         that input caused it, "W:" and the name for its watermark
 *   junction.offset     i64, big-endian   that record's offset in its topic's partition p
 *   junction.seq        i32, big-endian   the result's ordinal among those of the same (side, offset)
 *                                         in partition p, from 0
 *   junction.kind       UTF-8             the result's change kind: "+I", "-U", "+U" or "-D"
 * </pre>
 * Within one run of a partition, (partition, side, offset, seq) names each result once. After a failover
 * the partition's new owner replays its input from the last checkpoint, and the results of the replayed
 * events are written again: with the same provenance when the replay reads both inputs in the same
 * interleaving, else the same result may come with another provenance (the two inputs are read
 * concurrently). A consumer that must see each result once therefore de-duplicates by the result's content
 * (its rows and kind) where rows are unique, by provenance otherwise. Immutable.
 */
public final class Provenance
{
    /** Header: the input partition, an i32. */
    public static final String PARTITION = "junction.partition";
    /** Header: the causing event's side, UTF-8 {@code L}, {@code R}, {@code WL} or {@code WR}. */
    public static final String SIDE = "junction.side";
    /** Prefix of {@link #SIDE} for a multi-way join's output that an input's watermark (or idleness mark) caused. */
    public static final String MULTI_WATERMARK_PREFIX = "W:";
    /** Header: the causing record's offset, an i64. */
    public static final String OFFSET = "junction.offset";
    /** Header: the result's ordinal among those of the same cause, an i32. */
    public static final String SEQ = "junction.seq";
    /** Header: the result's change kind, UTF-8. */
    public static final String KIND = "junction.kind";

    private final int partition;
    private final String side;
    private final long offset;
    private final int seq;
    private final String kind;

    /**
     * @param partition the input partition.
     * @param side      {@code L}, {@code R}, {@code WL} or {@code WR}.
     * @param offset    the causing record's offset.
     * @param seq       the result's ordinal among those of the same cause.
     * @param kind      the change kind's short string.
     */
    public Provenance(final int partition, final String side, final long offset, final int seq, final String kind)
    {
        this.partition = partition;
        this.side = side;
        this.offset = offset;
        this.seq = seq;
        this.kind = kind;
    }

    /**
     * @param headers an output record's headers.
     * @return their provenance.
     * @throws IllegalArgumentException when a header is missing or has the wrong size.
     */
    public static Provenance of(final Headers headers)
    {
        return new Provenance(
            ByteBuffer.wrap(bytes(headers, PARTITION, Integer.BYTES)).getInt(),
            new String(bytes(headers, SIDE, -1), StandardCharsets.UTF_8),
            ByteBuffer.wrap(bytes(headers, OFFSET, Long.BYTES)).getLong(),
            ByteBuffer.wrap(bytes(headers, SEQ, Integer.BYTES)).getInt(),
            new String(bytes(headers, KIND, -1), StandardCharsets.UTF_8));
    }

    private static byte[] bytes(final Headers headers, final String name, final int size)
    {
        final Header header = headers.lastHeader(name);
        if (header == null || header.value() == null)
        {
            throw new IllegalArgumentException("no header " + name);
        }
        if (size >= 0 && header.value().length != size)
        {
            throw new IllegalArgumentException("header " + name + " has " + header.value().length + " bytes, not " + size);
        }
        return header.value();
    }

    /** @return the input partition. */
    public int partition()
    {
        return partition;
    }

    /** @return {@code L}, {@code R}, {@code WL} or {@code WR}. */
    public String side()
    {
        return side;
    }

    /**
     * @return whether a watermark or an idleness mark caused the result (the side is {@code WL}, {@code WR}, or
     *         starts with {@code W:} for a multi-way join's input).
     */
    public boolean watermarkCaused()
    {
        return side.equals("WL") || side.equals("WR") || side.startsWith(MULTI_WATERMARK_PREFIX);
    }

    /** @return the causing input: {@link #side()} without a watermark's {@code W} or {@code W:}. */
    public String input()
    {
        if (side.startsWith(MULTI_WATERMARK_PREFIX))
        {
            return side.substring(MULTI_WATERMARK_PREFIX.length());
        }
        return side.equals("WL") || side.equals("WR") ? side.substring(1) : side;
    }

    /** @return the causing record's offset in its topic's partition. */
    public long offset()
    {
        return offset;
    }

    /** @return the result's ordinal among those of the same cause. */
    public int seq()
    {
        return seq;
    }

    /** @return the change kind's short string. */
    public String kind()
    {
        return kind;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Provenance other && partition == other.partition && offset == other.offset &&
            seq == other.seq && side.equals(other.side) && kind.equals(other.kind);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(partition, side, offset, seq, kind);
    }

    @Override
    public String toString()
    {
        return "p" + partition + " " + side + "@" + offset + "#" + seq + " " + kind;
    }
}
