package io.junction.internal.row;

import io.junction.api.ArrayValues;
import io.junction.api.Expansion;
import io.junction.api.FieldType;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.TableRows;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Makes the rows of one {@link Expansion} from an input row (docs/SEMANTICS.md, "Row expansion"): each the
 * input's fields plus the new ones (or, for the standalone kind's right row, the new ones only), written
 * into one reused buffer and handed to a {@link Sink} one at a time, in element order. Everything that can
 * make the input row a bad input is found before the first row is handed over, so a refused row hands
 * over nothing: the kinds of the fields and elements up front, and, where the sizes cannot be bounded up
 * front (or a user function runs), a first pass that writes every row without handing it over. Owned by
 * one thread (the publisher's, or the partition's for the standalone kind); allocation-free on the
 * built-in paths.
 */
public final class RowExpander
{
    /** Takes each made row. */
    public interface Sink
    {
        /**
         * @param row     the made row, valid during the call only.
         * @param ordinal its 1-based position, 0 for the padded row of an outer expansion.
         * @return false to stop (the sink's own refusal; {@link #expand} then answers {@link #STOPPED}).
         */
        boolean onRow(RowView row, int ordinal);
    }

    /** {@link #expand}: the input row is a bad input ({@link #failure()} says why). */
    public static final int BAD_INPUT = -1;
    /** {@link #expand}: a made row does not fit the buffer. */
    public static final int TOO_LARGE = -2;
    /** {@link #expand}: the sink stopped it. */
    public static final int STOPPED = -3;

    private static final byte MODE_NULL = 0;
    private static final byte MODE_VALUE = 1;
    private static final byte MODE_UTF8 = 2;

    private final Expansion expansion;
    private final Schema schema;
    private final int source;
    /** Schema index of each new field, then of the ordinality (when there is one). */
    private final int[] added;
    /** For every schema index, its position in {@link #added}, or -1. */
    private final int[] addedPosition;
    private final int maxAddedIndex;
    private final int ordinalityPosition;
    private final byte[][] elementNames;
    private final byte[] separator;
    private final int capacity;
    private final boolean newFieldsOnly;
    private final boolean outer;

    private final UnsafeBuffer scratch;
    private final RowWriter writer = new RowWriter();
    private final RowView made = new RowView();
    private final StringBuilder failure = new StringBuilder(128);
    private final TableRows tableRows;

    private final byte[] mode;
    private final DirectBuffer[] valueBuffer;
    private final int[] valueIndex;
    private final int[] valueLength;

    private RowView input;
    private Sink sink;
    private boolean handing;
    private int produced;
    private int result;

    /**
     * @param expansion     what to make.
     * @param schema        the rows' schema: it holds the input's fields and the added ones.
     * @param capacity      the largest made row, bytes.
     * @param outer         whether a row that makes nothing gives one padded row.
     * @param newFieldsOnly whether made rows hold the added fields only (the standalone kind's right row).
     */
    public RowExpander(final Expansion expansion, final Schema schema, final int capacity, final boolean outer,
        final boolean newFieldsOnly)
    {
        this.expansion = expansion;
        this.schema = schema;
        this.capacity = Math.min(capacity, RowFormat.MAX_ROW_LENGTH);
        this.outer = outer;
        this.newFieldsOnly = newFieldsOnly;
        this.source = expansion.field() == null ? -1 : indexOf(schema, expansion.field());
        final int newCount = expansion.newFields().size();
        this.added = new int[newCount + (expansion.ordinality() == null ? 0 : 1)];
        for (int k = 0; k < newCount; k++)
        {
            added[k] = indexOf(schema, expansion.newFields().get(k));
        }
        this.ordinalityPosition = expansion.ordinality() == null ? -1 : newCount;
        if (ordinalityPosition >= 0)
        {
            added[ordinalityPosition] = indexOf(schema, expansion.ordinality());
        }
        this.addedPosition = new int[schema.size()];
        Arrays.fill(addedPosition, -1);
        int max = -1;
        for (int k = 0; k < added.length; k++)
        {
            addedPosition[added[k]] = k;
            max = Math.max(max, added[k]);
        }
        this.maxAddedIndex = max;
        if (expansion.elementFields() != null)
        {
            elementNames = new byte[newCount][];
            for (int k = 0; k < newCount; k++)
            {
                elementNames[k] = expansion.elementFields().get(k).getBytes(StandardCharsets.UTF_8);
            }
        }
        else
        {
            elementNames = null;
        }
        this.separator = expansion.separator() == null ? null : expansion.separator().getBytes(StandardCharsets.UTF_8);
        this.scratch = new UnsafeBuffer(new byte[this.capacity]);
        this.mode = new byte[newCount];
        this.valueBuffer = new DirectBuffer[newCount];
        this.valueIndex = new int[newCount];
        this.valueLength = new int[newCount];
        this.tableRows = expansion.kind() == Expansion.Kind.FUNCTION
            ? new TableRows(newCount, this.capacity, this::onFunctionRow) : null;
    }

