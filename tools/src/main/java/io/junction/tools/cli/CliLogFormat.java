package io.junction.tools.cli;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The command line's one log format. The engine logs through {@code System.Logger}, which with no bridge on
 * the class path goes to {@code java.util.logging} (two lines per record in the JDK's default format); the
 * Kafka clients log through SLF4J to slf4j-simple ({@code simplelogger.properties}). Both print one line per
 * record, on stderr, as
 * <pre>2026-12-01T10:30:00.123Z WARN io.junction.runtime - junction: ...</pre>
 * (local time with its offset, {@code Z} in UTC; level {@code ERROR}, {@code WARN}, {@code INFO}, {@code DEBUG}
 * or {@code TRACE}; the logger's name). A record's exception is named at the end of its line; its stack trace
 * follows only with {@code -Djunction.debug=true}.
 * <p>
 * {@link #install()} replaces the root logger's handlers unless the user configured {@code java.util.logging}
 * ({@code -Djava.util.logging.config.file} or {@code .config.class}), which then wins. Thread safe.
 */
public final class CliLogFormat extends Formatter
{
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

    private final ZoneId zone;

    /** @param zone the time zone of the timestamps */
    public CliLogFormat(final ZoneId zone)
    {
        this.zone = zone;
    }

    /** Installs the format on stderr (see the class comment); idempotent. */
    public static void install()
    {
        if (System.getProperty("java.util.logging.config.file") != null
            || System.getProperty("java.util.logging.config.class") != null)
        {
            return;
        }
        install(System.err);
    }

    /**
     * Makes the root logger print through one handler in this format to {@code out} (flushed per record).
     *
     * @param out where the lines go
     * @return the handler installed
     */
    public static Handler install(final OutputStream out)
    {
        final Logger root = LogManager.getLogManager().getLogger("");
        for (final Handler handler : root.getHandlers())
        {
            root.removeHandler(handler);
        }
        final StreamHandler handler = new StreamHandler(out instanceof PrintStream ? out : new PrintStream(out, true),
            new CliLogFormat(ZoneId.systemDefault()))
        {
            @Override
            public synchronized void publish(final LogRecord record)
            {
                super.publish(record);
                flush();
            }
        };
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        return handler;
    }

    @Override
    public String format(final LogRecord record)
    {
        final StringBuilder sb = new StringBuilder(160);
        TIME.formatTo(Instant.ofEpochMilli(record.getMillis()).atZone(zone), sb);
        sb.append(' ').append(level(record.getLevel())).append(' ')
            .append(record.getLoggerName() == null ? "-" : record.getLoggerName()).append(" - ")
            .append(oneLine(formatMessage(record)));
        final Throwable thrown = record.getThrown();
        if (thrown != null)
        {
            final String named = String.valueOf(thrown);
            if (sb.indexOf(named) < 0)
            {
                sb.append(" (").append(oneLine(named)).append(')');
            }
            if (Boolean.getBoolean("junction.debug"))
            {
                final StringWriter trace = new StringWriter();
                thrown.printStackTrace(new PrintWriter(trace));
                sb.append(System.lineSeparator()).append(trace.toString().stripTrailing());
            }
        }
        return sb.append(System.lineSeparator()).toString();
    }

    /** @return SLF4J's name of a {@code java.util.logging} level, as slf4j-simple prints them */
    static String level(final Level level)
    {
        final int value = level.intValue();
        if (value >= Level.SEVERE.intValue())
        {
            return "ERROR";
        }
        if (value >= Level.WARNING.intValue())
        {
            return "WARN";
        }
        if (value >= Level.INFO.intValue())
        {
            return "INFO";
        }
        if (value >= Level.FINE.intValue())
        {
            return "DEBUG";
        }
        return "TRACE";
    }

    private static String oneLine(final String text)
    {
        return text.indexOf('\n') < 0 && text.indexOf('\r') < 0 ? text : text.replace("\r\n", " | ").replace('\n', ' ').replace('\r', ' ');
    }
}
