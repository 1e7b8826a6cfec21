package io.junction.tools.naive;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.WorkloadSink;
import io.junction.tools.workload.Workloads;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.function.Consumer;

/**
 * Times the naive on-heap joins ({@link NaiveIntervalJoin} for W1 / W1-big, {@link NaiveRegularJoin}
 * for W2 / W3 / W4) on a workload of WORKLOADS.md, as the on-heap baseline for the engine.
 * <pre>
 * java -cp tools/target/junction-tools-all.jar [-Xmx..] [-Dw2.n=.. -Dw2.keys=.. -Dw3.n=.. -Dw4.n=..] \
 *     io.junction.tools.naive.NaiveRunner WORKLOAD TYPE [--runs N] [--prebuilt] [--count-only]
 *   WORKLOAD     W1 | W1-big | W2 | W3 | W4
 *   TYPE         inner | left   (W2/W3/W4 left = Flink SQL changelog, W1 left = append-only)
 *   --runs N     timed runs, each on a fresh join (earlier runs warm the JIT up); default 1
 *   --prebuilt   build the Row objects before timing (as peers get their native rows), instead of
 *                in the timed section from the tape's (key, ts, f1)
 *   --count-only count output rows without allocating a JoinedRow per output row
 * </pre>
 * The events are generated into an {@link EventTape} first (not timed); each run then times
 * {@code EventTape.replay(join)} (or the same sequence over prebuilt rows), the end of input
 * included, and prints one line: input events/s (both sides), output rows by kind, elapsed ms and
 * the stop-the-world GC pauses in the timed section ({@link GcPauses}: count, total, max). A
 * {@code System.gc()} precedes each run, outside the timed section.
 */
public final class NaiveRunner
{
    private NaiveRunner()
    {
    }

    /**
     * The figures of one timed run.
     *
     * @param workload     the workload
     * @param type         the join type
     * @param events       input rows, both sides
     * @param inserts      +I output rows
     * @param deletes      -D output rows
     * @param updates      -U and +U output rows (W4 inner)
     * @param pairs        output rows pairing two input rows
     * @param elapsedNanos timed section
     * @param gcPauses     GC pauses in the timed section
     * @param gcTotalMs    their total duration
     * @param gcMaxMs      the longest
     */
    public record Result(Workload workload, NaiveJoin.Type type, long events, long inserts, long deletes, long updates,
                         long pairs, long elapsedNanos, long gcPauses, long gcTotalMs, long gcMaxMs)
    {
        /** @return every output row */
        public long outputRows()
        {
            return inserts + deletes + updates;
        }

        /** @return input events per second */
        public double eventsPerSecond()
        {
            return events * 1e9 / elapsedNanos;
        }

        /** @return output rows per second */
        public double outputRowsPerSecond()
        {
            return outputRows() * 1e9 / elapsedNanos;
        }

        @Override
        public String toString()
        {
            return String.format(Locale.ROOT,
                "naive %s %s: events=%d events/s=%.0f output=%d (+I=%d -D=%d -U/+U=%d pairs=%d) output/s=%.0f"
                    + " elapsed_ms=%.1f gc_pauses=%d gc_total_ms=%d gc_max_pause_ms=%d",
                workload, type.name().toLowerCase(Locale.ROOT), events, eventsPerSecond(), outputRows(), inserts,
                deletes, updates, pairs, outputRowsPerSecond(), elapsedNanos / 1e6, gcPauses, gcTotalMs, gcMaxMs);
        }
    }

    /**
     * @param workload the workload
     * @param type     inner or left
     * @param emit     materialise each output row as a {@link JoinedRow} to a consumer
     * @return a fresh naive join for the workload
     */
    public static NaiveJoin newJoin(final Workload workload, final NaiveJoin.Type type, final boolean emit)
    {
        final Consumer<JoinedRow> downstream = emit ? new Sink() : null;
        switch (workload)
        {
            case W1:
            case W1_BIG:
            {
                final long x = Workloads.w1IntervalMillis(workload);
                return new NaiveIntervalJoin(type, -x, x, downstream);
            }
            case W5:
                throw new IllegalArgumentException("no naive temporal join: W5 runs on the engine only");
            case W6:
                throw new IllegalArgumentException("no naive ASOF join: W6 runs on the engine only");
            case W8:
            case W8_FLAT:
                throw new IllegalArgumentException("no naive join of W8's rows: W8 runs on the engine only");
            default:
                return new NaiveRegularJoin(type, downstream);
        }
    }

    /**
     * Generates a workload into a tape (system properties override its sizes).
     *
     * @param workload the workload
     * @return the tape
     */
    public static EventTape tape(final Workload workload)
    {
        return EventTape.of(workload);
    }

