package io.junction.api;

import java.util.ArrayList;
import java.util.List;

/**
 * The built-in coGroup functions, the ones a JSON spec can name ({@code "coGroup": "count"}); what each
 * emits, exactly, is in docs/SEMANTICS.md section 6.4. Set one with {@link JoinSpec.Builder#coGroup(CoGroupBuiltin)}.
 * Each is stateless and allocation-free.
 */
public enum CoGroupBuiltin
{
    /**
     * One computed row per group: the key under the left key's field names (from the first left row, or
     * the first right row when there is no left row), then {@code leftCount} and {@code rightCount}.
     */
    COUNT("count"),
    /** The first left row and the first right row (arrival order), either null when its side is empty. */
    FIRST("first"),
    /** The last left row and the last right row (arrival order), either null when its side is empty. */
    LAST("last"),
    /** Each left row, in order, with a computed row {@code matches}: the number of right rows in its group. */
    LEFT_WITH_MATCH_COUNT("leftWithMatchCount");

    /** The computed row field of {@link #COUNT} that holds the left rows' count. */
    public static final String LEFT_COUNT = "leftCount";
    /** The computed row field of {@link #COUNT} that holds the right rows' count. */
    public static final String RIGHT_COUNT = "rightCount";
    /** The computed row field of {@link #LEFT_WITH_MATCH_COUNT}. */
    public static final String MATCHES = "matches";

    private final String jsonName;

    CoGroupBuiltin(final String jsonName)
    {
        this.jsonName = jsonName;
    }

    /** @return the name a JSON spec gives it, e.g. {@code "leftWithMatchCount"}. */
    public String jsonName()
    {
        return jsonName;
    }

    /**
     * @param name a JSON name such as {@code "count"} (exact case).
     * @return the built-in, or null when no built-in has that name.
     */
    public static CoGroupBuiltin fromName(final String name)
    {
        for (final CoGroupBuiltin builtin : values())
        {
            if (builtin.jsonName.equals(name))
            {
                return builtin;
            }
        }
        return null;
    }

    /** @return the JSON names of every built-in, in declaration order. */
    public static List<String> names()
    {
        final List<String> names = new ArrayList<>();
        for (final CoGroupBuiltin builtin : values())
        {
            names.add(builtin.jsonName);
        }
        return names;
    }

    /**
     * @param leftKey the left key's field names.
     * @return the schema of the computed rows, or null for a built-in that emits input rows only.
     * @throws IllegalArgumentException when a key field has the name of a count field.
     */
    public Schema outputSchema(final List<String> leftKey)
    {
        switch (this)
        {
            case COUNT:
                final List<String> names = new ArrayList<>(leftKey);
                if (names.contains(LEFT_COUNT) || names.contains(RIGHT_COUNT))
                {
                    throw new IllegalArgumentException("coGroup: the count output's fields " + LEFT_COUNT + " and " +
                        RIGHT_COUNT + " follow the left key's fields, so no key field may have their names: " + leftKey);
                }
                names.add(LEFT_COUNT);
                names.add(RIGHT_COUNT);
                return Schema.of(names);
            case LEFT_WITH_MATCH_COUNT:
                return Schema.of(MATCHES);
            default:
                return null;
        }
    }

    /**
     * @param leftSchema  the left rows' schema.
     * @param leftKey     the left key's field names.
     * @param rightSchema the right rows' schema.
     * @param rightKey    the right key's field names.
     * @return the function, bound to those fields.
     * @throws IllegalArgumentException when a key field is not in its schema.
     */
    public CoGroupFunction function(
        final Schema leftSchema, final List<String> leftKey, final Schema rightSchema, final List<String> rightKey)
    {
        switch (this)
        {
            case COUNT:
                return new Count(indexes("leftKey", leftSchema, leftKey), indexes("rightKey", rightSchema, rightKey));
            case FIRST:
                return CoGroupBuiltin::first;
            case LAST:
                return CoGroupBuiltin::last;
            default:
                return CoGroupBuiltin::leftWithMatchCount;
        }
    }

    private static int[] indexes(final String what, final Schema schema, final List<String> fields)
    {
        final int[] indexes = new int[fields.size()];
        for (int i = 0; i < indexes.length; i++)
        {
            indexes[i] = schema.indexOf(fields.get(i));
            if (indexes[i] < 0)
            {
                throw new IllegalArgumentException(what + ": unknown field '" + fields.get(i) + "'");
            }
        }
        return indexes;
    }

    private static void first(
        final RowCursor left, final RowCursor right, final long windowStart, final long windowEnd, final CoGroupCollector out)
    {
        out.emit(left.next() ? left : null, right.next() ? right : null);
    }

    private static void last(
        final RowCursor left, final RowCursor right, final long windowStart, final long windowEnd, final CoGroupCollector out)
    {
        out.emit(toLast(left), toLast(right));
    }

    /** @return the cursor on its last row, or null when it is empty. */
    private static RowCursor toLast(final RowCursor cursor)
    {
        final int n = cursor.count();
        cursor.reset();
        for (int i = 0; i < n; i++)
        {
            cursor.next();
        }
        return n == 0 ? null : cursor;
    }

    private static void leftWithMatchCount(
        final RowCursor left, final RowCursor right, final long windowStart, final long windowEnd, final CoGroupCollector out)
    {
        final int matches = right.count();
        while (left.next())
        {
            out.row().putLong(0, matches);
            out.emitRow(left, null);
        }
    }

    /** {@link #COUNT}: the key fields are copied from a row of the group, so the output names its key. */
    private static final class Count implements CoGroupFunction
    {
        private final int[] leftKey;
        private final int[] rightKey;

        Count(final int[] leftKey, final int[] rightKey)
        {
            this.leftKey = leftKey;
            this.rightKey = rightKey;
        }

        @Override
        public void coGroup(
            final RowCursor left, final RowCursor right, final long windowStart, final long windowEnd, final CoGroupCollector out)
        {
            final RowWriter writer = out.row();
            final boolean fromLeft = left.next();
            if (!fromLeft)
            {
                right.next();
            }
            final RowView keyRow = fromLeft ? left.row() : right.row();
            final int[] key = fromLeft ? leftKey : rightKey;
            for (int i = 0; i < key.length; i++)
            {
                writer.putField(i, keyRow, key[i]);
            }
            writer.putLong(key.length, left.count());
            writer.putLong(key.length + 1, right.count());
            out.emitRow();
        }
    }
}
