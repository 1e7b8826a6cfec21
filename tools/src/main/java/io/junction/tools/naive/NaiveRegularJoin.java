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
 * and a reference model of SPEC.md 2.1 (Flink SQL regular join changelog) for insert-only input:
 * <ul>
 *   <li>inner: a row emits {@code +I(left, right)} for each stored row of the other side with an
 *       equal key, then is stored.</li>
 *   <li>left outer: each left row carries the number of right rows it matches. A left row with no
 *       match emits {@code +I(left, null)}. A right row arriving for a left row whose count is 0
 *       first emits {@code -D(left, null)}, then {@code +I(left, right)}.</li>
 *   <li>Watermarks are ignored (no state TTL): state grows with the input.</li>
 * </ul>
 * The workloads are insert-only, so retractions of input rows are not implemented.
 * <p>
 * Not thread safe: driven by one thread.
 */
public final class NaiveRegularJoin implements NaiveJoin {
    private final Type type;
    private final Consumer<JoinedRow> downstream;

    private final Map<Long, ArrayList<Row>> leftByKey = new HashMap<>();
    private final Map<Long, ArrayList<Row>> rightByKey = new HashMap<>();
    private final StringBuilder f3 = new StringBuilder(32);

    private long inserts;
    private long deletes;
    private long pairs;
    private long padded;
    private long live;

    /**
     * A join that only counts its output.
     *
     * @param type inner or left
     */
    public NaiveRegularJoin(final Type type) {
        this(type, null);
    }

    /**
     * @param type       inner or left
     * @param downstream receives every output row as a new {@link JoinedRow}; null to only count
     */
    public NaiveRegularJoin(final Type type, final Consumer<JoinedRow> downstream) {
        if (type == null) {
            throw new IllegalArgumentException("type must be INNER or LEFT, was null");
        }
        this.type = type;
        this.downstream = downstream;
    }

    @Override
    public void row(final int side, final long key, final long ts, final long f1) {
        onRow(Row.of(side, key, ts, f1, f3));
    }

    @Override
    public void onRow(final Row row) {
        if (row.side == LEFT) {
            final List<Row> rights = rightByKey.get(row.key);
            if (rights != null) {
                for (final Row right : rights) {
                    emit(JoinedRow.Kind.INSERT, row, right);
                }
                row.associations = rights.size();
            }
            if (row.associations == 0 && type == Type.LEFT) {
                emit(JoinedRow.Kind.INSERT, row, null);
            }
            leftByKey.computeIfAbsent(row.key, k -> new ArrayList<>()).add(row);
        } else {
            final List<Row> lefts = leftByKey.get(row.key);
            if (lefts != null) {
                for (final Row left : lefts) {
                    if (left.associations == 0 && type == Type.LEFT) {
                        emit(JoinedRow.Kind.DELETE, left, null);
                    }
                    left.associations++;
                    emit(JoinedRow.Kind.INSERT, left, row);
                }
            }
            rightByKey.computeIfAbsent(row.key, k -> new ArrayList<>()).add(row);
        }
        live++;
    }

    @Override
    public void watermark(final long watermark) {
        // no state TTL: nothing expires
    }

    @Override
    public void end() {
        // a regular join emits as rows arrive: nothing is pending at the end
    }

    private void emit(final JoinedRow.Kind kind, final Row left, final Row right) {
        if (kind == JoinedRow.Kind.INSERT) {
            inserts++;
            if (right == null) {
                padded++;
            } else {
                pairs++;
            }
        } else {
            deletes++;
        }
        if (downstream != null) {
            downstream.accept(new JoinedRow(kind, left, right));
        }
    }

    @Override
    public long inserts() {
        return inserts;
    }

    @Override
    public long deletes() {
        return deletes;
    }

    @Override
    public long pairs() {
        return pairs;
    }

    @Override
    public long paddedInserts() {
        return padded;
    }

    @Override
    public long lateRows() {
        return 0;
    }

    @Override
    public long liveRows() {
        return live;
    }

    @Override
    public String toString() {
        return "NaiveRegularJoin{" + type + ", +I=" + inserts + " (pairs=" + pairs + ", padded=" + padded + "), -D="
            + deletes + ", live=" + live + '}';
    }
}
