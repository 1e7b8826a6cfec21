package io.junction.join;

import io.junction.api.Side;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.durable.HeapImageDescriptor;
import io.junction.internal.memory.HeapPart;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheelImage;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The partition state persists its parts without asking what they are (docs/ARCHITECTURE.md "State parts and
 * their persistence"): both index kinds go through the same loop over the mapped parts (arena, key index, a
 * side's unique-key index) and the same heap image (the state's fields, the wheel, the operator's part, the end
 * mark), and reopen from it; only an untracked part (the Chronicle Map) keeps the state from staging a cut.
 */
class StatePartsTest
{
    static final int KEYS = 100;
    static final long PART_VALUE = 0x5EED_0000_0000_0021L;

    /** An operator's part that writes one long and counts its saves and loads. */
    /** The heap image of the last cut {@link #stages} took, as its writer reads it. */
    private static byte[] lastCutImage;

    static final class FakePart implements HeapPart
    {
        long value;
        int saves;
        int loads;

        FakePart(final long value)
        {
            this.value = value;
        }

        @Override
        public void save(final ByteBuffer out)
        {
            saves++;
            out.putLong(value);
        }

        @Override
        public void load(final ByteBuffer in)
        {
            loads++;
            value = in.getLong();
        }
    }

    static PartitionState open(final StateConfig config)
    {
        return new PartitionState(config, DurableStateTest.REGULAR, "state-parts-test", BucketDescriptor.LENGTH,
            RowStore.TIMED_BOTH, new JoinCounters(), PartitionState.NO_ROOM, 0);
    }

    static long hash(final int k)
    {
        return (k + 1) * 0x9E37_79B9_7F4A_7C15L;
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void bothIndexKindsPersistAndReopenThroughTheSameParts(final IndexKind kind, @TempDir final Path dir) throws IOException
    {
        final Path directory = dir.resolve("state");
        final StateConfig config = DurableStateTest.CONFIG.withIndex(kind).withStateDirectory(directory);
        final String indexFile = kind == IndexKind.HASH ? DurableState.INDEX : DurableState.CHRONICLE_INDEX;
        final FakePart part = new FakePart(PART_VALUE);
        final int wheelLength;
        try (PartitionState state = open(config))
        {
            state.restore(part);
            assertEquals(0, part.loads, "a fresh state has no image to load");
            state.uniqueKeyIndex(Side.LEFT, 1024);
            state.beginMutation();
            for (int k = 0; k < KEYS; k++)
            {
                assertNotEquals(0, state.index.findOrCreate(hash(k)));
            }
            assertEquals(kind == IndexKind.HASH, stages(state, part, indexFile),
                "only a state whose parts are all tracked stages a cut");
            state.persist(part);
            assertEquals(1, part.saves);
            wheelLength = state.wheel.savedLength();
        }
        for (final String name : new String[] {DurableState.ARENA, indexFile, DurableState.UNIQUE_LEFT})
        {
            assertTrue(Files.size(directory.resolve(name)) > 0, name + " written");
        }
        // The heap image: the state's fields, then its parts in their fixed order, then the end mark.
        final byte[] persisted = Files.readAllBytes(directory.resolve(DurableState.HEAP));
        if (kind == IndexKind.HASH)
        {
            // The cut's image, its head encoded from the cut's copies by the writer's read, is the persist's.
            assertArrayEquals(persisted, lastCutImage, "the cut's heap image is the bytes a persist writes of the same state");
        }
        final ByteBuffer heap = ByteBuffer.wrap(persisted);
        assertEquals(HeapImageDescriptor.MAGIC, heap.getInt(HeapImageDescriptor.MAGIC_OFFSET));
        assertEquals(KEYS, heap.getLong(HeapImageDescriptor.INDEX_SIZE_OFFSET));
        final int wheelAt = HeapImageDescriptor.STATE_PART_LENGTH;
        assertEquals(TimerWheelImage.VERSION, heap.getInt(wheelAt + TimerWheelImage.VERSION_OFFSET), "the wheel first");
        // The wheel's image (version 3) holds its slots in use only: wheelLength is the most it may take.
        assertTrue(TimerWheelImage.length(heap.getInt(wheelAt + TimerWheelImage.USED_SLOTS_OFFSET)) <= wheelLength);
        final int partAt = wheelAt + TimerWheelImage.length(heap.getInt(wheelAt + TimerWheelImage.USED_SLOTS_OFFSET));
        assertEquals(PART_VALUE, heap.getLong(partAt), "then the operator's part");
        assertEquals(HeapImageDescriptor.END, heap.getInt(partAt + Long.BYTES));
        assertEquals(partAt + Long.BYTES + HeapImageDescriptor.END_LENGTH, heap.capacity());

        final FakePart reopened = new FakePart(0);
        try (PartitionState state = open(config))
        {
            state.restore(reopened);
            assertEquals(1, reopened.loads);
            assertEquals(PART_VALUE, reopened.value);
            assertEquals(KEYS, state.index.size());
            for (int k = 0; k < KEYS; k++)
            {
                assertNotEquals(0, state.index.find(hash(k)), "key " + k + " found after the reopen");
            }
            assertEquals(0, state.index.find(hash(KEYS)));
        }
    }

    /** Stages a cut and gives it back unwritten (its marks restored); @return whether the state could stage. */
    private static boolean stages(final PartitionState state, final FakePart part, final String indexFile)
    {
        final StagedCut cut = new StagedCut();
        try
        {
            final int saves = part.saves;
            if (!state.stage(part, cut))
            {
                assertEquals(saves, part.saves, "a refused cut saves nothing");
                return false;
            }
            assertEquals(saves + 1, part.saves);
            assertEquals(3, cut.files(), "the tracked parts: the arena, the index, the left unique-key index");
            assertEquals(DurableState.ARENA, cut.file(0).name());
            assertEquals(indexFile, cut.file(1).name());
            assertEquals(DurableState.UNIQUE_LEFT, cut.file(2).name());
            lastCutImage = Arrays.copyOf(cut.heap(), cut.heapLength());
            state.staged(cut, false);
            part.saves = saves;
            return true;
        }
        finally
        {
            cut.dropPool();
        }
    }
}
