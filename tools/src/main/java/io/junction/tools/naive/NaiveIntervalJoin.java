package io.junction.tools.naive;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A naive on-heap interval join, written the obvious way without Junction: per side a
 * {@code HashMap<Long, ArrayList<Row>>} by join key and a {@code TreeMap<Long, List<Row>>} by the
 * deadline at which a row closes, boxed {@code Long} keys, one {@link Row} object per input row
 * (and one {@link JoinedRow} per output row when there is a downstream consumer). It is the
 * on-heap baseline the engine is compared with, and a reference model of docs/SEMANTICS.md 5 for the inner
 * and left outer types with inclusive bounds and no allowed lateness:
 * <ul>
 *   <li>A pair matches when the keys are equal and
 *       {@code right.ts ∈ [left.ts + lower, left.ts + upper]}, both bounds inclusive.</li>
 *   <li>A row is late when {@code ts < watermark}: it is not joined, not stored, and counted
 *       ({@link #lateRows()}).</li>
 *   <li>A non-late row is joined with every stored row of the other side that matches, emitting
 *       {@code +I(left, right)} for each, then stored.</li>
 *   <li>A left row closes when {@code watermark > left.ts + upper}, a right row when
 *       {@code watermark > right.ts - lower}; a closed row is removed from state at the watermark
 *       that closes it and, in a left join, a left row that never matched is then emitted once as
 *       {@code +I(left, null)}. A row that arrives already closed is joined, then padded (left,
 *       unmatched) at once and not stored. The end of input closes every row.</li>
 *   <li>Watermarks never go backwards: a watermark at or below the current one is ignored.</li>
 * </ul>
 * The output never retracts. For W1 (keys unique per impression, every click within 30 s of its
 * impression): inner = one row per click, left = one row per impression.
 * <p>
 * Not thread safe: driven by one thread.
 */
public final class NaiveIntervalJoin implements NaiveJoin
{
    private final Type type;
    private final long lower;
    private final long upper;
    private final Consumer<JoinedRow> downstream;

    private final Map<Long, ArrayList<Row>> leftByKey = new HashMap<>();
    private final Map<Long, ArrayList<Row>> rightByKey = new HashMap<>();
    private final TreeMap<Long, List<Row>> leftByDeadline = new TreeMap<>();
    private final TreeMap<Long, List<Row>> rightByDeadline = new TreeMap<>();
    private final StringBuilder f3 = new StringBuilder(32);

    private long watermark = Long.MIN_VALUE;
    private long inserts;
    private long pairs;
    private long padded;
    private long late;
    private long live;

    /**
     * A join that only counts its output.
     *
     * @param type  inner or left
     * @param lower lower bound of {@code right.ts - left.ts}, inclusive
     * @param upper upper bound of {@code right.ts - left.ts}, inclusive
     */
    public NaiveIntervalJoin(final Type type, final long lower, final long upper)
    {
        this(type, lower, upper, null);
    }

    /**
     * @param type       inner or left
     * @param lower      lower bound of {@code right.ts - left.ts}, inclusive
     * @param upper      upper bound of {@code right.ts - left.ts}, inclusive, at least {@code lower}
     * @param downstream receives every output row as a new {@link JoinedRow}; null to only count
     */
    public NaiveIntervalJoin(final Type type, final long lower, final long upper, final Consumer<JoinedRow> downstream)
    {
        if (type == null)
        {
            throw new IllegalArgumentException("type must be INNER or LEFT, was null");
        }
        if (lower > upper)
        {
            throw new IllegalArgumentException("lower=" + lower + " must be <= upper=" + upper);
        }
        this.type = type;
        this.lower = lower;
        this.upper = upper;
        this.downstream = downstream;
    }

    /**
     * The symmetric interval of W1: {@code right.ts ∈ [left.ts - halfWidth, left.ts + halfWidth]}.
     *
     * @param type      inner or left
     * @param halfWidth ms, at least 0
     * @return a counting join
     */
    public static NaiveIntervalJoin symmetric(final Type type, final long halfWidth)
    {
        return new NaiveIntervalJoin(type, -halfWidth, halfWidth);
    }

    @Override
    public void row(final int side, final long key, final long ts, final long f1)
    {
        onRow(Row.of(side, key, ts, f1, f3));
    }

    @Override
    public void onRow(final Row row)
    {
        if (row.ts < watermark)
        {
            late++;
            return;
        }
        if (row.side == LEFT)
        {
            final List<Row> candidates = rightByKey.get(row.key);
            if (candidates != null)
            {
                for (final Row right : candidates)
                {
                    if (right.ts >= row.ts + lower && right.ts <= row.ts + upper)
                    {
                        row.matched = true;
                        right.matched = true;
                        emit(JoinedRow.Kind.INSERT, row, right);
                    }
                }
            }
            final long deadline = row.ts + upper;
            if (watermark > deadline)
            {
                close(row);
            }
            else
            {
                store(row, deadline, leftByKey, leftByDeadline);
            }
        }
        else
        {
            final List<Row> candidates = leftByKey.get(row.key);
            if (candidates != null)
            {
                for (final Row left : candidates)
                {
                    if (row.ts >= left.ts + lower && row.ts <= left.ts + upper)
                    {
                        row.matched = true;
                        left.matched = true;
                        emit(JoinedRow.Kind.INSERT, left, row);
                    }
                }
            }
            final long deadline = row.ts - lower;
            if (watermark > deadline)
            {
                close(row);
            }
            else
            {
                store(row, deadline, rightByKey, rightByDeadline);
            }
        }
    }

    @Override
    public void watermark(final long w)
    {
        if (w <= watermark)
        {
            return;
        }
        watermark = w;
        expire(leftByDeadline, leftByKey, w);
        expire(rightByDeadline, rightByKey, w);
    }

    @Override
    public void end()
    {
        watermark = Long.MAX_VALUE;
        expireAll(leftByDeadline, leftByKey);
        expireAll(rightByDeadline, rightByKey);
    }

    private void store(final Row row, final long deadline, final Map<Long, ArrayList<Row>> byKey,
                       final TreeMap<Long, List<Row>> byDeadline)
    {
        byKey.computeIfAbsent(row.key, k -> new ArrayList<>()).add(row);
        byDeadline.computeIfAbsent(deadline, d -> new ArrayList<>()).add(row);
        live++;
    }

    /** Removes every row whose deadline is below {@code w}. */
    private void expire(final TreeMap<Long, List<Row>> byDeadline, final Map<Long, ArrayList<Row>> byKey, final long w)
    {
        while (!byDeadline.isEmpty() && byDeadline.firstKey() < w)
        {
            removeAll(byDeadline.pollFirstEntry().getValue(), byKey);
        }
    }

    private void expireAll(final TreeMap<Long, List<Row>> byDeadline, final Map<Long, ArrayList<Row>> byKey)
    {
        while (!byDeadline.isEmpty())
        {
            removeAll(byDeadline.pollFirstEntry().getValue(), byKey);
        }
    }

    private void removeAll(final List<Row> rows, final Map<Long, ArrayList<Row>> byKey)
    {
        for (final Row row : rows)
        {
            final List<Row> sameKey = byKey.get(row.key);
            sameKey.remove(row);
            if (sameKey.isEmpty())
            {
                byKey.remove(row.key);
            }
            live--;
            close(row);
        }
    }

    /** A row that can no longer match: a left row that never matched is padded in a left join. */
    private void close(final Row row)
    {
        if (type == Type.LEFT && row.side == LEFT && !row.matched)
        {
            padded++;
            emit(JoinedRow.Kind.INSERT, row, null);
        }
    }

    private void emit(final JoinedRow.Kind kind, final Row left, final Row right)
    {
        inserts++;
        if (right != null)
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
        return 0;
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
        return late;
    }

    @Override
    public long liveRows()
    {
        return live;
    }

    /** @return the current watermark ({@link Long#MIN_VALUE} before the first one) */
    public long currentWatermark()
    {
        return watermark;
    }

    @Override
    public String toString()
    {
        return "NaiveIntervalJoin{" + type + " [" + lower + ", " + upper + "], +I=" + inserts + " (pairs=" + pairs
            + ", padded=" + padded + "), late=" + late + ", live=" + live + '}';
    }
}
