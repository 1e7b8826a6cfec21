package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Runs the WORKLOADS.md workloads through the peer engines' own join operators and prints their throughput next
 * to the expected output counts.
 * <pre>
 * PeersMain [--peers=all|flink|kstreams|none|flink-datastream,flink-sql,flink-sql-uk,kstreams-rocksdb,kstreams-memory]
 *           [--workloads=W1,W2[,W3][,W4][,W5]] [--joins=inner,left] [--runs=3] [--warmup=0]
 *           [-Dw1.n=N] [-Dw2.n=N] [-Dw2.keys=K] [-Dw3.n=N] [-Dw4.n=N] [-Dw5.n=N] [-Dkstreams.changelog=true]
 * </pre>
 * Arguments may also come as one whitespace-separated string (as the Maven profile passes them). For each
 * workload the events are generated once (checksum and counts are checked against WORKLOADS.md where the size is
 * in its table); for each join and peer they are converted to the peer's native types, then each run sets up a
 * fresh operator (not timed) and times feeding every event in order plus the end of input. Exit status 1 if any
 * run's output count is wrong or a run fails.
 */
public final class PeersMain
{
    /**
     * Every peer; "all" runs these but kstreams-memory (see KafkaStreamsPeer: its window fetch scans the window).
     * flink-sql-uk runs W4 only (f1 declared as both sides' unique key), flink-sql-temporal W5 and W6 only (the
     * temporal join; W6's ASOF as a versioned table of quotes); the others skip what they do not support.
     */
    static final List<String> KNOWN_PEERS = List.of("flink-datastream", "flink-sql", "flink-sql-uk", "flink-sql-temporal",
        "kstreams-rocksdb", "kstreams-memory", "flink-sql-seed");
    static final List<String> ALL_PEERS =
        List.of("flink-datastream", "flink-sql", "flink-sql-uk", "flink-sql-temporal", "kstreams-rocksdb");

    private PeersMain()
    {
    }

    /** One (peer, workload, join) case and its runs. */
    static final class Case
    {
        final String peer;
        final Workload workload;
        final JoinKind join;
        long events;
        long expected;
        final List<Long> rows = new ArrayList<>();
        final List<Double> seconds = new ArrayList<>();
        long maxPauseMs;
        long gcMs;
        long gcCount;
        String error;

        Case(final String peer, final Workload workload, final JoinKind join)
        {
            this.peer = peer;
            this.workload = workload;
            this.join = join;
        }

        boolean ok()
        {
            if (error != null || rows.isEmpty())
            {
                return false;
            }
            for (final long r : rows)
            {
                if (r != expected)
                {
                    return false;
                }
            }
            return true;
        }
    }

    public static void main(final String[] argv) throws Exception
    {
        final List<String> args = new ArrayList<>();
        for (final String a : argv)
        {
            args.addAll(Arrays.asList(a.trim().split("\\s+")));
        }
        args.removeIf(String::isEmpty);
        List<String> peers = ALL_PEERS;
        List<Workload> workloads = List.of(Workload.W1, Workload.W2);
        List<JoinKind> joins = List.of(JoinKind.INNER, JoinKind.LEFT);
        int runs = 3;
        int warmup = 0;
        int w7Orders = 0;
        for (final String a : args)
        {
            if (a.startsWith("-D"))
            {
                final int eq = a.indexOf('=');
                if (eq < 0)
                {
                    System.setProperty(a.substring(2), "true");
                }
                else
                {
                    System.setProperty(a.substring(2, eq), a.substring(eq + 1));
                }
            }
            else if (a.startsWith("--peers="))
            {
                peers = parsePeers(value(a));
            }
            else if (a.startsWith("--workloads="))
            {
                final List<Workload> ws = new ArrayList<>();
                for (final String s : value(a).split(","))
                {
                    ws.add(Workload.parse(s));
                }
                workloads = ws;
            }
            else if (a.startsWith("--joins="))
            {
                final List<JoinKind> js = new ArrayList<>();
                for (final String s : value(a).split(","))
                {
                    js.add(JoinKind.parse(s));
                }
                joins = js;
            }
            else if (a.startsWith("--runs="))
            {
                runs = Integer.parseInt(value(a));
            }
            else if (a.startsWith("--w7-orders="))
            {
                w7Orders = Integer.parseInt(value(a));
            }
            else if (a.startsWith("--warmup="))
            {
                warmup = Integer.parseInt(value(a));
            }
            else if (a.equals("--help") || a.equals("-h") || a.equals("help"))
            {
                usage();
                return;
            }
            else
            {
                System.err.println("unknown argument: " + a);
                usage();
                System.exit(2);
            }
        }
        if (runs < 1 || warmup < 0)
        {
            throw new IllegalArgumentException("--runs must be >= 1 and --warmup >= 0");
        }

        if (w7Orders > 0)
        {
            // W7 is four inputs, not a two-sided tape: its own comparison (Junction multi and chain, Flink chain)
            System.exit(W7ChainPeer.run(w7Orders, warmup, runs) ? 0 : 1);
        }
        final Sizes sizes = Sizes.fromSystemProperties();
        final GcWatch gc = new GcWatch();
        final Runtime rt = Runtime.getRuntime();
        System.out.printf(Locale.ROOT, "# junction peers: java %s (%s), %d cpus, max heap %d MiB, GC: %s%n",
            System.getProperty("java.version"), System.getProperty("java.vm.name"), rt.availableProcessors(),
            rt.maxMemory() >> 20, gc.collectors());
        System.out.printf(Locale.ROOT, "# jvm args: %s%n",
            String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()));
        System.out.printf(Locale.ROOT, "# peers=%s workloads=%s joins=%s runs=%d warmup=%d%n",
            peers, workloads, joins, runs, warmup);

