package io.junction.internal.cut;

import io.junction.internal.state.Chunks;
import io.junction.internal.state.MappedFile;
import io.junction.internal.state.NativeArena;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static io.junction.internal.state.Chunks.chunkLength;
import static io.junction.internal.state.Chunks.chunks;

/**
 * Dirty-chunk tracking of one mapped state file ({@link MappedFile}), docs/DURABILITY.md "What a
 * checkpoint costs" and "Copy-on-write cuts": a state byte per cell of the mapping (clean, dirty, frozen,
 * capturing, copying), set by every write path before it stores into the file's memory ({@link #mark(long)},
 * or {@link NativeArena#written(long, long)} for the arena, whose map lives in its mapped header), and, per {@link Chunks#CHUNK_BYTES} chunk of the file, the CRC-32C, the
 * CRC-32 and a zero flag as of the last persist. A cell is a chunk (or, for a very large mapping, a
 * power-of-two multiple of one; in check mode a page when the map has room).
 *
 * <p>A persist ({@link #collect()} then {@link #sum(ByteBuffer)}) reads and checksums only the chunks
 * some write marked since the persist before, plus the chunk that held the file's old end when its
 * length changed; a chunk past the old end that no write marked is the zeros the file grew by
 * ({@link MappedFile} grows by writing zeros) and is recorded as zero without being read. Every other
 * chunk keeps the sums recorded before: the cost of a persist is the state that changed, not the state
 * that exists (an empty 1M-key index costs nothing).
 *
 * <pre>
 *   write path:  mark(address), then store into the mapping   a dirty cell: one load and a branch (cell = address &gt;&gt;&gt; shift);
 *                                                           a frozen one is copied for the cut first
 *   persist:     collect()   the marked chunks, the map cleared
 *                (the arena writes its header, the files are forced)
 *                sum()       CRC-32C, CRC-32 and zero flag of the collected chunks only
 *   checkpoint:  collect()   as a persist (partition thread)
 *                freeze()    the collected chunks' cells frozen (no buffer taken, nothing copied), every other
 *                            chunk's sums copied (stage(): the bytes copied instead); the background writer
 *                            captures, sums and writes the frozen chunks one by one (StagedCut.drain)
 *                install()   the writer's sums taken back once its write is done (restage() after a failed one:
 *                            the staged chunks marked again), before the next collect()
 * </pre>
 *
 * <p>With the system property {@value #CHECK_PROP_NAME} set to {@code true} (the test suites set it),
 * cells are pages where the map has room, and every {@link #collect()} first compares each cell no write
 * marked with a copy taken at the persist before, failing with the file and byte when one changed: a
 * write path that forgot its mark is found by any durable test, never by a lost checkpoint.
 *
 * <p>Owned by the partition thread, except the frozen cells of a cut in flight: the writer moves those
 * (and only those) under the CAS protocol (frozen to capturing to clean), and the partition's marks move
 * them only by CAS too (frozen to copying to dirty).
 */
