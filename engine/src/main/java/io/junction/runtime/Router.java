package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.MultiJoinSpec;
import io.junction.api.OutputMode;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * A publisher's routing of rows that passed its checks into a partition's ring: the join key of a row of
 * input {@code 0..n-1}, its hash and the partition the hash picks (or the caller names), then, in this
 * order, the partition's room ({@link PartitionRoom}), the idleness and generated watermarks that must
 * reach the partition before the row ({@link IdlenessBroadcast}, {@link GeneratedWatermarks}), the claim
 * and fill of the row's slot ({@link RingWriter}), and what the row sets off (a generated watermark, the
 * other input's idleness, an interval checkpoint). The binary kinds are inputs 0 ({@link Side#LEFT}) and 1
 * ({@link Side#RIGHT}); a multi-way join's inputs are its spec's (their common key: equal keys of every
 * input reach one partition), and its rows pass by the room, idleness and generators, which are the binary
 * kinds'. Owned by the publisher's thread, as the publisher: the key is extracted into one reused buffer.
 */
final class Router
{
    /** A publish's target when the key hash picks the partition. */
    static final int BY_KEY = -1;

    /** The key per input: the binary kinds' two, or a multi-way join's inputs. */
    private final KeyExtractor[] keys;
    /** A multi-way join's input count; 0 for the binary kinds, whose rows come by side. */
    private final int multiInputs;
    private final UnsafeBuffer key;
    /**
     * Upsert output only: the join-key fields, per side, that lie in every declared unique key, which pick the
     * partition instead of the whole join key (see {@link #routeKeys}); null when the whole join key routes.
     */
    private final KeyExtractor[] routeKeys;
    /** Upsert output whose unique keys hold no join-key field: every row goes to partition 0. */
    private final boolean onePartition;
    private final long hashSeed;
    private final int partitions;
    private final RingWriter rings;
    private final GeneratedWatermarks watermarks;
    /** Null when the idle timeout is off. */
    private final IdlenessBroadcast idleness;
    private final PartitionRoom room;
    /** Null when the engine takes no interval checkpoints. */
    private final IntervalCheckpointTrigger checkpoints;

    Router(final JoinSpec spec, final int maxKeyLength, final long hashSeed, final RingWriter rings,
        final GeneratedWatermarks watermarks, final IdlenessBroadcast idleness, final PartitionRoom room,
        final IntervalCheckpointTrigger checkpoints)
    {
        if (spec.multi() == null)
        {
            final CompiledJoin compiled = CompiledJoin.of(spec);
            this.keys = new KeyExtractor[] {compiled.key(Side.LEFT), compiled.key(Side.RIGHT)};
            this.multiInputs = 0;
            this.routeKeys = spec.output() == OutputMode.UPSERT ? routeKeys(compiled) : null;
        }
        else
        {
            // A multi-way spec's binary view is its inputs 0 and 1 (JoinSpec.multi), so their keys serve both.
            this.keys = inputKeys(spec.multi());
            this.multiInputs = keys.length;
            this.routeKeys = null;
        }
        this.onePartition = routeKeys != null && routeKeys[0].arity() == 0;
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(maxKeyLength));
        this.hashSeed = hashSeed;
        this.partitions = rings.partitions();
        this.rings = rings;
        this.watermarks = watermarks;
        this.idleness = idleness;
        this.room = room;
        this.checkpoints = checkpoints;
    }

    /**
     * Routes a row of a binary kind, checked, into its partition's ring.
     *
     * @param view   wraps the row, validated against its side's schema.
     * @param target the partition the caller names, or {@link #BY_KEY}.
     * @return as {@link Publisher#publish(int, Side, ChangeKind, DirectBuffer, int, int, long, long, long)}
     *         after the checks.
     */
    int publish(
        final Side side, final ChangeKind kind, final RowView view, final DirectBuffer row, final int offset,
        final int length, final long ts, final long step, final long ingestNanos, final boolean wait, final int target)
    {
        if (watermarks.hasPending())
        {
            watermarks.sendPendingWatermarks(wait);
        }
        final long hash = hash(side.ordinal(), view);
        final int partition = target != BY_KEY ? target : routeKeys == null ? partition(hash) : routed(side.ordinal(), view);
        // Before the limit: a dead partition's last metrics may say it is full, and it never makes room.
        if (rings.isFailed(partition))
        {
            return Publisher.PARTITION_FAILED;
        }
        final int admitted = room.admit(partition, kind, side, step, wait);
        if (admitted != Publisher.PUBLISHED)
        {
            return admitted;
        }
        final long now = idleness == null ? 0 : idleness.now();
        if (idleness != null && !idleness.beforeRow(side.ordinal(), now, step, wait))
        {
            // Every partition must hear that the input is back (any watermark of it says so) before its
            // row: the caller retries the row.
            return rings.isClosed() ? Publisher.CLOSED : Publisher.BACK_PRESSURED;
        }
        if (watermarks.hasPending() && !watermarks.sendPendingWatermarks(partition))
        {
            // A watermark generated before this row still waits for room in its ring: the row goes after it.
            return Publisher.BACK_PRESSURED;
        }
        final long sequence = rings.claim(partition, wait);
        if (sequence < 0)
        {
            return (int)sequence;
        }
        rings.fillRow(partition, sequence, RingSlot.ROW, (byte)side.ordinal(), kind, ts, step, ingestNanos, hash, row, offset,
            length);
        watermarks.onRow(side.ordinal(), ts, step, wait);
        if (idleness != null)
        {
            idleness.markIdle(side.other().ordinal(), now, step, wait);
        }
        if (checkpoints != null)
        {
            checkpoints.afterRow(step);
        }
        return Publisher.PUBLISHED;
    }

    /**
     * Routes a row of a multi-way join's input, checked, into its partition's ring; waits for room.
     *
     * @param view   wraps the row, validated.
     * @param target the partition the caller names, or {@link #BY_KEY}.
     * @return as {@link Publisher#publishInput(int, ChangeKind, DirectBuffer, int, int, long, long, long)}
     *         after the checks.
     */
    int publishInput(
        final int input, final ChangeKind kind, final RowView view, final DirectBuffer row, final int offset,
        final int length, final long ts, final long step, final long ingestNanos, final int target)
    {
        final long hash = hash(input, view);
        final int partition = target == BY_KEY ? partition(hash) : target;
        if (rings.isFailed(partition))
        {
            return Publisher.PARTITION_FAILED;
        }
        final long sequence = rings.claim(partition, true);
        if (sequence < 0)
        {
            return (int)sequence;
        }
        rings.fillRow(partition, sequence, RingSlot.INPUT_ROW, (byte)input, kind, ts, step, ingestNanos, hash, row, offset,
            length);
        if (checkpoints != null)
        {
            checkpoints.afterRow(step);
        }
        return Publisher.PUBLISHED;
    }

    /** @return whether {@code input} is an input of a multi-way join (false for every input of a binary kind). */
    boolean isMultiInput(final int input)
    {
        return input >= 0 && input < multiInputs;
    }

    /**
     * @param input the row's input (a binary kind's side ordinal).
     * @param row   the row, validated.
     * @return the hash of its join key; 0 for a null (or too long) key, which matches nothing, so any
     *         partition is right.
     */
    private long hash(final int input, final RowView row)
    {
        final int keyLength = keys[input].extract(row, key, 0, key.capacity());
        return keyLength < 0 ? 0 : KeyHash.hash(hashSeed, key, 0, keyLength);
    }

    /**
     * Upsert output refuses a row whose unique key is live in any row of its side (docs/SEMANTICS.md 4.4), so
     * every row of one unique key must reach one partition, whatever its join key. The join-key fields that lie
     * in the unique keys of both sides do that and still bring every matching pair together (equal join keys
     * are equal in those fields); when there are none, one partition holds the whole join.
     *
     * @return the routing key of each side (an empty one when no join-key field qualifies), or null when it is
     *         the whole join key.
     */
    private static KeyExtractor[] routeKeys(final CompiledJoin compiled)
    {
        final KeyExtractor left = compiled.key(Side.LEFT);
        final KeyExtractor right = compiled.key(Side.RIGHT);
        final int[] leftFields = new int[left.arity()];
        final int[] rightFields = new int[right.arity()];
        int count = 0;
        for (int i = 0; i < left.arity(); i++)
        {
            if (inUniqueKey(compiled.uniqueKey(Side.LEFT), left.field(i)) &&
                inUniqueKey(compiled.uniqueKey(Side.RIGHT), right.field(i)))
            {
                leftFields[count] = left.field(i);
                rightFields[count] = right.field(i);
                count++;
            }
        }
        if (count == left.arity())
        {
            return null;
        }
        return new KeyExtractor[] {new KeyExtractor(Arrays.copyOf(leftFields, count)),
            new KeyExtractor(Arrays.copyOf(rightFields, count))};
    }

    /** @return whether the field is in the unique key; a side that declares none constrains nothing. */
    private static boolean inUniqueKey(final KeyExtractor uniqueKey, final int field)
    {
        if (uniqueKey == null)
        {
            return true;
        }
        for (int i = 0; i < uniqueKey.arity(); i++)
        {
            if (uniqueKey.field(i) == field)
            {
                return true;
            }
        }
        return false;
    }

    /** @return the partition an upsert join's routing key picks ({@link #routeKeys}); 0 for a null one. */
    private int routed(final int input, final RowView row)
    {
        if (onePartition)
        {
            return 0;
        }
        final int keyLength = routeKeys[input].extract(row, key, 0, key.capacity());
        return keyLength < 0 ? 0 : partition(KeyHash.hash(hashSeed, key, 0, keyLength));
    }

    /** @return the partition a key hash picks. */
    private int partition(final long hash)
    {
        return KeyHash.partition(hash, partitions);
    }

    private static KeyExtractor[] inputKeys(final MultiJoinSpec multi)
    {
        final KeyExtractor[] extractors = new KeyExtractor[multi.inputs()];
        for (int i = 0; i < extractors.length; i++)
        {
            final List<String> fields = multi.key(i);
            final int[] indices = new int[fields.size()];
            for (int f = 0; f < indices.length; f++)
            {
                indices[f] = multi.schema(i).indexOf(fields.get(f));
            }
            extractors[i] = new KeyExtractor(indices);
        }
        return extractors;
    }
}