        final List<Case> cases = new ArrayList<>();
        for (final Workload w : workloads)
        {
            long t0 = System.nanoTime();
            EventTape tape = sizes.generate(w);
            final Expected e = Expected.of(w, sizes, tape);
            System.out.printf(Locale.ROOT,
                "%n## %s (%s): %,d events (%,d left / %,d right), checksum %s, generated in %.2f s%n",
                w, sizes.describe(w), e.events, e.leftRows, e.rightRows, e.checksum, secs(t0));
            System.out.printf(Locale.ROOT,
                "   expected rows: inner %,d | left outer changelog (Flink SQL) %,d | left outer append-only %s%n",
                e.inner, e.leftChangelog, e.leftAppend < 0 ? "n/a (changelog input)" : num(e.leftAppend));
            if (e.table != null)
            {
                final String diff = e.tableDisagreement();
                System.out.printf(Locale.ROOT, "   WORKLOADS.md row '%s': %s%n", e.table.name,
                    diff == null ? "OK (events, checksum and counts agree)" : "MISMATCH: " + diff);
            }
            else
            {
                System.out.println("   (size not in the WORKLOADS.md table: counts from the reference model)");
            }
            for (final JoinKind j : joins)
            {
                for (final String peerName : peers)
                {
                    final Peer peer = peer(peerName);
                    if (!peer.supports(w, j))
                    {
                        continue;
                    }
                    final Case c = new Case(peer.name(), w, j);
                    c.events = e.events;
                    c.expected = peer.expected(e, j);
                    cases.add(c);
                    runCase(peer, c, tape, runs, warmup, gc);
                }
            }
            tape = null;
            System.gc();
        }

