package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code junction loadgen --workload W6} in-process on a prefix of W6: both emission modes run directly and
 * through the runtime, and exit 0 only when the output rows are W6's counting model's (1 on a mismatch); a bad
 * {@code --asof-emit} is refused with 2.
 */
class LoadgenW6Test
{
    private int run(final String... args)
    {
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }

    @Test
    void runsW6InBothModesWithTheModelsOutputRows()
    {
        assertEquals(0, run("loadgen", "--workload", "W6", "--events", "12000", "--direct", "--asof-emit", "eager", "--quiet"));
        assertEquals(0, run("loadgen", "--workload", "W6", "--events", "12000", "--type", "inner", "--no-floor", "--quiet"));
        assertEquals(0, run("loadgen", "--workload", "W6", "--events", "12000", "--asof-emit", "eager", "--rate", "50000",
            "--no-floor", "--quiet"));
    }

    @Test
    void refusesAnUnknownEmissionMode()
    {
        assertEquals(2, run("loadgen", "--workload", "W6", "--events", "600", "--asof-emit", "sometimes", "--no-floor", "--quiet"));
        assertTrue(JunctionCli.commandLine().getSubcommands().get("loadgen").getUsageMessage().contains("--asof-emit"));
    }
}