    /**
     * One timed run on a fresh join.
     *
     * @param workload the workload the tape holds
     * @param type     inner or left
     * @param tape     the events
     * @param prebuilt build the rows before timing
     * @param emit     materialise output rows
     * @return the figures
     */
    public static Result run(final Workload workload, final NaiveJoin.Type type, final EventTape tape,
                             final boolean prebuilt, final boolean emit)
    {
        final NaiveJoin join = newJoin(workload, type, emit);
        final Row[] rows = prebuilt ? buildRows(tape) : null;
        System.gc();
        try (GcPauses gc = new GcPauses())
        {
            gc.start();
            final long start = System.nanoTime();
            if (rows == null)
            {
                tape.replay(join);
            }
            else
            {
                replay(tape, rows, join);
            }
            final long elapsed = System.nanoTime() - start;
            gc.stop();
            return new Result(workload, type, tape.rows(), join.inserts(), join.deletes(), join.updates(), join.pairs(),
                elapsed, gc.count(), gc.totalMillis(), gc.maxMillis());
        }
    }

    /** Builds the on-heap rows of every row event of the tape, in order. */
    static Row[] buildRows(final EventTape tape)
    {
        final Row[] rows = new Row[Math.toIntExact(tape.rows())];
        final StringBuilder scratch = new StringBuilder(32);
        int k = 0;
        for (int i = 0; i < tape.size(); i++)
        {
            final byte t = tape.type(i);
            if (t == EventTape.TYPE_LEFT || t == EventTape.TYPE_RIGHT)
            {
                rows[k++] = Row.of(t, tape.key(i), tape.ts(i), tape.f1(i), scratch);
            }
        }
        return rows;
    }

    /** The tape's sequence with its rows taken from {@code rows} (W4's with their change kinds). */
    static void replay(final EventTape tape, final Row[] rows, final NaiveJoin join)
    {
        int k = 0;
        for (int i = 0; i < tape.size(); i++)
        {
            switch (tape.type(i))
            {
                case EventTape.TYPE_LEFT:
                case EventTape.TYPE_RIGHT:
                    final byte kind = tape.kind(i);
                    if (kind == WorkloadSink.INSERT)
                    {
                        join.onRow(rows[k++]);
                }
                else
                    {
                        join.onChange(JoinedRow.Kind.of(kind), rows[k++]);
                    }
                    break;
                case EventTape.TYPE_WATERMARK:
                    join.watermark(tape.ts(i));
                    break;
                default:
                    join.end();
                    break;
            }
        }
    }

    /**
     * Command line entry point; see the class comment.
     *
     * @param args WORKLOAD TYPE [--runs N] [--prebuilt] [--count-only]
     */
    public static void main(final String[] args)
    {
        if (args.length < 2)
        {
            usage("WORKLOAD and TYPE are required");
            return;
        }
        final Workload workload;
        final NaiveJoin.Type type;
        int runs = 1;
        boolean prebuilt = false;
        boolean emit = true;
        try
        {
            workload = Workload.parse(args[0]);
            type = NaiveJoin.Type.parse(args[1]);
            for (int i = 2; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--runs":
                        if (i + 1 >= args.length)
                        {
                            throw new IllegalArgumentException("--runs needs a value in [1, 1000]");
                        }
                        runs = Integer.parseInt(args[++i]);
                        if (runs < 1 || runs > 1000)
                        {
                            throw new IllegalArgumentException("--runs " + runs + " out of range [1, 1000]");
                        }
                        break;
                    case "--prebuilt":
                        prebuilt = true;
                        break;
                    case "--count-only":
                        emit = false;
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option '" + args[i] + "'");
                }
            }
        }
        catch (final IllegalArgumentException e)
        {
            usage(e.getMessage());
            return;
        }

        final long genStart = System.nanoTime();
        final EventTape tape = tape(workload);
        System.out.printf(Locale.ROOT, "naive %s: %d events (%d rows) generated in %.0f ms (not timed); jvm %s, heap max %d MiB, gc [%s]; rows %s; output %s%n",
            workload, tape.size(), tape.rows(), (System.nanoTime() - genStart) / 1e6,
            System.getProperty("java.vm.version"), Runtime.getRuntime().maxMemory() >> 20, collectors(),
            prebuilt ? "prebuilt before timing" : "built in the timed section",
            emit ? "materialised (a JoinedRow per output row)" : "counted only");
        for (int r = 1; r <= runs; r++)
        {
            final Result result = run(workload, type, tape, prebuilt, emit);
            System.out.println("run " + r + "/" + runs + " " + result);
        }
    }

    private static String collectors()
    {
        final StringJoiner names = new StringJoiner(", ");
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            names.add(gc.getName());
        }
        return names.toString();
    }

    private static void usage(final String problem)
    {
        System.err.println("error: " + problem);
        System.err.println("usage: NaiveRunner W1|W1-big|W2|W3|W4 inner|left [--runs N] [--prebuilt] [--count-only]");
        System.exit(2);
    }

    /** Consumes output rows so that they are not optimised away: folds their sequence numbers. */
    private static final class Sink implements Consumer<JoinedRow>
    {
        private long h;

        @Override
        public void accept(final JoinedRow row)
        {
            h = h * 31 + (row.left() == null ? -1 : row.left().f1) + (row.right() == null ? -2 : row.right().f1)
                + row.kind().ordinal();
        }

        @Override
        public String toString()
        {
            return Long.toHexString(h);
        }
    }
}
