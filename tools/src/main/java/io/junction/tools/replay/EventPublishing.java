package io.junction.tools.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.DeadLetterReason;
import io.junction.api.RowFormat;
import io.junction.json.BadInputException;
import io.junction.json.RowJson;
import io.junction.runtime.Publisher;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A replay's second pass, per event: publishes a row and turns the publisher's refusals, and lines that are
 * not events, into the replay's own dead-letter lines. Runs on the replay's (caller's) thread.
 */
final class EventPublishing
{
    private EventPublishing()
    {
    }

    static void publishRow(
        final Publisher publisher, final RowJson codec, final UnsafeBuffer scratch, final ReplayEvent event,
        final long step, final List<StepLine> refused, final StringBuilder sb) throws BadInputException
    {
        final int length = codec.encode(event.row(), scratch, 0, scratch.capacity());
        final int code = length == RowJson.TOO_LARGE
            ? Publisher.ROW_TOO_LARGE
            : event.input() >= 0
            ? publisher.publishInput(event.input(), event.kind(), scratch, 0, length, event.ts(), step, System.nanoTime())
            : publisher.publish(event.side(), event.kind(), scratch, 0, length, event.ts(), step, System.nanoTime());
        switch (code)
        {
            case Publisher.PUBLISHED:
                return;
            case Publisher.ROW_TOO_LARGE:
                refused.add(new StepLine(step, refusedRow(sb, event, step, tooLarge(length))));
                return;
            case Publisher.MALFORMED_ROW:
                refused.add(new StepLine(step, refusedRow(sb, event, step, DeadLetterReason.MALFORMED_ROW.message())));
                return;
            case Publisher.SCHEMA_MISMATCH:
                // The reason's sentence (its code is read from it), then which field and why.
                refused.add(new StepLine(step, refusedRow(sb, event, step,
                    DeadLetterReason.SCHEMA_MISMATCH.message() + ": " + publisher.lastRefusal())));
                return;
            case Publisher.EXPANSION_FAILED:
                refused.add(new StepLine(step, refusedRow(sb, event, step,
                    DeadLetterReason.EXPANSION_FAILED.message() + ": " + publisher.lastRefusal())));
                return;
            default:
                check(code);
        }
    }

    static String tooLarge(final int length)
    {
        return DeadLetterReason.ROW_TOO_LARGE.message() + " (row of " +
            (length == RowJson.TOO_LARGE ? "more than " + RowFormat.MAX_ROW_LENGTH : length) + " bytes)";
    }

    static void check(final int code)
    {
        if (code != Publisher.PUBLISHED)
        {
            throw new IllegalStateException("publisher refused an event with code " + code + " during a replay");
        }
    }

    static String refusedRow(final StringBuilder sb, final ReplayEvent event, final long step, final String reason)
    {
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(",\"reason\":");
        RowJson.appendString(sb, reason);
        sb.append(",\"code\":\"").append(DeadLetterCodes.ofText(reason)).append('"');
        sb.append(",\"side\":");
        RowJson.appendString(sb, event.sideName());
        sb.append(",\"op\":\"")
            .append(event.kind().shortString()).append("\",\"ts\":").append(event.ts()).append(",\"row\":")
            .append(writeNode(event.row()));
        return sb.append('}').toString();
    }

    static String badLine(final StringBuilder sb, final long step, final String reason, final String line)
    {
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(",\"reason\":");
        RowJson.appendString(sb, reason);
        sb.append(",\"code\":\"").append(DeadLetterCodes.ofText(reason)).append('"');
        sb.append(",\"line\":");
        RowJson.appendString(sb, line);
        return sb.append('}').toString();
    }

    private static String writeNode(final JsonNode node)
    {
        try
        {
            return RowJson.mapper().writeValueAsString(node);
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalStateException("a parsed JSON tree is always writable", e);
        }
    }
}
