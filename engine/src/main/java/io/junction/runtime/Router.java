package io.junction.runtime;

import io.junction.api.JoinSpec;
import io.junction.api.MultiJoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * A publisher's routing of rows: the join key of a row of input {@code 0..n-1}, its hash and the partition
 * the hash picks. The binary kinds are inputs 0 ({@link Side#LEFT}) and 1 ({@link Side#RIGHT}); a multi-way
 * join's inputs are its spec's (their common key: equal keys of every input reach one partition). Owned by
 * the publisher's thread, as the publisher: the key is extracted into one reused buffer.
 */
final class Router
{
    /** The key per input: the binary kinds' two, or a multi-way join's inputs. */
    private final KeyExtractor[] keys;
    /** A multi-way join's input count; 0 for the binary kinds, whose rows come by side. */
    private final int multiInputs;
    private final UnsafeBuffer key;
    private final long hashSeed;
    private final int partitions;

    Router(final JoinSpec spec, final int maxKeyLength, final long hashSeed, final int partitions)
    {
        if (spec.multi() == null)
        {
            final CompiledJoin compiled = CompiledJoin.of(spec);
            this.keys = new KeyExtractor[] {compiled.key(Side.LEFT), compiled.key(Side.RIGHT)};
            this.multiInputs = 0;
        }
        else
        {
            // A multi-way spec's binary view is its inputs 0 and 1 (JoinSpec.multi), so their keys serve both.
            this.keys = inputKeys(spec.multi());
            this.multiInputs = keys.length;
        }
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(maxKeyLength));
        this.hashSeed = hashSeed;
        this.partitions = partitions;
    }

    /** @return whether {@code input} is an input of a multi-way join (false for every input of a binary kind). */
    boolean isMultiInput(final int input)
    {
        return input >= 0 && input < multiInputs;
    }

    /** @return a multi-way join's input count; 0 for the binary kinds. */
    int multiInputs()
    {
        return multiInputs;
    }

    /**
     * @param input the row's input (a binary kind's side ordinal).
     * @param row   the row, validated.
     * @return the hash of its join key; 0 for a null (or too long) key, which matches nothing, so any
     *         partition is right.
     */
    long hash(final int input, final RowView row)
    {
        final int keyLength = keys[input].extract(row, key, 0, key.capacity());
        return keyLength < 0 ? 0 : KeyHash.hash(hashSeed, key, 0, keyLength);
    }

    /** @return the partition a key hash picks. */
    int partition(final long hash)
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