    private static int indexOf(final Schema schema, final String name)
    {
        final int index = schema.indexOf(name);
        if (index < 0)
        {
            throw new IllegalArgumentException("expansion: field '" + name + "' is not in the schema " + schema);
        }
        return index;
    }

    /** @return the expansion this makes. */
    public Expansion expansion()
    {
        return expansion;
    }

    /** @return why the latest {@link #BAD_INPUT} or {@link #TOO_LARGE} was answered; one reused buffer. */
    public CharSequence failure()
    {
        return failure;
    }

    /**
     * Makes the rows of one input row and hands them to the sink, or none of them.
     *
     * @param row  the input row.
     * @param sink takes each made row.
     * @return the number of rows handed over (0: none made), {@link #BAD_INPUT}, {@link #TOO_LARGE} or
     *         {@link #STOPPED}.
     */
    public int expand(final RowView row, final Sink sink)
    {
        this.input = row;
        this.sink = sink;
        failure.setLength(0);
        for (int k = 0; k < added.length; k++)
        {
            if (added[k] < row.fieldSlots() && row.type(added[k]) != FieldType.ABSENT)
            {
                return fail("field '" + schema.nameOf(added[k]) + "' is already in the row: the expansion adds it");
            }
        }
        switch (expansion.kind())
        {
            case UNNEST:
                return unnest(row);
            case SPLIT:
                return split(row);
            default:
                return function(row);
        }
    }

    private int unnest(final RowView row)
    {
        final byte type = row.type(source);
        final int count;
        final int at;
        if (type == FieldType.ABSENT || type == FieldType.NULL)
        {
            count = 0;
            at = -1;
        }
        else if (type != FieldType.ARRAY)
        {
            return fail("field '" + expansion.field() + "' is a " + ArrayValues.kindName(type) + ", not an array: unnest reads an array");
        }
        else
        {
            at = row.valueIndex(source);
            count = ArrayValues.count(row.buffer(), at);
        }
        if (count > expansion.maxExpansion())
        {
            return tooMany(count);
        }
        if (count > 0)
        {
            int element = ArrayValues.first(at);
            for (int i = 1; i <= count; i++)
            {
                final byte tag = row.buffer().getByte(element);
                if (tag == FieldType.OBJECT && elementNames == null)
                {
                    return fail("element " + i + " of '" + expansion.field() + "' is an object: name its fields with an 'as' map");
                }
                if (tag != FieldType.OBJECT && tag != FieldType.NULL && elementNames != null)
                {
                    return fail("element " + i + " of '" + expansion.field() + "' is a " + ArrayValues.kindName(tag) +
                        ", not an object: an 'as' map needs objects");
                }
                if (tag != FieldType.NULL)
                {
                    break; // scalars or objects, not both (RowView.validate): the first non-null element decides
                }
                element = ArrayValues.next(row.buffer(), element);
            }
        }
        final boolean bounded = row.length() + RowFormat.OFFSET_ENTRY_LENGTH * (maxAddedIndex + 1) +
            (count == 0 ? 0 : row.valueLength(source)) + (RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH) * added.length <= capacity;
        if (!bounded)
        {
            final int checked = unnestPass(row, at, count, false);
            if (checked < 0)
            {
                return checked;
            }
        }
        return unnestPass(row, at, count, true);
    }

