package io.junction.tools.demo;

import io.junction.metrics.PartitionSnapshot;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.json.RowJson;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workloads;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * The show-click demo: workload W1 (WORKLOADS.md) as an interval LEFT join of impressions (left) and
 * clicks (right) on {@code key} with {@code right.ts ∈ [left.ts - 30000, left.ts + 30000]}, run
 * through the real {@link JoinEngine} at maximum rate.
 * <p>
 * The events are generated into an {@link EventTape} and their rows encoded before the clock starts
 * (as every peer of WORKLOADS.md does), so the timed section is exactly: publish every event, the
 * end of input, and {@link JoinEngine#close()} (which drains the partitions). What it prints is
 * chosen to show both speed and correctness: events/s, the ingest-to-emit latency percentiles the
 * engine records, state size, and the W1 count check "every impression exactly once".
 * <p>
 * {@link JoinMode#REGULAR} runs the same data as a regular (unbounded, changelog) left join. It is
 * useful on its own (the cost of unbounded state on the same events) and it exercises the demo's
 * machinery with the regular operator. Its count check is made on net counts: a {@code -D} of a
 * padded row cancels its {@code +I}.
 * <p>
 * Not thread safe: one run at a time.
 */
public final class ShowClickDemo {
    /** The join to run the W1 data through. */
    public enum JoinMode {
        /** The W1 join: interval left join, append-only output. */
        INTERVAL,
        /** A regular left join on the same key: unbounded state, changelog output. */
        REGULAR
    }

    /** How many sample rows of each kind (matched, padded) to keep. */
    private static final int SAMPLES_PER_KIND = 2;
    /** Metrics are sampled for the peak-state figure every this many events (a power of two). */
    private static final int METRICS_EVERY = 1 << 16;

    private final int impressions;
    private final int partitions;
    private final WaitStrategyKind waitStrategy;
    private final JoinMode mode;

    /**
     * @param impressions  number of W1 impressions (left rows); 2,000,000 is W1
     * @param partitions   engine partitions
     * @param waitStrategy how idle partition threads wait
     * @param mode         which join to run
     */
    public ShowClickDemo(final int impressions, final int partitions, final WaitStrategyKind waitStrategy, final JoinMode mode) {
        if (impressions < 1) {
            throw new IllegalArgumentException("impressions must be >= 1: " + impressions);
        }
        this.impressions = impressions;
        this.partitions = partitions;
        this.waitStrategy = waitStrategy;
        this.mode = mode;
    }

    /** The outcome of a run. */
    public record Report(
        long events, long clicks, double seconds, long outputRows, long matched, long padded, long expectedImpressions,
        Histogram latency, long liveLeft, long liveRight, long stateBytes, long peakLiveRows, long peakStateBytes,
        long errors, String firstError, List<String> samples) {

        /** @return true when every impression came out exactly once (net) and every click matched */
        public boolean countsOk() {
            return matched + padded == expectedImpressions && matched == clicks;
        }

        /** @return true when the counts check passed and no partition reported an error */
        public boolean ok() {
            return countsOk() && errors == 0;
        }
    }

    /**
     * Generates, runs and reports.
     *
     * @param out where progress and the report are printed
     * @return the report
     */
    public Report run(final PrintWriter out) {
        final Schema schema = EncodedRows.schema();
        final JoinSpec spec = spec(schema);
        out.printf(Locale.ROOT, "junction demo: W1 show-click %s, %,d impressions%n", describe(spec), impressions);
        out.flush();

        final long g0 = System.nanoTime();
        final EventTape tape = new EventTape();
        Workloads.w1(impressions, tape);
        final long g1 = System.nanoTime();
        final EncodedRows rows = EncodedRows.encode(tape);
        final long g2 = System.nanoTime();
        final long clicks = tape.rows() - impressions;
        out.printf(Locale.ROOT, "  prepared (not timed): %,d events generated in %.2f s, %,d rows encoded (%,d bytes each) in %.2f s%n",
            tape.size(), (g1 - g0) / 1e9, tape.rows(), rows.rowLength(), (g2 - g1) / 1e9);

        final EngineConfig config = config();
        out.printf(Locale.ROOT, "  engine: %d partition(s), wait strategy %s, ring %d slots, state %s%n",
            config.partitions(), config.waitStrategy().name().toLowerCase(Locale.ROOT), config.ringSize(), config.state());
        out.flush();

        final Collector[] collectors = new Collector[config.partitions()];
        for (int p = 0; p < collectors.length; p++) {
            collectors[p] = new Collector(schema);
        }
        final AtomicLong errors = new AtomicLong();
        final AtomicReference<String> firstError = new AtomicReference<>();
        long peakLive = 0;
        long peakBytes = 0;
        final long t0;
        final long t1;
        final long s0 = System.nanoTime();
        final JoinEngine engine = JoinEngine.builder(spec)
            .config(config)
            .resultHandlers(p -> collectors[p])
            .errorHandler(t -> {
                errors.incrementAndGet();
                firstError.compareAndSet(null, Thread.currentThread().getName() + ": " + t);
            })
            .start();
        out.printf(Locale.ROOT, "  engine started in %.2f s (not timed)%n", (System.nanoTime() - s0) / 1e9);
        out.flush();
        try {
            final Publisher publisher = engine.publisher();
            engine.sampleLatency(); // start the latency interval with the run
            final int size = tape.size();
            final int rowLength = rows.rowLength();
            t0 = System.nanoTime();
            for (int i = 0; i < size; i++) {
                final byte type = tape.type(i);
                if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT) {
                    publisher.publish(type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT,
                        rows.buffer(i), rows.offset(i), rowLength, tape.ts(i), i, System.nanoTime());
                } else if (type == EventTape.TYPE_WATERMARK) {
                    publisher.watermark(tape.ts(i), i);
                } else {
                    publisher.endOfInput(i);
                }
                if ((i & (METRICS_EVERY - 1)) == 0) {
                    long live = 0;
                    long bytes = 0;
                    for (final PartitionSnapshot s : engine.metrics()) {
                        live += s.liveLeft + s.liveRight;
                        bytes += s.stateBytes;
                    }
                    peakLive = Math.max(peakLive, live);
                    peakBytes = Math.max(peakBytes, bytes);
                }
            }
        } finally {
            engine.close();
        }
        t1 = System.nanoTime();

        long liveLeft = 0;
        long liveRight = 0;
        long stateBytes = 0;
        for (final PartitionSnapshot s : engine.metrics()) {
            liveLeft += s.liveLeft;
            liveRight += s.liveRight;
            stateBytes += s.stateBytes;
        }
        long outputRows = 0;
        long matched = 0;
        long padded = 0;
        final List<String> matchedSamples = new ArrayList<>();
        final List<String> paddedSamples = new ArrayList<>();
        for (final Collector c : collectors) {
            outputRows += c.rows;
            matched += c.matched;
            padded += c.padded;
            matchedSamples.addAll(c.matchedSamples);
            paddedSamples.addAll(c.paddedSamples);
        }
        final List<String> samples = new ArrayList<>();
        samples.addAll(matchedSamples.subList(0, Math.min(SAMPLES_PER_KIND, matchedSamples.size())));
        samples.addAll(paddedSamples.subList(0, Math.min(SAMPLES_PER_KIND, paddedSamples.size())));
        final Report report = new Report(tape.rows(), clicks, (t1 - t0) / 1e9, outputRows, matched, padded, impressions,
            engine.sampleLatency(), liveLeft, liveRight, stateBytes, Math.max(peakLive, liveLeft + liveRight),
            Math.max(peakBytes, stateBytes), errors.get(), firstError.get(), samples);
        print(report, out);
        return report;
    }

    private JoinSpec spec(final Schema schema) {
        final JoinSpec.Builder builder = JoinSpec.builder(mode == JoinMode.INTERVAL ? JoinKind.INTERVAL : JoinKind.REGULAR, JoinType.LEFT)
            .schemas(schema, schema)
            .leftKey("key")
            .rightKey("key");
        if (mode == JoinMode.INTERVAL) {
            builder.interval(IntervalBounds.inclusive(-Workloads.W1_INTERVAL_MS, Workloads.W1_INTERVAL_MS));
        }
        return builder.build();
    }

    private EngineConfig config() {
        EngineConfig config = EngineConfig.defaults().withPartitions(partitions).withWaitStrategy(waitStrategy);
        if (mode == JoinMode.REGULAR) {
            // unbounded state: every impression key stays; size the key index for the keys each partition gets
            final long perPartition = (long) (impressions * 1.25 / partitions) + 4096;
            config = config.withState(config.state().withMaxKeys(Math.max(StateConfig.MAX_KEYS_DEFAULT, perPartition)));
        } else {
            // W1 keeps ~35 s of rows live (~42k keys): a key index sized for 4x that starts in milliseconds
            config = config.withState(config.state().withMaxKeys(Math.max(4096, (1L << 18) / partitions)));
        }
        return config;
    }

    private static String describe(final JoinSpec spec) {
        if (spec.kind() == JoinKind.INTERVAL) {
            return "interval left join on key, right.ts in [left.ts - 30000, left.ts + 30000]";
        }
        return "regular left join on key (changelog output, unbounded state)";
    }

    private void print(final Report r, final PrintWriter out) {
        out.printf(Locale.ROOT, "  events:      %,d (%,d impressions + %,d clicks)%n", r.events(), impressions, r.clicks());
        out.printf(Locale.ROOT, "  seconds:     %.3f (first publish to close(), end of input included)%n", r.seconds());
        out.printf(Locale.ROOT, "  events/s:    %,.0f%n", r.events() / r.seconds());
        out.printf(Locale.ROOT, "  output rows: %,d%n", r.outputRows());
        final Histogram h = r.latency();
        out.printf(Locale.ROOT, "  latency ingest-to-emit (us, %,d results): p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
            h.getTotalCount(), us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(90)),
            us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()));
        out.printf(Locale.ROOT, "               (at max rate, so this includes queueing in a full ring; for latency at a fixed%n" +
            "                offered rate next to a bare hand-off floor: junction loadgen --rate N)%n");
        out.printf(Locale.ROOT, "  live state at end: liveLeft %,d  liveRight %,d  stateBytes %,d  (peak sampled: %,d rows, %,d bytes)%n",
            r.liveLeft(), r.liveRight(), r.stateBytes(), r.peakLiveRows(), r.peakStateBytes());
        final String net = mode == JoinMode.REGULAR ? "net " : "";
        out.printf(Locale.ROOT, "  every impression exactly once: %smatched %,d + %spadded %,d = %,d (%s)%n",
            net, r.matched(), net, r.padded(), r.matched() + r.padded(),
            r.countsOk() ? "OK" : "FAIL: expected " + String.format(Locale.ROOT, "%,d", r.expectedImpressions()) +
                " with matched = clicks = " + String.format(Locale.ROOT, "%,d", r.clicks()));
        if (r.errors() > 0) {
            out.printf(Locale.ROOT, "  ENGINE ERRORS: %,d, first: %s%n", r.errors(), r.firstError());
        }
        out.println("  sample results:");
        for (final String sample : r.samples()) {
            out.println("    " + sample);
        }
        out.flush();
    }

    private static double us(final long nanos) {
        return nanos / 1000.0;
    }

    /**
     * Counts one partition's results; keeps a few as JSON. Called by its partition thread only, read
     * after {@link JoinEngine#close()} returned (which waits for the thread).
     */
    private static final class Collector implements ResultHandler {
        private final Schema schema;
        private final List<String> matchedSamples = new ArrayList<>();
        private final List<String> paddedSamples = new ArrayList<>();
        private long rows;
        private long matched;
        private long padded;

        Collector(final Schema schema) {
            this.schema = schema;
        }

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step) {
            rows++;
            final int sign = kind.isAccumulate() ? 1 : -1;
            if (right == null) {
                padded += sign;
                if (paddedSamples.size() < SAMPLES_PER_KIND && sign > 0) {
                    paddedSamples.add(sample(kind, left, null, step));
                }
            } else {
                matched += sign;
                if (matchedSamples.size() < SAMPLES_PER_KIND && sign > 0) {
                    matchedSamples.add(sample(kind, left, right, step));
                }
            }
        }

        private String sample(final ChangeKind kind, final RowView left, final RowView right, final long step) {
            final StringBuilder sb = new StringBuilder(256);
            sb.append("{\"step\":").append(step).append(",\"op\":\"").append(kind.shortString()).append("\",\"left\":");
            if (left == null) {
                sb.append("null");
            } else {
                RowJson.appendJson(schema, left, sb);
            }
            sb.append(",\"right\":");
            if (right == null) {
                sb.append("null");
            } else {
                RowJson.appendJson(schema, right, sb);
            }
            return sb.append('}').toString();
        }
    }
}
