package io.junction.internal.cut;

import org.junit.jupiter.api.Test;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A cut's heap image with a deferred part ({@link StagedCut#heapDeferred}): the writer's view of it is the image as
 * if the part had been written in place, the gap closed; a part that overruns its room fails the image, not the
 * bytes after it.
 */
final class StagedCutHeapImageTest
{
    @Test
    void theDeferredPartIsWrittenIntoItsGapAndTheBytesAfterItFollowIt()
    {
        final StagedCut cut = new StagedCut();
        final byte[] image = new byte[64];
        final ByteBuffer out = cut.heapBuffer("heap.dat", image);
        out.putInt(0x01020304);
        cut.heapDeferred(out.position(), 16, part -> part.putShort((short)0x0A0B).put((byte)0x0C));
        out.position(out.position() + 16);
        out.putInt(0x05060708);
        cut.heapWritten(out.position());
        assertEquals(4 + 3 + 4, cut.heapLength(), "the gap of 16 closed to the 3 bytes the part wrote");
        assertArrayEquals(new byte[] {1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 5, 6, 7, 8}, Arrays.copyOf(cut.heap(), cut.heapLength()));
        assertSame(image, cut.heap(), "the image is the partition's array, not a copy");
        assertEquals(11, cut.heapLength(), "completed once: a second read changes nothing");
    }

    @Test
    void aCutWithNoDeferredPartIsTheImageAsWritten()
    {
        final StagedCut cut = new StagedCut();
        final ByteBuffer out = cut.heapBuffer("heap.dat", new byte[8]);
        out.putLong(42);
        cut.heapWritten(out.position());
        assertEquals(8, cut.heapLength());
        assertEquals(42, ByteBuffer.wrap(cut.heap()).getLong());
    }

    @Test
    void aPartThatOverrunsItsRoomFailsTheImage()
    {
        final StagedCut cut = new StagedCut();
        final ByteBuffer out = cut.heapBuffer("heap.dat", new byte[64]);
        out.putInt(7);
        cut.heapDeferred(4, 2, part -> part.putInt(9));
        out.position(6).putInt(8);
        cut.heapWritten(out.position());
        assertThrows(BufferOverflowException.class, cut::heap);
        assertThrows(BufferOverflowException.class, cut::heapLength, "still pending: never a half-closed image");
        assertThrows(IllegalStateException.class, () -> cut.heapDeferred(0, 1, part -> { }), "one deferred part a cut");
    }

    @Test
    void aGapOutsideTheImageIsRefusedBeforeAnythingIsKept()
    {
        final StagedCut cut = new StagedCut();
        final ByteBuffer out = cut.heapBuffer("heap.dat", new byte[16]);
        assertThrows(IllegalArgumentException.class, () -> cut.heapDeferred(8, 9, part -> { }));
        assertThrows(IllegalArgumentException.class, () -> cut.heapDeferred(-1, 4, part -> { }));
        assertThrows(IllegalArgumentException.class, () -> cut.heapDeferred(0, 4, null));
        out.putInt(3);
        cut.heapWritten(out.position());
        assertEquals(4, cut.heapLength(), "nothing was deferred");
    }
}
