package io.junction.join;

import io.junction.internal.state.KeyIndex;

/**
 * Sizes of one operator's state. Immutable. Every knob has a property name, a default and a
 * sentence; {@link #fromSystemProperties()} reads them.
 */
public final class StateConfig
{
    /** Live keys per partition that the key index is sized for. */
    public static final String MAX_KEYS_PROP_NAME = "junction.state.maxKeys";
    /** Default {@link #MAX_KEYS_PROP_NAME}: a million keys per partition. */
    public static final long MAX_KEYS_DEFAULT = 1 << 20;

    /** Bytes per row-arena chunk requested from the OS. */
    public static final String CHUNK_SIZE_PROP_NAME = "junction.state.chunkSize";
    /** Default {@link #CHUNK_SIZE_PROP_NAME}: 4 MiB. */
    public static final int CHUNK_SIZE_DEFAULT = 4 << 20;

    /** log2 of the ms of event time one timer-wheel slot covers. */
    public static final String TICK_SHIFT_PROP_NAME = "junction.timer.tickShift";
    /** Default {@link #TICK_SHIFT_PROP_NAME}: 2^10 ms per slot. */
    public static final int TICK_SHIFT_DEFAULT = 10;

    /** Slots in the timer wheel, a power of two. */
    public static final String WHEEL_SLOTS_PROP_NAME = "junction.timer.slots";
    /** Default {@link #WHEEL_SLOTS_PROP_NAME}: 4096 slots, one turn = 4096 * 2^10 ms, about 70 minutes. */
    public static final int WHEEL_SLOTS_DEFAULT = 4096;

    /** Longest join key in bytes (tags and length prefixes included). */
    public static final String MAX_KEY_LENGTH_PROP_NAME = "junction.state.maxKeyLength";
    /** Default {@link #MAX_KEY_LENGTH_PROP_NAME}. */
    public static final int MAX_KEY_LENGTH_DEFAULT = 1024;

    /** Key index implementation: {@code chronicle} (Chronicle Map) or {@code hash} (off-heap open addressing). */
    public static final String INDEX_PROP_NAME = "junction.state.index";
    /** Default {@link #INDEX_PROP_NAME}: Chronicle Map. */
    public static final IndexKind INDEX_DEFAULT = IndexKind.CHRONICLE;

    /** Bytes of row arena each partition takes from the OS and touches at start. */
    public static final String PREALLOCATE_PROP_NAME = "junction.state.preallocate";
    /** Default {@link #PREALLOCATE_PROP_NAME}: 0, memory is taken as state grows. */
    public static final long PREALLOCATE_DEFAULT = 0;

    private final long maxKeys;
    private final IndexKind indexKind;
    private final long preallocate;
    private final int chunkSize;
    private final int tickShift;
    private final int wheelSlots;
    private final int maxKeyLength;

    /**
     * A configuration with the default key index and no preallocation.
     *
     * @param maxKeys      live keys per partition the key index is sized for, &gt; 0.
     * @param chunkSize    bytes per row-arena chunk.
     * @param tickShift    log2 of the ms of event time one timer-wheel slot covers.
     * @param wheelSlots   slots in the timer wheel, a power of two.
     * @param maxKeyLength longest join key in bytes.
     * @throws IllegalArgumentException when a value is out of its range.
     */
    public StateConfig(final long maxKeys, final int chunkSize, final int tickShift, final int wheelSlots, final int maxKeyLength)
    {
        this(maxKeys, chunkSize, tickShift, wheelSlots, maxKeyLength, INDEX_DEFAULT);
    }

    /**
     * A configuration without preallocation.
     *
     * @param maxKeys      live keys per partition the key index is sized for, &gt; 0.
     * @param chunkSize    bytes per row-arena chunk.
     * @param tickShift    log2 of the ms of event time one timer-wheel slot covers.
     * @param wheelSlots   slots in the timer wheel, a power of two.
     * @param maxKeyLength longest join key in bytes.
     * @param indexKind    the key index implementation.
     * @throws IllegalArgumentException when a value is out of its range.
     */
    public StateConfig(
        final long maxKeys, final int chunkSize, final int tickShift, final int wheelSlots, final int maxKeyLength,
        final IndexKind indexKind)
    {
        this(maxKeys, chunkSize, tickShift, wheelSlots, maxKeyLength, indexKind, PREALLOCATE_DEFAULT);
    }

    /**
     * A configuration.
     *
     * @param maxKeys      live keys per partition the key index is sized for, &gt; 0.
     * @param chunkSize    bytes per row-arena chunk.
     * @param tickShift    log2 of the ms of event time one timer-wheel slot covers.
     * @param wheelSlots   slots in the timer wheel, a power of two.
     * @param maxKeyLength longest join key in bytes.
     * @param indexKind    the key index implementation.
     * @param preallocate  bytes of row arena each partition takes and touches at start, &gt;= 0.
     * @throws IllegalArgumentException when a value is out of its range.
     */
    public StateConfig(
        final long maxKeys, final int chunkSize, final int tickShift, final int wheelSlots, final int maxKeyLength,
        final IndexKind indexKind, final long preallocate)
    {
        if (preallocate < 0)
        {
            throw new IllegalArgumentException(PREALLOCATE_PROP_NAME + " must be >= 0: " + preallocate);
        }
        this.preallocate = preallocate;
        if (indexKind == null)
        {
            throw new IllegalArgumentException(INDEX_PROP_NAME + " must be chronicle or hash");
        }
        this.indexKind = indexKind;
        if (maxKeys < 1)
        {
            throw new IllegalArgumentException(MAX_KEYS_PROP_NAME + " must be >= 1: " + maxKeys);
        }
        if (chunkSize < 4096 || chunkSize % 8 != 0)
        {
            throw new IllegalArgumentException(CHUNK_SIZE_PROP_NAME + " must be >= 4096 and a multiple of 8: " + chunkSize);
        }
        if (tickShift < 0 || tickShift > 40)
        {
            throw new IllegalArgumentException(TICK_SHIFT_PROP_NAME + " must be in [0, 40]: " + tickShift);
        }
        if (wheelSlots < 1 || Integer.bitCount(wheelSlots) != 1)
        {
            throw new IllegalArgumentException(WHEEL_SLOTS_PROP_NAME + " must be a power of two: " + wheelSlots);
        }
        if (maxKeyLength < 16 || maxKeyLength > 0xFFFF)
        {
            throw new IllegalArgumentException(MAX_KEY_LENGTH_PROP_NAME + " must be in [16, 65535]: " + maxKeyLength);
        }
        this.maxKeys = maxKeys;
        this.chunkSize = chunkSize;
        this.tickShift = tickShift;
        this.wheelSlots = wheelSlots;
        this.maxKeyLength = maxKeyLength;
    }

