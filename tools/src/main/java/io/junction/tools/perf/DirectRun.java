package io.junction.tools.perf;

import io.junction.api.ChangeKind;
import io.junction.api.Expansion;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.row.RowExpander;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.metrics.HotKey;
import io.junction.runtime.EngineConfig;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A workload through one join operator on the calling thread, with no ring and no partition thread:
 * the per-core cost of the join itself, measured the way the peers profile drives Flink's operators
 * (rows encoded before the clock starts; one untimed pass first so that the JIT has compiled the
 * same paths). Max rate only; no latency.
 */
public final class DirectRun
{
    /** The largest row an expansion makes here: the runtime's default ring slot. */
    private static final int MADE_ROW_CAPACITY = EngineConfig.SLOT_CAPACITY_DEFAULT;

    private DirectRun()
    {
    }

    /** Runs the tape through a new operator once untimed and once timed; closes both. */
    public static LoadResult run(final EventTape tape, final LoadRun.Options options)
    {
        final EncodedRows rows = EncodedRows.encode(tape, options.workload);
        pass(tape, rows, options, null, new ArrayList<>(1));
        final long[] measured = new long[9];
        final List<List<HotKey>> hotKeys = new ArrayList<>(1);
        pass(tape, rows, options, measured, hotKeys);
        final Histogram none = new Histogram(3);
        final String label = options.label != null ? options.label
            : "junction " + options.workload.displayName() + " " + options.type.name().toLowerCase(Locale.ROOT) +
                (options.uniqueKey ? " uk" : "") + " direct";
        return new LoadResult(label, 0, tape.size(), tape.size(), measured[0] / 1e9, measured[1], measured[2],
            none, none, measured[3], measured[4], measured[5], measured[6], 0, 0, measured[7], measured[8], hotKeys);
    }

    /**
     * One pass; when {@code measured} is given, fills it with: nanos, outputs, padded, live rows and state
     * bytes at the end, late, bad, and the live rows and live state bytes just before the end of input.
     */
    private static void pass(
        final EventTape tape, final EncodedRows rows, final LoadRun.Options options, final long[] measured, final List<List<HotKey>> hotKeys)
    {
        final long[] counts = new long[2];
        final StateConfig config = StateConfig.fromSystemProperties()
            .withMaxKeys(options.maxKeysPerPartition > 0 ? options.maxKeysPerPartition : LoadRun.maxKeysPerPartition(options.workload, 1))
            .withPreallocate(options.preallocatePerPartition > 0 ? options.preallocatePerPartition
                : LoadRun.preallocatePerPartition(options.workload, 1, tape.rows()));
        final JoinSpec spec = options.spec != null ? options.spec : WorkloadJoin.spec(options.workload, options.type, options.uniqueKey);
        try (JoinOperator join = JoinOperators.create(spec,
            config,
            (kind, left, right, ts, step) ->
            {
                counts[0]++;
                if (left == null || right == null)
                {
                    counts[1]++;
                }
            },
            (side, kind, row, ts, step, reason) ->
            {
            }))
        {
            // -Djunction.watermarkSlice=N: the watermark's work in slices of N, one before each following event (the
            // runtime's regime when its ring is never empty), to compare slices' cost at max rate on one thread.
            final Integer slice = Integer.getInteger(EngineConfig.WATERMARK_SLICE_PROP_NAME);
            if (slice != null)
            {
                join.sliceWatermarkWork(slice);
            }
            final RowView row = new RowView();
            final int n = tape.size();
            // A side expanded before the join (W8) is expanded here, as the publisher does, each made row a row of it.
            final ExpandedRows[] expanded = {ExpandedRows.of(spec, Side.LEFT, join), ExpandedRows.of(spec, Side.RIGHT, join)};
            long peakLive = 0;
            long peakLiveBytes = 0;
            final long start = System.nanoTime();
            for (int i = 0; i < n; i++)
            {
                final byte type = tape.type(i);
                switch (type)
                {
                    case EventTape.TYPE_LEFT:
                    case EventTape.TYPE_RIGHT:
                    {
                        row.wrap(rows.buffer(i), rows.offset(i), rows.length(i));
                        // W4's -U/+U keep their kind; the tape's kinds are ChangeKind's ordinals.
                        final Side side = type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT;
                        final ExpandedRows expansion = expanded[side.ordinal()];
                        if (expansion != null)
                        {
                            expansion.feed(ChangeKind.fromOrdinal(tape.kind(i)), row, tape.ts(i), i);
                        }
                        else
                        {
                            join.onRow(side, ChangeKind.fromOrdinal(tape.kind(i)), row, tape.ts(i), i);
                        }
                        break;
                    }
                    case EventTape.TYPE_WATERMARK:
                        join.onWatermark(tape.ts(i), i);
                        break;
                    default:
                        if (measured != null)
                        {
                            // The footprint where the live rows stand just before the end of input closes them.
                            peakLive = join.counters().liveLeft() + join.counters().liveRight();
                            peakLiveBytes = join.counters().liveStateBytes();
                        }
                        join.onEndOfInput(i);
                }
            }
            final long nanos = System.nanoTime() - start;
            if (measured != null)
            {
                measured[0] = nanos;
                measured[1] = counts[0];
                measured[2] = counts[1];
                measured[3] = join.counters().liveLeft() + join.counters().liveRight();
                measured[4] = join.counters().stateBytes();
                measured[5] = join.counters().lateRows();
                measured[6] = join.counters().badInputs();
                measured[7] = peakLive;
                measured[8] = peakLiveBytes;
            }
            hotKeys.add(join.hotKeys());
        }
    }

    /**
     * One side's rows expanded before the operator, as the runtime's publisher expands them
     * (docs/SEMANTICS.md 12): each made row reaches the operator as a row of that side with the input
     * row's kind, time and step. Allocates nothing per row.
     */
    private static final class ExpandedRows implements RowExpander.Sink
    {
        private final RowExpander expander;
        private final JoinOperator join;
        private final Side side;
        private ChangeKind kind;
        private long ts;
        private long step;

        private ExpandedRows(final RowExpander expander, final JoinOperator join, final Side side)
        {
            this.expander = expander;
            this.join = join;
            this.side = side;
        }

        /** @return the side's expansion, or null when the spec does not expand it */
        static ExpandedRows of(final JoinSpec spec, final Side side, final JoinOperator join)
        {
            final Expansion expansion = spec.expansion(side);
            return expansion == null ? null
                : new ExpandedRows(new RowExpander(expansion, spec.schema(side), MADE_ROW_CAPACITY, expansion.outer(), false), join, side);
        }

        void feed(final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            this.kind = kind;
            this.ts = ts;
            this.step = step;
            if (expander.expand(row, this) < 0)
            {
                throw new IllegalStateException("a workload row did not expand: " + expander.failure());
            }
        }

        @Override
        public boolean onRow(final RowView row, final int ordinal)
        {
            join.onRow(side, kind, row, ts, step);
            return true;
        }
    }
}