    private int unnestPass(final RowView row, final int at, final int count, final boolean hand)
    {
        if (count == 0)
        {
            return padded(hand);
        }
        final DirectBuffer buffer = row.buffer();
        int element = ArrayValues.first(at);
        for (int i = 1; i <= count; i++)
        {
            final byte tag = buffer.getByte(element);
            if (elementNames == null)
            {
                setValue(0, buffer, element, ArrayValues.valueLength(buffer, element));
            }
            else if (tag == FieldType.NULL)
            {
                for (int k = 0; k < elementNames.length; k++)
                {
                    mode[k] = MODE_NULL;
                }
            }
            else
            {
                mapEntries(buffer, element);
            }
            final int written = write(i, hand);
            if (written < 0)
            {
                return written;
            }
            element = ArrayValues.next(buffer, element);
        }
        return count;
    }

    private void mapEntries(final DirectBuffer buffer, final int object)
    {
        final int entries = ArrayValues.count(buffer, object);
        for (int k = 0; k < elementNames.length; k++)
        {
            mode[k] = MODE_NULL;
            final byte[] name = elementNames[k];
            int entry = ArrayValues.first(object);
            for (int e = 0; e < entries; e++)
            {
                final int value = ArrayValues.entryValue(buffer, entry);
                if (ArrayValues.entryNameLength(buffer, entry) == name.length &&
                    BufferCompare.compare(buffer, ArrayValues.entryNameIndex(entry), name.length, name) == 0)
                {
                    setValue(k, buffer, value, ArrayValues.valueLength(buffer, value));
                    break;
                }
                entry = ArrayValues.next(buffer, value);
            }
        }
    }

    private int split(final RowView row)
    {
        final byte type = row.type(source);
        if (type == FieldType.ABSENT || type == FieldType.NULL)
        {
            return padded(true);
        }
        if (type != FieldType.STRING)
        {
            return fail("field '" + expansion.field() + "' is a " + ArrayValues.kindName(type) + ", not a string: split reads a string");
        }
        final DirectBuffer buffer = row.buffer();
        final int start = row.stringBytesIndex(source);
        final int length = row.stringLength(source);
        int pieces = 1;
        for (int at = find(buffer, start, start + length); at >= 0; at = find(buffer, at + separator.length, start + length))
        {
            pieces++;
            if (pieces > expansion.maxExpansion())
            {
                return tooMany(pieces);
            }
        }
        final boolean bounded = row.length() + RowFormat.OFFSET_ENTRY_LENGTH * (maxAddedIndex + 1) + length +
            RowFormat.STRING_BYTES_OFFSET + (RowFormat.TAG_LENGTH + RowFormat.LONG_PAYLOAD_LENGTH) * added.length <= capacity;
        if (!bounded)
        {
            final int checked = splitPass(buffer, start, length, false);
            if (checked < 0)
            {
                return checked;
            }
        }
        return splitPass(buffer, start, length, true);
    }

    private int splitPass(final DirectBuffer buffer, final int start, final int length, final boolean hand)
    {
        final int end = start + length;
        int piece = start;
        int ordinal = 0;
        while (true)
        {
            final int match = find(buffer, piece, end);
            final int pieceEnd = match < 0 ? end : match;
            mode[0] = MODE_UTF8;
            valueBuffer[0] = buffer;
            valueIndex[0] = piece;
            valueLength[0] = pieceEnd - piece;
            final int written = write(++ordinal, hand);
            if (written < 0)
            {
                return written;
            }
            if (match < 0)
            {
                return ordinal;
            }
            piece = match + separator.length;
        }
    }

    /** The leftmost match of the separator in [from, end), or -1. */
    private int find(final DirectBuffer buffer, final int from, final int end)
    {
        final int last = end - separator.length;
        for (int i = from; i <= last; i++)
        {
            if (buffer.getByte(i) == separator[0] && BufferCompare.compare(buffer, i, separator.length, separator) == 0)
            {
                return i;
            }
        }
        return -1;
    }