        printTable(cases);
        boolean allOk = true;
        for (final Case c : cases)
        {
            allOk &= c.ok();
        }
        System.out.println(allOk ? "# all output counts OK" : "# SOME RUNS FAILED OR MISMATCHED");
        System.out.flush();
        System.exit(allOk ? 0 : 1);
    }

    private static void runCase(final Peer peer, final Case c, final EventTape tape, final int runs, final int warmup,
                                final GcWatch gc)
    {
        final String label = c.peer + " " + c.workload + " " + c.join.label();
        try
        {
            long t0 = System.nanoTime();
            Peer.Prepared prepared = peer.prepare(c.workload, c.join, tape);
            System.out.printf(Locale.ROOT, "%n   %s: input converted in %.2f s%n", label, secs(t0));
            for (int r = 0; r < warmup + runs; r++)
            {
                final boolean timed = r >= warmup;
                final PeerRun run = prepared.newRun();
                if (r == 0)
                {
                    System.out.println("   " + label + ": " + prepared.describe());
                }
                System.gc();
                gc.start();
                final long start = System.nanoTime();
                final long rows;
                try
                {
                    rows = run.run();
                }
                finally
                {
                    final double s = secs(start);
                    final GcWatch.Result g = gc.stop();
                    run.close();
                    if (timed)
                    {
                        c.seconds.add(s);
                        c.gcCount += g.count;
                        c.gcMs += g.timeMs;
                        c.maxPauseMs = Math.max(c.maxPauseMs, g.maxPauseMs);
                    }
                    System.out.printf(Locale.ROOT,
                        "   %s %s %d: %.3f s, %,.0f events/s, gc %d / %d ms (max pause %d ms)%n",
                        label, timed ? "run" : "warmup", timed ? r - warmup + 1 : r + 1, s, c.events / s,
                        g.count, g.timeMs, g.maxPauseMs);
                }
                if (timed)
                {
                    c.rows.add(rows);
                }
                System.out.printf(Locale.ROOT, "      output rows %,d, expected %,d: %s%n", rows, c.expected,
                    rows == c.expected ? "OK" : "MISMATCH");
            }
            prepared = null;
        }
        catch (final Throwable t)
        {
            c.error = t.toString();
            System.out.println("   " + label + ": ERROR " + t);
            t.printStackTrace(System.out);
        }
    }

    private static void printTable(final List<Case> cases)
    {
        System.out.println();
        final String fmt = "%-17s %-3s %-5s %11s %14s %14s %-8s %8s %12s %12s %14s %9s %9s%n";
        System.out.printf(Locale.ROOT, fmt, "peer", "wl", "join", "events", "out rows", "expected", "check",
            "best s", "best ev/s", "median ev/s", "out rows/s", "max GC ms", "GC ms/run");
        for (final Case c : cases)
        {
            if (c.seconds.isEmpty())
            {
                System.out.printf(Locale.ROOT, fmt, c.peer, c.workload, c.join.label(), num(c.events), "-",
                    num(c.expected), "ERROR", "-", "-", "-", "-", "-", "-");
                continue;
            }
            final double[] s = c.seconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            final double best = s[0];
            final double median = s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
            final long rows = c.rows.isEmpty() ? -1 : c.rows.get(c.rows.size() - 1);
            System.out.printf(Locale.ROOT, fmt, c.peer, c.workload, c.join.label(), num(c.events), num(rows),
                num(c.expected), c.error != null ? "ERROR" : c.ok() ? "OK" : "MISMATCH",
                String.format(Locale.ROOT, "%.3f", best), num(Math.round(c.events / best)),
                num(Math.round(c.events / median)), num(Math.round(rows / best)), num(c.maxPauseMs),
                num(Math.round((double) c.gcMs / s.length)));
        }
    }

    private static List<String> parsePeers(final String v)
    {
        final Set<String> out = new LinkedHashSet<>();
        for (final String p : v.split(","))
        {
            final String s = p.trim().toLowerCase(Locale.ROOT);
            switch (s)
            {
                case "all":
                    out.addAll(ALL_PEERS);
                    break;
                case "flink":
                    out.add("flink-datastream");
                    out.add("flink-sql");
                    out.add("flink-sql-uk");
                    out.add("flink-sql-temporal");
                    break;
                case "kstreams":
                case "kafka":
                    out.add("kstreams-rocksdb");
                    break;
                case "none":
                    break;
                default:
                    if (!KNOWN_PEERS.contains(s))
                    {
                        throw new IllegalArgumentException("unknown peer '" + p + "', expected one of " + KNOWN_PEERS
                            + ", flink, kstreams, all, none");
                    }
                    out.add(s);
            }
        }
        return new ArrayList<>(out);
    }

    private static Peer peer(final String name)
    {
        switch (name)
        {
            case "flink-datastream":
                return new FlinkDataStreamPeer();
            case "flink-sql":
                return new FlinkSqlPeer();
            case "flink-sql-uk":
                return new FlinkSqlPeer(true);
            case "flink-sql-temporal":
                return new FlinkTemporalPeer();
            case "kstreams-memory":
                return new KafkaStreamsPeer("memory");
            case "flink-sql-seed":
                return new FlinkSeedPeer(); // W1 left as a regular join (W1-seed): only when named
            case "kstreams-rocksdb":
                return new KafkaStreamsPeer("rocksdb");
            default:
                throw new IllegalArgumentException(name);
        }
    }

    private static String value(final String arg)
    {
        return arg.substring(arg.indexOf('=') + 1);
    }

    private static double secs(final long startNanos)
    {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static String num(final long v)
    {
        return String.format(Locale.ROOT, "%,d", v);
    }

    private static void usage()
    {
        System.out.println("usage: PeersMain [--peers=all|flink|kstreams|none|flink-datastream,flink-sql,flink-sql-uk,flink-sql-temporal,kstreams-rocksdb,kstreams-memory]\n"
            + "                 [--workloads=W1,W2,W3,W4,W5,W6] [--joins=inner,left] [--runs=3] [--warmup=0] [-Dw6.trades=N]\n"
            + "                 [-Dw1.n=N] [-Dw2.n=N] [-Dw2.keys=K] [-Dw3.n=N] [-Dw4.n=N] [-Dw5.n=N] [-Dkstreams.changelog=true]\n"
            + "defaults: all = flink-datastream,flink-sql,flink-sql-uk,kstreams-rocksdb; W1,W2; inner and left; 3 timed runs;\n"
            + "full WORKLOADS.md sizes (W3 at its run size 50k/side, W4 at 20k ids/side). flink-sql-uk runs W4 only,\n"
            + "flink-sql-temporal W5 and W6 only.\n"
            + "--peers=none only generates and checks the workloads.\n"
            + "--w7-orders=N runs W7 instead (N order ids) through Flink's chain of three StreamingJoinOperators,\n"
            + "--warmup and --runs as for the others, median (junction multibench runs Junction's paths; bench/scripts/w7-figures.sh both).");
    }
}
