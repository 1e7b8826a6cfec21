package io.junction.bench;

import io.junction.api.Expansion;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.internal.row.RowExpander;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Row expansion on its own (docs/SEMANTICS.md 12), the publisher's path before a join: one operation = one
 * input row (a show of {@code ads} ad ids, as WORKLOADS.md's W8) expanded into its made rows, each written
 * and handed to a sink that reads its length, as the router would before copying it into a ring slot; and
 * the same for a split of a string of {@code ads} pieces. No allocation per row: run with {@code -prof gc},
 * {@code gc.alloc.rate.norm} should be ~0 B/op once warm.
 * <p>
 * Not thread safe: one benchmark thread per state ({@link Scope#Thread}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class ExpansionBenchmark implements RowExpander.Sink
{
    /** Elements per input row. */
    @Param({"1", "4", "8"})
    public int ads;

    private final Schema schema = Schema.of("log_id", "ts", "show_params", "ad_ids", "csv", "ad_id", "pos");
    private RowExpander unnest;
    private RowExpander split;
    private final RowView input = new RowView();
    private final RowView splitInput = new RowView();
    private long bytes;

    @Setup
    public void setUp()
    {
        unnest = new RowExpander(Expansion.unnest("ad_ids", "ad_id").ordinality("pos").outer(true), schema, 1024, true, false);
        split = new RowExpander(Expansion.split("csv", ",", "ad_id"), schema, 1024, false, false);
        final List<Object> ids = new ArrayList<>();
        final StringBuilder csv = new StringBuilder();
        for (int i = 0; i < ads; i++)
        {
            ids.add("ad-" + (1000 + i));
            csv.append(i > 0 ? "," : "").append("ad-").append(1000 + i);
        }
        final RowCodec codec = new RowCodec(schema);
        final UnsafeBuffer a = new UnsafeBuffer(new byte[1024]);
        input.wrap(a, 0, codec.encode(Row.of("log_id", "1234567", "ts", 1_700_000_000_000L, "show_params", "p=1", "ad_ids", ids), a, 0, 1024));
        final UnsafeBuffer b = new UnsafeBuffer(new byte[1024]);
        splitInput.wrap(b, 0, codec.encode(Row.of("log_id", "1234567", "ts", 1_700_000_000_000L, "csv", csv.toString()), b, 0, 1024));
    }

    @Override
    public boolean onRow(final RowView row, final int ordinal)
    {
        bytes += row.length();
        return true;
    }

    @Benchmark
    public long unnestScalars()
    {
        unnest.expand(input, this);
        return bytes;
    }

    @Benchmark
    public long splitString()
    {
        split.expand(splitInput, this);
        return bytes;
    }
}
