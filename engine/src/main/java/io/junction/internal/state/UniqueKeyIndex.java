package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;
import io.junction.internal.memory.Refs;
import org.agrona.UnsafeApi;
import java.io.IOException;
import java.nio.file.Files;

/**
 * One side's unique-key index of a regular join: from the 64-bit hash of a row's unique-key bytes to
 * the address of its record, so that a retraction or a duplicate check finds the row in O(1) whatever
 * its join key. An open-addressing table of {@code [hash, record]} slots in native memory, as
 * {@link HashKeyIndex}: Fibonacci hashing, linear probing, backward-shift deletion, load factor at
 * most 1/2; a slot whose record is 0 is empty.
 *
 * <p>Several entries may share a hash: distinct unique keys whose hashes collide, or rows that break
 * the caller's promise without its noticing (the caller decides which duplicates it rejects). They lie
 * in one probe run: {@link #find} walks it and asks a {@link Matcher} which of the records with that
 * hash is the one looked for (the caller compares the stored row's bytes), so the index never holds
 * key bytes of its own.
 *
 * <p>The table starts small and doubles when half full, up to twice {@code maxEntries} slots (the
 * side's live rows are capped by the partition's live-row limit, which is what the caller passes):
 * its memory follows the live rows instead of taking the cap's worth up front, while
 * {@link #maxOffHeapBytes} bounds it for the partition's byte budget. Growing is the only allocation,
 * native and amortised: {@link #ensureRoom} does it before a row has any effect, so that
 * {@link #put} cannot fail.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class UniqueKeyIndex implements AutoCloseable, MappedPart
{
    /** The most entries: the table has up to twice as many slots, and its index must fit the shift below. */
    public static final long MAX_ENTRIES = 1L << 30;
    /** Entries the table holds before its first growth, unless the cap is lower. */
    public static final long INITIAL_ENTRIES = 1L << 12;

    private static final int HASH_OFFSET = HashSlots.HASH_OFFSET;
    /** A slot's value: the record's address. */
    private static final int RECORD_OFFSET = HashSlots.VALUE_OFFSET;
    private static final int SLOT = HashSlots.SLOT;

    /** Tells whether a record with the looked-up hash is the one looked up. */
    @FunctionalInterface
    public interface Matcher
    {
        /**
         * @param record a record whose entry has the hash looked up.
         * @return true when it is the record looked up.
         */
        boolean matches(long record);
    }

    private final long maxEntries;
    private final long maxSlots;
    /** The records' base: values are stored relative to it ({@link Refs}). */
    private final long base;
    /** The table's file in durable mode (the table is its whole content), else null. */
    private final MappedFile file;
    /** The durable table's dirty-chunk tracking, else null. */
    private final DirtyChunks dirty;
    private long table;
    private long mask;
    private int shift;
    /** Entries the current table may hold: half its slots, and never more than {@link #maxEntries}. */
    private long threshold;
    private long size;
    private boolean closed;

    /**
     * @param maxEntries the most entries, 1 to {@link #MAX_ENTRIES}.
     */
    public UniqueKeyIndex(final long maxEntries)
    {
        this(maxEntries, INITIAL_ENTRIES);
    }

    /**
     * @param maxEntries     the most entries, 1 to {@link #MAX_ENTRIES}.
     * @param initialEntries entries the table holds before it first grows (at least 1; capped at {@code maxEntries}).
     */
    public UniqueKeyIndex(final long maxEntries, final long initialEntries)
    {
        if (maxEntries < 1 || maxEntries > MAX_ENTRIES)
        {
            throw new IllegalArgumentException("maxEntries must be in [1, 2^30]: " + maxEntries);
        }
        if (initialEntries < 1)
        {
            throw new IllegalArgumentException("initialEntries must be >= 1: " + initialEntries);
        }
        this.maxEntries = maxEntries;
        this.maxSlots = slotsFor(maxEntries);
        final long slots = slotsFor(Math.min(initialEntries, maxEntries));
        this.base = 0;
        this.file = null;
        this.dirty = null;
        this.table = allocateTable(slots);
        useTable(table, slots);
    }

    /**
     * A durable index whose table is a mapped file: a fresh one (empty file) starts at
     * {@link #INITIAL_ENTRIES}; a reopened one is used as it is, its size as saved.
     *
     * @param maxEntries the most entries, 1 to {@link #MAX_ENTRIES}.
     * @param base       the records' base address ({@link Refs}).
     * @param file       the file, mapped over {@link #maxOffHeapBytes(long)}; closed by this index.
     * @param size       live entries of a reopened table, 0 for a fresh one.
     * @throws java.io.IOException when a fresh table cannot be sized.
     */
    public UniqueKeyIndex(final long maxEntries, final long base, final MappedFile file, final long size)
        throws IOException
    {
        if (maxEntries < 1 || maxEntries > MAX_ENTRIES)
        {
            throw new IllegalArgumentException("maxEntries must be in [1, 2^30]: " + maxEntries);
        }
        this.maxEntries = maxEntries;
        this.maxSlots = slotsFor(maxEntries);
        this.base = base;
        this.file = file;
        if (file.length() == 0)
        {
            file.setLength(slotsFor(Math.min(INITIAL_ENTRIES, maxEntries)) * SLOT);
        }
        final long slots = file.length() / SLOT;
        if (Long.bitCount(slots) != 1 || slots > maxSlots || slots * SLOT != file.length())
        {
            throw new IllegalArgumentException(file.path() + " is " + file.length() + " bytes: not a table of at most " + maxSlots + " slots");
        }
        this.dirty = new DirtyChunks(file);
        useTable(file.address(), slots);
        this.size = size;
    }

    /**
     * Checks a reopened durable table before any slot is followed: every occupied slot's record
     * reference lies in the arena's carved memory ({@link NativeArena#holds}), and the occupied slots are
     * as many as the live entries the image recorded. One pass over the table.
     *
     * @param arena the durable arena the records live in.
     * @return what is wrong, or null.
     */
    public String checkReopened(final NativeArena arena)
    {
        final long slots = mask + 1;
        long occupied = 0;
        for (long i = 0; i < slots; i++)
        {
            final long stored = UnsafeApi.getLong(table + i * SLOT + RECORD_OFFSET);
            if (stored == 0)
            {
                continue;
            }
            occupied++;
            if (!arena.holds(stored, RowDescriptor.BASE_HEADER_LENGTH))
            {
                return "slot " + i + " has a record reference " + stored + " outside the arena's carved memory";
            }
        }
        return occupied == size ? null : occupied + " occupied slots, the image recorded " + size + " live entries";
    }

    /** @return the durable table's dirty-chunk tracking, or null in memory. */
    @Override
    public DirtyChunks dirtyChunks()
    {
        return dirty;
    }

    /** Forces a durable table to the device. */
    @Override
    public void force() throws IOException
    {
        if (file != null)
        {
            file.force();
        }
    }

    /** @return the durable table's file name ({@link MappedPart}); null in memory. */
    @Override
    public String fileName()
    {
        return file == null ? null : file.path().getFileName().toString();
    }

    /** @return the durable table file's bytes. */
    @Override
    public long fileLength() throws IOException
    {
        return Files.size(file.path());
    }

    /**
     * @param maxEntries the most entries, as the constructor's.
     * @return the most off-heap bytes an index of this cap takes, for a byte budget set before it is made.
     */
    public static long maxOffHeapBytes(final long maxEntries)
    {
        return slotsFor(Math.min(Math.max(maxEntries, 1), MAX_ENTRIES)) * SLOT;
    }

    /** @return slots for {@code entries} at a load factor of at most 1/2: a power of two. */
    private static long slotsFor(final long entries)
    {
        return Long.highestOneBit(entries * 2 - 1) << 1;
    }

    private static long allocateTable(final long slots)
    {
        final long address = UnsafeApi.allocateMemory(slots * SLOT);
        UnsafeApi.setMemory(address, slots * SLOT, (byte)0);
        return address;
    }

    private void useTable(final long address, final long slots)
    {
        table = address;
        mask = slots - 1;
        shift = 64 - Long.numberOfTrailingZeros(slots);
        threshold = Math.min(slots >>> 1, maxEntries);
    }

    private long home(final long hash)
    {
        return HashSlots.home(hash, shift);
    }

    /**
     * @param hash    the unique key's hash.
     * @param matcher tells which record with that hash is the one looked up.
     * @return the first record in probe order with that hash that the matcher accepts, or 0.
     */
    public long find(final long hash, final Matcher matcher)
    {
        for (long i = home(hash); ; i = (i + 1) & mask)
        {
            final long slot = table + i * SLOT;
            final long stored = UnsafeApi.getLong(slot + RECORD_OFFSET);
            if (stored == 0)
            {
                return 0;
            }
            final long record = base + stored;
            if (UnsafeApi.getLong(slot + HASH_OFFSET) == hash && matcher.matches(record))
            {
                return record;
            }
        }
    }

    /**
     * Makes sure one more {@link #put} fits, growing the table when it is half full.
     *
     * @return false when the index holds {@link #capacity()} entries, or the OS refused the memory to grow.
     */
    public boolean ensureRoom()
    {
        if (size < threshold)
        {
            return true;
        }
        final long slots = mask + 1;
        if (slots >= maxSlots)
        {
            return false;
        }
        if (file != null)
        {
            return growFile(slots);
        }
        final long grown;
        try
        {
            grown = allocateTable(slots << 1);
        }
        catch (final OutOfMemoryError e)
        {
            // The OS refused native memory: the row is rejected as at any other state limit.
            return false;
        }
        final long old = table;
        useTable(grown, slots << 1);
        rehash(old, slots);
        UnsafeApi.freeMemory(old);
        return true;
    }

    /** Entries of the table at {@code from} of {@code slots} slots into the current table, stored references as they are. */
    private void rehash(final long from, final long slots)
    {
        for (long i = 0; i < slots; i++)
        {
            final long slot = from + i * SLOT;
            final long stored = UnsafeApi.getLong(slot + RECORD_OFFSET);
            if (stored != 0)
            {
                insert(UnsafeApi.getLong(slot + HASH_OFFSET), stored);
            }
        }
    }

    /** Doubles a durable table in its file: the old entries are copied aside, the file grown and cleared, and they go back in. */
    private boolean growFile(final long slots)
    {
        final long copy;
        try
        {
            copy = UnsafeApi.allocateMemory(slots * SLOT);
        }
        catch (final OutOfMemoryError e)
        {
            return false;
        }
        try
        {
            if (!file.ensureLength((slots << 1) * SLOT))
            {
                return false;
            }
            dirty.mark(file.address(), (slots << 1) * SLOT);
            UnsafeApi.copyMemory(table, copy, slots * SLOT);
            UnsafeApi.setMemory(table, slots * SLOT, (byte)0);
            useTable(file.address(), slots << 1);
            rehash(copy, slots);
            return true;
        }
        finally
        {
            UnsafeApi.freeMemory(copy);
        }
    }

    /**
     * Adds an entry; {@link #ensureRoom} must have returned true since the last put. Entries with the
     * same hash may exist.
     *
     * @param hash   the unique key's hash.
     * @param record the record holding it, not 0.
     * @throws IllegalStateException when there is no room (a caller that skipped {@link #ensureRoom}).
     */
    public void put(final long hash, final long record)
    {
        if (size >= threshold)
        {
            throw new IllegalStateException("no room: call ensureRoom() before put (size " + size + ")");
        }
        insert(hash, record - base);
        size++;
    }

    /** Inserts a stored reference. */
    private void insert(final long hash, final long record)
    {
        long i = home(hash);
        while (UnsafeApi.getLong(table + i * SLOT + RECORD_OFFSET) != 0)
        {
            i = (i + 1) & mask;
        }
        final long slot = table + i * SLOT;
        if (dirty != null)
        {
            dirty.mark(slot);
        }
        UnsafeApi.putLong(slot + HASH_OFFSET, hash);
        UnsafeApi.putLong(slot + RECORD_OFFSET, record);
    }

    /**
     * Removes the entry of a record.
     *
     * @param hash   the hash the record was put with.
     * @param record the record.
     * @return false when the record has no entry under that hash.
     */
    public boolean remove(final long hash, final long record)
    {
        final long target = record - base;
        long i = home(hash);
        while (true)
        {
            final long slot = table + i * SLOT;
            final long stored = UnsafeApi.getLong(slot + RECORD_OFFSET);
            if (stored == 0)
            {
                return false;
            }
            if (stored == target && UnsafeApi.getLong(slot + HASH_OFFSET) == hash)
            {
                break;
            }
            i = (i + 1) & mask;
        }
        HashSlots.delete(table, mask, shift, i, dirty);
        size--;
        return true;
    }

    /** @return live entries. */
    public long size()
    {
        return size;
    }

    /** @return the most entries. */
    public long capacity()
    {
        return maxEntries;
    }

    /** @return slots of the current table. */
    public long slots()
    {
        return mask + 1;
    }

    /** @return off-heap bytes of the current table. */
    public long offHeapBytes()
    {
        return (mask + 1) * SLOT;
    }

    /** @return off-heap bytes of the table at its largest. */
    public long maxOffHeapBytes()
    {
        return maxSlots * SLOT;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (file != null)
        {
            dirty.close();
            file.close();
            return;
        }
        UnsafeApi.freeMemory(table);
    }
}
