package io.junction.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The README's pom snippet ("Maven coordinates") builds a user's project as it says: this test pastes the
 * snippet, read out of README.md, into an empty project's pom, adds the README's first example (its imports
 * block and its code block) as a JUnit test, and builds and runs it with Maven against the file repository
 * {@code target/repo} that {@code mvn -B verify} filled before the examples' integration-test phase. So the
 * repository URL, the BOM import, the dependency, the compiler plugin's {@code release} and Surefire's
 * {@code argLine} (the one flag the default path needs) are all checked, and cannot rot.
 *
 * <p>One child Maven run, offline: its local repository is a fresh directory, and the build's own local
 * repository is its only other repository (read as a file repository, releases only), so it finds the plugins
 * and libraries this build already resolved and nothing is written into the shared one. It calls the goals of
 * the snippet's plugins by name rather than the {@code test} phase, whose default bindings (the resources
 * plugin's default version) this build never resolves. Skipped, with a message, when {@code mvn} is not on the
 * PATH.
 */
class MavenSnippetIT
{
    /** The placeholder of the README's snippet for the clone's directory. */
    private static final String REPO_PLACEHOLDER = "file:///path/to/junction/target/repo";

    private static Path readme()
    {
        final String readme = System.getProperty("junction.readme");
        assertNotNull(readme, "junction.readme is set by the examples module's Surefire configuration");
        return Path.of(readme);
    }

    /** @return the first ```xml block after the line that starts with heading. */
    static String xmlBlockAfter(final List<String> lines, final String heading)
    {
        int line = lines.indexOf(heading);
        assertTrue(line >= 0, "README.md has the heading " + heading);
        while (line < lines.size() && !lines.get(line).trim().equals("```xml"))
        {
            line++;
        }
        final StringBuilder block = new StringBuilder();
        for (line++; line < lines.size() && !lines.get(line).trim().equals("```"); line++)
        {
            block.append(lines.get(line)).append('\n');
        }
        assertTrue(line < lines.size(), "the ```xml block after " + heading + " is closed");
        return block.toString();
    }

    private static Path mavenOnPath()
    {
        final String path = System.getenv("PATH");
        if (path != null)
        {
            for (final String dir : path.split(File.pathSeparator))
            {
                final Path mvn = Path.of(dir, "mvn");
                if (!dir.isEmpty() && Files.isExecutable(mvn))
                {
                    return mvn;
                }
            }
        }
        return null;
    }