public final class DirtyChunks implements AutoCloseable
{
    /** System property: when {@code true}, every persist checks the cells no write marked. */
    public static final String CHECK_PROP_NAME = "junction.state.checkDirtyChunks";
    private static final boolean CHECK = Boolean.getBoolean(CHECK_PROP_NAME);
    /** log2 of the smallest cell: a page in check mode (so that the check sees each write), a chunk otherwise. */
    private static final int MIN_CELL_SHIFT = CHECK ? 12 : Chunks.CHUNK_SHIFT;
    /** The most cells of a map of its own (a table's): 16M, a MiB each up to 16 TiB. */
    private static final long MAX_OWN_CELLS = 1L << 24;
    /** System property: {@code false} turns copy-on-write cuts off (stage A: the cut copies its dirty chunks). */
    public static final String COPY_ON_WRITE_PROP_NAME = "junction.checkpoint.copyOnWrite";
    private static final boolean COPY_ON_WRITE = !"false".equals(System.getProperty(COPY_ON_WRITE_PROP_NAME));
    /** Cell state: unchanged since the last cut (or persist). */
    static final byte CLEAN = 0;
    /** Cell state: written since the last cut; the fast path of a mark finds this and does nothing. */
    public static final byte DIRTY = 1;
    /** Cell state: held by the cut in flight, not yet captured by the writer nor copied by the partition. */
    static final byte FROZEN = 2;
    /** Cell state: the writer is copying it from the live mapping (a write waits, for that one cell). */
    static final byte CAPTURING = 3;
    /** Cell state: the partition is copying it to the cut's side buffer before its first store into it. */
    static final byte COPYING = 4;
    /** The files (arenas: their maps are in their own mapped headers) with cells frozen, for {@link NativeArena#written}. */
    private static volatile DirtyChunks[] frozenFiles = new DirtyChunks[0];
    /**
     * Test seam: when set, run on the partition thread as a write starts to wait for the writer (a cell being
     * captured, or a frozen cell with no side buffer left). Null outside tests.
     */
    static volatile Runnable onCellWait;
    private final String name;
    private final MappedFile file;
    /** Address of the cell map: one byte per cell of the reservation. */
    private final long map;
    private final long cells;
    private final int cellShift;
    private final boolean ownsMap;
    /** Every chunk's sums as of the last persist or cut (the partition thread's). */
    private final ChunkSummer sums = new ChunkSummer();
    /** The chunks {@link #collect()} found written, for {@link #sum}. */
    private boolean[] collected = new boolean[0];
    /** Check mode ({@value #CHECK_PROP_NAME}): the copy of the file as of the last sum (or seed); else null. */
    private final DirtyCheck check;
    private boolean closed;
    /** Byte ranges (offset, length pairs) that an image holds as zeros (the arena's dirty flag). */
    private long[] imageZeros = new long[0];
    /** {@link #imageZeroRanges()}' array for a map in the file's header, or null until built (partition thread). */
    private long[] imageZeroRanges;
    /** The cut file whose cells are frozen in this map (partition thread), or null. */
    private CutFile frozenIn;
    /** Its cut (the side buffers' pool), or null. */
    private StagedCut frozenCut;

    /**
     * Tracking with a cell map of its own (off-heap, freed by {@link #close()}) for a file whose content
     * is all zeros (fresh) or as {@link #seed} then says.
     *
     * @param file the mapped file.
     */
    public DirtyChunks(final MappedFile file)
    {
        this.name = file.path().getFileName().toString();
        this.file = file;
        this.cellShift = cellShift(file.reserved(), MAX_OWN_CELLS);
        this.cells = cellsOf(file.reserved(), cellShift);
        this.map = UnsafeApi.allocateMemory(cells);
        UnsafeApi.setMemory(map, cells, (byte)0);
        this.ownsMap = true;
        this.check = CHECK ? new DirtyCheck(name, file, map, cells, cellShift, true) : null;
        seedZeros();
    }

    /**
     * Tracking whose cell map lives at an address of its owner's (the arena's, in its mapped header).
     *
     * @param file      the mapped file.
     * @param map       the map's address, {@link #cellsOf(long, int)} bytes, zeros when fresh.
     * @param cellShift log2 of a cell's bytes, from {@link #cellShift(long, long)}.
     */
    public DirtyChunks(final MappedFile file, final long map, final int cellShift)
    {
        this.name = file.path().getFileName().toString();
        this.file = file;
        this.cellShift = cellShift;
        this.cells = cellsOf(file.reserved(), cellShift);
        this.map = map;
        this.ownsMap = false;
        this.check = CHECK ? new DirtyCheck(name, file, map, cells, cellShift, false) : null;
        seedZeros();
    }

    /**
     * @param reserve  bytes of the mapping.
     * @param maxCells the most cells the map may have.
     * @return the smallest cell shift (a chunk, or a page in check mode, at least) that needs at most
     *         {@code maxCells}.
     */
    public static int cellShift(final long reserve, final long maxCells)
    {
        int shift = MIN_CELL_SHIFT;
        while (cellsOf(reserve, shift) > maxCells)
        {
            shift++;
        }
        return shift;
    }

