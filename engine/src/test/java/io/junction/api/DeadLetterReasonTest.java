package io.junction.api;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Dead-letter reasons: a stable code, a text that starts with the reason's name and cites SEMANTICS, not SPEC. */
class DeadLetterReasonTest
{
    @Test
    void everyReasonHasAStableCodeAndCitesTheManual()
    {
        for (final DeadLetterReason reason : DeadLetterReason.values())
        {
            assertEquals(reason.name().toLowerCase(Locale.ROOT), reason.code());
            final String message = reason.message();
            assertTrue(message.matches(".*\\(.*SEMANTICS \\d+(\\.\\d+)?.*\\)$"), () -> reason + " cites no SEMANTICS section: " + message);
            assertFalse(message.contains("SPEC"), () -> reason + " cites the contract, not the manual: " + message);
            final String name = message.substring(0, message.indexOf(':'));
            assertTrue(reason == DeadLetterReason.COGROUP_FAILED ? name.equals("user function failed")
                : name.replace(' ', '_').replace('-', '_').equalsIgnoreCase(reason.code())
                || reason == DeadLetterReason.RETRACTION_NOT_IN_STATE && name.equals("retraction of a row not in state")
                || reason == DeadLetterReason.PREDICATE_FAILED && name.equals("user predicate failed"),
                () -> reason + " does not start with its name: " + message);
        }
    }

    /** The manual's dead-letter table (docs/SEMANTICS.md 1.4) has a row for every reason, by the name its message starts with. */
    @Test
    void everyReasonHasARowInTheManualsTable() throws IOException
    {
        final String manual = Files.readString(Path.of("..", "docs", "SEMANTICS.md"), StandardCharsets.UTF_8);
        for (final DeadLetterReason reason : DeadLetterReason.values())
        {
            final String name = reason.message().substring(0, reason.message().indexOf(':'));
            assertTrue(manual.contains("\n| " + name + " | "), () -> reason + ": no row \"| " + name + " |\" in docs/SEMANTICS.md 1.4");
        }
    }
}