    @Test
    void theReadmesPomSnippetBuildsAndRunsTheFirstExampleAgainstTheFileRepository(@TempDir final Path work) throws Exception
    {
        final Path mvn = mavenOnPath();
        assumeTrue(mvn != null, "mvn is not on the PATH: the README's pom snippet is not built here");
        final Path repo = Path.of(System.getProperty("junction.repo.dir"));
        assertTrue(Files.isDirectory(repo.resolve("io/junction/junction-bom")),
            repo + " holds junction-bom: `mvn verify` deploys every library there before the examples' integration tests");
        final String localRepository = System.getProperty("junction.maven.localRepository");
        assertNotNull(localRepository, "junction.maven.localRepository is set by the examples module's Surefire configuration");

        final List<String> readme = Files.readAllLines(readme(), StandardCharsets.UTF_8);
        final String snippet = xmlBlockAfter(readme, "## Maven coordinates");
        assertEquals(1, snippet.split(REPO_PLACEHOLDER, -1).length - 1, "the snippet names the file repository as " + REPO_PLACEHOLDER);
        final Path project = Files.createDirectories(work.resolve("app"));
        Files.writeString(project.resolve("pom.xml"), "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n<modelVersion>4.0.0</modelVersion>\n" +
            "<groupId>com.example</groupId>\n<artifactId>adopter</artifactId>\n<version>1.0</version>\n" +
            "<properties><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>\n" +
            withKafka(snippet.replace(REPO_PLACEHOLDER, repo.toUri().toString())) + "</project>\n");

        // The README's first example, as the user's first test: its imports block, then its code block.
        final List<List<String>> blocks = new ArrayList<>(ReadmeSnippetTest.javaBlocks("README.md", readme).values());
        final StringBuilder test = new StringBuilder("package app;\n\n");
        blocks.get(0).forEach(line -> test.append(line).append('\n'));
        test.append("import org.junit.jupiter.api.Test;\n\nclass FirstJoinTest\n{\n    @Test\n    void join()\n    {\n");
        blocks.get(1).forEach(line -> test.append("        ").append(line).append('\n'));
        test.append("    }\n}\n");
        final Path sources = Files.createDirectories(project.resolve("src/test/java/app"));
        Files.writeString(sources.resolve("FirstJoinTest.java"), test.toString());
        // docs/JAVA_API.md's JoinTestDriver test, as the user's second test (its imports as the example's source has them).
        Files.writeString(sources.resolve("DriverTest.java"), driverTest(readme().resolveSibling("docs").resolve("JAVA_API.md")));
        // docs/KAFKA.md's Java example (its source, which the kafka module's tests run), as the user's third test: a
        // Kafka join end to end against the test kit's broker.
        final Path kafkaSources = Files.createDirectories(project.resolve("src/test/java/io/junction/kafka"));
        Files.copy(readme().resolveSibling("kafka").resolve("src/test/java/io/junction/kafka/KafkaJoinExample.java"),
            kafkaSources.resolve("KafkaJoinExample.java"));
        Files.writeString(kafkaSources.resolve("KafkaJoinTest.java"), KAFKA_TEST);

        final String seed = Path.of(localRepository).toUri().toString();
        final Path settings = work.resolve("settings.xml");
        Files.writeString(settings, "<settings>\n<localRepository>" + work.resolve("m2") + "</localRepository>\n" +
            "<profiles><profile><id>build-repository</id>\n" +
            "<repositories><repository><id>build-repository</id><url>" + seed + "</url>" +
            "<snapshots><enabled>false</enabled></snapshots></repository></repositories>\n" +
            "<pluginRepositories><pluginRepository><id>build-repository</id><url>" + seed + "</url>" +
            "<snapshots><enabled>false</enabled></snapshots></pluginRepository></pluginRepositories>\n" +
            "</profile></profiles>\n<activeProfiles><activeProfile>build-repository</activeProfile></activeProfiles>\n</settings>\n");

        final List<String> command = new ArrayList<>(List.of(mvn.toString(), "-o", "-q", "-B", "-s", settings.toString(),
            "-Daether.offline.protocols=file", "-Dstyle.color=never",
            "compiler:compile", "compiler:testCompile", "surefire:test"));
        final Path log = work.resolve("mvn.log");
        final ProcessBuilder builder = new ProcessBuilder(command).directory(project.toFile()).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        final Map<String, String> env = builder.environment();
        env.remove("MAVEN_OPTS");
        env.put("JAVA_HOME", System.getProperty("java.home"));
        final Process process = builder.start();
        if (!process.waitFor(300, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            fail("the snippet's build did not end within 300 s:\n" + Files.readString(log, StandardCharsets.UTF_8));
        }
        final String output = Files.readString(log, StandardCharsets.UTF_8).replaceAll("\u001b\\[[0-9;]*m", "");
        assertEquals(0, process.exitValue(), "the README's snippet builds and its first example passes:\n" + output);
        assertTrue(Files.isRegularFile(project.resolve("target/surefire-reports/TEST-app.DriverTest.xml")),
            "the JoinTestDriver test ran in the empty project:\n" + output);
        final List<String> kafka = output.lines().filter(l -> l.startsWith("kafka: ")).toList();
        assertEquals(1, kafka.size(), "the Kafka join ran in the empty project and wrote one result:\n" + output);
        assertTrue(kafka.get(0).startsWith("kafka: +I {log_id=42, ts=1000, show_params=\"home\"} x {log_id=42, ts=4000, " +
            "click_params=\"buy\"} at 4000 from "), kafka.get(0));
        final List<String> printed = output.lines().filter(l -> l.startsWith("mistyped ") || l.startsWith("+I ")).toList();
        assertEquals(List.of("mistyped order_id refused: true",
            "+I {order_id=1, method=\"card\", amount=9.5} {order_id=1, status=\"paid\"}",
            "+I {order_id=2, method=\"cash\", amount=20.0} null"), printed, "what the README says it prints:\n" + output);
    }

    /** A test class holding docs/JAVA_API.md's JoinTestDriver block, with the imports its example's source uses. */
    private static String driverTest(final Path javaApi) throws IOException
    {
        List<String> block = null;
        for (final List<String> candidate : ReadmeSnippetTest.javaBlocks("docs/JAVA_API.md",
            Files.readAllLines(javaApi, StandardCharsets.UTF_8)).values())
        {
            if (String.join("\n", candidate).contains("JoinTestDriver.create"))
            {
                block = candidate;
            }
        }
        assertNotNull(block, "docs/JAVA_API.md shows a JoinTestDriver test");
        final Path example = javaApi.getParent().getParent().resolve("examples/src/test/java/io/junction/examples/TestDriverExampleTest.java");
        final StringBuilder test = new StringBuilder("package app;\n\n");
        for (final String line : Files.readAllLines(example, StandardCharsets.UTF_8))
        {
            if (line.startsWith("import "))
            {
                test.append(line).append('\n');
            }
        }
        test.append("\nclass DriverTest\n{\n");
        block.forEach(line -> test.append("    ").append(line).append('\n'));
        return test.append("}\n").toString();
    }

    /** The user's Kafka test: the test kit's broker, the topics, docs/KAFKA.md's example, its one result printed. */
    private static final String KAFKA_TEST = String.join("\n",
        "package io.junction.kafka;",
        "",
        "import static org.junit.jupiter.api.Assertions.assertEquals;",
        "",
        "import io.junction.kafka.testing.KafkaTestBroker;",
        "import java.nio.file.Path;",
        "import java.util.List;",
        "import org.junit.jupiter.api.Test;",
        "import org.junit.jupiter.api.io.TempDir;",
        "",
        "class KafkaJoinTest",
        "{",
        "    @Test",
        "    void joinsThroughABroker(@TempDir final Path dir) throws Exception",
        "    {",
        "        try (KafkaTestBroker broker = KafkaTestBroker.start())",
        "        {",
        "            broker.createTopic(\"shows\", 2);",
        "            broker.createTopic(\"clicks\", 2);",
        "            broker.createTopic(\"shows-clicks\", 2);",
        "            final List<String> printed = KafkaJoinExample.run(broker.bootstrapServers(), dir);",
        "            printed.forEach(line -> System.out.println(\"kafka: \" + line));",
        "            assertEquals(1, printed.size());",
        "        }",
        "    }",
        "}",
        "");

    /**
     * The snippet as a user of Kafka makes it: junction-kafka and its test kit where the snippet's comment says,
     * and Surefire's flag line for the Kafka runner's path (docs/CONFIGURATION.md, "JVM flags": durable state's).
     */
    private static String withKafka(final String snippet)
    {
        final String comment = "<!-- and junction-json, junction-kafka, junction-micrometer, junction-kafka-testkit as needed, without versions -->";
        assertTrue(snippet.contains(comment), "the snippet says where further modules go: " + comment);
        final String memoryFlags = "<argLine>--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED</argLine>";
        assertTrue(snippet.contains(memoryFlags), "the snippet's Surefire flag line: " + memoryFlags);
        final String durable = System.getProperty("junction.jvm.flags.durable");
        assertNotNull(durable, "junction.jvm.flags.durable is set by the examples module's Surefire configuration");
        return snippet.replace(comment,
                "<dependency><groupId>io.junction</groupId><artifactId>junction-kafka</artifactId></dependency>\n" +
                "<dependency><groupId>io.junction</groupId><artifactId>junction-kafka-testkit</artifactId><scope>test</scope></dependency>")
            .replace(memoryFlags, "<argLine>" + durable + "</argLine>");
    }
}