    /** @return the cells of a map over {@code reserve} bytes at {@code cellShift}. */
    public static long cellsOf(final long reserve, final int cellShift)
    {
        return Math.max(1, (reserve + (1L << cellShift) - 1) >>> cellShift);
    }

    /** @return the file's name. */
    public String name()
    {
        return name;
    }

    /**
     * Marks the cell holding {@code address} (in the file's mapping) as written.
     *
     * @param address an address of the file's mapping.
     */
    public void mark(final long address)
    {
        final long cell = map + ((address - file.address()) >>> cellShift);
        if (UnsafeApi.getByte(cell) != DIRTY)
        {
            markSlow(this, file.address(), cell);
        }
    }

    /**
     * Marks every cell of {@code [address, address + length)} as written.
     *
     * @param address an address of the file's mapping.
     * @param length  bytes, &gt; 0.
     */
    public void mark(final long address, final long length)
    {
        final long first = (address - file.address()) >>> cellShift;
        final long last = (address + length - 1 - file.address()) >>> cellShift;
        for (long cell = first; cell <= last; cell++)
        {
            if (UnsafeApi.getByte(map + cell) != DIRTY)
            {
                markSlow(this, file.address(), map + cell);
            }
        }
    }

    /**
     * The slow path of a mark, before the store (partition thread): a clean cell becomes dirty; a frozen one
     * (the cut in flight holds it, the writer has not captured it) is first copied to a side buffer of the cut
     * (CAS frozen to copying, copy, dirty); a cell the writer is capturing is waited for (that one cell's copy).
     * When the cut's side buffers are all taken (or no direct memory is left) the partition asks the writer
     * for the cell's chunk ({@link StagedCut#want}: the writer takes it next, after the chunk in hand) and waits
     * until it is captured, or until a failed write makes it dirty ({@link StagedCut#abandon()}); counted in
     * {@link StagedCut#sideWaits()}.
     *
     * @param owner       the tracking, or null (an arena's static mark: looked up among the frozen files).
     * @param fileAddress the file's mapping.
     * @param cell        the cell's address in the map.
     */
    public static void markSlow(final DirtyChunks owner, final long fileAddress, final long cell)
    {
        boolean waiting = false;
        boolean sideWait = false;
        while (true)
        {
            final byte state = UnsafeApi.getByteVolatile(null, cell);
            if (state == DIRTY)
            {
                return;
            }
            if (state == CLEAN)
            {
                // The writer never touches a clean cell.
                UnsafeApi.putByte(cell, DIRTY);
                return;
            }
            if (state == FROZEN)
            {
                final DirtyChunks frozen = owner != null ? owner : frozenAt(fileAddress);
                if (frozen == null || frozen.frozenIn == null)
                {
                    throw new IllegalStateException("a frozen dirty-map cell without its cut at " + (cell - fileAddress));
                }
                final int copied = frozen.copyFrozen(cell);
                if (copied == COPIED)
                {
                    return;
                }
                if (copied == NO_SIDE && !sideWait)
                {
                    sideWait = true;
                    frozen.frozenCut.sideWaited();
                }
            }
            if (!waiting)
            {
                waiting = true;
                final Runnable hook = onCellWait;
                if (hook != null)
                {
                    hook.run();
                }
            }
            Thread.onSpinWait();
        }
    }

    private static DirtyChunks frozenAt(final long fileAddress)
    {
        for (final DirtyChunks dirty : frozenFiles)
        {
            if (dirty.file.address() == fileAddress)
            {
                return dirty;
            }
        }
        return null;
    }

    private static synchronized void register(final DirtyChunks dirty)
    {
        final DirtyChunks[] was = frozenFiles;
        final DirtyChunks[] now = Arrays.copyOf(was, was.length + 1);
        now[was.length] = dirty;
        frozenFiles = now;
    }

    private static synchronized void unregister(final DirtyChunks dirty)
    {
        final DirtyChunks[] was = frozenFiles;
        int n = 0;
        final DirtyChunks[] now = new DirtyChunks[was.length];
        for (final DirtyChunks d : was)
        {
            if (d != dirty)
            {
                now[n++] = d;
            }
        }
        frozenFiles = Arrays.copyOf(now, n);
    }

