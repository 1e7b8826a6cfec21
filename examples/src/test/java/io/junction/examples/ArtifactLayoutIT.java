package io.junction.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a company depending on {@code io.junction:junction-engine} gets: `mvn verify` deploys every library
 * (engine, json, kafka, micrometer, kafka-testkit), their parent pom and {@code junction-bom} into the file
 * repository {@code target/repo} at the root (as
 * {@code mvn deploy -DaltDeploymentRepository=local::file:target/repo} would; engine/pom.xml), and this
 * test, run in the examples' integration-test phase, checks that layout as a repository manager would
 * (pom with licence, SCM, developers and URL; jar with its Automatic-Module-Name; sources and javadoc
 * jars; an md5 and sha1 beside each file, matching it), then builds QuickStart as a user's project would:
 * compiled with javac against the deployed jar and the engine pom's declared runtime dependencies only
 * (not the reactor's classes), and run in a fresh JVM with the documented JVM flags.
 *
 * <p>Not a nested Maven run (slow, and it would need the network or a second local repository): the
 * dependency jars are those of this module's test class path, which Maven resolved from the same pom.
 */
class ArtifactLayoutIT
{
    /** The engine's direct dependencies a user pulls in (README "Maven coordinates"); keep this set small. */
    private static final Set<String> DECLARED_DEPENDENCIES = Set.of(
        "net.openhft:chronicle-map", "org.agrona:agrona", "com.lmax:disruptor", "org.hdrhistogram:HdrHistogram");

    private static Path repo()
    {
        final String dir = System.getProperty("junction.repo.dir");
        assertNotNull(dir, "junction.repo.dir is set by the examples module's Surefire configuration");
        final Path repo = Path.of(dir);
        assertTrue(Files.isDirectory(repo), repo + " is missing: `mvn verify` deploys the engine there before this test runs");
        return repo;
    }

    /** @return the base path (without extension) of the newest deployed version of an artifact. */
    private static Path artifactBase(final Path repo, final String artifactId) throws IOException
    {
        final Path dir = repo.resolve("io/junction/" + artifactId);
        final String version = tag(Files.readString(dir.resolve("maven-metadata.xml")), "latest", "version");
        final Path versionDir = dir.resolve(version);
        String fileVersion = version;
        if (version.endsWith("-SNAPSHOT"))
        {
            final String metadata = Files.readString(versionDir.resolve("maven-metadata.xml"));
            fileVersion = version.substring(0, version.length() - "SNAPSHOT".length()) +
                tag(metadata, "timestamp") + "-" + tag(metadata, "buildNumber");
        }
        return versionDir.resolve(artifactId + "-" + fileVersion);
    }

    private static String tag(final String xml, final String... names)
    {
        for (final String name : names)
        {
            final Matcher m = Pattern.compile("<" + name + ">([^<]+)</" + name + ">").matcher(xml);
            if (m.find())
            {
                return m.group(1).trim();
            }
        }
        return fail("no <" + String.join("> or <", names) + "> in\n" + xml);
    }

    private static Path file(final Path base, final String suffix) throws IOException, NoSuchAlgorithmException
    {
        final Path file = base.resolveSibling(base.getFileName() + suffix);
        assertTrue(Files.isRegularFile(file), "deployed: " + file);
        final byte[] bytes = Files.readAllBytes(file);
        for (final String algorithm : new String[] {"MD5", "SHA-1"})
        {
            final Path sum = file.resolveSibling(file.getFileName() + (algorithm.equals("MD5") ? ".md5" : ".sha1"));
            assertTrue(Files.isRegularFile(sum), "checksum beside it: " + sum);
            final String expected = HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
            assertEquals(expected, Files.readString(sum).trim().split("\\s+")[0], algorithm + " of " + file);
        }
        return file;
    }

    @Test
    void shouldDeployAParentPomWithLicenceScmDevelopersAndUrl() throws Exception
    {
        final String pom = Files.readString(file(artifactBase(repo(), "junction-parent"), ".pom"));
        assertTrue(pom.contains("<name>Apache-2.0</name>"), "Apache-2.0 licence");
        assertTrue(pom.contains("https://www.apache.org/licenses/LICENSE-2.0.txt"), "licence URL");
        for (final String element : new String[] {"<scm>", "<connection>", "<developers>", "<url>", "<organization>", "<description>"})
        {
            assertTrue(pom.contains(element), "the parent pom has " + element);
        }
    }

    @Test
    void shouldDeployTheEngineJarSourcesJavadocAndPomWithChecksums() throws Exception
    {
        final Path base = artifactBase(repo(), "junction-engine");
        final String pom = Files.readString(file(base, ".pom"));
        assertTrue(pom.contains("<artifactId>junction-parent</artifactId>"), "names its parent, deployed beside it");
        assertEquals(DECLARED_DEPENDENCIES, runtimeDependencies(pom),
            "the engine's runtime dependencies are the documented set (README, docs/HACKING.md)");

        try (JarFile jar = new JarFile(file(base, ".jar").toFile()))
        {
            assertEquals("io.junction.engine", jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"));
            assertNotNull(jar.getEntry("io/junction/runtime/JoinEngine.class"));
        }
        try (JarFile sources = new JarFile(file(base, "-sources.jar").toFile()))
        {
            assertNotNull(sources.getEntry("io/junction/api/JoinSpec.java"), "sources jar holds the API sources");
        }
        try (JarFile javadoc = new JarFile(file(base, "-javadoc.jar").toFile()))
        {
            assertNotNull(javadoc.getEntry("index.html"), "javadoc jar holds the API docs");
            // javadoc lays a named (here automatic) module's pages under the module's name
            assertTrue(javadoc.getEntry("io.junction.engine/io/junction/api/JoinSpec.html") != null ||
                javadoc.getEntry("io/junction/api/JoinSpec.html") != null, "javadoc jar holds JoinSpec's page");
        }
    }

    @Test
    void shouldDeployTheJsonModuleJarSourcesJavadocAndPomWithChecksums() throws Exception
    {
        final Path base = artifactBase(repo(), "junction-json");
        final String pom = Files.readString(file(base, ".pom"));
        assertTrue(pom.contains("<artifactId>junction-parent</artifactId>"), "names its parent, deployed beside it");
        assertEquals(Set.of("io.junction:junction-engine", "com.fasterxml.jackson.core:jackson-databind"), runtimeDependencies(pom),
            "junction-json adds Jackson only (README, docs/HACKING.md)");
        try (JarFile jar = new JarFile(file(base, ".jar").toFile()))
        {
            assertEquals("io.junction.json", jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"));
            assertNotNull(jar.getEntry("io/junction/json/JoinSpecJson.class"));
        }
        try (JarFile sources = new JarFile(file(base, "-sources.jar").toFile()))
        {
            assertNotNull(sources.getEntry("io/junction/json/RowJson.java"), "sources jar holds the sources");
        }
        try (JarFile javadoc = new JarFile(file(base, "-javadoc.jar").toFile()))
        {
            assertNotNull(javadoc.getEntry("index.html"), "javadoc jar holds the API docs");
        }
    }

    /** The library modules verify deploys, each with its Automatic-Module-Name and a class of its API. */
    private static final Map<String, String[]> LIBRARIES = Map.of(
        "junction-engine", new String[] {"io.junction.engine", "io/junction/runtime/JoinEngine.class"},
        "junction-json", new String[] {"io.junction.json", "io/junction/json/JoinSpecJson.class"},
        "junction-kafka", new String[] {"io.junction.kafka", "io/junction/kafka/KafkaJoinRunner.class"},
        "junction-micrometer", new String[] {"io.junction.micrometer", "io/junction/micrometer/JunctionMetrics.class"},
        "junction-kafka-testkit", new String[] {"io.junction.kafka.testkit", "io/junction/kafka/testing/KafkaTestBroker.class"});

    @Test
    void shouldDeployEveryLibraryModuleWithItsParentJarAndChecksums() throws Exception
    {
        for (final Map.Entry<String, String[]> library : LIBRARIES.entrySet())
        {
            final Path base = artifactBase(repo(), library.getKey());
            final String pom = Files.readString(file(base, ".pom"));
            assertTrue(pom.contains("<artifactId>junction-parent</artifactId>"), library.getKey() + " names its parent, deployed beside it");
            try (JarFile jar = new JarFile(file(base, ".jar").toFile()))
            {
                assertEquals(library.getValue()[0], jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"), library.getKey());
                assertNotNull(jar.getEntry(library.getValue()[1]), library.getKey() + " holds " + library.getValue()[1]);
            }
        }
    }

    @Test
    void shouldDeployABomOfEveryLibraryAtTheParentsVersion() throws Exception
    {
        final String bom = Files.readString(file(artifactBase(repo(), "junction-bom"), ".pom"));
        final String parentVersion = tag(Files.readString(repo().resolve("io/junction/junction-parent/maven-metadata.xml")), "latest", "version");
        assertEquals(parentVersion, tag(Files.readString(repo().resolve("io/junction/junction-bom/maven-metadata.xml")), "latest", "version"),
            "junction-bom carries the parent's version (bom/pom.xml writes it: a release sets both)");
        assertTrue(!bom.contains("<parent>"), "the BOM has no parent, whose dependencyManagement an import would take too");
        final Set<String> managed = new TreeSet<>();
        final Matcher deps = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(bom);
        while (deps.find())
        {
            managed.add(tag(deps.group(1), "artifactId"));
            assertEquals("${project.version}", tag(deps.group(1), "version"), "each at the BOM's own version");
        }
        assertEquals(new TreeSet<>(LIBRARIES.keySet()), managed, "the BOM manages every deployed library, nothing else");
    }

    @Test
    void shouldRunTheToolsJarWithoutJvmFlags(@TempDir final Path work) throws Exception
    {
        final Path jar = Path.of(System.getProperty("junction.tools.jar"));
        assertTrue(Files.isRegularFile(jar), jar + " is built by the tools module's package phase, before the examples' integration tests");
        try (JarFile file = new JarFile(jar.toFile()))
        {
            assertEquals(System.getProperty("junction.jar.addOpens"), file.getManifest().getMainAttributes().getValue("Add-Opens"));
            assertEquals(System.getProperty("junction.jar.addExports"), file.getManifest().getMainAttributes().getValue("Add-Exports"));
        }
        final Path replay = Path.of(System.getProperty("junction.examples.dir"), "replay");
        final Path log = work.resolve("replay.log");
        final Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString(),
            "replay", replay.resolve("shows.join.json").toString(), replay.resolve("shows.events.jsonl").toString())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the replay exits");
        final String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), "`java -jar` with no JVM flag runs a replay:\n" + output);
        assertTrue(output.contains("\"step\":3,\"op\":\"+I\""), output);
    }

    /** @return groupId:artifactId of the pom's dependencies outside the test scope. */
    private static Set<String> runtimeDependencies(final String pom)
    {
        final Matcher deps = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(pom);
        final Set<String> out = new TreeSet<>();
        while (deps.find())
        {
            final String dep = deps.group(1);
            if (!dep.contains("<scope>test</scope>"))
            {
                out.add(tag(dep, "groupId") + ":" + tag(dep, "artifactId"));
            }
        }
        return out;
    }

    @Test
    void shouldCompileAndRunQuickStartAgainstTheDeployedJar(@TempDir final Path work) throws Exception
    {
        final Path jar = file(artifactBase(repo(), "junction-engine"), ".jar");
        final List<String> classpath = new ArrayList<>();
        classpath.add(jar.toString());
        final Set<String> found = new TreeSet<>();
        final Path root = Path.of(System.getProperty("junction.examples.dir")).toAbsolutePath().normalize().getParent();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            // the dependencies Maven resolved from the engine's pom; never the reactor's own classes or jars
            final String slashed = entry.replace(File.separatorChar, '/');
            if (entry.endsWith(".jar") && !Path.of(entry).toAbsolutePath().normalize().startsWith(root) &&
                !slashed.contains("/io/junction/") && !slashed.contains("/org/junit/") && !slashed.contains("/opentest4j/") &&
                !slashed.contains("/apiguardian/") && !slashed.contains("surefire"))
            {
                classpath.add(entry);
                for (final String dep : DECLARED_DEPENDENCIES)
                {
                    if (entry.replace(File.separatorChar, '/').contains("/" + dep.substring(dep.indexOf(':') + 1) + "/"))
                    {
                        found.add(dep);
                    }
                }
            }
        }
        assertEquals(DECLARED_DEPENDENCIES, found, "each declared dependency's jar is on the class path: " + classpath);
        final String cp = String.join(File.pathSeparator, classpath);

        final Path source = Path.of(System.getProperty("junction.examples.dir"))
            .resolve("src/main/java/io/junction/examples/QuickStart.java");
        final Path classes = Files.createDirectories(work.resolve("classes"));
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        final int compiled = javac.run(null, diagnostics, diagnostics,
            "--release", "17", "-proc:none", "-cp", cp, "-d", classes.toString(), source.toString());
        assertEquals(0, compiled, "QuickStart compiles against the deployed jar:\n" + diagnostics.toString(StandardCharsets.UTF_8));

        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(System.getProperty("junction.jvm.flags").trim().split("\\s+")));
        command.add("-cp");
        command.add(classes + File.pathSeparator + cp);
        command.add("io.junction.examples.QuickStart");
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output;
        try (InputStream in = process.getInputStream())
        {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "QuickStart exits");
        assertEquals(0, process.exitValue(), output);
        assertTrue(output.contains("results 2, p99 ns "), "a pair and a padded show:\n" + output);
    }
}
