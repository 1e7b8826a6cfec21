package io.junction.tools.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.ChangeKind;
import io.junction.api.Side;
import io.junction.json.BadInputException;
import io.junction.json.JsonNumbers;
import io.junction.json.RowJson;
import java.util.Map;
import java.util.Set;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One line of an event log (SEMANTICS 1 "Event log"), parsed and checked: a row event or a watermark.
 * <p>
 * The checks are all made here, before anything reaches the engine, because docs/SEMANTICS.md requires that a bad
 * line "never changes state": a line is either a well-formed event or a {@link BadInputException}
 * whose message becomes the dead-letter reason. Row values themselves are checked when the row is
 * encoded ({@link RowJson}). Immutable.
 */
public final class ReplayEvent
{
    private static final Set<String> ROW_FIELDS = Set.of("side", "op", "ts", "row");
    private static final Set<String> WATERMARK_FIELDS = Set.of("watermark", "side");

    private final boolean watermark;
    private final Side side;
    private final ChangeKind kind;
    private final long ts;
    private final JsonNode row;
    /** A multi-way join's input index (SEMANTICS 10: {@code side} names the input); -1 for the binary kinds or both inputs. */
    private final int input;
    /** What {@code side} said: left, right, or the input's name; null for a watermark of every input. */
    private final String sideName;

    private ReplayEvent(final boolean watermark, final Side side, final ChangeKind kind, final long ts, final JsonNode row)
    {
        this(watermark, side, kind, ts, row, -1, side == null ? null : side.jsonName());
    }

    private ReplayEvent(final boolean watermark, final Side side, final ChangeKind kind, final long ts, final JsonNode row,
        final int input, final String sideName)
    {
        this.watermark = watermark;
        this.side = side;
        this.kind = kind;
        this.ts = ts;
        this.row = row;
        this.input = input;
        this.sideName = sideName;
    }

