package io.junction.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * One source style across every module of the build (docs/ARCHITECTURE.md "Code style"): braces on a line of
 * their own (Allman, as the engine has always been written), and no fully qualified type name inline in code
 * (an import says what a file depends on; {@link LayeringTest} reads them), except where the simple name is
 * imported from another package or declared as another type in the same file. Array initialisers
 * ({@code = {}, {@code [] {}) keep their brace on the line. Comments and string literals are not code.
 * Reads the sources of every module beside {@code engine/} in this checkout.
 */
final class SourceStyleTest
{
    private static final Path ROOT = Paths.get("..");
    private static final String[] MODULES = {
        "engine", "stress", "json", "kafka-testkit", "kafka", "micrometer", "tools", "examples", "bench", "peers"};
    /** A line of code ending in an opening brace after something that is not an array initialiser's. */
    private static final Pattern TRAILING_BRACE = Pattern.compile(".*[^\\s=\\](,{]\\s*\\{\\s*$");
    /** A closing brace followed on its line by else, catch, finally or while. */
    private static final Pattern CUDDLED = Pattern.compile("^\\s*}\\s*(else|catch|finally|while)\\b.*");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+([\\w.]+);");
    /** A type this file declares: its simple name shadows a same-named type of its package. */
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");
    private static final Pattern INLINE_NAME = Pattern.compile(
        "(?<![\\w.@])(?:java|javax|org|com|io|net|picocli|jdk)\\.(?:[a-z_]\\w*\\.)+[A-Z]\\w*");

    @Test
    void everyModuleUsesOneBraceStyleAndImportsWhatItNames() throws IOException
    {
        final List<String> offences = new ArrayList<>();
        int files = 0;
        for (final String module : MODULES)
        {
            final Path src = ROOT.resolve(module).resolve("src");
            if (!Files.isDirectory(src))
            {
                continue;
            }
            try (Stream<Path> walk = Files.walk(src))
            {
                for (final Path file : (Iterable<Path>)walk.filter(p -> p.toString().endsWith(".java"))::iterator)
                {
                    files++;
                    check(file, offences);
                }
            }
        }
        assertTrue(files > 400, "read the sources of every module from " + ROOT.toAbsolutePath() + ": " + files);
        assertEquals(List.of(), offences, "lines off the source style");
    }

    private static void check(final Path file, final List<String> offences) throws IOException
    {
        final String source = code(Files.readString(file, StandardCharsets.UTF_8));
        final List<String> imported = new ArrayList<>();
        final Matcher imports = IMPORT.matcher(source);
        while (imports.find())
        {
            imported.add(imports.group(1));
        }
        final Matcher declared = DECLARED.matcher(source);
        while (declared.find())
        {
            imported.add("." + declared.group(1));
        }
        final String[] lines = source.split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            final String line = lines[i];
            final String where = ROOT.relativize(file) + ":" + (i + 1) + ": ";
            if (line.trim().startsWith("import ") || line.trim().startsWith("package "))
            {
                continue;
            }
            if (TRAILING_BRACE.matcher(line).matches() && !line.trim().endsWith("->{") && !line.trim().equals("{"))
            {
                offences.add(where + "opening brace at the end of a line");
            }
            if (CUDDLED.matcher(line).matches())
            {
                offences.add(where + "closing brace and keyword on one line");
            }
            final Matcher name = INLINE_NAME.matcher(line);
            if (name.find() && !namesAnotherImport(name.group(), imported))
            {
                offences.add(where + "inline qualified name " + name.group());
            }
        }
    }

    /**
     * @return whether the qualified name's simple name is imported from elsewhere or declared in the file, the one
     *     case where Java can only write the name in full.
     */
    private static boolean namesAnotherImport(final String qualified, final List<String> imported)
    {
        final String simple = qualified.substring(qualified.lastIndexOf('.') + 1);
        for (final String name : imported)
        {
            if (name.endsWith("." + simple) && !name.equals(qualified))
            {
                return true;
            }
        }
        return false;
    }

    /** The source with comments and string and character literals blanked (line breaks kept). */
    static String code(final String source)
    {
        final StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length())
        {
            final char c = source.charAt(i);
            if (source.startsWith("//", i))
            {
                while (i < source.length() && source.charAt(i) != '\n')
                {
                    out.append(' ');
                    i++;
                }
            }
            else if (source.startsWith("/*", i))
            {
                final int end = source.indexOf("*/", i + 2);
                final int stop = end < 0 ? source.length() : end + 2;
                for (; i < stop; i++)
                {
                    out.append(source.charAt(i) == '\n' ? '\n' : ' ');
                }
            }
            else if (c == '"' || c == '\'')
            {
                out.append(' ');
                i++;
                while (i < source.length() && source.charAt(i) != c && source.charAt(i) != '\n')
                {
                    if (source.charAt(i) == '\\')
                    {
                        out.append(' ');
                        i++;
                    }
                    out.append(' ');
                    i++;
                }
                if (i < source.length() && source.charAt(i) == c)
                {
                    out.append(' ');
                    i++;
                }
            }
            else
            {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }
}
