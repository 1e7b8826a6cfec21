package io.junction.internal.cut;

import io.junction.internal.state.MappedFile;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fixture of the cell stress tests: a mapped state file of one chunk ({@link #BYTES} bytes, so one cell) that
 * holds {@link #OLD} in every byte, tracked by its {@link DirtyChunks}, with a copy-on-write cut of it taken
 * ({@link DirtyChunks#freeze}): its one cell frozen, as the partition thread leaves it when it hands the cut to the
 * checkpoint writer. A test's two actors then play the partition (a write path: mark, then store) and the writer
 * (capture, or abandon), the protocol's two threads, with the real code.
 *
 * <p>A fixture costs a file, a mapping and a side buffer of 1 MiB; jcstress makes a state per sample, so a fixture
 * is reused: {@link #take()} one, and the test's arbiter, having read the outcome, {@link #recycle()}s it (the cut
 * installed, the file written back to {@link #OLD}, a new cut frozen), as the partition does between two cuts.
 */
final class FrozenCell
{
    /** The file's length: one chunk, one cell. */
    static final int BYTES = 64;
    /** Every byte of the file at the cut. */
    static final byte OLD = 0x11;
    /** Every byte the partition's write stores. */
    static final byte NEW = 0x22;

    /** {@link #summary}: every byte {@link #OLD}. */
    static final int ALL_OLD = 1;
    /** {@link #summary}: every byte {@link #NEW}. */
    static final int ALL_NEW = 2;
    /** {@link #summary}: anything else (a torn image, or zeros). */
    static final int MIXED = 3;

    private static final ConcurrentLinkedQueue<FrozenCell> FREE = new ConcurrentLinkedQueue<>();
    private static final AtomicLong FILES = new AtomicLong();
    private static final Path DIR;
    private static final Field MAP;

    static
    {
        try
        {
            DIR = Files.createTempDirectory("junction-stress");
            DIR.toFile().deleteOnExit();
            // The cell's state is read only after both actors (the arbiter): through the tracking's private field.
            MAP = DirtyChunks.class.getDeclaredField("map");
            MAP.setAccessible(true);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new IllegalStateException(e);
        }
    }

    private final MappedFile file;
    private final DirtyChunks dirty;
    private final StagedCut cut = new StagedCut();
    private final long cell;
    /** The writer's capture buffer (one per fixture: the actors of several samples run at once). */
    private final ByteBuffer into = ByteBuffer.allocateDirect(BYTES);
    private CutFile frozen;

    private FrozenCell()
    {
        try
        {
            final Path path = DIR.resolve("cell-" + FILES.incrementAndGet());
            file = MappedFile.create(path, BYTES, BYTES);
            // The mapping outlives the name; nothing is left behind.
            Files.delete(path);
            dirty = new DirtyChunks(file);
            cell = MAP.getLong(dirty);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        catch (final IllegalAccessException e)
        {
            throw new IllegalStateException(e);
        }
        // One side buffer: the partition's copy of the cell, reused by every cut of this fixture.
        cut.maxSideBuffers(1);
        freeze();
    }

    /** @return a fixture whose one cell is frozen in a cut in flight. */
    static FrozenCell take()
    {
        final FrozenCell free = FREE.poll();
        return free != null ? free : new FrozenCell();
    }

    /** As the partition thread between two cuts: every byte written back to {@link #OLD}, then a cut taken. */
    private void freeze()
    {
        write(OLD);
        cut.reset();
        dirty.collect();
        frozen = cut.addFile();
        dirty.freeze(frozen, cut);
        if (frozen.staged() != 1 || cellState() != DirtyChunks.FROZEN)
        {
            throw new IllegalStateException("the cut did not freeze the fixture's cell: state " + cellState());
        }
    }

    /** Arbiter, after reading the outcome: the cut installed (its cell thawed), a new one frozen, the fixture free. */
    void recycle()
    {
        final ByteBuffer side = frozen.side(0);
        if (side != null)
        {
            // The pool hands this buffer to the next cut: zeros again, so that sideHoldsOld() sees only that cut's copy.
            UnsafeApi.setMemory(BufferUtil.address(side), BYTES, (byte)0);
        }
        dirty.install(frozen);
        freeze();
        FREE.offer(this);
    }

    /** The partition thread's write path ({@link DirtyChunks#mark(long, long)}, then the stores): every byte {@code value}. */
    void write(final byte value)
    {
        final long address = file.address();
        dirty.mark(address, BYTES);
        final long word = (value & 0xFFL) * 0x0101010101010101L;
        for (int at = 0; at < BYTES; at += Long.BYTES)
        {
            UnsafeApi.putLong(address + at, word);
        }
    }

    /** The writer thread's capture of the cut's chunk ({@code CutFile.captureChunk}): its image's {@link #summary}. */
    int capture()
    {
        final ByteBuffer image = frozen.captureChunk(0, into);
        if (image.limit() != BYTES)
        {
            return MIXED;
        }
        return summary(BufferUtil.address(image));
    }

    /** The writer thread after a failed write ({@link StagedCut#abandon()}): every cell still frozen made dirty. */
    void abandon()
    {
        cut.abandon();
    }

    /** @return whether the partition copied the cell's old bytes into the cut's side buffer (1) or not (0). */
    int sideHoldsOld()
    {
        final ByteBuffer side = frozen.side(0);
        return side != null && summary(BufferUtil.address(side)) == ALL_OLD ? 1 : 0;
    }

    /** @return the cell's state byte ({@link DirtyChunks#DIRTY}, ...). */
    int cellState()
    {
        return UnsafeApi.getByteVolatile(null, cell);
    }

    /** @return the live file's {@link #summary}. */
    int live()
    {
        return summary(file.address());
    }

    private static int summary(final long address)
    {
        boolean old = true;
        boolean written = true;
        for (int at = 0; at < BYTES; at++)
        {
            final byte b = UnsafeApi.getByte(address + at);
            old &= b == OLD;
            written &= b == NEW;
        }
        return old ? ALL_OLD : written ? ALL_NEW : MIXED;
    }
}