    /**
     * Parses one non-blank line of a multi-way join's log (SEMANTICS 10): {@code side} names one of the inputs
     * (a row event needs it; a watermark without it advances every input). The event's {@link #side()} is
     * {@link Side#LEFT} for the first input and {@link Side#RIGHT} for the others.
     *
     * @param line       the line's text
     * @param tsRequired whether a row needs {@code ts}
     * @param inputs     the input names, in the spec's order
     * @return the event
     * @throws BadInputException when the line is not valid JSON, not one of the shapes, or names no input
     */
    public static ReplayEvent parse(final String line, final boolean tsRequired, final List<String> inputs)
        throws BadInputException
    {
        if (inputs == null)
        {
            return parse(line, tsRequired);
        }
        final JsonNode node;
        try
        {
            node = RowJson.mapper().readTree(line);
        }
        catch (final JsonProcessingException e)
        {
            throw new BadInputException("invalid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject())
        {
            throw new BadInputException("an event must be a JSON object, got " + RowJson.kindOf(node));
        }
        final JsonNode sideNode = node.get("side");
        int input = -1;
        if (sideNode != null)
        {
            input = sideNode.isTextual() ? inputs.indexOf(sideNode.textValue()) : -1;
            if (input < 0)
            {
                throw new BadInputException("field 'side': expected one of the inputs " + inputs + ", got " + sideNode);
            }
        }
        // The binary shape checks, with the side replaced by one they accept.
        final ObjectNode copy = ((ObjectNode)node).deepCopy();
        if (sideNode != null)
        {
            copy.put("side", input == 0 ? "left" : "right");
        }
        final ReplayEvent binary = parse(copy, tsRequired);
        if (binary.isWatermark())
        {
            return new ReplayEvent(true, binary.side(), null, binary.ts(), null, input, input < 0 ? null : inputs.get(input));
        }
        return new ReplayEvent(false, binary.side(), binary.kind(), binary.ts(), binary.row(), input, inputs.get(input));
    }

    /**
     * Parses one non-blank line.
     *
     * @param line       the line's text
     * @param tsRequired true for interval and window joins, where a row without {@code ts} is bad input;
     *                   regular joins default it to 0
     * @return the event
     * @throws BadInputException when the line is not valid JSON or not one of the SEMANTICS 1 shapes
     */
    public static ReplayEvent parse(final String line, final boolean tsRequired) throws BadInputException
    {
        final JsonNode node;
        try
        {
            node = RowJson.mapper().readTree(line);
        }
        catch (final JsonProcessingException e)
        {
            throw new BadInputException("invalid JSON: " + e.getOriginalMessage());
        }
        return parse(node, tsRequired);
    }

    private static ReplayEvent parse(final JsonNode node, final boolean tsRequired) throws BadInputException
    {
        if (node == null || !node.isObject())
        {
            throw new BadInputException("an event must be a JSON object, got " + RowJson.kindOf(node));
        }
        if (node.has("watermark"))
        {
            checkFields(node, WATERMARK_FIELDS, "a watermark");
            final long value = integer(node.get("watermark"), "watermark");
            final JsonNode sideNode = node.get("side");
            return new ReplayEvent(true, sideNode == null ? null : side(sideNode), null, value, null);
        }
        if (!node.has("row"))
        {
            throw new BadInputException("not an event: expected a row event {\"side\",\"row\",\"op\"?,\"ts\"?} " +
                "or a watermark {\"watermark\",\"side\"?}");
        }
        checkFields(node, ROW_FIELDS, "a row event");
        final JsonNode sideNode = node.get("side");
        if (sideNode == null)
        {
            throw new BadInputException("missing field 'side' (\"left\" or \"right\")");
        }
        final Side side = side(sideNode);
        ChangeKind kind = ChangeKind.INSERT;
        final JsonNode op = node.get("op");
        if (op != null)
        {
            kind = op.isTextual() ? ChangeKind.fromShortString(op.textValue()) : null;
            if (kind == null)
            {
                throw new BadInputException("field 'op': unknown op " + op + " (expected +I, -D, +U or -U)");
            }
        }
        final JsonNode tsNode = node.get("ts");
        final long ts;
        if (tsNode == null)
        {
            if (tsRequired)
            {
                throw new BadInputException("missing field 'ts': interval, window, temporal and asof joins need event time");
            }
            ts = 0;
        }
        else
        {
            ts = integer(tsNode, "ts");
        }
        final JsonNode row = node.get("row");
        if (!row.isObject())
        {
            throw new BadInputException("field 'row' must be a flat JSON object, got " + RowJson.kindOf(row));
        }
        return new ReplayEvent(false, side, kind, ts, row);
    }

    private static void checkFields(final JsonNode node, final Set<String> allowed, final String what)
        throws BadInputException
    {
        for (final Map.Entry<String, JsonNode> field : node.properties())
        {
            if (!allowed.contains(field.getKey()))
            {
                throw new BadInputException("unknown field '" + field.getKey() + "' in " + what);
            }
        }
    }

    private static Side side(final JsonNode node) throws BadInputException
    {
        if (node.isTextual())
        {
            if ("left".equals(node.textValue()))
            {
                return Side.LEFT;
            }
            if ("right".equals(node.textValue()))
            {
                return Side.RIGHT;
            }
        }
        throw new BadInputException("field 'side': expected \"left\" or \"right\", got " + node);
    }

    private static long integer(final JsonNode node, final String name) throws BadInputException
    {
        if (node.isNumber() && JsonNumbers.isLong(node))
        {
            return JsonNumbers.longValue(node);
        }
        throw new BadInputException("field '" + name + "': expected an integer in the signed 64-bit range (ms), got " + node);
    }

    /** @return a multi-way join's input index; -1 for the binary kinds, or a watermark of every input */
    public int input()
    {
        return input;
    }

    /** @return the {@code side} as the line gave it: left, right or an input's name; null for a watermark of every input */
    public String sideName()
    {
        return sideName;
    }

    /** @return true for a watermark, false for a row event */
    public boolean isWatermark()
    {
        return watermark;
    }

    /** @return the row's side, or the watermark's input; null for a watermark of both inputs */
    public Side side()
    {
        return side;
    }

    /** @return the row's change kind ({@code +I} when the line has no op); null for a watermark */
    public ChangeKind kind()
    {
        return kind;
    }

    /** @return the row's event time (0 when absent in a regular join), or the watermark value */
    public long ts()
    {
        return ts;
    }

    /** @return the row object; null for a watermark */
    public JsonNode row()
    {
        return row;
    }
}
