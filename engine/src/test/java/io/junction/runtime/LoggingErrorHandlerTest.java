package io.junction.runtime;

import org.junit.jupiter.api.Test;

import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The default error handler: every distinct cause is logged once with its stack, then only counted. */
class LoggingErrorHandlerTest
{
    private static final class Entry
    {
        final System.Logger.Level level;
        final String message;
        final Throwable thrown;

        Entry(final System.Logger.Level level, final String message, final Throwable thrown)
        {
            this.level = level;
            this.message = message;
            this.thrown = thrown;
        }

        @Override
        public String toString()
        {
            return level + " " + message;
        }
    }

    /** A logger that keeps what it is given. */
    private static final class RecordingLogger implements System.Logger
    {
        final List<Entry> entries = new ArrayList<>();

        @Override
        public String getName()
        {
            return "test";
        }

        @Override
        public boolean isLoggable(final Level level)
        {
            return true;
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String message, final Throwable thrown)
        {
            entries.add(new Entry(level, message, thrown));
        }

        @Override
        public void log(final Level level, final ResourceBundle bundle, final String format, final Object... params)
        {
            entries.add(new Entry(level, params == null || params.length == 0 ? format :
                MessageFormat.format(format, params), null));
        }

        @Override
        public void log(final Level level, final Supplier<String> supplier)
        {
            entries.add(new Entry(level, supplier.get(), null));
        }
    }

    private static IllegalStateException failure(final String message)
    {
        return new IllegalStateException(message);
    }

    @Test
    void shouldLogTheFirstOccurrenceOfACauseWithItsStackAndThenOnlyCounts()
    {
        final RecordingLogger logger = new RecordingLogger();
        final LoggingErrorHandler handler = new LoggingErrorHandler(logger);
        for (int i = 0; i < 1234; i++)
        {
            handler.onError(failure("handler failed"));
        }
        handler.onError(new IllegalArgumentException("another cause"));
        assertTrue(logger.entries.size() <= 6, "1,235 errors must not flood the log: " + logger.entries);
        final Entry first = logger.entries.get(0);
        assertEquals(System.Logger.Level.WARNING, first.level);
        assertNotNull(first.thrown, "the first occurrence carries its stack");
        assertTrue(first.message.contains("IllegalStateException"), first.message);
        assertEquals(2, handler.distinctCauses());

        handler.logSummary();
        final Entry last = logger.entries.get(logger.entries.size() - 1);
        assertTrue(logger.entries.stream().anyMatch(e -> e.message.contains("1234 times")),
            "the summary gives the count: " + logger.entries);
        assertNull(last.thrown);
    }

    @Test
    void shouldBoundTheNumberOfCausesItLogsIndividually()
    {
        final RecordingLogger logger = new RecordingLogger();
        final LoggingErrorHandler handler = new LoggingErrorHandler(logger);
        for (int i = 0; i < 10_000; i++)
        {
            handler.onError(failure("failure of row " + i));
        }
        assertEquals(LoggingErrorHandler.MAX_DISTINCT_CAUSES + 1, handler.distinctCauses(),
            "causes beyond the bound share one entry");
        assertTrue(logger.entries.size() < 2 * LoggingErrorHandler.MAX_DISTINCT_CAUSES,
            "10,000 distinct messages must not flood the log: " + logger.entries.size());
    }
}
