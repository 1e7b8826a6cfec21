package io.junction.tools.perf;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.kafka.JsonResultEncoder;
import io.junction.kafka.ResultEncoder;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.perf.ShapingJoin.Config;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import io.junction.api.JoinType;

/**
 * The changelog-shaping work's figures (docs/PERFORMANCE.md "Changelog shaping"): one workload's join in several
 * {@link Config configurations}, interleaved in one JVM (round r runs every configuration, the order
 * rotated by one each round), N timed rounds after the warm-up rounds; per configuration the median
 * events/s (input rows per second, WORKLOADS.md's counting), its ratio to the plain regular join's
 * (the retraction changelog), and from one untimed pass through the operator the output lines and the
 * bytes a Kafka sink would be written per input row: the binary record ({@code junction kafka --format
 * binary}: the record key plus the {@link ResultEncoder#binary} value, a delete's value a tombstone) and
 * the JSON record ({@code --format json}: {@link JsonResultEncoder}'s key and value; with upsert output the key is the
 * JSON result key and a delete a tombstone). Every
 * timed run's output line count and the untimed pass's are checked against {@link ShapingJoin#expectedLines}.
 */
public final class ShapingFigures
{
    /** What to run. Mutable holder filled by the command. */
    public static final class Options
    {
        public Workload workload = Workload.W1;
        public List<Config> configs = new ArrayList<>();
        public int runs = 5;
        public int warmupRounds = 1;
        /** Operator-direct ({@link DirectRun}) instead of through the runtime ({@link LoadRun}). */
        public boolean direct;
        public int partitions = 1;
        public WaitStrategyKind waitStrategy = EngineConfig.WAIT_STRATEGY_DEFAULT;
        public long stateTtl;
    }

    /** One configuration's figures. */
    public static final class Figures
    {
        public final Config config;
        public final ShapingJoin.Expected expected;
        /** Input rows per second of each timed round, in round order. */
        public final double[] rates;
        public long lines;
        public long binaryBytes;
        public long jsonBytes;
        public long joinedPairs;
        /** Timed runs whose output line count was not the expected one. */
        public int mismatches;

        Figures(final Config config, final ShapingJoin.Expected expected, final int runs)
        {
            this.config = config;
            this.expected = expected;
            this.rates = new double[runs];
        }

        /** @return the median of the timed rounds' rates */
        public double medianRate()
        {
            final double[] sorted = rates.clone();
            Arrays.sort(sorted);
            final int n = sorted.length;
            return n == 0 ? 0 : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        }
    }

    private ShapingFigures()
    {
    }

    /**
     * Runs and prints the figures.
     *
     * @return 0 when every count matched the model, else 1
     */
    public static int run(final EventTape tape, final Options options, final PrintStream out)
    {
        final List<Figures> figures = new ArrayList<>();
        for (final Config c : options.configs)
        {
            figures.add(new Figures(c, ShapingJoin.expectedLines(options.workload, c, tape, options.stateTtl), options.runs));
        }
        final EncodedRows rows = EncodedRows.encode(tape);
        for (final Figures f : figures)
        {
            count(tape, rows, options, f);
        }
        final int n = figures.size();
        final String how = options.direct ? "operator-direct" : "runtime p=" + options.partitions + " " +
            options.waitStrategy.name().toLowerCase(Locale.ROOT).replace('_', '-');
        for (int round = 0; round < options.warmupRounds + options.runs; round++)
        {
            final boolean warm = round < options.warmupRounds;
            final StringBuilder line = new StringBuilder(warm ? "warm-up " + (round + 1) : "run " + (round - options.warmupRounds + 1)).append(':');
            for (int j = 0; j < n; j++)
            {
                final Figures f = figures.get((j + round) % n);
                final LoadResult r = timed(tape, options, f.config);
                final double rate = r.measuredSeconds > 0 ? tape.rows() / r.measuredSeconds : 0;
                if (r.outputs != f.expected.lines)
                {
                    f.mismatches++;
                }
                if (!warm)
                {
                    f.rates[round - options.warmupRounds] = rate;
                }
                line.append(String.format(Locale.ROOT, " %s %,.0f rows/s (%,d lines)%s;", f.config, rate, r.outputs,
                    r.outputs == f.expected.lines ? "" : " MISMATCH"));
            }
            out.println(line);
        }
        final double base = figures.stream().filter(f -> f.config == Config.RETRACTION).mapToDouble(Figures::medianRate).findFirst().orElse(0);
        out.printf(Locale.ROOT, "%n%s left join, %s, %,d input rows (%,d events with watermarks), %d rounds interleaved after %d warm-up%s%n",
            ShapingJoin.workloadName(options.workload), how, tape.rows(), tape.size(), options.runs, options.warmupRounds,
            options.stateTtl > 0 ? ", stateTtl " + options.stateTtl + " ms" : ", no state TTL");
        out.println("| configuration | input rows/s (median) | vs retraction | output lines | lines per input row | " +
            "binary bytes per input row | JSON bytes per input row | joined pairs at the end | lines as the model |");
        out.println("|---|---|---|---|---|---|---|---|---|");
        int status = 0;
        for (final Figures f : figures)
        {
            final boolean ok = f.mismatches == 0 && f.lines == f.expected.lines && f.joinedPairs == f.expected.joinedPairs;
            status |= ok ? 0 : 1;
            out.printf(Locale.ROOT, "| %s | %,.0f | %s | %,d | %.3f | %.1f | %.1f | %,d | %s |%n", f.config, f.medianRate(),
                base > 0 ? String.format(Locale.ROOT, "%.3f", f.medianRate() / base) : "n/a", f.lines, (double)f.lines / tape.rows(),
                (double)f.binaryBytes / tape.rows(), (double)f.jsonBytes / tape.rows(), f.joinedPairs,
                ok ? "OK" : "MISMATCH (expected " + f.expected + ")");
        }
        return status;
    }

