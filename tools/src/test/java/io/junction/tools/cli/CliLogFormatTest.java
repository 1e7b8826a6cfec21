package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.tools.JunctionCli;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.time.Instant;

/** The command line logs in one format: the engine's System.Logger records, one line each. */
class CliLogFormatTest
{
    private static final Pattern LINE = Pattern.compile(
        "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) (ERROR|WARN|INFO|DEBUG|TRACE) \\S+ - .*");

    @TempDir
    Path tmp;

    private final Logger root = LogManager.getLogManager().getLogger("");
    private Handler[] saved;

    @BeforeEach
    void save()
    {
        saved = root.getHandlers();
    }

    @AfterEach
    void restore()
    {
        for (final Handler handler : root.getHandlers())
        {
            root.removeHandler(handler);
        }
        for (final Handler handler : saved)
        {
            root.addHandler(handler);
        }
    }

    @Test
    void theEntryPointInstallsTheFormatAndAnEngineWarningPrintsInIt() throws Exception
    {
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"),
            "{\"side\":\"left\",\"row\":{\"k\":1}}\n{\"side\":\"right\",\"row\":{\"k\":1}}\n");
        assertEquals(0, JunctionCli.execute(new String[] {"replay", spec.toString(), events.toString(),
            "--out", tmp.resolve("out.jsonl").toString()}));
        final Handler[] installed = root.getHandlers();
        assertEquals(1, installed.length, "one handler: " + List.of(installed));
        assertInstanceOf(CliLogFormat.class, installed[0].getFormatter());

        // the same format, on a stream the test reads: a real engine warning (a result handler that throws)
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        CliLogFormat.install(captured);
        final Schema schema = Schema.of("k");
        final JoinSpec join = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(schema, schema)
            .leftKey("k").rightKey("k").build();
        try (JoinEngine engine = JoinEngine.builder(join)
            .resultHandler((kind, left, right, ts, step) ->
            {
                throw new IllegalStateException("handler\nfailed");
            })
            .start())
        {
            final Publisher publisher = engine.publisher();
            publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", 1L), 1, 1);
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("k", 1L), 2, 2);
            publisher.endOfInput(3);
        }
        final List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(!lines.isEmpty(), "the engine logged its handler error");
        for (final String line : lines)
        {
            assertTrue(LINE.matcher(line).matches(), line);
        }
        final String first = lines.get(0);
        assertTrue(first.contains(" WARN io.junction.runtime - junction: error in partition thread "), first);
        assertTrue(first.contains("handler failed"), "a message's line breaks stay on its line: " + first);
    }

    @Test
    void recordsFormatAsOneLineWithSlf4jLevelNames()
    {
        final CliLogFormat format = new CliLogFormat(ZoneId.of("UTC"));
        final LogRecord record = new LogRecord(Level.WARNING, "junction: close returns");
        record.setLoggerName("io.junction.runtime");
        record.setInstant(Instant.parse("2026-12-01T10:30:00.123Z"));
        assertEquals("2026-12-01T10:30:00.123Z WARN io.junction.runtime - junction: close returns" + System.lineSeparator(),
            format.format(record));
        record.setLevel(Level.SEVERE);
        record.setThrown(new IllegalStateException("boom"));
        assertEquals("2026-12-01T10:30:00.123Z ERROR io.junction.runtime - junction: close returns "
            + "(java.lang.IllegalStateException: boom)" + System.lineSeparator(), format.format(record));
        assertEquals("INFO", CliLogFormat.level(Level.INFO));
        assertEquals("DEBUG", CliLogFormat.level(Level.FINE));
        assertEquals("TRACE", CliLogFormat.level(Level.FINEST));
    }
}
