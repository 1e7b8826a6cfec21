package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** One in-process run of {@code junction explain}: its exit status, its lines parsed, its stderr. */
final class ExplainRun
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final int exit;
    private final String out;
    private final String err;
    private final List<JsonNode> lines = new ArrayList<>();

    private ExplainRun(final int exit, final String out, final String err)
    {
        this.exit = exit;
        this.out = out;
        this.err = err;
        for (final String line : out.split("\n"))
        {
            if (!line.isBlank())
            {
                try
                {
                    lines.add(MAPPER.readTree(line));
                }
                catch (final IOException e)
                {
                    throw new UncheckedIOException("not a JSON line: " + line, e);
                }
            }
        }
    }

    static ExplainRun cli(final String... args)
    {
        final CommandLine cli = JunctionCli.commandLine();
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        final int exit = cli.execute(args);
        return new ExplainRun(exit, out.toString(), err.toString());
    }

    int exit()
    {
        return exit;
    }

    String out()
    {
        return out;
    }

    String err()
    {
        return err;
    }

    List<JsonNode> lines()
    {
        return lines;
    }

    /** @return the fate line (the last line) */
    JsonNode fate()
    {
        if (lines.isEmpty() || !lines.get(lines.size() - 1).has("fate"))
        {
            throw new AssertionError("no fate line in: " + out + err);
        }
        return lines.get(lines.size() - 1);
    }

    /** @return the pair line with the row of that step, or null */
    JsonNode pair(final long with)
    {
        for (final JsonNode line : lines)
        {
            if (line.has("with") && line.get("with").asLong() == with)
            {
                return line;
            }
        }
        return null;
    }

    /**
     * @param with     the other row's step
     * @param made     the explained row's made row ({@code "made"}), or -1 for a line without one
     * @param withMade the other row's made row ({@code "withMade"}), or -1 for a line without one
     * @return that pair line of a spec with row expansion, or null
     */
    JsonNode pair(final long with, final int made, final int withMade)
    {
        for (final JsonNode line : lines)
        {
            if (line.has("with") && line.get("with").asLong() == with && line.path("made").asInt(-1) == made &&
                line.path("withMade").asInt(-1) == withMade)
            {
                return line;
            }
        }
        return null;
    }

    /** @return the code of the pair line with the row of that step, or null when there is none */
    String pairCode(final long with)
    {
        final JsonNode pair = pair(with);
        return pair == null ? null : pair.get("code").asText();
    }
}
