package io.junction.join;

import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.memory.HeapPart;
import io.junction.internal.metrics.HotKeySketch;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.cut.DirtyChunks;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.state.UniqueKeyIndex;
import io.junction.internal.time.TimerWheel;
import io.junction.metrics.HotKey;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * The stored state of one operator in one partition: the key index, the row store, the timer wheel
 * of stored rows, the bucket of rows that can never match, and the limits on them (live rows, bytes,
 * the index's capacity) with the {@link FullPolicy}'s way of making room. An operator holds one and
 * runs its own algorithm over it; this class knows no join semantics beyond keeping rows.
 *
 * <p>Durable mode ({@link StateConfig#stateDirectory()}): the records, row groups and buckets live in
 * one mapped arena file, the key index in a mapped table file (or a persisted Chronicle Map), every
 * reference between them stored as an offset from the arena's address, and {@link #persist} writes the
 * heap-held rest ({@link DurableState} names the files and the rules for reopening them). A reopened
 * state maps the files and reads their headers and heap.dat: nothing that grows with the rows.
 *
 * <p>What a durable state asks of its owner, the {@link OperatorDriver} (which does it for every kind): the
 * spec and a layout name at construction; {@link #config} (the stored hash seed) for its {@link JoinPredicate};
 * references read through the store ({@link RowStore#rows}, {@link RowStore#record}, {@link RowStore#bucketOf})
 * and {@link #base} for any {@link TimerWheel} of its own; {@link #beginMutation()} first in every event
 * method; its own fields (counters, watermarks, extra wheels) in a {@link HeapPart}, read back by
 * {@link #restore} last in its constructor, written by {@link #persist} and {@link #close(HeapPart)}. The
 * algorithms store rows through {@link #admit} and free them through {@link #retire} or {@link #expire}.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class PartitionState implements AutoCloseable
{
    /** Frees room for one row by the {@link FullPolicy}, for an operator that can evict rows early. */
    interface RoomMaker
    {
        /** @return false when nothing could be freed. */
        boolean makeRoom();
    }

    /** For operators that never make room: a row that does not fit is rejected. */
    static final RoomMaker NO_ROOM = () -> false;

    /** Returned by {@link #admit} for a row that does not fit: no record (0). */
    static final long REFUSED = 0;

    /** The configuration in effect: the given one with the key-hash seed a durable state was built with. */
    final StateConfig config;
    /** The address stored references are relative to: the arena file's in durable mode, 0 in memory. */
    final long base;
    final KeyIndex index;
    final RowStore store;
    /** Stored rows by deadline: interval and TTL expiry, lone window rows. */
    final TimerWheel wheel;
    /** Holds rows that can never match, so that their retractions can be checked; never in the index. */
    final long unmatchableBucket;
    final FullPolicy fullPolicy;
    private final long maxLiveRows;
    private final JoinCounters counters;
    private final RoomMaker roomMaker;
    /** The heavy hitters among the keys, by rows stored and rows visited by probes ({@link #countKey}). */
    private final HotKeySketch hotKeys;
    /** A key's live rows for the hot-key report: by default its bucket's two counts ({@link #liveRowsOfKey(LongUnaryOperator)}). */
    private LongUnaryOperator liveRowsOfKey = this::liveRows;
    private boolean closed;
    /** Keeps what {@link #prefetch} and {@link #touch} read, so that the JIT cannot drop the reads. */
    private long touched;
    /** Durable mode: the state directory, its files, heap image and cuts; null in memory. */
    private final PartitionFiles files;
    /** Each side's unique-key index, when the operator has one ({@link #uniqueKeyIndex}). */
    private final UniqueKeyIndex[] uniqueKeys = new UniqueKeyIndex[2];
    /**
     * Set by {@link #admit}: the bucket of the row it stored last. A field rather than a returned holder object:
     * a reusable holder would be overwritten by the next admit just as this is, and would cost each admit one
     * more object to load through, for the same single-threaded hand-back.
     */
    long admittedBucket;
    /** How many times the {@link RoomMaker} has made room: {@link #admit} finds a given bucket again after it did. */
    private long roomsMade;

    /**
     * Allocates the state, in memory or, when the configuration names a state directory, in files there
     * (created, or reopened as the last {@link #persist} left them).
     *
     * @param config            the sizing and limits.
     * @param spec              the join, for its fingerprint (durable mode; may be null in memory).
     * @param operator          the operator's name, part of the durable layout.
     * @param bucketLength      bytes of a bucket in the key index ({@link BucketDescriptor#LENGTH} or an operator's extension of it).
     * @param timedSides        {@link RowStore#TIMED_LEFT} and {@link RowStore#TIMED_RIGHT}: the sides whose rows may be
     *                          linked into a timer wheel, whose records alone carry timer links (part of the durable layout).
     * @param counters          the operator's counters: this counts expired rows and reports the state's size.
     * @param roomMaker         called by {@link #reserve} while the state is at a limit.
     * @param otherOffHeapBytes the most off-heap bytes of the operator's own structures beyond the key
     *                          index (a regular join's unique-key indexes), taken from the rows' byte budget.
     * @throws DurableStateException    when the state directory holds state this must not reopen.
     * @throws IllegalArgumentException when the byte limit leaves no room for rows beside the key index.
     */
    PartitionState(
        final StateConfig config, final JoinSpec spec, final String operator, final int bucketLength,
        final int timedSides, final JoinCounters counters, final RoomMaker roomMaker, final long otherOffHeapBytes)
    {
        this.counters = counters;
        this.roomMaker = roomMaker;
        this.hotKeys = new HotKeySketch(config.hotKeys());
        this.maxLiveRows = config.maxLiveRows();
        this.fullPolicy = config.fullPolicy();
        if (config.stateDirectory() != null)
        {
            if (spec == null)
            {
                // Without a spec there is no fingerprint to hold the files to, nor a say in how the operator's fields persist.
                throw new UnsupportedOperationException("this operator keeps its state in memory only: durable state (" +
                    "StateConfig.stateDirectory " + config.stateDirectory() + ") is supported by the operators built on the durable constructor");
            }
            this.files = PartitionFiles.open(config, spec, operator, bucketLength, timedSides, otherOffHeapBytes, uniqueKeys);
            this.config = config.withHashSeed(files.durable.hashSeed);
            this.index = files.files.index();
            this.store = files.files.store();
            this.base = store.base();
            this.unmatchableBucket = files.unmatchableBucket;
            this.wheel = files.wheel;
            return;
        }
        this.config = config;
        this.files = null;
        // Every key in the index holds at least one live row, so the live-row limit caps the keys too.
        this.index = KeyIndex.create(indexKind(config), indexCapacity(config), bucketLength, config.preallocate());
        final long rowBytes = config.maxStateBytes() - index.maxOffHeapBytes() - otherOffHeapBytes;
        if (rowBytes < config.chunkSize())
        {
            index.close();
            throw noRoom(config, index.capacity(), index.maxOffHeapBytes(), otherOffHeapBytes);
        }
        this.wheel = new TimerWheel(config.tickShift(), config.wheelSlots(),
            RowDescriptor.TIMER_PREV_OFFSET, RowDescriptor.TIMER_NEXT_OFFSET, RowDescriptor.DEADLINE_OFFSET);
        RowStore rows = null;
        try
        {
            rows = new RowStore(config.chunkSize(), Math.min(config.preallocate(), rowBytes), rowBytes, timedSides);
            this.unmatchableBucket = UnsafeApi.allocateMemory(bucketLength);
        }
        catch (final RuntimeException | Error e)
        {
            // Nothing of a state that failed to start stays taken from the OS.
            if (rows != null)
            {
                rows.close();
            }
            index.close();
            throw e;
        }
        this.store = rows;
        this.base = 0;
        BucketDescriptor.init(0, unmatchableBucket, 0);
    }

    static long indexCapacity(final StateConfig config)
    {
        return Math.min(config.maxKeys(), config.maxLiveRows());
    }

    static IllegalArgumentException noRoom(
        final StateConfig config, final long keys, final long indexBytes, final long otherOffHeapBytes)
    {
        return new IllegalArgumentException(StateConfig.MAX_BYTES_PROP_NAME + " = " + config.maxStateBytes() +
            " leaves no room for rows: the key index for " + keys + " keys takes " +
            indexBytes + " bytes" + (otherOffHeapBytes == 0 ? "" : ", the unique-key indexes " +
            otherOffHeapBytes + " bytes (" + StateConfig.MAX_LIVE_ROWS_PROP_NAME + " = " + config.maxLiveRows() + ")") +
            "; raise it or lower " + StateConfig.MAX_KEYS_PROP_NAME +
            (otherOffHeapBytes == 0 ? "" : " or " + StateConfig.MAX_LIVE_ROWS_PROP_NAME));
    }

    /** The configuration's index kind as the state's ({@link KeyIndex.Kind}: internal.state may not import join). */
    static KeyIndex.Kind indexKind(final StateConfig config)
    {
        return config.indexKind() == IndexKind.CHRONICLE ? KeyIndex.Kind.CHRONICLE : KeyIndex.Kind.HASH;
    }

    /** @return true when the state lives in files. */
    boolean durable()
    {
        return files != null;
    }

    /** @return bytes read from the state directory's files to reopen it (0 when fresh or in memory). */
    long bytesReadToOpen()
    {
        return files == null ? 0 : files.durable.bytesRead();
    }

    /** @return bytes of the mapped files read to verify their chunk checksums at reopen (0 when fresh or in memory). */
    long bytesVerifiedToOpen()
    {
        return files == null ? 0 : files.durable.bytesVerified();
    }

    /**
     * Reads the operator's part of a reopened state's heap.dat; nothing when fresh or in memory. The
     * operator calls it last in its constructor. Durable mode, fresh or reopened: it also makes what each cut
     * reuses (the heap image's array, the wheel's copy), so that no cut's pause allocates them.
     */
    void restore(final HeapPart part)
    {
        if (files != null)
        {
            files.restore(part);
        }
    }

    /**
     * A side's unique-key index: in memory, or in a file of the state directory (reopened at its saved
     * size). Closed with the state.
     *
     * @param side     the side.
     * @param capacity the most entries.
     * @return the index.
     */
    UniqueKeyIndex uniqueKeyIndex(final Side side, final long capacity)
    {
        final int i = side.ordinal();
        if (files == null)
        {
            uniqueKeys[i] = new UniqueKeyIndex(capacity);
            return uniqueKeys[i];
        }
        return files.openUniqueKeys(side, capacity);
    }

    /**
     * Called before an event changes anything: the first change after a clean image (a reopen or a
     * persist) marks the arena dirty and removes the marker, durably, so that a process (or machine) that
     * dies from here on leaves state that is refused on reopen. A field test otherwise.
     */
    void beginMutation()
    {
        if (files != null)
        {
            files.beginMutation();
        }
    }

    /**
     * Makes the state directory a complete, consistent image: removes the last marker, writes the
     * arena's header, forces the mapped files, writes heap.dat (the state's part, then the operator's)
     * and the marker last.
     *
     * @param part the operator's heap-held state.
     * @throws IOException           when a file cannot be written or synced.
     * @throws IllegalStateException in memory mode, or once closed.
     */
    void persist(final HeapPart part) throws IOException
    {
        if (files == null)
        {
            throw new IllegalStateException("persist() needs a state directory (StateConfig.withStateDirectory)");
        }
        if (closed)
        {
            throw new IllegalStateException("the state is closed");
        }
        files.persist(part);
    }

    /**
     * A checkpoint's cut, in place of {@link #persist} (docs/DURABILITY.md "What runs where", "Copy-on-write
     * cuts"): collects every tracked mapped file's dirty chunks (the arena's header written first, as a persist
     * does, and its dirty flag set before the freeze) and freezes just those chunks for {@code cut}
     * ({@link DirtyChunks#freeze}: no buffer taken, nothing copied or allocated however many chunks changed;
     * the writer captures them chunk by chunk as it writes, {@link StagedCut#drain}), with the heap-held
     * image; nothing is
     * forced, summed or written to the state directory, and the marker stays as it was (absent once the state
     * changed). The background writer sums, writes and fsyncs the checkpoint from the cut alone; the state's
     * files are the live ones again as soon as this returns. The sums come back through {@link #staged}, which
     * the owner must call before the next cut, persist or close.
     *
     * @param part the operator's heap-held state.
     * @param cut  an empty cut owned by the caller.
     * @return false (nothing staged, every mark kept) when the state cannot be staged: a Chronicle Map index,
     *         whose writes are not tracked, or, for a file copied at the cut (stage A, {@link DirtyChunks#copiesAtCut}),
     *         dirty chunks beyond the cut's {@link StagedCut#maxStagedBytes()} or the direct memory left (counted,
     *         {@link StagedCut#synchronousFallbacks()}): the caller persists and copies the directory instead.
     *         A copy-on-write cut is never refused for its size.
     * @throws IllegalStateException in memory mode, or once closed.
     */
    boolean stage(final HeapPart part, final StagedCut cut)
    {
        if (files == null)
        {
            throw new IllegalStateException("a checkpoint needs a state directory (StateConfig.withStateDirectory)");
        }
        if (closed)
        {
            throw new IllegalStateException("the state is closed");
        }
        return files.stage(part, cut);
    }

    /**
     * The background write of the last cut ({@link #stage}) ended: on success its chunks' sums become the
     * tracking's; on failure the chunks it staged are marked again (the checkpoint the next one links to does
     * not hold them), and every chunk when the write found one it could not link ({@link StagedCut#needsFullCut()}).
     *
     * @param cut       the cut, back from the writer.
     * @param succeeded whether its checkpoint was committed.
     */
    void staged(final StagedCut cut, final boolean succeeded)
    {
        if (closed)
        {
            return;
        }
        files.staged(cut, succeeded);
    }

    /** @return bytes of the mapped files the last {@link #persist} read and checksummed (its dirty chunks only). */
    long lastPersistBytesSummed()
    {
        return files == null ? 0 : files.lastPersistBytesSummed;
    }

    /**
     * The operator's close: in durable mode persists first ({@link #persist}), then releases
     * everything; idempotent.
     *
     * @throws UncheckedIOException when the persist failed (everything is released all the same).
     */
    void close(final HeapPart part)
    {
        if (closed)
        {
            return;
        }
        IOException failure = null;
        if (files != null)
        {
            try
            {
                persist(part);
            }
            catch (final IOException e)
            {
                failure = e;
            }
        }
        close();
        if (failure != null)
        {
            throw new UncheckedIOException("cannot persist the state in " + files.durable.directory + ": " + failure.getMessage(), failure);
        }
    }

    /**
     * Takes the memory of one record for the row before the row has any effect, so that a row that
     * does not fit is rejected whole (making room first, as the policy allows).
     *
     * @param side      the side it will be stored on (its records' timer links are the side's).
     * @param keyLength bytes of the key.
     * @param row       the row.
     * @return an unlinked record for {@link RowStore#append(long, long, Side, org.agrona.DirectBuffer, int, int, RowView, long)},
     *         or 0 when the state is at a limit.
     */
    long reserve(final Side side, final int keyLength, final RowView row)
    {
        while (true)
        {
            if (store.liveRows() < maxLiveRows)
            {
                final long record = store.allocate(side.ordinal(), keyLength, row.length());
                if (record != 0)
                {
                    return record;
                }
            }
            if (!makeRoom())
            {
                return 0;
            }
        }
    }

    /** Asks the {@link RoomMaker} for room, counting each time it made some ({@link #roomsMade}). */
    private boolean makeRoom()
    {
        if (roomMaker.makeRoom())
        {
            roomsMade++;
            return true;
        }
        return false;
    }

    /**
     * Admits a row into state, telling rather than asking: everything the row needs (its record, its key's
     * bucket, a slot in its group) is taken before it has any effect, and either the row is stored and
     * counted for the hot-key report, or it is refused whole and nothing is changed. The one admission
     * path of the operators on the {@link OperatorDriver} ({@link OperatorParts#admit} dead-letters a refusal).
     * <pre>
     * reserve a record (making room as the policy allows)    none      -&gt; REFUSED
     * the key's bucket: the given one, else find or create   index full (after making room) -&gt; record freed, REFUSED
     * a slot in the bucket's group of {@code side}           no memory -&gt; record freed, bucket freed if empty, REFUSED
     * room in the side's unique-key index, when it has one   none      -&gt; record freed, bucket freed if empty, REFUSED
     * count the key, append the record                       -&gt; the record; its bucket in {@link #admittedBucket}
     * </pre>
     * A given bucket is used unless making room removed rows on the way (it may have gone with them): then the
     * key's bucket is found again. The {@link #unmatchableBucket} is always used as given, and its rows are not
     * counted for the hot-key report.
     *
     * @param side      the input the row is stored for.
     * @param bucket    the key's bucket when the caller has found it already (or {@link KeyIndex#FULL} when its
     *                  find-or-create found the index full: refused at once), else 0.
     * @param hash      the key's hash (for the index when {@code bucket} is 0).
     * @param key       the key bytes, from offset 0.
     * @param keyLength the key's length.
     * @param row       the row.
     * @param ts        its event time.
     * @return the row's record, or {@link #REFUSED} when the state is at a limit.
     */
    long admit(
        final Side side, final long bucket, final long hash, final DirectBuffer key, final int keyLength,
        final RowView row, final long ts)
    {
        final long roomsBefore = roomsMade;
        final long reserved = reserve(side, keyLength, row);
        if (reserved == 0)
        {
            return REFUSED;
        }
        // A given bucket is used unless making room removed rows on the way (it may have gone with them); a
        // full index (KeyIndex.FULL, found by the caller) is asked again once room is made.
        final long given = bucket != KeyIndex.FULL && (bucket == unmatchableBucket || roomsMade == roomsBefore) ? bucket : 0;
        return admit(reserved, side, given, hash, key, keyLength, row, ts);
    }

    /**
     * As {@link #admit(Side, long, long, DirectBuffer, int, RowView, long)} with the row's record already taken by
     * {@link #reserve} (a row stored in several windows takes all its records before it has any effect): on a
     * refusal the record is freed and nothing else is changed.
     *
     * @param reserved  the row's record, from {@link #reserve} with the same key length.
     * @param side      the input the row is stored for.
     * @param bucket    the key's bucket when the caller has found it already, else 0.
     * @param hash      the key's hash (for the index when {@code bucket} is 0).
     * @param key       the key bytes, from offset 0.
     * @param keyLength the key's length.
     * @param row       the row.
     * @param ts        its event time.
     * @return the row's record ({@code reserved}, linked), or {@link #REFUSED}.
     */
    long admit(
        final long reserved, final Side side, final long bucket, final long hash, final DirectBuffer key,
        final int keyLength, final RowView row, final long ts)
    {
        long into = bucket != 0 ? bucket : index.findOrCreate(hash);
        while (into == KeyIndex.FULL && makeRoom())
        {
            into = index.findOrCreate(hash);
        }
        if (into == KeyIndex.FULL)
        {
            store.release(reserved, side.ordinal(), keyLength, row.length());
            return REFUSED;
        }
        if (!reserveSlot(into, side, reserved, keyLength, row))
        {
            releaseIfEmpty(into);
            return REFUSED;
        }
        final UniqueKeyIndex uniqueKey = uniqueKeys[side.ordinal()];
        if (uniqueKey != null && !uniqueKey.ensureRoom())
        {
            store.release(reserved, side.ordinal(), keyLength, row.length());
            releaseIfEmpty(into);
            return REFUSED;
        }
        if (into != unmatchableBucket)
        {
            countKey(into, side, key, keyLength, 1);
        }
        admittedBucket = into;
        return store.append(reserved, into, side.ordinal(), key, 0, keyLength, row.buffer(), row.offset(), row.length(), ts);
    }

    /**
     * Retires a stored record: removes it, and its bucket from the index once that holds no row. Not counted
     * as expired ({@link #expire} is).
     *
     * @param record the record.
     */
    void retire(final long record)
    {
        final long bucket = store.bucketOf(record);
        store.remove(record);
        releaseIfEmpty(bucket);
    }

    /**
     * Takes the records of a row that is stored in several places (a sliding window join's row in each of its
     * windows) before the row has any effect: all of them, within the live-row limit, or none.
     *
     * @param n         the records.
     * @param side      the row's side.
     * @param keyLength the key length of each.
     * @param row       the row.
     * @param into      receives the records, {@code into[0, n)}.
     * @return false, holding none, when they do not fit.
     */
    boolean reserve(final int n, final Side side, final int keyLength, final RowView row, final long[] into)
    {
        if (!hasRoomFor(n))
        {
            return false;
        }
        for (int i = 0; i < n; i++)
        {
            final long record = store.allocate(side.ordinal(), keyLength, row.length());
            if (record == 0)
            {
                release(into, 0, i, side, keyLength, row);
                return false;
            }
            into[i] = record;
        }
        return true;
    }

    /**
     * Frees records taken by {@link #reserve(int, Side, int, RowView, long[])} (with the same side) and not admitted.
     *
     * @param records   the records.
     * @param from      the first to free.
     * @param to        past the last.
     * @param side      their row's side.
     * @param keyLength their key length.
     * @param row       their row.
     */
    void release(final long[] records, final int from, final int to, final Side side, final int keyLength, final RowView row)
    {
        for (int i = from; i < to; i++)
        {
            store.release(records[i], side.ordinal(), keyLength, row.length());
        }
    }

    /** @return true when {@code rows} more live rows stay within the live-row limit. */
    boolean hasRoomFor(final int rows)
    {
        return rows <= maxLiveRows - store.liveRows();
    }

    /**
     * Makes sure the row can join its key's group on {@code side} (which may need a larger array) before
     * the row has any effect; on failure frees the reserved record.
     *
     * @return false, with {@code record} released, when there is no memory for it.
     */
    boolean reserveSlot(final long bucket, final Side side, final long record, final int keyLength, final RowView row)
    {
        if (store.reserveSlot(bucket, side.ordinal()))
        {
            return true;
        }
        store.release(record, side.ordinal(), keyLength, row.length());
        return false;
    }

    /** Removes a bucket from the index once it holds no row of either side. */
    void releaseIfEmpty(final long bucket)
    {
        if (bucket != 0 && bucket != unmatchableBucket && BucketDescriptor.isEmpty(bucket))
        {
            index.remove(bucket);
        }
    }

    /** Drops a stored row whose time has passed, counted as expired, and its bucket once empty. */
    void expire(final long record)
    {
        counters.expiredRows++;
        retire(record);
    }

    /** Drops a stored row whose time has passed, counted as expired; the caller deals with its bucket. */
    void expireKeepingBucket(final long record)
    {
        store.remove(record);
        counters.expiredRows++;
    }

    /** @return the side a record was stored for. */
    static Side sideOf(final long record)
    {
        return Side.of(RowDescriptor.side(record));
    }

    /** Writes the state's size into the counters: live rows per side, bytes, pending row timers. */
    void refreshCounters()
    {
        counters.liveLeft = store.liveRows(Side.LEFT.ordinal());
        counters.liveRight = store.liveRows(Side.RIGHT.ordinal());
        counters.stateBytes = store.reservedBytes() + index.offHeapBytes();
        counters.usedStateBytes = store.usedBytes() + index.maxOffHeapBytes();
        counters.liveStateBytes = store.usedBytes() + index.liveBytes();
        counters.pendingTimers = wheel.pending();
        // The unique-key indexes as the key index: their tables in stateBytes, their caps in what the limit counts.
        for (final UniqueKeyIndex uniqueKey : uniqueKeys)
        {
            if (uniqueKey != null)
            {
                counters.stateBytes += uniqueKey.offHeapBytes();
                counters.usedStateBytes += uniqueKey.maxOffHeapBytes();
                counters.liveStateBytes += uniqueKey.offHeapBytes();
            }
        }
    }

    /** Reads ahead the memory a coming row of this key hash will need ({@link JoinOperator#prefetch}). */
    void prefetch(final long keyHash)
    {
        final long bucket = index.prefetch(keyHash);
        if (bucket != 0)
        {
            touched ^= RowStore.touchBucket(base, bucket);
        }
    }

    /** Reads the headers of a group's records in slots {@code [from, to)} at once, so that their misses overlap ({@link RowGroup#touch}). */
    void touch(final long rows, final int from, final int to)
    {
        touched ^= RowGroup.touch(base, rows, from, to);
    }

    /**
     * Counts one row event of a key for the hot-key report: the rows it stored and the rows of the other
     * side its probe of {@code bucket} visited (the side's live count: a probe visits every one).
     */
    void countKey(final long bucket, final Side side, final DirectBuffer key, final int keyLength, final int storedRows)
    {
        if (hotKeys.enabled())
        {
            hotKeys.record(BucketDescriptor.hash(bucket), key, 0, keyLength, storedRows, BucketDescriptor.count(bucket, side.other().ordinal()));
        }
    }

    /**
     * Counts one row event of a key of a join that lays out its own buckets (the multi-way join: N groups per
     * bucket) for the hot-key report.
     *
     * @param hash        the key's hash.
     * @param key         the key bytes, from offset 0.
     * @param keyLength   the key's length.
     * @param storedRows  the rows the event stored (0 or 1).
     * @param visitedRows the stored rows of the key the event visited.
     * @param fanOut      the combinations of the other inputs' rows the row joins (the key's amplification).
     */
    void countKeyRows(
        final long hash, final DirectBuffer key, final int keyLength, final int storedRows, final int visitedRows, final long fanOut)
    {
        if (hotKeys.enabled())
        {
            hotKeys.record(hash, key, 0, keyLength, storedRows, visitedRows, fanOut);
        }
    }

    /** @return whether the hot-key report counts anything (the caller may skip computing what it would count). */
    boolean hotKeysEnabled()
    {
        return hotKeys.enabled();
    }

    /**
     * Sets how the hot-key report reads a key's live rows, for a kind whose buckets keep no
     * {@link BucketDescriptor} counts (the multi-way join's, {@code MultiBucketDescriptor}). Called once, at build.
     *
     * @param liveRows from a key hash to the live rows of its bucket (0 when it has none).
     */
    void liveRowsOfKey(final LongUnaryOperator liveRows)
    {
        this.liveRowsOfKey = liveRows;
    }

    /** @return the hot-key report, with each key's live rows read from its bucket now. */
    List<HotKey> hotKeys()
    {
        return closed ? List.of() : hotKeys.report(liveRowsOfKey);
    }

    private long liveRows(final long keyHash)
    {
        final long bucket = index.find(keyHash);
        return bucket == 0 ? 0 : (long)BucketDescriptor.count(bucket, Side.LEFT.ordinal()) + BucketDescriptor.count(bucket, Side.RIGHT.ordinal());
    }

    /** Frees the off-heap state; idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final UniqueKeyIndex uniqueKey : uniqueKeys)
        {
            if (uniqueKey != null)
            {
                uniqueKey.close();
            }
        }
        index.close();
        store.close();
        if (files == null)
        {
            UnsafeApi.freeMemory(unmatchableBucket);
        }
        else
        {
            files.close();
        }
    }
}
