package io.junction.tools.naive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A naive on-heap regular (unbounded) join, written the obvious way without Junction: per side a
 * {@code HashMap<Long, ArrayList<Row>>} by join key, boxed {@code Long} keys, one {@link Row} object
 * per input row (and one {@link JoinedRow} per output row when there is a downstream consumer), the
 * association count kept in each left row. It is the on-heap baseline the engine is compared with,
 * and a reference model of SEMANTICS.md 4 (Flink SQL regular join changelog, no condition, no TTL):
 * <ul>
 *   <li>inner: a row added ({@code +I}, {@code +U}) emits {@code (left, right)} for each stored row of
 *       the other side with an equal key, with its own kind, then is stored. A retraction
 *       ({@code -U}, {@code -D}) removes one stored row equal to it in every field (key, ts, f1; f2
 *       and f3 are derived) and emits the pairs it removes, with its kind.</li>
 *   <li>left outer: each left row carries the number of right rows it matches. A left row with no
 *       match emits {@code +I(left, null)}. A right row arriving for a left row whose count is 0
 *       first emits {@code -D(left, null)}, then {@code +I(left, right)}. A left retraction emits
 *       {@code -D(left, null)} when it has no match, else {@code -D(left, right)} per match; a right
 *       retraction emits {@code -D(left, right)} per left row of its key, then {@code +I(left, null)}
 *       for each that it leaves without a match. Pairs are always {@code +I} or {@code -D}.</li>
 *   <li>A retraction with no equal stored row is a dead letter: no output ({@link #deadLetters()}).</li>
 *   <li>Watermarks are ignored (no state TTL): state grows with the input.</li>
 * </ul>
 * A retraction scans its key's list for the equal row (the no-unique-key shape).
 * <p>
 * Not thread safe: driven by one thread.
 */
public final class NaiveRegularJoin implements NaiveJoin
{
    private final Type type;
    private final Consumer<JoinedRow> downstream;

    private final Map<Long, ArrayList<Row>> leftByKey = new HashMap<>();
    private final Map<Long, ArrayList<Row>> rightByKey = new HashMap<>();
    private final StringBuilder f3 = new StringBuilder(32);

    private long inserts;
    private long deletes;
    private long updates;
    private long deadLetters;
    private long pairs;
    private long padded;
    private long live;

    /**
     * A join that only counts its output.
     *
     * @param type inner or left
     */
    public NaiveRegularJoin(final Type type)
    {
        this(type, null);
    }

    /**
     * @param type       inner or left
     * @param downstream receives every output row as a new {@link JoinedRow}; null to only count
     */
    public NaiveRegularJoin(final Type type, final Consumer<JoinedRow> downstream)
    {
        if (type == null)
        {
            throw new IllegalArgumentException("type must be INNER or LEFT, was null");
        }
        this.type = type;
        this.downstream = downstream;
    }

    @Override
    public void row(final int side, final long key, final long ts, final long f1)
    {
        onRow(Row.of(side, key, ts, f1, f3));
    }

    @Override
    public void change(final int side, final byte kind, final long key, final long ts, final long f1)
    {
        onChange(JoinedRow.Kind.of(kind), Row.of(side, key, ts, f1, f3));
    }

    @Override
    public void onChange(final JoinedRow.Kind kind, final Row row)
    {
        if (kind == JoinedRow.Kind.INSERT)
        {
            onRow(row);
        }
        else if (kind == JoinedRow.Kind.UPDATE_AFTER)
        {
            add(kind, row);
        }
        else
        {
            retract(kind, row);
        }
    }

    @Override
    public void onRow(final Row row)
    {
        add(JoinedRow.Kind.INSERT, row);
    }

    private void add(final JoinedRow.Kind kind, final Row row)
    {
        // outer joins emit +I pairs whatever the input's kind; an inner join forwards +I / +U
        final JoinedRow.Kind pairKind = type == Type.INNER ? kind : JoinedRow.Kind.INSERT;
        if (row.side == LEFT)
        {
            final List<Row> rights = rightByKey.get(row.key);
            if (rights != null)
            {
                for (final Row right : rights)
                {
                    emit(pairKind, row, right);
                }
                row.associations = rights.size();
            }
            if (row.associations == 0 && type == Type.LEFT)
            {
                emit(JoinedRow.Kind.INSERT, row, null);
            }
            leftByKey.computeIfAbsent(row.key, k -> new ArrayList<>()).add(row);
        }
        else
        {
            final List<Row> lefts = leftByKey.get(row.key);
            if (lefts != null)
            {
                for (final Row left : lefts)
                {
                    if (left.associations == 0 && type == Type.LEFT)
                    {
                        emit(JoinedRow.Kind.DELETE, left, null);
                    }
                    left.associations++;
                    emit(pairKind, left, row);
                }
            }
            rightByKey.computeIfAbsent(row.key, k -> new ArrayList<>()).add(row);
        }
        live++;
    }

    private void retract(final JoinedRow.Kind kind, final Row row)
    {
        final Map<Long, ArrayList<Row>> own = row.side == LEFT ? leftByKey : rightByKey;
        final ArrayList<Row> rows = own.get(row.key);
        final int at = rows == null ? -1 : indexOfEqual(rows, row);
        if (at < 0)
        {
            deadLetters++;
            return;
        }
        final Row stored = rows.remove(at);
        live--;
        final JoinedRow.Kind pairKind = type == Type.INNER ? kind : JoinedRow.Kind.DELETE;
        if (stored.side == LEFT)
        {
            final List<Row> rights = rightByKey.get(stored.key);
            if (stored.associations == 0)
            {
                if (type == Type.LEFT)
                {
                    emit(JoinedRow.Kind.DELETE, stored, null);
                }
            }
            else
            {
                for (final Row right : rights)
                {
                    emit(pairKind, stored, right);
                }
            }
        }
        else
        {
            final List<Row> lefts = leftByKey.get(stored.key);
            if (lefts != null)
            {
                for (final Row left : lefts)
                {
                    emit(pairKind, left, stored);
                    left.associations--;
                    if (left.associations == 0 && type == Type.LEFT)
                    {
                        emit(JoinedRow.Kind.INSERT, left, null);
                    }
                }
            }
        }
    }

    /** @return the index of the first row of {@code rows} equal to {@code row} in every field, or -1 */
    private static int indexOfEqual(final List<Row> rows, final Row row)
    {
        for (int i = 0, n = rows.size(); i < n; i++)
        {
            final Row r = rows.get(i);
            if (r.ts == row.ts && r.f1 == row.f1 && r.f2 == row.f2 && r.f3.equals(row.f3))
            {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void watermark(final long watermark)
    {
        // no state TTL: nothing expires
    }

    @Override
    public void end()
    {
        // a regular join emits as rows arrive: nothing is pending at the end
    }

    private void emit(final JoinedRow.Kind kind, final Row left, final Row right)
    {
        if (kind == JoinedRow.Kind.INSERT)
        {
            inserts++;
            if (right == null)
            {
                padded++;
            }
        }
        else if (kind == JoinedRow.Kind.DELETE)
        {
            deletes++;
        }
        else
        {
            updates++;
        }
        if (left != null && right != null)
        {
            pairs++;
        }
        if (downstream != null)
        {
            downstream.accept(new JoinedRow(kind, left, right));
        }
    }

    @Override
    public long inserts()
    {
        return inserts;
    }

    @Override
    public long deletes()
    {
        return deletes;
    }

    @Override
    public long updates()
    {
        return updates;
    }

    @Override
    public long deadLetters()
    {
        return deadLetters;
    }

    @Override
    public long pairs()
    {
        return pairs;
    }

    @Override
    public long paddedInserts()
    {
        return padded;
    }

    @Override
    public long lateRows()
    {
        return 0;
    }

    @Override
    public long liveRows()
    {
        return live;
    }

    @Override
    public String toString()
    {
        return "NaiveRegularJoin{" + type + ", +I=" + inserts + " (padded=" + padded + "), -D=" + deletes + ", -U/+U="
            + updates + ", pairs=" + pairs + ", dead letters=" + deadLetters + ", live=" + live + '}';
    }
}
