package io.junction.internal.state;

/** What both {@link KeyIndex} implementations check and size alike. */
final class KeyIndexes
{
    private KeyIndexes()
    {
    }

    /**
     * @param maxKeys      the most live keys, at least 1.
     * @param bucketLength bytes per bucket, at least {@link BucketDescriptor#LENGTH}.
     * @throws IllegalArgumentException when either is out of range.
     */
    static void checkArguments(final long maxKeys, final int bucketLength)
    {
        if (bucketLength < BucketDescriptor.LENGTH)
        {
            throw new IllegalArgumentException("bucketLength must be >= " + BucketDescriptor.LENGTH + ": " + bucketLength);
        }
        if (maxKeys < 1)
        {
            throw new IllegalArgumentException("maxKeys must be >= 1: " + maxKeys);
        }
    }

    /**
     * @param maxKeys            the most live keys.
     * @param bucketLength       bytes per bucket.
     * @param preallocateBuckets bytes to take and touch up front.
     * @return an arena whose limit holds exactly {@code maxKeys} buckets, so it bounds the index's memory.
     */
    static NativeArena bucketArena(final long maxKeys, final int bucketLength, final long preallocateBuckets)
    {
        // Buckets are all one size, so the arena never needs more than the chunks that hold maxKeys of
        // them (plus the tail wasted at each chunk's end): its limit bounds the index's memory.
        // Saturated: a Chronicle index has no key cap, and maxKeys * bucketLength must not wrap.
        final long allBuckets = maxKeys > Long.MAX_VALUE / bucketLength ? Long.MAX_VALUE : maxKeys * bucketLength;
        // A chunk is a multiple of the arena's alignment whatever the bucket length.
        final int bucketChunk = NativeArena.alignedSize(Math.max(4096, (int)Math.min(1 << 20, allBuckets)));
        final long bucketsPerChunk = bucketChunk / NativeArena.alignedSize(bucketLength);
        final long chunks = (maxKeys + bucketsPerChunk - 1) / bucketsPerChunk;
        final long bucketLimit = chunks > Long.MAX_VALUE / bucketChunk ? Long.MAX_VALUE : chunks * bucketChunk;
        return new NativeArena(bucketChunk, Math.min(preallocateBuckets, allBuckets), bucketLimit);
    }
}
