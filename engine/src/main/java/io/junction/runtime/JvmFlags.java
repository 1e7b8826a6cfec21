package io.junction.runtime;

import io.junction.join.IndexKind;
import net.openhft.chronicle.core.OS;
import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code --add-exports}/{@code --add-opens} flags an engine's configuration needs on Java 17+, measured
 * per path (docs/CONFIGURATION.md, "JVM flags"): Agrona reaches {@code jdk.internal.misc.Unsafe} on every
 * path; durable state maps its files through Chronicle's {@code OS}, which reaches into {@code sun.nio.ch}
 * and {@code java.lang.reflect}; the Chronicle Map index also opens {@code java.lang}, compiles classes
 * ({@code jdk.compiler}) and frees its buffers through {@code jdk.internal.ref} and {@code sun.nio.ch} (without
 * those two it still runs, but logs a warning at start: the flags here are those of a clean start).
 *
 * <p>{@link JoinEngine.Builder#start()} checks them before anything is allocated, so a missing flag fails the
 * start with one line naming the flag to add, not with an {@code IllegalAccessError} from deep inside a
 * library on a partition thread. The check asks the JVM's module graph; it reflects nothing and loads no
 * library class's static initializer.
 */
public final class JvmFlags
{
    /** Where the flags each path needs are listed, named in the refusal. */
    private static final String DOC = "docs/CONFIGURATION.md, \"JVM flags\"";

    private JvmFlags()
    {
    }

    /**
     * @param config an engine's configuration.
     * @return the flags an engine with this configuration needs, as {@code java} command-line options (with
     * {@code ALL-UNNAMED} as the target while the libraries are on the class path), in a fixed order.
     */
    public static List<String> required(final EngineConfig config)
    {
        final List<String> flags = new ArrayList<>();
        for (final Access access : accesses(config))
        {
            flags.add(access.flag());
        }
        return flags;
    }

    /**
     * @param config an engine's configuration.
     * @return the flags of {@link #required} that this JVM was not started with (empty when it can run the engine).
     */
    public static List<String> missing(final EngineConfig config)
    {
        final List<String> flags = new ArrayList<>();
        for (final Access access : accesses(config))
        {
            if (!access.granted())
            {
                flags.add(access.flag());
            }
        }
        return flags;
    }

    /**
     * Refuses a JVM that lacks a flag the configuration needs.
     *
     * @param config the configuration an engine is about to start with.
     * @throws IllegalStateException naming every missing flag, on one line.
     */
    static void check(final EngineConfig config)
    {
        final List<Access> accesses = accesses(config);
        final List<String> missing = new ArrayList<>();
        final List<String> users = new ArrayList<>();
        for (final Access access : accesses)
        {
            if (!access.granted())
            {
                missing.add(access.flag());
                if (!users.contains(access.user))
                {
                    users.add(access.user);
                }
            }
        }
        if (!missing.isEmpty())
        {
            throw new IllegalStateException("junction: the JVM was started without " + String.join(" ", missing) + ", which " +
                String.join(" and ", users) + " needs: add it to the java command line (or Surefire's argLine); " +
                "the flags of each configuration are in " + DOC);
        }
    }

    private static List<Access> accesses(final EngineConfig config)
    {
        final Module agrona = DirectBuffer.class.getModule();
        final Module chronicle = OS.class.getModule();
        final boolean durable = config.stateRoot() != null || config.checkpointRoot() != null;
        final boolean chronicleIndex = config.state().indexKind() == IndexKind.CHRONICLE;
        final List<Access> accesses = new ArrayList<>();
        accesses.add(new Access(false, "java.base", "jdk.internal.misc", agrona, "the off-heap state (Agrona)"));
        if (chronicleIndex)
        {
            accesses.add(new Access(true, "java.base", "java.lang", chronicle, "the Chronicle Map index"));
        }
        if (durable || chronicleIndex)
        {
            accesses.add(new Access(true, "java.base", "java.lang.reflect", chronicle,
                durable ? "durable state (Chronicle's file mapping)" : "the Chronicle Map index"));
        }
        if (durable || chronicleIndex)
        {
            // The index maps no file, yet Chronicle's buffer cleaner warns at start without it.
            accesses.add(new Access(false, "java.base", "sun.nio.ch", chronicle,
                durable ? "durable state (Chronicle's file mapping)" : "the Chronicle Map index"));
        }
        if (chronicleIndex)
        {
            accesses.add(new Access(false, "java.base", "jdk.internal.ref", chronicle, "the Chronicle Map index"));
            // A runtime image without the compiler cannot be given the flag: Chronicle reports that itself.
            if (ModuleLayer.boot().findModule("jdk.compiler").isPresent())
            {
                accesses.add(new Access(false, "jdk.compiler", "com.sun.tools.javac.file", chronicle, "the Chronicle Map index"));
            }
        }
        return accesses;
    }

    /** One package of a JDK module that a library's module must be given: exported, or open for deep reflection. */
    private static final class Access
    {
        private final boolean open;
        private final String module;
        private final String pkg;
        private final Module to;
        private final String user;

        private Access(final boolean open, final String module, final String pkg, final Module to, final String user)
        {
            this.open = open;
            this.module = module;
            this.pkg = pkg;
            this.to = to;
            this.user = user;
        }

        private boolean granted()
        {
            final Optional<Module> source = ModuleLayer.boot().findModule(module);
            return source.isEmpty() || (open ? source.get().isOpen(pkg, to) : source.get().isExported(pkg, to));
        }

        private String flag()
        {
            return (open ? "--add-opens=" : "--add-exports=") + module + "/" + pkg + "=" + (to.isNamed() ? to.getName() : "ALL-UNNAMED");
        }
    }
}