    /** {@link #copyFrozen}: the cell was copied to its side buffer and is dirty. */
    private static final int COPIED = 0;
    /** {@link #copyFrozen}: the cell changed state meanwhile (retry). */
    private static final int RETRY = 1;
    /** {@link #copyFrozen}: no side buffer: the writer was asked for the chunk (wait, retry). */
    private static final int NO_SIDE = 2;

    /** Partition thread: copies frozen {@code cell} into its chunk's side buffer ({@link #COPIED}, or why not). */
    private int copyFrozen(final long cell)
    {
        final CutFile in = frozenIn;
        final long index = cell - map;
        final int chunk = (int)((index << cellShift) >>> Chunks.CHUNK_SHIFT);
        final int i = in.indexOf(chunk);
        ByteBuffer side = in.side(i);
        if (side == null)
        {
            side = frozenCut.takeSide();
            if (side == null)
            {
                // No side buffer: the writer takes this chunk next; the caller waits for its capture.
                frozenCut.want(in, i);
                return NO_SIDE;
            }
            in.side(i, side);
        }
        if (!UnsafeApi.compareAndSetByte(null, cell, FROZEN, COPYING))
        {
            return RETRY;
        }
        final long from = index << cellShift;
        final long offset = from - ((long)chunk << Chunks.CHUNK_SHIFT);
        final long length = Math.min(1L << cellShift, in.length() - from);
        UnsafeApi.copyMemory(file.address() + from, BufferUtil.address(side) + offset, length);
        UnsafeApi.putByteVolatile(null, cell, DIRTY);
        return COPIED;
    }

    /**
     * Partition thread, once the writer reported (or when the cut was never handed over): every cell still
     * frozen becomes dirty (the next cut takes it), and the map forgets the cut.
     */
    private void thaw()
    {
        final CutFile in = frozenIn;
        if (in == null)
        {
            return;
        }
        for (int i = 0; i < in.staged(); i++)
        {
            final int c = in.stagedChunk(i);
            final long first = ((long)c << Chunks.CHUNK_SHIFT) >>> cellShift;
            final long end = first + ((in.chunkLengthOf(i) + (1L << cellShift) - 1) >>> cellShift);
            for (long cell = first; cell < end; cell++)
            {
                if (UnsafeApi.getByteVolatile(null, map + cell) == FROZEN)
                {
                    UnsafeApi.compareAndSetByte(null, map + cell, FROZEN, DIRTY);
                }
            }
        }
        frozenIn = null;
        frozenCut = null;
        if (!ownsMap)
        {
            unregister(this);
        }
    }

    /**
     * Adds a byte range that an image of the file holds as zeros whatever the live file holds (the arena's
     * dirty flag, set in the live file while a copy-on-write cut is written).
     *
     * @param offset the range's offset in the file.
     * @param length its bytes.
     */
    /** @return the ranges an image holds as zeros: {@link #zeroInImage}'s and a map in the file's own header. */
    private long[] imageZeroRanges()
    {
        if (ownsMap)
        {
            return imageZeros;
        }
        if (imageZeroRanges == null)
        {
            // Built once (and again after zeroInImage): a cut takes no array. Read only, by the writer too.
            final long[] zeros = Arrays.copyOf(imageZeros, imageZeros.length + 2);
            zeros[imageZeros.length] = map - file.address();
            zeros[imageZeros.length + 1] = cells;
            imageZeroRanges = zeros;
        }
        return imageZeroRanges;
    }

    public void zeroInImage(final long offset, final long length)
    {
        imageZeroRanges = null;
        imageZeros = Arrays.copyOf(imageZeros, imageZeros.length + 2);
        imageZeros[imageZeros.length - 2] = offset;
        imageZeros[imageZeros.length - 1] = length;
    }

    /**
     * A reopened file whose sums are not known (a marker without them): every chunk is taken as written,
     * so that the next persist sums the whole file once.
     */
    public void markAll()
    {
        thaw();
        if (file.length() > 0)
        {
            mark(file.address(), file.length());
        }
    }