    /** @return the defaults. */
    public static StateConfig defaults()
    {
        return new StateConfig(MAX_KEYS_DEFAULT, CHUNK_SIZE_DEFAULT, TICK_SHIFT_DEFAULT, WHEEL_SLOTS_DEFAULT, MAX_KEY_LENGTH_DEFAULT);
    }

    /** @return the configuration from system properties, defaults where unset. */
    public static StateConfig fromSystemProperties()
    {
        return new StateConfig(
            Long.getLong(MAX_KEYS_PROP_NAME, MAX_KEYS_DEFAULT),
            Integer.getInteger(CHUNK_SIZE_PROP_NAME, CHUNK_SIZE_DEFAULT),
            Integer.getInteger(TICK_SHIFT_PROP_NAME, TICK_SHIFT_DEFAULT),
            Integer.getInteger(WHEEL_SLOTS_PROP_NAME, WHEEL_SLOTS_DEFAULT),
            Integer.getInteger(MAX_KEY_LENGTH_PROP_NAME, MAX_KEY_LENGTH_DEFAULT),
            indexKind(System.getProperty(INDEX_PROP_NAME, INDEX_DEFAULT.name())),
            Long.getLong(PREALLOCATE_PROP_NAME, PREALLOCATE_DEFAULT));
    }

    private static IndexKind indexKind(final String name)
    {
        final IndexKind kind = IndexKind.fromName(name);
        if (kind == null)
        {
            throw new IllegalArgumentException(INDEX_PROP_NAME + " must be chronicle or hash: " + name);
        }
        return kind;
    }

    /**
     * @param maxKeys live keys per partition the key index is sized for.
     * @return a copy with another key capacity.
     */
    public StateConfig withMaxKeys(final long maxKeys)
    {
        return new StateConfig(maxKeys, chunkSize, tickShift, wheelSlots, maxKeyLength, indexKind, preallocate);
    }

    /**
     * @param tickShift  log2 of the ms of event time one slot covers.
     * @param wheelSlots slots in the wheel, a power of two.
     * @return a copy with another timer wheel geometry.
     */
    public StateConfig withWheel(final int tickShift, final int wheelSlots)
    {
        return new StateConfig(maxKeys, chunkSize, tickShift, wheelSlots, maxKeyLength, indexKind, preallocate);
    }

    /**
     * @param chunkSize bytes per row-arena chunk.
     * @return a copy with another arena chunk size.
     */
    public StateConfig withChunkSize(final int chunkSize)
    {
        return new StateConfig(maxKeys, chunkSize, tickShift, wheelSlots, maxKeyLength, indexKind, preallocate);
    }

    /**
     * @param indexKind the key index implementation.
     * @return a copy with another key index implementation.
     */
    public StateConfig withIndex(final IndexKind indexKind)
    {
        return new StateConfig(maxKeys, chunkSize, tickShift, wheelSlots, maxKeyLength, indexKind, preallocate);
    }

    /**
     * @param preallocate bytes, &gt;= 0.
     * @return a copy that preallocates this many bytes of row arena per partition.
     */
    public StateConfig withPreallocate(final long preallocate)
    {
        return new StateConfig(maxKeys, chunkSize, tickShift, wheelSlots, maxKeyLength, indexKind, preallocate);
    }

    /** @return bytes of row arena each partition takes and touches at start. */
    public long preallocate()
    {
        return preallocate;
    }

    /** @return the key index implementation. */
    public IndexKind indexKind()
    {
        return indexKind;
    }

    /** @return live keys per partition the key index is sized for. */
    public long maxKeys()
    {
        return maxKeys;
    }

    /** @return bytes per row-arena chunk. */
    public int chunkSize()
    {
        return chunkSize;
    }

    /** @return log2 of the ms of event time one timer-wheel slot covers. */
    public int tickShift()
    {
        return tickShift;
    }

    /** @return slots in the timer wheel. */
    public int wheelSlots()
    {
        return wheelSlots;
    }

    /** @return the longest join key in bytes. */
    public int maxKeyLength()
    {
        return maxKeyLength;
    }

    @Override
    public String toString()
    {
        return "StateConfig{maxKeys=" + maxKeys + ", chunkSize=" + chunkSize + ", tickShift=" + tickShift +
            ", wheelSlots=" + wheelSlots + ", maxKeyLength=" + maxKeyLength + ", index=" + indexKind + ", preallocate=" + preallocate + '}';
    }
}
