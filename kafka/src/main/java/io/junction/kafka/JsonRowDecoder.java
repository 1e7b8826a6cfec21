package io.junction.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.Schema;
import io.junction.json.BadInputException;
import io.junction.json.RowJson;
import java.io.IOException;
import org.agrona.MutableDirectBuffer;

/**
 * Reads record values that are JSON objects of a row's fields, the {@code "row"} objects of the replay
 * format (SEMANTICS 1.2), into binary rows. Parsing JSON allocates: this decoder is for tools, tests and
 * moderate rates; a service at full speed publishes binary rows ({@link RowDecoder#binary()}).
 * Needs {@code io.junction:junction-json} on the class path (an optional dependency of this module).
 * Not thread safe: one per input, used on the runner's consumer thread only.
 */
public final class JsonRowDecoder implements RowDecoder
{
    private final RowJson json;
    private String lastError;

    /** @param schema the rows' fields; a value naming another field is malformed */
    public JsonRowDecoder(final Schema schema)
    {
        this.json = new RowJson(schema);
    }

    @Override
    public int decode(final byte[] value, final MutableDirectBuffer out)
    {
        final JsonNode node;
        try
        {
            node = RowJson.mapper().readTree(value);
        }
        catch (final IOException e)
        {
            lastError = "invalid JSON: " + (e instanceof JsonProcessingException ? ((JsonProcessingException) e).getOriginalMessage()
                : e.getMessage());
            return UNDECODABLE;
        }
        if (node == null)
        {
            lastError = "an empty value, not a JSON row object";
            return UNDECODABLE;
        }
        try
        {
            final int length = json.encode(node, out, 0, out.capacity());
            if (length < 0)
            {
                lastError = "a row larger than a row may be";
                return TOO_LARGE;
            }
            return length;
        }
        catch (final BadInputException e)
        {
            lastError = e.getMessage();
            return UNDECODABLE;
        }
    }

    @Override
    public String lastError()
    {
        return lastError;
    }

    @Override
    public String toString()
    {
        return "JsonRowDecoder" + json.schema();
    }
}