    /** One timed run of a configuration, with a result handler that only counts. */
    static LoadResult timed(final EventTape tape, final Options options, final Config config)
    {
        final LoadRun.Options o = loadOptions(tape, options, config);
        return options.direct ? DirectRun.run(tape, o) : LoadRun.run(tape, o);
    }

    /** @return the load options of a configuration: its spec, key capacity and preallocation */
    static LoadRun.Options loadOptions(final EventTape tape, final Options options, final Config config)
    {
        final LoadRun.Options o = new LoadRun.Options();
        o.workload = options.workload;
        o.type = JoinType.LEFT;
        o.spec = ShapingJoin.spec(options.workload, config, options.stateTtl);
        o.partitions = options.direct ? 1 : options.partitions;
        o.waitStrategy = options.waitStrategy;
        o.maxKeysPerPartition = ShapingJoin.maxKeysPerPartition(options.workload, config, tape, o.partitions);
        o.preallocatePerPartition = ShapingJoin.preallocatePerPartition(options.workload, config, tape, o.partitions);
        o.label = ShapingJoin.workloadName(options.workload) + " " + config;
        return o;
    }

    /**
     * The untimed pass: the operator's output lines, the bytes of their binary and JSON records, and the
     * joined pairs the changelog leaves at the end (applied as a table: upsert puts, delete removes; a
     * changelog's +/- count).
     */
    static void count(final EventTape tape, final EncodedRows rows, final Options options, final Figures f)
    {
        final JoinSpec spec = ShapingJoin.spec(options.workload, f.config, options.stateTtl);
        final ResultEncoder binary = ResultEncoder.binary(spec);
        final ResultEncoder json = new JsonResultEncoder(spec);
        final long[] sums = new long[4];
        final ResultHandler handler = (kind, left, right, ts, step) ->
        {
            sums[0]++;
            final byte[] key = binary.key(kind, left, right, ts);
            final int keyBytes = key == null ? 0 : key.length;
            final byte[] value = binary.value(kind, left, right, ts);
            sums[1] += keyBytes + (value == null ? 0 : value.length);
            final byte[] jsonKey = json.key(kind, left, right, ts);
            final byte[] jsonValue = json.value(kind, left, right, ts);
            sums[2] += (jsonKey == null ? 0 : jsonKey.length) + (jsonValue == null ? 0 : jsonValue.length);
            if (left != null && right != null)
            {
                // every configuration emits a pair at most once before retracting it: +1 / -1 per pair
                final boolean add = kind == ChangeKind.INSERT || kind == ChangeKind.UPDATE_AFTER;
                sums[3] += add ? 1 : -1;
            }
        };
        final LoadRun.Options o = loadOptions(tape, options, f.config);
        final StateConfig config = StateConfig.fromSystemProperties().withMaxKeys(ShapingJoin.maxKeysPerPartition(options.workload, f.config, tape, 1));
        try (JoinOperator join = JoinOperators.create(o.spec, config, handler, (side, kind, row, ts, step, reason) ->
        {
        }))
        {
            final RowView row = new RowView();
            for (int i = 0, n = tape.size(); i < n; i++)
            {
                final byte type = tape.type(i);
                if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
                {
                    row.wrap(rows.buffer(i), rows.offset(i), rows.rowLength());
                    join.onRow(type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.fromOrdinal(tape.kind(i)), row, tape.ts(i), i);
                }
                else if (type == EventTape.TYPE_WATERMARK)
                {
                    join.onWatermark(tape.ts(i), i);
                }
                else
                {
                    join.onEndOfInput(i);
                }
            }
        }
        f.lines = sums[0];
        f.binaryBytes = sums[1];
        f.jsonBytes = sums[2];
        f.joinedPairs = sums[3];
    }
}
