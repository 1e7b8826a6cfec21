package io.junction.tools.replay;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.RowFormat;
import io.junction.api.Schema;
import io.junction.json.BadInputException;
import io.junction.json.JoinSpecJson;
import io.junction.json.RowJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A replay's first pass over the event log ({@link Replay#run(JoinSpecJson.Parsed, Replay.EventSource)}): the
 * field names of the rows that will be published, which rows are refused before anything runs, and which
 * spec fields some accepted row carried. Runs on the caller's thread, before the engine starts.
 */
final class FieldNames
{
    private FieldNames()
    {
    }

    /** The spec's fields and which of them some accepted row carried (the first pass). */
    static final class Carried
    {
        private final List<String> specFields;
        private final Set<String> seen = new HashSet<>();
        private long rows;

        Carried(final List<String> specFields)
        {
            this.specFields = specFields;
        }

        void row(final JsonNode row)
        {
            rows++;
            if (seen.size() < specFields.size())
            {
                for (final String name : specFields)
                {
                    if (row.has(name))
                    {
                        seen.add(name);
                    }
                }
            }
        }

        /** @return the spec fields no row carried, in spec order; none when the log has no row */
        List<String> missing()
        {
            final List<String> missing = new ArrayList<>();
            if (rows > 0)
            {
                for (final String name : specFields)
                {
                    if (!seen.contains(name))
                    {
                        missing.add(name);
                    }
                }
            }
            return missing;
        }
    }

    static List<String> collectNames(
        final JoinSpecJson.Parsed spec, final Replay.EventSource events, final boolean tsRequired,
        final Map<Long, String> refused, final Carried carried, final int slotCapacity) throws IOException
    {
        final Map<String, Integer> index = new LinkedHashMap<>();
        for (final String name : spec.fieldNames())
        {
            index.put(name, index.size());
        }
        final RowJson sizing = new RowJson(name -> index.getOrDefault(name, -1));
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
        final List<String> added = new ArrayList<>();
        long step = 0;
        try (EventLines lines = new EventLines(events.open()))
        {
            while (lines.next())
            {
                final String line = lines.text();
                if (line != null && line.isBlank())
                {
                    continue;
                }
                final long thisStep = step++;
                if (line == null)
                {
                    continue;
                }
                final JsonNode row;
                try
                {
                    final ReplayEvent event = ReplayEvent.parse(line, tsRequired, spec.inputNames());
                    if (event.isWatermark())
                    {
                        continue;
                    }
                    row = event.row();
                    RowJson.checkRow(row);
                }
                catch (final BadInputException e)
                {
                    continue; // the run dead-letters it the same way
                }
                carried.row(row);
                added.clear();
                for (final Map.Entry<String, JsonNode> field : row.properties())
                {
                    if (!index.containsKey(field.getKey()))
                    {
                        added.add(field.getKey());
                    }
                }
                if (added.isEmpty())
                {
                    continue; // the run encodes it against names that are all there
                }
                if (index.size() + added.size() > Schema.MAX_FIELDS)
                {
                    refused.put(thisStep, "schema is full: the event log names more than " + Schema.MAX_FIELDS +
                        " fields, and this row adds " + added.size() + " new one(s) from '" + added.get(0) + "'");
                    continue;
                }
                for (final String name : added)
                {
                    index.put(name, index.size());
                }
                final int length;
                try
                {
                    length = sizing.encode(row, scratch, 0, scratch.capacity());
                }
                catch (final BadInputException e)
                {
                    throw new IllegalStateException("a checked row with every name indexed encodes", e);
                }
                if (length == RowJson.TOO_LARGE || length > slotCapacity)
                {
                    for (final String name : added)
                    {
                        index.remove(name);
                    }
                    refused.put(thisStep, EventPublishing.tooLarge(length));
                }
            }
        }
        return new ArrayList<>(index.keySet());
    }
}
