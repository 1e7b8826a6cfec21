package io.junction.tools.workload;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.metrics.OperatorCounters;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.agrona.concurrent.UnsafeBuffer;
import java.util.Comparator;
import java.util.Locale;

/**
 * W7 (WORKLOADS.md) through (a) one multi-way join of its four inputs ({@link JoinKind#MULTI}: orders LEFT
 * payments LEFT shipments LEFT refunds on the order id) and (b) the chain of three binary regular left joins
 * it equals, each join's changelog re-published as the next one's left input (its left and right row
 * concatenated into one row). Both run on the calling thread, operator by operator, without the engine's rings,
 * so the figures are the operators' own: events/s, output lines per input event (the chain's counted at every
 * level, as a deployment of three jobs writes each level to its topic, and at its last level only), and state
 * bytes per live input row ({@link OperatorCounters#liveStateBytes()}, summed over the chain's joins).
 * <p>
 * The changes are generated and encoded once, before any timing ({@link Tape}), as the peers profile converts
 * its input to the peer's rows before timing: a run times only the operators.
 */
public final class W7Bench
{
    /** A W7 input row: the order id, ts, the version id and the derived f2. */
    public static final Schema ROW = Schema.of("key", "ts", "f1", "f2");
    private static final int W = 4;

    private W7Bench()
    {
    }

    /** What one run measured. */
    public static final class Result
    {
        /** Input changes. */
        public long events;
        /** Nanoseconds of the run: feeding the pre-encoded changes and the end of input (generation is not timed). */
        public long nanos;
        /** Output lines of the join (the multi-way join's, the chain's last level). */
        public long outputLines;
        /** Output lines of every level (the chain's intermediate results counted; the multi-way join: its output). */
        public long allLines;
        /** Live state bytes at the end, as the operators count them ({@link OperatorCounters#liveStateBytes()}). */
        public long stateBytes;
        /**
         * Java heap the operators still hold at the end: heap used after a full collection with the operators
         * open, less heap used after one before they were created (their Java objects, maps and row copies;
         * not their off-heap records).
         */
        public long heapBytes;
        /** Off-heap bytes of the live state (records, row groups, buckets and each live key's share of the key index). */
        public long offHeapBytes;

        /** @return the state's memory at the end: heap retained plus off-heap live state */
        public long retainedBytes()
        {
            return heapBytes + offHeapBytes;
        }
        /** Live input rows at the end (of the four inputs). */
        public long liveInputRows;
        /** Dead letters (none expected). */
        public long deadLetters;
        /** The final materialized result, when asked for: "o|p|s|r" of the rows' f1 ("-" padded) to its count. */
        public TreeMap<String, Long> materialized;

        /** @return input changes per second */
        public double eventsPerSecond()
        {
            return events / (nanos / 1e9);
        }

        @Override
        public String toString()
        {
            return String.format(Locale.ROOT,
                "%,d events in %.3f s: %,.0f events/s; output lines %,d (%.3f per event), all levels %,d (%.3f per event); " +
                    "state %,d bytes for %,d live input rows (%.1f bytes per row); heap retained %,d bytes; memory (heap + off-heap) %.1f bytes per row%s",
                events, nanos / 1e9, eventsPerSecond(), outputLines, outputLines / (double) events, allLines,
                allLines / (double) events, stateBytes, liveInputRows, stateBytes / (double) Math.max(1, liveInputRows),
                heapBytes, retainedBytes() / (double) Math.max(1, liveInputRows), deadLetters == 0 ? "" : ", " + deadLetters + " dead letters");
        }
    }

    /** @return W7's multi-way join: orders LEFT payments LEFT shipments LEFT refunds on the order id */
    public static JoinSpec multiSpec()
    {
        return JoinSpec.multi(MultiJoinSpec.builder(ROW)
            .input("orders", "key")
            .input("payments", JoinType.LEFT, "key")
            .input("shipments", JoinType.LEFT, "key")
            .input("refunds", JoinType.LEFT, "key")
            .build());
    }

