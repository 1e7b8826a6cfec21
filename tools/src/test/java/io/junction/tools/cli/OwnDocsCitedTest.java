package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.StringWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Main sources, docs and help texts cite the project's own documents (docs/SEMANTICS.md section N, docs/CLI.md,
 * ...), never a document or a tracker a reader of this repository does not have: no "SPEC.md", no "SPEC" with a
 * section number, no issue numbers, no "seed article".
 */
class OwnDocsCitedTest
{
    private static final Pattern FOREIGN = Pattern.compile("SPEC\\.md|\\bSPEC \\d|\\b[Ii]ssue \\d+|seed article");

    private static Path root()
    {
        return Paths.get("..").toAbsolutePath().normalize();
    }

    @Test
    void mainSourcesAndDocsCiteOnlyTheProjectsOwnDocuments() throws IOException
    {
        final List<String> found = new ArrayList<>();
        final Path root = root();
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root))
        {
            all.filter(Files::isRegularFile).filter(p -> cited(root.relativize(p).toString().replace('\\', '/'))).forEach(files::add);
        }
        for (final Path file : files)
        {
            final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++)
            {
                final Matcher m = FOREIGN.matcher(lines.get(i));
                if (m.find())
                {
                    found.add(root.relativize(file) + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        assertTrue(files.size() > 100, "the scan found the sources: " + files.size());
        assertTrue(found.isEmpty(), "cite docs/SEMANTICS.md (or another doc of the repository) instead:\n" + String.join("\n", found));
    }

    /** Whether a repository path is a main source, a doc, a README, an example or a model the test covers. */
    private static boolean cited(final String path)
    {
        if (path.contains("/target/") || path.startsWith("target/") || path.startsWith(".git/") || path.contains("/.git/") ||
            path.startsWith("bench/results/"))
        {
            return false;
        }
        final boolean text = path.endsWith(".java") || path.endsWith(".md") || path.endsWith(".py") || path.endsWith(".sh") ||
            path.endsWith(".json") || path.endsWith(".jsonl");
        return text && (path.contains("/src/main/") || path.startsWith("docs/") || path.equals("README.md") ||
            path.endsWith("/README.md") || path.startsWith("examples/") || path.startsWith("conformance/") ||
            path.startsWith("bench/scripts/"));
    }

    @Test
    void helpTextsCiteOnlyTheProjectsOwnDocuments()
    {
        final List<String> found = new ArrayList<>();
        collect(JunctionCli.commandLine(), found);
        assertTrue(found.isEmpty(), String.join("\n", found));
    }

    private static void collect(final CommandLine command, final List<String> found)
    {
        final StringWriter help = new StringWriter();
        command.usage(new PrintWriter(help));
        final Matcher m = FOREIGN.matcher(help.toString());
        if (m.find())
        {
            found.add(command.getCommandSpec().qualifiedName() + " --help: " + m.group());
        }
        for (final Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet())
        {
            collect(sub.getValue(), found);
        }
    }
}
