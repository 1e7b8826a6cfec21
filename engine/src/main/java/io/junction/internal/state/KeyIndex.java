package io.junction.internal.state;

import io.junction.internal.io.OwnerOnlyFiles;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The partition's join-key index: from the 64-bit hash of a join key to the address of its bucket
 * ({@link BucketDescriptor}) in an off-heap arena. Bucket updates go straight to memory without
 * touching the index again. Distinct keys whose hashes collide share a bucket and are told apart by
 * the key bytes kept in each row record. Two implementations, both off-heap and allocation-free:
 * <ul>
 *   <li>{@link Kind#HASH} (the default), {@link HashKeyIndex}: an open-addressing table of
 *       {@code [hash, bucket]} slots in native memory (linear probing, backward-shift deletion, load
 *       factor at most 1/2): one operation costs a cache miss or two.</li>
 *   <li>{@link Kind#CHRONICLE}, {@link ChronicleKeyIndex}: a Chronicle Map with fixed-size keys and
 *       values reused across calls and accessed through query contexts; an operation costs ~400-900 ns.
 *       It can live in a memory-mapped file, which makes it the candidate for a durable index.</li>
 * </ul>
 *
 * <p>An interface rather than an abstract class: the two implementations share no state worth a common
 * base (only the sizing of the bucket arena, in {@link KeyIndexes}), and an operator's index is chosen
 * once per run by configuration, so each call site sees one receiver class and the JIT inlines it behind
 * a class check as it would an abstract method; no JVM field offset or dispatch is saved by a base class.
 *
 * <p>A durable index is one of the partition state's mapped files ({@link MappedPart}): the state persists
 * it as it does its other parts, without asking which kind it is.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public interface KeyIndex extends AutoCloseable, MappedPart
{
    /** Returned by {@link #findOrCreate} when the index is at its configured capacity. */
    long FULL = -1;

    /**
     * The implementations. The state's own notion of the configuration's public {@code join.IndexKind} (which
     * the state may not import: docs/ARCHITECTURE.md, "Layering"); the partition state maps one to the other.
     */
    enum Kind
    {
        /** {@link ChronicleKeyIndex}. */
        CHRONICLE,
        /** {@link HashKeyIndex}, the default. */
        HASH
    }

    /**
     * @param kind    the implementation.
     * @param maxKeys the most live keys; Chronicle Map sizes its segments from it and cannot grow far
     *                beyond it (a bounded bloat factor), so set it with headroom.
     * @return an index of {@link BucketDescriptor#LENGTH}-byte buckets.
     */
    static KeyIndex create(final Kind kind, final long maxKeys)
    {
        return create(kind, maxKeys, BucketDescriptor.LENGTH);
    }

    /**
     * @param kind         the implementation.
     * @param maxKeys      as {@link #create(Kind, long)}.
     * @param bucketLength bytes per bucket, at least {@link BucketDescriptor#LENGTH}: operators that keep
     *                     more per key (a window join's timer links) lay it out after the standard fields.
     * @return an index with no bucket arena taken up front.
     */
    static KeyIndex create(final Kind kind, final long maxKeys, final int bucketLength)
    {
        return create(kind, maxKeys, bucketLength, 0);
    }

    /**
     * @param kind               the implementation.
     * @param maxKeys            as {@link #create(Kind, long)}.
     * @param bucketLength       as {@link #create(Kind, long, int)}.
     * @param preallocateBuckets bytes of bucket arena to take and touch up front ({@link NativeArena}).
     * @return the index.
     */
    static KeyIndex create(final Kind kind, final long maxKeys, final int bucketLength,
        final long preallocateBuckets)
    {
        return kind == Kind.CHRONICLE
            ? new ChronicleKeyIndex(maxKeys, bucketLength, preallocateBuckets)
            : new HashKeyIndex(maxKeys, bucketLength, preallocateBuckets);
    }

    /**
     * @param kind    the implementation.
     * @param maxKeys the most live keys.
     * @return bytes of the mapped table file a durable index of this kind takes beside its arena's buckets (0 for
     *         a Chronicle Map, which sizes its own file).
     */
    static long tableBytes(final Kind kind, final long maxKeys)
    {
        return kind == Kind.CHRONICLE ? 0 : HashKeyIndex.tableBytes(maxKeys);
    }

    /**
     * Opens a durable index whose buckets live in {@code buckets} (a state directory's arena): a mapped table
     * file ({@link HashKeyIndex}) or a persisted Chronicle Map, created, or reopened at its saved size.
     *
     * @param kind         the implementation.
     * @param maxKeys      the most live keys.
     * @param bucketLength bytes per bucket.
     * @param buckets      the arena the buckets are carved from.
     * @param file         the index's file in the state directory.
     * @param reopen       whether the file holds a reopened state's index.
     * @param size         the index's live keys when reopened (0 when created).
     * @return the index, closing its file when closed.
     * @throws IOException when the file cannot be created, mapped or made owner-only.
     */
    static KeyIndex open(
        final Kind kind, final long maxKeys, final int bucketLength, final NativeArena buckets, final Path file,
        final boolean reopen, final long size) throws IOException
    {
        if (kind == Kind.CHRONICLE)
        {
            final KeyIndex index = new ChronicleKeyIndex(maxKeys, bucketLength, buckets, file.toFile(), size);
            try
            {
                // Chronicle Map creates its file itself, with the umask's permissions.
                OwnerOnlyFiles.restrictFile(file);
            }
            catch (final IOException | RuntimeException e)
            {
                index.close();
                throw e;
            }
            return index;
        }
        final long tableBytes = HashKeyIndex.tableBytes(maxKeys);
        final MappedFile table = reopen ? MappedFile.open(file, tableBytes) : MappedFile.create(file, tableBytes, tableBytes);
        try
        {
            return new HashKeyIndex(maxKeys, bucketLength, buckets, table, size);
        }
        catch (final RuntimeException e)
        {
            table.close();
            throw e;
        }
    }

    /** @return the most off-heap bytes this index takes at its capacity (Chronicle Map: as created). */
    long maxOffHeapBytes();

    /** @return the most live keys. */
    long capacity();

    /**
     * @param hash the key hash.
     * @return the bucket of a key hash, or 0 when the key has no rows.
     */
    long find(long hash);

    /**
     * @param hash the key hash.
     * @return the bucket of a key hash, created empty when absent, or {@link #FULL}.
     */
    long findOrCreate(long hash);

    /**
     * Removes an empty bucket from the index and frees it.
     *
     * @param bucket a bucket this index returned.
     */
    void remove(long bucket);

    /**
     * Reads the index slot a coming lookup of {@code hash} probes first, so that its cache miss overlaps
     * with other work, and returns the bucket found there for the caller to read ahead in turn
     * ({@link RowStore#touchBucket}). A hint: the bucket may be another key's. Changes nothing.
     *
     * @param hash the key hash.
     * @return the bucket in the hash's first slot, or 0 when it is empty or the index cannot tell cheaply.
     */
    default long prefetch(final long hash)
    {
        return 0;
    }

    /** @return which implementation this index uses. */
    Kind kind();

    /** @return live keys. */
    long size();

    /** @return off-heap bytes of the index structure and the bucket arena. */
    long offHeapBytes();

    /**
     * @return the bytes the live keys account for: their buckets, plus each key's share of the index
     *         structure at its capacity (the structure is sized up front, so this is what a key costs
     *         once the index is full, not what an empty index has taken).
     */
    long liveBytes();

    @Override
    void close();
}