    /** The chain's level {@code level} (1 to 3): the previous result (W * level fields) LEFT JOIN the next input. */
    static JoinSpec chainSpec(final int level)
    {
        final List<String> left = new ArrayList<>();
        for (int i = 0; i < level; i++)
        {
            for (final String f : List.of("key", "ts", "f1", "f2"))
            {
                left.add("i" + i + "_" + f);
            }
        }
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
            .schemas(Schema.of(left), ROW)
            .leftKey("i0_key").rightKey("key")
            .build();
    }

    static StateConfig state(final int n)
    {
        return StateConfig.defaults().withMaxKeys(Math.max(1 << 10, Integer.highestOneBit(2 * n) << 1));
    }

    private static final DeadLetterHandler NO_DEAD_LETTERS_EXPECTED = new DeadLetterHandler()
    {
        @Override
        public void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
            final DeadLetterReason reason)
        {
            throw new IllegalStateException("W7 dead letter: " + side + " " + kind + " " + reason);
        }

        @Override
        public void onMultiDeadLetter(final int input, final ChangeKind kind, final RowView row, final long ts, final long step,
            final DeadLetterReason reason)
        {
            throw new IllegalStateException("W7 dead letter of input " + input + ": " + kind + " " + reason);
        }
    };

    private static ChangeKind kind(final byte kind)
    {
        return ChangeKind.fromOrdinal(kind);
    }

    /**
     * W7's changes generated once and encoded back to back in one buffer, so that a run times only the joins:
     * per change its input, kind, event time and the offset of its encoded row {@code (key, ts, f1, f2)}.
     */
    public static final class Tape
    {
        final int size;
        final int[] input;
        final byte[] kind;
        final long[] ts;
        final int[] offset;
        final UnsafeBuffer rows;
        final long[][] live;

        private Tape(final int n)
        {
            final RowWriter writer = new RowWriter();
            final UnsafeBuffer one = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
            writer.wrap(one, 0, one.capacity(), W);
            final int rowLength = writer.putLong(0, 0).putLong(1, 0).putLong(2, 0).putLong(3, 0).finish();
            final long changes = W7.maxChanges(n);
            if (changes * rowLength > Integer.MAX_VALUE - 8)
            {
                throw new IllegalArgumentException("W7 with " + n + " order ids does not fit one tape buffer");
            }
            final int capacity = (int) changes;
            input = new int[capacity];
            kind = new byte[capacity];
            ts = new long[capacity];
            offset = new int[capacity + 1];
            rows = new UnsafeBuffer(new byte[capacity * rowLength]);
            final int[] count = new int[1];
            live = W7.generate(n, (in, k, key, t, f1) ->
            {
                final int i = count[0]++;
                input[i] = in;
                kind[i] = k;
                ts[i] = t;
                writer.wrap(rows, offset[i], rowLength, W);
                offset[i + 1] = offset[i] + writer.putLong(0, key).putLong(1, t).putLong(2, f1).putLong(3, W7.f2(key, in)).finish();
            });
            size = count[0];
        }

        /** @return the changes */
        public int size()
        {
            return size;
        }

        RowView row(final int i, final RowView view)
        {
            return view.wrap(rows, offset[i], offset[i + 1] - offset[i]);
        }
    }

    /**
     * @param n order ids
     * @return W7 generated and encoded, for {@link #runMulti(Tape, boolean)} and {@link #runChain(Tape, boolean)}
     */
    public static Tape tape(final int n)
    {
        return new Tape(n);
    }

    private static void materialize(final TreeMap<String, Long> m, final ChangeKind kind, final String combination)
    {
        if (kind.isAccumulate())
        {
            m.merge(combination, 1L, Long::sum);
        }
        else
        {
            final Long held = m.get(combination);
            if (held == null)
            {
                throw new IllegalStateException("a retraction of a combination not in the result: " + combination);
            }
            if (held == 1)
            {
                m.remove(combination);
            }
            else
            {
                m.put(combination, held - 1);
            }
        }
    }

    /** @return heap used after asking for two full collections (outside the timed section) */
    private static long heapAfterCollection()
    {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long liveRows(final long[][] live)
    {
        long rows = 0;
        for (final long[] input : live)
        {
            for (final long f1 : input)
            {
                rows += f1 >= 0 ? 1 : 0;
            }
        }
        return rows;
    }

    /**
     * Runs W7 through the multi-way join.
     *
     * @param n           order ids
     * @param materialize whether to keep the final materialized result (slow: for tests)
     * @return the figures
     */
    public static Result runMulti(final int n, final boolean materialize)
    {
        return runMulti(tape(n), materialize);
    }

    /**
     * Runs a generated W7 through the multi-way join; only the feeding is timed.
     *
     * @param tape        the changes
     * @param materialize whether to keep the final materialized result (slow: for tests)
     * @return the figures
     */
    public static Result runMulti(final Tape tape, final boolean materialize)
    {
        final Result r = new Result();
        final TreeMap<String, Long> m = materialize ? new TreeMap<>() : null;
        final ResultHandler out = new ResultHandler()
        {
            @Override
            public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp,
                final long step)
            {
                throw new IllegalStateException("a multi-way join emits multi results");
            }

            @Override
            public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
            {
                r.outputLines++;
                if (m != null)
                {
                    final StringBuilder b = new StringBuilder();
                    for (int i = 0; i < rows.length; i++)
                    {
                        b.append(i == 0 ? "" : "|").append(rows[i] == null ? "-" : String.valueOf(rows[i].getLong(2)));
                    }
                    materialize(m, kind, b.toString());
                }
            }
        };
        final RowView view = new RowView();
        final int size = tape.size;
        final long heapBefore = heapAfterCollection();
        try (JoinOperator join = JoinOperators.create(multiSpec(), state(tape.live[0].length - 1), out, NO_DEAD_LETTERS_EXPECTED))
        {
            final long start = System.nanoTime();
            for (int i = 0; i < size; i++)
            {
                join.onInputRow(tape.input[i], kind(tape.kind[i]), tape.row(i, view), tape.ts[i], i + 1);
            }
            join.onEndOfInput(size + 1);
            r.nanos = System.nanoTime() - start;
            r.events = size;
            r.stateBytes = join.counters().liveStateBytes();
            // The multi-way join's state is off-heap as the chain's (records, buckets, key tables): counted alike.
            r.offHeapBytes = r.stateBytes;
            r.heapBytes = heapAfterCollection() - heapBefore;
        }
        r.allLines = r.outputLines;
        r.liveInputRows = liveRows(tape.live);
        r.materialized = m;
        return r;
    }

    /** One level of the chain: its join, and the buffer its output rows are concatenated into for the next. */
    private static final class Level implements ResultHandler
    {
        final int level;
        final Result r;
        final TreeMap<String, Long> m;
        JoinOperator join;
        Level next;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
        final RowWriter writer = new RowWriter();
        final RowView view = new RowView();

        Level(final int level, final Result r, final TreeMap<String, Long> m)
        {
            this.level = level;
            this.r = r;
            this.m = m;
        }

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp,
            final long step)
        {
            r.allLines++;
            final int leftFields = W * level;
            if (next == null)
            {
                r.outputLines++;
                if (m != null)
                {
                    final StringBuilder b = new StringBuilder();
                    for (int i = 0; i < level; i++)
                    {
                        b.append(i == 0 ? "" : "|").append(left.isNull(W * i + 2) ? "-" : String.valueOf(left.getLong(W * i + 2)));
                    }
                    b.append('|').append(right == null ? "-" : String.valueOf(right.getLong(2)));
                    materialize(m, kind, b.toString());
                }
                return;
            }
            writer.wrap(buffer, 0, buffer.capacity(), leftFields + W);
            for (int f = 0; f < leftFields; f++)
            {
                writer.putField(f, left, f);
            }
            for (int f = 0; f < W; f++)
            {
                if (right == null)
                {
                    writer.putNull(leftFields + f);
                }
                else
                {
                    writer.putField(leftFields + f, right, f);
                }
            }
            next.join.onRow(Side.LEFT, kind, view.wrap(buffer, 0, writer.finish()), timestamp, step);
        }
    }

    /**
     * Runs W7 through the chain of three binary regular left joins.
     *
     * @param n           order ids
     * @param materialize whether to keep the final materialized result (slow: for tests)
     * @return the figures
     */
    public static Result runChain(final int n, final boolean materialize)
    {
        return runChain(tape(n), materialize);
    }

    /**
     * Runs a generated W7 through the chain of three binary regular left joins; only the feeding is timed.
     *
     * @param tape        the changes
     * @param materialize whether to keep the final materialized result (slow: for tests)
     * @return the figures
     */
    public static Result runChain(final Tape tape, final boolean materialize)
    {
        final int n = tape.live[0].length - 1;
        final Result r = new Result();
        final TreeMap<String, Long> m = materialize ? new TreeMap<>() : null;
        final Level[] levels = new Level[3];
        for (int l = 0; l < 3; l++)
        {
            levels[l] = new Level(l + 1, r, m);
        }
        final RowView view = new RowView();
        final int size = tape.size;
        final long heapBefore = heapAfterCollection();
        try
        {
            for (int l = 0; l < 3; l++)
            {
                levels[l].join = JoinOperators.create(chainSpec(l + 1), state(n), levels[l], NO_DEAD_LETTERS_EXPECTED);
                levels[l].next = l < 2 ? levels[l + 1] : null;
            }
            final long start = System.nanoTime();
            for (int i = 0; i < size; i++)
            {
                final int input = tape.input[i];
                final RowView row = tape.row(i, view);
                // orders and payments meet in the first join, shipments in the second, refunds in the third.
                if (input == 0)
                {
                    levels[0].join.onRow(Side.LEFT, kind(tape.kind[i]), row, tape.ts[i], i + 1);
                }
                else
                {
                    levels[input - 1].join.onRow(Side.RIGHT, kind(tape.kind[i]), row, tape.ts[i], i + 1);
                }
            }
            for (final Level level : levels)
            {
                level.join.onEndOfInput(size + 1);
            }
            r.nanos = System.nanoTime() - start;
            r.events = size;
            for (final Level level : levels)
            {
                r.stateBytes += level.join.counters().liveStateBytes();
            }
            r.offHeapBytes = r.stateBytes;
            r.heapBytes = heapAfterCollection() - heapBefore;
        }
        finally
        {
            for (final Level level : levels)
            {
                if (level.join != null)
                {
                    level.join.close();
                }
            }
        }
        r.liveInputRows = liveRows(tape.live);
        r.materialized = m;
        return r;
    }

    /**
     * @param live the generator's live rows ({@link W7#generate})
     * @return the brute force of W7's join over them, as {@link Result#materialized}: {@link W7#bruteForce}
     */
    public static TreeMap<String, Long> bruteForce(final long[][] live)
    {
        return W7.bruteForce(live);
    }

    /** @return the figures of both paths and their ratios, as lines */
    static List<String> report(final int n, final Result multi, final Result chain)
    {
        final List<String> lines = new ArrayList<>();
        lines.add("W7 with " + n + " order ids");
        lines.add("multi: " + multi);
        lines.add("chain: " + chain);
        lines.add(String.format(Locale.ROOT,
            "multi / chain: throughput %.2fx, state as counted %.2f, memory (heap + off-heap) %.2f, output lines %.2f (all levels %.2f)",
            multi.eventsPerSecond() / chain.eventsPerSecond(), multi.stateBytes / (double) chain.stateBytes,
            multi.retainedBytes() / (double) chain.retainedBytes(),
            multi.outputLines / (double) chain.outputLines, multi.allLines / (double) chain.allLines));
        return lines;
    }

    /**
     * Runs both paths {@code runs} times each, alternating, and prints each run and the median of each path.
     *
     * @param n    order ids
     * @param runs runs per path
     * @return the lines printed
     */
    public static List<String> run(final int n, final int runs)
    {
        final List<Result> multis = new ArrayList<>();
        final List<Result> chains = new ArrayList<>();
        final List<String> lines = new ArrayList<>();
        final Tape tape = tape(n);
        for (int i = 0; i < runs; i++)
        {
            multis.add(runMulti(tape, false));
            chains.add(runChain(tape, false));
            lines.add("run " + (i + 1) + ": multi " + multis.get(i));
            lines.add("run " + (i + 1) + ": chain " + chains.get(i));
        }
        multis.sort(Comparator.comparingLong(x -> x.nanos));
        chains.sort(Comparator.comparingLong(x -> x.nanos));
        lines.addAll(report(n, multis.get(runs / 2), chains.get(runs / 2)));
        return lines;
    }

    /** @return the W7 order count from {@code w7.n}, or the default */
    static int defaultOrders()
    {
        return Integer.getInteger("w7.n", W7.DEFAULT_ORDERS);
    }
}