    private int function(final RowView row)
    {
        // A user function may throw or overrun mid-way: one pass that hands nothing over checks it all first.
        final int checked = functionPass(row, false);
        if (checked < 0)
        {
            return checked;
        }
        return functionPass(row, true);
    }

    private int functionPass(final RowView row, final boolean hand)
    {
        handing = hand;
        produced = 0;
        result = 0;
        tableRows.reset();
        try
        {
            expansion.function().expand(row, schema, tableRows);
        }
        catch (final RuntimeException e)
        {
            return fail("the table function " + expansion.function().getClass().getName() + " threw " + e);
        }
        tableRows.finish();
        if (result < 0)
        {
            return result;
        }
        return produced == 0 ? padded(hand) : produced;
    }

    private boolean onFunctionRow(final TableRows rows)
    {
        if (produced + 1 > expansion.maxExpansion())
        {
            result = tooMany(produced + 1);
            return false;
        }
        if (rows.overflowed())
        {
            result = tooLarge();
            return false;
        }
        for (int k = 0; k < rows.fields(); k++)
        {
            if (rows.isSet(k))
            {
                setValue(k, rows.buffer(), rows.valueIndex(k), rows.valueLength(k));
            }
            else
            {
                mode[k] = MODE_NULL;
            }
        }
        final int written = write(++produced, handing);
        if (written < 0)
        {
            result = written;
            return false;
        }
        return true;
    }

    private int padded(final boolean hand)
    {
        if (!outer)
        {
            return 0;
        }
        for (int k = 0; k < mode.length; k++)
        {
            mode[k] = MODE_NULL;
        }
        final int written = write(0, hand);
        return written < 0 ? written : 1;
    }

    private void setValue(final int k, final DirectBuffer buffer, final int index, final int length)
    {
        mode[k] = MODE_VALUE;
        valueBuffer[k] = buffer;
        valueIndex[k] = index;
        valueLength[k] = length;
    }

    /** Writes one made row from the new values set, and hands it over when {@code hand}. */
    private int write(final int ordinal, final boolean hand)
    {
        final int inputSlots = newFieldsOnly ? 0 : input.fieldSlots();
        final int slots = Math.max(inputSlots, maxAddedIndex + 1);
        writer.wrap(scratch, 0, capacity, slots);
        for (int i = 0; i < slots; i++)
        {
            final int k = i < addedPosition.length ? addedPosition[i] : -1;
            if (k < 0)
            {
                if (i < inputSlots && input.type(i) != FieldType.ABSENT)
                {
                    writer.putField(i, input, i);
                }
            }
            else if (k == ordinalityPosition)
            {
                if (ordinal > 0)
                {
                    writer.putLong(i, ordinal);
                }
                else
                {
                    writer.putNull(i);
                }
            }
            else if (mode[k] == MODE_VALUE)
            {
                writer.putValue(i, valueBuffer[k], valueIndex[k], valueLength[k]);
            }
            else if (mode[k] == MODE_UTF8)
            {
                writer.putUtf8(i, valueBuffer[k], valueIndex[k], valueLength[k]);
            }
            else
            {
                writer.putNull(i);
            }
        }
        final int length = writer.finish();
        if (length < 0)
        {
            return tooLarge();
        }
        if (hand)
        {
            made.wrap(scratch, 0, length);
            if (!sink.onRow(made, ordinal))
            {
                return STOPPED;
            }
        }
        return 0;
    }

    private int tooMany(final int rows)
    {
        return fail((expansion.field() == null ? "the table function" : "'" + expansion.field() + "'") + " makes " + rows +
            " rows or more, more than maxExpansion " + expansion.maxExpansion());
    }

    private int tooLarge()
    {
        failure.setLength(0);
        failure.append("an expanded row is more than ").append(capacity).append(" bytes");
        return TOO_LARGE;
    }

    private int fail(final String reason)
    {
        failure.setLength(0);
        failure.append(reason);
        return BAD_INPUT;
    }
}
