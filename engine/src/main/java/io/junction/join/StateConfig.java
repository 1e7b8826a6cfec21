package io.junction.join;

import io.junction.internal.config.ConfigMap;
import io.junction.internal.metrics.HotKeySketch;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;

/**
 * Sizes of one operator's state. Immutable: built with {@link #builder()} (or {@link #toBuilder()} from another
 * configuration), whose {@link Builder#build()} checks every value; {@code with*} return checked copies. Every
 * knob has a property name, a default and a sentence; {@link #fromSystemProperties()} reads them.
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
    /**
     * Default {@link #INDEX_PROP_NAME}: the hash index, the faster on every measured workload (2.5-2.7x
     * on W1, 1.4-1.5x on W2 through the runtime; bench/results/2026-11-30-hardening/index-default.txt).
     */
    public static final IndexKind INDEX_DEFAULT = IndexKind.HASH;

    /** Bytes of row arena each partition takes from the OS and touches at start. */
    public static final String PREALLOCATE_PROP_NAME = "junction.state.preallocate";
    /** Default {@link #PREALLOCATE_PROP_NAME}: 0, memory is taken as state grows. */
    public static final long PREALLOCATE_DEFAULT = 0;

    /** Live rows (both sides) per partition; at the limit {@link #FULL_POLICY_PROP_NAME} applies. */
    public static final String MAX_LIVE_ROWS_PROP_NAME = "junction.state.maxLiveRows";
    /**
     * Default {@link #MAX_LIVE_ROWS_PROP_NAME}: 2^24 (about 16.8 million) rows per partition, four times
     * the largest measured workload (W1-big, ~4.3 million live rows in one partition).
     */
    public static final long MAX_LIVE_ROWS_DEFAULT = 1L << 24;

    /**
     * Off-heap bytes of state per partition: the key index (sized for its capacity), its buckets and
     * the row arena; the arena takes no memory from the OS beyond it.
     */
    public static final String MAX_BYTES_PROP_NAME = "junction.state.maxBytes";
    /** Default {@link #MAX_BYTES_PROP_NAME}: 4 GiB per partition, room for the default live-row limit at ~230 B a row. */
    public static final long MAX_BYTES_DEFAULT = 4L << 30;

    /** What a partition does at a limit: {@code reject}, {@code back-pressure} or {@code expire-oldest}. */
    public static final String FULL_POLICY_PROP_NAME = "junction.state.fullPolicy";
    /** Default {@link #FULL_POLICY_PROP_NAME}: reject the row with a counted dead letter. */
    public static final FullPolicy FULL_POLICY_DEFAULT = FullPolicy.REJECT;

    /**
     * Seed of the key hash that routes rows and keys the index, a long; unset, each engine (or
     * operator created alone) draws one from {@link SecureRandom}, so that keys crafted to collide
     * cannot be precomputed. Set it for reproducible partitioning.
     */
    public static final String HASH_SEED_PROP_NAME = "junction.state.hashSeed";

    /**
     * Counters of each partition's hot-key sketch (Space-Saving over the key hash, see
     * {@code io.junction.metrics.HotKey}); 0 turns the hot-key report off.
     */
    public static final String HOT_KEYS_PROP_NAME = "junction.metrics.hotKeys";
    /** Default {@link #HOT_KEYS_PROP_NAME}: 16 keys per partition. */
    public static final int HOT_KEYS_DEFAULT = 16;
    /** The most {@link #HOT_KEYS_PROP_NAME} counters ({@link HotKeySketch#MAX_CAPACITY}: a report reads them all). */
    public static final int HOT_KEYS_MAX = HotKeySketch.MAX_CAPACITY;

    private final Path stateDirectory;
    private final int hotKeys;
    private final long maxKeys;
    private final long maxLiveRows;
    private final long maxStateBytes;
    /** Whether {@link #maxStateBytes} was configured ({@link #withMaxStateBytes}, {@value #MAX_BYTES_PROP_NAME}), not the default. */
    private final boolean maxStateBytesSet;
    private final FullPolicy fullPolicy;
    private final boolean fixedHashSeed;
    private final long hashSeed;
    private final IndexKind indexKind;
    private final long preallocate;
    private final int chunkSize;
    private final int tickShift;
    private final int wheelSlots;
    private final int maxKeyLength;
    /**
     * The chunk sums (in {@code chunks.sum}'s encoding) of the state directory as a restore in this
     * process just wrote and verified it, for the reopen that follows; null when there was none. Set by the
     * engine's runtime only ({@link #withRestoredChunkSums}); every other copy drops it.
     */
    private final byte[] restoredChunkSums;

    private StateConfig(final Builder b)
    {
        stateDirectory = b.stateDirectory;
        hotKeys = b.hotKeys;
        maxKeys = b.maxKeys;
        maxLiveRows = b.maxLiveRows;
        maxStateBytes = b.maxStateBytes;
        maxStateBytesSet = b.maxStateBytesSet;
        fullPolicy = b.fullPolicy;
        fixedHashSeed = b.fixedHashSeed;
        hashSeed = b.hashSeed;
        indexKind = b.indexKind;
        preallocate = b.preallocate;
        chunkSize = b.chunkSize;
        tickShift = b.tickShift;
        wheelSlots = b.wheelSlots;
        maxKeyLength = b.maxKeyLength;
        restoredChunkSums = b.restoredChunkSums;
    }

    /**
     * A configuration with the default key index and no preallocation.
     *
     * @param maxKeys      live keys per partition the key index is sized for, &gt; 0.
     * @param chunkSize    bytes per row-arena chunk.
     * @param tickShift    log2 of the ms of event time one timer-wheel slot covers.
     * @param wheelSlots   slots in the timer wheel, a power of two.
     * @param maxKeyLength longest join key in bytes.
     * @throws IllegalArgumentException when a value is out of its range.
     * @deprecated use {@link #builder()}, whose methods name each value.
     */
    @Deprecated
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
     * @deprecated use {@link #builder()}, whose methods name each value.
     */
    @Deprecated
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
     * @deprecated use {@link #builder()}, whose methods name each value.
     */
    @Deprecated
    public StateConfig(
        final long maxKeys, final int chunkSize, final int tickShift, final int wheelSlots, final int maxKeyLength,
        final IndexKind indexKind, final long preallocate)
    {
        this(new Builder().maxKeys(maxKeys).chunkSize(chunkSize).wheel(tickShift, wheelSlots).maxKeyLength(maxKeyLength)
            .indexKind(indexKind).preallocate(preallocate).checked());
    }

    /** @return the defaults. */
    public static StateConfig defaults()
    {
        return new Builder().build();
    }

    /** @return a builder starting from the defaults ({@link #defaults()}). */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a builder starting from this configuration. */
    public Builder toBuilder()
    {
        return new Builder(this);
    }

    /** The names of every property {@link #from(Map)} reads. */
    public static final Set<String> PROPERTY_NAMES = Set.of(MAX_KEYS_PROP_NAME, CHUNK_SIZE_PROP_NAME, TICK_SHIFT_PROP_NAME,
        WHEEL_SLOTS_PROP_NAME, MAX_KEY_LENGTH_PROP_NAME, INDEX_PROP_NAME, PREALLOCATE_PROP_NAME, MAX_LIVE_ROWS_PROP_NAME,
        MAX_BYTES_PROP_NAME, FULL_POLICY_PROP_NAME, HASH_SEED_PROP_NAME, HOT_KEYS_PROP_NAME);

    /** @return the configuration from system properties, defaults where unset (as {@link #from(Map)}). */
    public static StateConfig fromSystemProperties()
    {
        return from(ConfigMap.systemProperties(PROPERTY_NAMES));
    }

    /**
     * The configuration from properties named as the system properties ({@code junction.state.maxKeys},
     * ...; see {@link #PROPERTY_NAMES}), defaults where unset: for a service whose configuration is a
     * map or a {@link java.util.Properties} file. Names of other prefixes are ignored; a value that does
     * not parse is an error naming the property. {@code EngineConfig.from(Map)} also refuses unknown
     * {@code junction.*} names.
     *
     * @param properties property names and values.
     * @return the configuration.
     * @throws IllegalArgumentException naming the property whose value is invalid.
     */
    public static StateConfig from(final Map<String, String> properties)
    {
        final ConfigMap map = new ConfigMap(properties);
        final Builder builder = new Builder()
            .maxKeys(map.longValue(MAX_KEYS_PROP_NAME, MAX_KEYS_DEFAULT))
            .chunkSize(map.intValue(CHUNK_SIZE_PROP_NAME, CHUNK_SIZE_DEFAULT))
            .wheel(map.intValue(TICK_SHIFT_PROP_NAME, TICK_SHIFT_DEFAULT), map.intValue(WHEEL_SLOTS_PROP_NAME, WHEEL_SLOTS_DEFAULT))
            .maxKeyLength(map.intValue(MAX_KEY_LENGTH_PROP_NAME, MAX_KEY_LENGTH_DEFAULT))
            .indexKind(indexKind(map.string(INDEX_PROP_NAME, INDEX_DEFAULT.name())))
            .preallocate(map.longValue(PREALLOCATE_PROP_NAME, PREALLOCATE_DEFAULT))
            .maxLiveRows(map.longValue(MAX_LIVE_ROWS_PROP_NAME, MAX_LIVE_ROWS_DEFAULT));
        // Set only when given: a configured byte limit is not lowered to fit the machine (hasConfiguredMaxStateBytes),
        // and an unset seed is drawn per engine (hasFixedHashSeed).
        if (map.has(MAX_BYTES_PROP_NAME))
        {
            builder.maxStateBytes(map.longValue(MAX_BYTES_PROP_NAME, MAX_BYTES_DEFAULT));
        }
        builder.fullPolicy(fullPolicy(map.string(FULL_POLICY_PROP_NAME, FULL_POLICY_DEFAULT.name())));
        if (map.has(HASH_SEED_PROP_NAME))
        {
            builder.hashSeed(map.longValue(HASH_SEED_PROP_NAME, 0));
        }
        return builder.hotKeys(map.intValue(HOT_KEYS_PROP_NAME, HOT_KEYS_DEFAULT)).build();
    }

    private static FullPolicy fullPolicy(final String name)
    {
        final FullPolicy policy = FullPolicy.fromName(name);
        if (policy == null)
        {
            throw new IllegalArgumentException(FULL_POLICY_PROP_NAME + " must be reject, back-pressure or expire-oldest: " + name);
        }
        return policy;
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
        return toBuilder().maxKeys(maxKeys).build();
    }

    /**
     * @param tickShift  log2 of the ms of event time one slot covers.
     * @param wheelSlots slots in the wheel, a power of two.
     * @return a copy with another timer wheel geometry.
     */
    public StateConfig withWheel(final int tickShift, final int wheelSlots)
    {
        return toBuilder().wheel(tickShift, wheelSlots).build();
    }

    /**
     * @param chunkSize bytes per row-arena chunk.
     * @return a copy with another arena chunk size.
     */
    public StateConfig withChunkSize(final int chunkSize)
    {
        return toBuilder().chunkSize(chunkSize).build();
    }

    /**
     * @param indexKind the key index implementation.
     * @return a copy with another key index implementation.
     */
    public StateConfig withIndex(final IndexKind indexKind)
    {
        return toBuilder().indexKind(indexKind).build();
    }

    /**
     * @param preallocate bytes, &gt;= 0.
     * @return a copy that preallocates this many bytes of row arena per partition.
     */
    public StateConfig withPreallocate(final long preallocate)
    {
        return toBuilder().preallocate(preallocate).build();
    }

    /**
     * @param maxLiveRows live rows (both sides) per partition, at least 1.
     * @return a copy with another live-row limit per partition.
     */
    public StateConfig withMaxLiveRows(final long maxLiveRows)
    {
        return toBuilder().maxLiveRows(maxLiveRows).build();
    }

    /**
     * @param maxStateBytes off-heap state bytes per partition.
     * @return a copy with another state byte limit per partition.
     */
    public StateConfig withMaxStateBytes(final long maxStateBytes)
    {
        return toBuilder().maxStateBytes(maxStateBytes).build();
    }

    /**
     * @param fullPolicy what happens at a limit.
     * @return a copy with another policy at the limits.
     */
    public StateConfig withFullPolicy(final FullPolicy fullPolicy)
    {
        return toBuilder().fullPolicy(fullPolicy).build();
    }

    /**
     * @param hashSeed the seed of the join-key hash.
     * @return a copy with a fixed key-hash seed (reproducible partitioning and index layout).
     */
    public StateConfig withHashSeed(final long hashSeed)
    {
        return toBuilder().hashSeed(hashSeed).build();
    }

    /**
     * @param hotKeys counters of each partition's hot-key sketch, in [0, {@link #HOT_KEYS_MAX}]; 0 turns it off.
     * @return a copy with another hot-key sketch size.
     */
    public StateConfig withHotKeys(final int hotKeys)
    {
        return toBuilder().hotKeys(hotKeys).build();
    }

    /**
     * @param stateDirectory the directory that holds the operator's state in files (durable mode), or
     *                       null to keep it in memory (the default).
     * @return a copy with another state directory.
     */
    public StateConfig withStateDirectory(final Path stateDirectory)
    {
        return toBuilder().stateDirectory(stateDirectory).build();
    }

    /**
     * For the engine's runtime, which has just restored this configuration's state directory from a
     * checkpoint: the sums of every file as that restore wrote and verified them, so that the operator's
     * reopen takes them instead of reading every chunk again. The reopen uses a file's sums only when they
     * are the ones the restored marker records (else it reads and verifies the file as usual). A caller
     * that did not just restore the directory has no reason to call this: sums copied from elsewhere make the
     * reopen trust files it did not read.
     *
     * @param chunkSums the restored files' sums, encoded as the state directory's {@code chunks.sum}.
     * @return a copy carrying them (any other {@code with} method drops them again).
     */
    public StateConfig withRestoredChunkSums(final byte[] chunkSums)
    {
        final Builder builder = toBuilder();
        builder.restoredChunkSums = chunkSums.clone();
        return builder.build();
    }

    /** @return this configuration if its hash seed is fixed, else a copy with a seed drawn from {@link SecureRandom}. */
    public StateConfig withResolvedHashSeed()
    {
        return fixedHashSeed ? this : withHashSeed(new SecureRandom().nextLong());
    }

    /** @return the restore's sums handed in ({@link #withRestoredChunkSums}), or null; not a copy (read only). */
    byte[] restoredChunkSums()
    {
        return restoredChunkSums;
    }

    /**
     * The directory of durable state: an operator created with one keeps every byte of its state in
     * files there, persists them on {@code JoinOperator.persist()} and {@code close()}, and a new
     * operator of the same spec reopens them where the last one stopped.
     *
     * @return the state directory, or null when the state is kept in memory (the default).
     */
    public Path stateDirectory()
    {
        return stateDirectory;
    }

    /** @return counters of each partition's hot-key sketch, 0 when the hot-key report is off. */
    public int hotKeys()
    {
        return hotKeys;
    }

    /** @return live rows (both sides) per partition. */
    public long maxLiveRows()
    {
        return maxLiveRows;
    }

    /** @return off-heap state bytes per partition. */
    public long maxStateBytes()
    {
        return maxStateBytes;
    }

    /**
     * @return whether {@link #maxStateBytes()} was configured ({@link #withMaxStateBytes},
     *         {@value #MAX_BYTES_PROP_NAME}) rather than left at its default, which an engine may lower to
     *         fit the machine's memory (docs/CONFIGURATION.md).
     */
    public boolean hasConfiguredMaxStateBytes()
    {
        return maxStateBytesSet;
    }

    /** @return what happens at a limit. */
    public FullPolicy fullPolicy()
    {
        return fullPolicy;
    }

    /** @return whether {@link #hashSeed()} was set; when not, engines draw a secret seed of their own. */
    public boolean hasFixedHashSeed()
    {
        return fixedHashSeed;
    }

    /** @return the key-hash seed; meaningful only when {@link #hasFixedHashSeed()}. */
    public long hashSeed()
    {
        return hashSeed;
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
            ", wheelSlots=" + wheelSlots + ", maxKeyLength=" + maxKeyLength + ", index=" + indexKind + ", preallocate=" + preallocate +
            ", maxLiveRows=" + maxLiveRows + ", maxStateBytes=" + maxStateBytes + ", fullPolicy=" + fullPolicy +
            ", hashSeed=" + (fixedHashSeed ? Long.toString(hashSeed) : "random") + ", hotKeys=" + hotKeys +
            (stateDirectory == null ? "" : ", stateDirectory=" + stateDirectory) + '}';
    }

    /**
     * Builds a {@link StateConfig}, from the defaults ({@link StateConfig#builder()}) or from a configuration
     * ({@link StateConfig#toBuilder()}). Each method takes what the wither it names takes, and {@link #build()}
     * checks every value at once. Not thread safe.
     */
    public static final class Builder
    {
        private Path stateDirectory;
        private int hotKeys = HOT_KEYS_DEFAULT;
        private long maxKeys = MAX_KEYS_DEFAULT;
        private long maxLiveRows = MAX_LIVE_ROWS_DEFAULT;
        private long maxStateBytes = MAX_BYTES_DEFAULT;
        private boolean maxStateBytesSet;
        private FullPolicy fullPolicy = FULL_POLICY_DEFAULT;
        private boolean fixedHashSeed;
        private long hashSeed;
        private IndexKind indexKind = INDEX_DEFAULT;
        private long preallocate = PREALLOCATE_DEFAULT;
        private int chunkSize = CHUNK_SIZE_DEFAULT;
        private int tickShift = TICK_SHIFT_DEFAULT;
        private int wheelSlots = WHEEL_SLOTS_DEFAULT;
        private int maxKeyLength = MAX_KEY_LENGTH_DEFAULT;
        private byte[] restoredChunkSums;

        private Builder()
        {
        }

        /** A builder holding {@code from}'s values, less a restore's sums (which only {@link StateConfig#withRestoredChunkSums} sets). */
        private Builder(final StateConfig from)
        {
            stateDirectory = from.stateDirectory;
            hotKeys = from.hotKeys;
            maxKeys = from.maxKeys;
            maxLiveRows = from.maxLiveRows;
            maxStateBytes = from.maxStateBytes;
            maxStateBytesSet = from.maxStateBytesSet;
            fullPolicy = from.fullPolicy;
            fixedHashSeed = from.fixedHashSeed;
            hashSeed = from.hashSeed;
            indexKind = from.indexKind;
            preallocate = from.preallocate;
            chunkSize = from.chunkSize;
            tickShift = from.tickShift;
            wheelSlots = from.wheelSlots;
            maxKeyLength = from.maxKeyLength;
        }

        /**
         * @param stateDirectory as {@link StateConfig#withStateDirectory(Path)}.
         * @return this builder.
         */
        public Builder stateDirectory(final Path stateDirectory)
        {
            this.stateDirectory = stateDirectory;
            return this;
        }

        /**
         * @param indexKind as {@link StateConfig#withIndex(IndexKind)}.
         * @return this builder.
         */
        public Builder indexKind(final IndexKind indexKind)
        {
            this.indexKind = indexKind;
            return this;
        }

        /**
         * @param hashSeed as {@link StateConfig#withHashSeed(long)}.
         * @return this builder.
         */
        public Builder hashSeed(final long hashSeed)
        {
            this.fixedHashSeed = true;
            this.hashSeed = hashSeed;
            return this;
        }

        /**
         * @param maxKeys as {@link StateConfig#withMaxKeys(long)}.
         * @return this builder.
         */
        public Builder maxKeys(final long maxKeys)
        {
            this.maxKeys = maxKeys;
            return this;
        }

        /**
         * @param tickShift  as {@link StateConfig#withWheel(int, int)}.
         * @param wheelSlots as {@link StateConfig#withWheel(int, int)}.
         * @return this builder.
         */
        public Builder wheel(final int tickShift, final int wheelSlots)
        {
            this.tickShift = tickShift;
            this.wheelSlots = wheelSlots;
            return this;
        }

        /**
         * @param chunkSize as {@link StateConfig#withChunkSize(int)}.
         * @return this builder.
         */
        public Builder chunkSize(final int chunkSize)
        {
            this.chunkSize = chunkSize;
            return this;
        }

        /**
         * @param maxKeyLength the longest join key in bytes, in [16, 65535] ({@link StateConfig#MAX_KEY_LENGTH_PROP_NAME}).
         * @return this builder.
         */
        public Builder maxKeyLength(final int maxKeyLength)
        {
            this.maxKeyLength = maxKeyLength;
            return this;
        }

        /**
         * @param preallocate as {@link StateConfig#withPreallocate(long)}.
         * @return this builder.
         */
        public Builder preallocate(final long preallocate)
        {
            this.preallocate = preallocate;
            return this;
        }

        /**
         * @param maxLiveRows as {@link StateConfig#withMaxLiveRows(long)}.
         * @return this builder.
         */
        public Builder maxLiveRows(final long maxLiveRows)
        {
            this.maxLiveRows = maxLiveRows;
            return this;
        }

        /**
         * @param maxStateBytes as {@link StateConfig#withMaxStateBytes(long)}.
         * @return this builder.
         */
        public Builder maxStateBytes(final long maxStateBytes)
        {
            this.maxStateBytes = maxStateBytes;
            this.maxStateBytesSet = true;
            return this;
        }

        /**
         * @param fullPolicy as {@link StateConfig#withFullPolicy(FullPolicy)}.
         * @return this builder.
         */
        public Builder fullPolicy(final FullPolicy fullPolicy)
        {
            this.fullPolicy = fullPolicy;
            return this;
        }

        /**
         * @param hotKeys as {@link StateConfig#withHotKeys(int)}.
         * @return this builder.
         */
        public Builder hotKeys(final int hotKeys)
        {
            this.hotKeys = hotKeys;
            return this;
        }

        /** @return this builder, every value checked. */
        private Builder checked()
        {
            if (hotKeys < 0 || hotKeys > HOT_KEYS_MAX)
            {
                throw new IllegalArgumentException(HOT_KEYS_PROP_NAME + " must be in [0, " + HOT_KEYS_MAX + "]: " + hotKeys);
            }
            if (maxLiveRows < 1)
            {
                throw new IllegalArgumentException(MAX_LIVE_ROWS_PROP_NAME + " must be >= 1: " + maxLiveRows);
            }
            if (maxStateBytes < chunkSize)
            {
                throw new IllegalArgumentException(MAX_BYTES_PROP_NAME + " must be at least one arena chunk (" + chunkSize + "): " + maxStateBytes);
            }
            if (fullPolicy == null)
            {
                throw new IllegalArgumentException(FULL_POLICY_PROP_NAME + " must be reject, back-pressure or expire-oldest");
            }
            if (preallocate < 0)
            {
                throw new IllegalArgumentException(PREALLOCATE_PROP_NAME + " must be >= 0: " + preallocate);
            }
            if (indexKind == null)
            {
                throw new IllegalArgumentException(INDEX_PROP_NAME + " must be chronicle or hash");
            }
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
            return this;
        }

        /**
         * @return the configuration.
         * @throws IllegalArgumentException naming the value that is out of its range.
         */
        public StateConfig build()
        {
            return new StateConfig(checked());
        }
    }
}
