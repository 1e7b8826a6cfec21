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

/** Runs a probe's {@code main} in a JVM of its own, with this JVM's {@code --add-*} flags and the test class path. */
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
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + "/bin/java");
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("--add-"))
            {
                command.add(argument);
            }
        }
        command.addAll(options);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
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
            final String output = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), output);
            return output;
        }
        finally
        {
            Files.deleteIfExists(log);
        }
    }
}