    /** A fresh file: every chunk holds zeros (the file was created by writing zeros). */
    private void seedZeros()
    {
        sums.seedZeros(file.length());
        if (CHECK)
        {
            check.copy();
        }
    }

    /**
     * Takes a reopened file's sums as verified against its marker (nothing is dirty).
     *
     * @param zeros    per chunk, whether it holds zeros only.
     * @param crc32cs  per chunk, its CRC-32C.
     * @param crc32s   per chunk, its CRC-32.
     */
    public void seed(final boolean[] zeros, final int[] crc32cs, final int[] crc32s)
    {
        sums.seed(name, file.length(), zeros, crc32cs, crc32s);
        // The map is left as it is: zeros in an image a persist left (a mark there only sums its chunk again).
        if (CHECK)
        {
            check.copy();
        }
    }

    /** @return whether any cell of chunk {@code c} is marked. */
    private boolean marked(final int c)
    {
        if (cellShift >= Chunks.CHUNK_SHIFT)
        {
            return UnsafeApi.getByte(map + (c >>> (cellShift - Chunks.CHUNK_SHIFT))) != 0;
        }
        final int perChunk = 1 << (Chunks.CHUNK_SHIFT - cellShift);
        final long first = (long)c * perChunk;
        final long end = Math.min(cells, first + perChunk);
        for (long cell = first; cell < end; cell++)
        {
            if (UnsafeApi.getByte(map + cell) != 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The first step of a persist, after the last write before it: takes the marked chunks (and the
     * chunk that held the old end when the length changed) for {@link #sum} and clears the map, so that
     * a map in the file's own header (the arena's) is zeros in the image the persist leaves.
     *
     * @throws IllegalStateException in check mode ({@value #CHECK_PROP_NAME}) when an unmarked cell changed, or
     *         while a copy-on-write cut of this file is in flight (not yet installed or restaged).
     */
    public void collect()
    {
        if (frozenIn != null)
        {
            throw new IllegalStateException(name + " has a cut in flight: install or restage it once its write reported");
        }
        final long length = file.length();
        final int chunks = chunks(length);
        if (CHECK)
        {
            check.unmarkedCells(length, sums.summedLength);
        }
        final int old = sums.zero.length;
        if (chunks != old)
        {
            sums.zero = Arrays.copyOf(sums.zero, chunks);
            sums.crc32c = Arrays.copyOf(sums.crc32c, chunks);
            sums.crc32 = Arrays.copyOf(sums.crc32, chunks);
            for (int c = old; c < chunks; c++)
            {
                // The file grew by writing zeros: a chunk no write marked holds them.
                sums.zero[c] = true;
            }
        }
        if (collected.length < chunks)
        {
            collected = new boolean[chunks];
        }
        // The chunk that held the old end (when partial) or now holds the new end changed length.
        final int resized = length == sums.summedLength ? -1 : (int)(Math.min(length, sums.summedLength) >>> Chunks.CHUNK_SHIFT);
        for (int c = 0; c < chunks; c++)
        {
            collected[c] = c == resized || marked(c);
        }
        UnsafeApi.setMemory(map, cells, (byte)0);
        for (int c = old; c < chunks; c++)
        {
            if (!collected[c])
            {
                sums.setZero(c, chunkLength(length, c));
            }
        }
    }

    /**
     * Adds chunk {@code c} to what {@link #collect()} took (a write after it: the arena's header).
     *
     * @param c a chunk of the file.
     */
    public void collectToo(final int c)
    {
        collected[c] = true;
    }

    /**
     * The second step of a persist, once the collected chunks hold their final bytes: reads and
     * checksums them, from the mapping, and nothing else ({@link ChunkSummer#sum}).
     *
     * @param scratch a direct buffer of at least {@link Chunks#CHUNK_BYTES}.
     */
    public void sum(final ByteBuffer scratch)
    {
        sums.sum(file, collected, scratch);
        if (CHECK)
        {
            check.copy();
        }
    }

    /** @return bytes of the chunks the last {@link #collect()} took (and {@link #collectToo} added), not yet summed or staged. */
    public long collectedBytes()
    {
        final long length = file.length();
        final int chunks = chunks(length);
        long bytes = 0;
        for (int c = 0; c < chunks; c++)
        {
            if (collected[c])
            {
                bytes += chunkLength(length, c);
            }
        }
        return bytes;
    }

    /**
     * Gives back what the last {@link #collect()} took without summing or staging it: every collected chunk
     * is marked again, so that the next collect (a persist's) takes it.
     */
    public void uncollect()
    {
        final long length = file.length();
        final int chunks = chunks(length);
        for (int c = 0; c < chunks; c++)
        {
            if (collected[c])
            {
                collected[c] = false;
                mark(file.address() + ((long)c << Chunks.CHUNK_SHIFT), chunkLength(length, c));
            }
        }
    }

    /**
     * The second step of a checkpoint's cut, in place of {@link #sum} (after {@link #collect()} and, for the
     * arena, its header written): copies the bytes of every collected chunk from the mapping into buffers
     * of the cut's pool and the sums of every other chunk (as of the persist or cut before) into
     * {@code out}, reading nothing else. The staged chunks' sums are the writer's to compute
     * ({@link StagedCut#drain}); until they are handed back ({@link #install}, or {@link #restage} when
     * the write failed) this tracking's sums of those chunks are stale, so the owner waits for the write
     * before its next {@link #collect()}.
     *
     * @param out the file's part of the cut.
     * @param cut the cut (its pool).
     */
    public void stage(final CutFile out, final StagedCut cut)
    {
        final long length = file.length();
        final int chunks = chunks(length);
        out.begin(name, length, sums.zero, sums.crc32c, sums.crc32);
        final long[] zeros = imageZeroRanges();
        long bytes = 0;
        int count = 0;
        for (int c = 0; c < chunks; c++)
        {
            if (!collected[c])
            {
                continue;
            }
            // Taken before the flag is cleared: a buffer that cannot be had leaves the chunk collected.
            final ByteBuffer buffer = cut.take();
            collected[c] = false;
            final int chunkLength = chunkLength(length, c);
            UnsafeApi.copyMemory(file.address() + ((long)c << Chunks.CHUNK_SHIFT), BufferUtil.address(buffer), chunkLength);
            CutFile.zeroRanges(BufferUtil.address(buffer), (long)c << Chunks.CHUNK_SHIFT, chunkLength, zeros);
            buffer.limit(chunkLength);
            out.add(c, chunkLength, buffer);
            bytes += chunkLength;
            count++;
        }
        cut.staged(bytes, true);
        sums.summedLength = length;
        sums.bytesSummed = bytes;
        sums.chunksSummed = count;
        if (CHECK)
        {
            check.copy();
        }
    }

    /**
     * A copy-on-write cut, in place of {@link #stage} (docs/DURABILITY.md "Copy-on-write cuts"): records every
     * collected chunk in the cut and freezes its cells, copying nothing and taking no buffer; the writer
     * captures them from the live mapping chunk by chunk as it writes ({@link StagedCut#drain}), and a write to
     * a frozen cell before that copies the cell to a side buffer first ({@link #mark}). A file whose cells are
     * larger than a chunk, with {@value #COPY_ON_WRITE_PROP_NAME}{@code =false}, or for a cut that
     * {@link StagedCut#copiesAtCut()}, is staged by copy instead ({@link #copiesAtCut}).
     * Partition thread; {@link #install} or {@link #restage} must follow once the writer reported.
     *
     * @param out the file's part of the cut.
     * @param cut the cut (its pool).
     */
    public void freeze(final CutFile out, final StagedCut cut)
    {
        if (copiesAtCut(cut))
        {
            stage(out, cut);
            return;
        }
        final long length = file.length();
        final int chunks = chunks(length);
        out.begin(name, length, sums.zero, sums.crc32c, sums.crc32);
        long bytes = 0;
        int count = 0;
        for (int c = 0; c < chunks; c++)
        {
            if (!collected[c])
            {
                continue;
            }
            collected[c] = false;
            final int chunkLength = chunkLength(length, c);
            out.add(c, chunkLength, null);
            bytes += chunkLength;
            count++;
        }
        out.frozen(file.address(), map, cellShift, imageZeroRanges());
        for (int i = 0; i < out.staged(); i++)
        {
            final long first = ((long)out.stagedChunk(i) << Chunks.CHUNK_SHIFT) >>> cellShift;
            final long end = first + ((out.chunkLengthOf(i) + (1L << cellShift) - 1) >>> cellShift);
            // One call per chunk, not a store per cell: the cut's code runs in the interpreter for its first minutes.
            UnsafeApi.setMemory(map + first, end - first, FROZEN);
        }
        if (count > 0)
        {
            frozenIn = out;
            frozenCut = cut;
            if (!ownsMap)
            {
                register(this);
            }
        }
        cut.staged(bytes, false);
        sums.summedLength = length;
        sums.bytesSummed = bytes;
        sums.chunksSummed = count;
        if (CHECK)
        {
            check.copy();
        }
    }

    /**
     * @param cut the cut about to be taken.
     * @return whether {@link #freeze} copies this file's dirty chunks at the cut (stage A: copy-on-write off,
     *         cells larger than a chunk, or the cut's {@link StagedCut#copyAtCut(boolean)}), so that the cut
     *         needs a pool buffer per dirty chunk ({@value StagedCut#MAX_STAGED_PROP_NAME} bounds it).
     */
    public boolean copiesAtCut(final StagedCut cut)
    {
        return !COPY_ON_WRITE || cellShift > Chunks.CHUNK_SHIFT || cut.copiesAtCut();
    }

    /**
     * The background write of a cut succeeded: takes the sums it computed of the chunks {@link #stage}
     * staged (the others are this tracking's already).
     *
     * @param in this file's part of that cut, summed.
     */
    public void install(final CutFile in)
    {
        thaw();
        in.copyStagedSums(sums.zero, sums.crc32c, sums.crc32);
    }

    /**
     * The background write of a cut failed: marks the chunks it staged again, so that the next cut (or
     * persist) takes them, since the previous checkpoint, which the next one links to, does not hold them.
     *
     * @param in this file's part of that cut.
     */
    public void restage(final CutFile in)
    {
        thaw();
        final long length = Math.min(in.length(), file.length());
        for (int i = 0; i < in.staged(); i++)
        {
            final int c = in.stagedChunk(i);
            final long at = (long)c << Chunks.CHUNK_SHIFT;
            if (at < length)
            {
                mark(file.address() + at, Math.min(Chunks.CHUNK_BYTES, length - at));
            }
        }
    }

    /** @return whether check mode ({@value #CHECK_PROP_NAME}) is on in this JVM. */
    public static boolean checking()
    {
        return CHECK;
    }

    /** @return bytes the last {@link #sum} read and checksummed. */
    public long bytesSummed()
    {
        return sums.bytesSummed;
    }

    /** @return chunks the last {@link #sum} read and checksummed. */
    public int chunksSummed()
    {
        return sums.chunksSummed;
    }

    /** @return the file's length as of the last sum. */
    public long summedLength()
    {
        return sums.summedLength;
    }

    /** @return per chunk, whether it held zeros only at the last sum (a copy). */
    public boolean[] zeros()
    {
        return sums.zero.clone();
    }

    /** @return per chunk, its CRC-32C at the last sum (a copy). */
    public int[] crc32c()
    {
        return sums.crc32c.clone();
    }

    /** @return per chunk, its CRC-32 at the last sum (a copy). */
    public int[] crc32()
    {
        return sums.crc32.clone();
    }

    /** Frees a map of its own (and a check-mode copy); idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (frozenIn != null && !ownsMap)
        {
            unregister(this);
        }
        frozenIn = null;
        frozenCut = null;
        if (ownsMap)
        {
            UnsafeApi.freeMemory(map);
        }
        if (check != null)
        {
            check.close();
        }
    }
}
