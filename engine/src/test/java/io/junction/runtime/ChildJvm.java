package io.junction.runtime;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** Runs a probe's {@code main} in a JVM of its own, with this JVM's {@code --add-*} flags (or given ones) and the test class path. */
final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * @param options JVM options after the {@code --add-*} flags (a limit, a property).
     * @param main    the probe class, run with this JVM's class path.
     * @return what the probe wrote to its output and error, after it exited 0 within 60 s (else the test fails).
     * @throws Exception when the child cannot be started or its output read.
     */
    static String run(final List<String> options, final Class<?> main) throws Exception
    {
        final List<String> flags = new ArrayList<>();
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-"))
            {
                flags.add(argument);
            }
        }
        final Exit exit = exec(flags, options, main);
        assertEquals(0, exit.status, exit.output);
        return exit.output;
    }

    /** How a child JVM ended: its exit status and what it wrote to its output and error. */
    static final class Exit
    {
        final int status;
        final String output;

        private Exit(final int status, final String output)
        {
            this.status = status;
            this.output = output;
        }
    }

    /**
     * @param flags   the only {@code --add-*} flags the child gets (none of this JVM's).
     * @param options JVM options after them (a limit, a property).
     * @param main    the probe class, run with this JVM's class path.
     * @param args    the probe's arguments.
     * @return how the child ended, within 60 s (else the test fails).
     * @throws Exception when the child cannot be started or its output read.
     */
    static Exit exec(final List<String> flags, final List<String> options, final Class<?> main, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + "/bin/java");
        command.addAll(flags);
        command.addAll(options);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        // The child writes to a file, not a pipe, so a hung child cannot hang the read: wait, then read.
        final Path log = Files.createTempFile("junction-probe", ".log");
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
            if (!process.waitFor(60, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
                fail("the probe did not end within 60 s:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Exit(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(log);
        }
    }
}
