package io.junction.runtime;

import io.junction.join.StateConfig;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.OperatingSystemMXBean;
import java.util.stream.Stream;

/**
 * The state cap checked against the machine at engine start (docs/CONFIGURATION.md, SEMANTICS section 8):
 * in memory every partition's state may grow to {@link StateConfig#maxStateBytes()} of native memory, and
 * when the machine runs out first the OS kills the JVM instead of the engine dead-lettering
 * {@code STATE_FULL}. So, with {@code P} partitions, {@code R} bytes of rings and {@code M} bytes of
 * physical memory:
 * <ul>
 *   <li>a configured cap ({@value StateConfig#MAX_BYTES_PROP_NAME}) with {@code P x cap + R > M} can never
 *       fit: the start is refused with a one-line message naming the setting;</li>
 *   <li>the default cap is lowered to {@code (M / 2 - R) / P} (rounded down to whole arena chunks) when
 *       that is less: half of the physical memory, minus the rings, shared by the partitions; when even
 *       one chunk does not fit, the start is refused.</li>
 * </ul>
 * Durable state (a state root) lives in mapped files, which the OS pages out to their files rather than
 * running out of memory: its cap is checked against the state root's file store instead, and only a
 * configured cap with {@code P x cap} beyond the store's free space plus the root's own files is refused
 * (a disk that fills later is a {@code STATE_FULL} when a file grows). The durable default is never lowered: the cap is part of the
 * files' layout, which must not change with the free space or the machine.
 *
 * <p>Thread safe: immutable; used once by a starting engine.
 */
final class MemoryBudget
{
    /** The default cap is lowered to this fraction of the physical memory (less the rings), shared by the partitions. */
    static final int DEFAULT_FRACTION_DIVISOR = 2;

    private final long physicalBytes;

    /**
     * @param physicalBytes the machine's physical memory (the container's limit in a container); 0 or
     *                      less when unknown, which checks nothing.
     */
    MemoryBudget(final long physicalBytes)
    {
        this.physicalBytes = physicalBytes;
    }

    /** @return the budget of this machine: {@code OperatingSystemMXBean.getTotalMemorySize()}, when the JVM gives it. */
    static MemoryBudget ofMachine()
    {
        try
        {
            final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean)
            {
                return new MemoryBudget(((com.sun.management.OperatingSystemMXBean)os).getTotalMemorySize());
            }
        }
        catch (final RuntimeException | LinkageError e)
        {
            // No figure: nothing is checked.
        }
        return new MemoryBudget(0);
    }

    /**
     * @param config the engine's configuration.
     * @return the configuration, its default state cap lowered when the machine cannot hold it.
     * @throws IllegalArgumentException naming {@value StateConfig#MAX_BYTES_PROP_NAME} when a configured cap
     *                                  can never fit, or not even one arena chunk per partition does.
     */
    EngineConfig apply(final EngineConfig config)
    {
        final StateConfig state = config.state();
        final long partitions = config.partitions();
        final long cap = state.maxStateBytes();
        if (config.stateRoot() != null)
        {
            checkDisk(config, state, partitions, cap);
            return config;
        }
        if (physicalBytes <= 0)
        {
            return config;
        }
        final long rings = config.ringBytes();
        if (state.hasConfiguredMaxStateBytes())
        {
            if (cap > (physicalBytes - rings) / partitions)
            {
                throw new IllegalArgumentException(StateConfig.MAX_BYTES_PROP_NAME + " = " + cap + " x " + partitions +
                    " partitions + " + rings + " bytes of rings is more than the machine's " + physicalBytes +
                    " bytes of physical memory: the OS would end the process before STATE_FULL; lower " +
                    StateConfig.MAX_BYTES_PROP_NAME + " (or the partitions)");
            }
            return config;
        }
        final long share = (physicalBytes / DEFAULT_FRACTION_DIVISOR - rings) / partitions;
        if (share >= cap)
        {
            return config;
        }
        final long chunks = share / state.chunkSize();
        if (chunks < 1)
        {
            throw new IllegalArgumentException("half of the machine's " + physicalBytes + " bytes of physical memory, less " +
                rings + " bytes of rings, leaves less than one arena chunk of state per partition (" + partitions +
                " partitions): lower the partitions, the ring size or the slot capacity, or set " +
                StateConfig.MAX_BYTES_PROP_NAME);
        }
        return config.withState(state.withMaxStateBytes(chunks * state.chunkSize()));
    }

    private static void checkDisk(final EngineConfig config, final StateConfig state, final long partitions, final long cap)
    {
        if (!state.hasConfiguredMaxStateBytes())
        {
            return;
        }
        Path existing = config.stateRoot().toAbsolutePath();
        while (existing != null && !Files.exists(existing))
        {
            existing = existing.getParent();
        }
        if (existing == null)
        {
            return;
        }
        final long room;
        try
        {
            // The free space, plus what the root's files take already (a reopened state grows in place).
            room = Files.getFileStore(existing).getUsableSpace() + bytesUnder(config.stateRoot());
        }
        catch (final IOException | RuntimeException e)
        {
            return;
        }
        if (room > 0 && cap > room / partitions)
        {
            throw new IllegalArgumentException(StateConfig.MAX_BYTES_PROP_NAME + " = " + cap + " x " + partitions +
                " partitions is more than the " + room + " bytes the state root " + config.stateRoot() + " has on its " +
                "file store (free space and its own files): the state files cannot grow to it; lower " +
                StateConfig.MAX_BYTES_PROP_NAME + " (or the partitions), or free space");
        }
    }

    private static long bytesUnder(final Path root) throws IOException
    {
        if (!Files.isDirectory(root))
        {
            return 0;
        }
        try (Stream<Path> files = Files.walk(root))
        {
            return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
        }
    }
}
