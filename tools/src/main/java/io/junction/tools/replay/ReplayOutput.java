package io.junction.tools.replay;

import io.junction.api.JoinSpec;
import io.junction.api.Schema;
import io.junction.metrics.HotKey;
import io.junction.runtime.JoinEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A replay's output: the per-partition collectors (in memory, or spooled under a durable replay's
 * {@code output/}), and the result merged by step, stably, after the engine has closed. The collectors are
 * written on their partition threads; the merge runs on the replay's (caller's) thread.
 */
final class ReplayOutput
{
    private ReplayOutput()
    {
    }

    /**
     * @param output a durable replay's output directory, or null to keep the output in memory
     * @param spools receives the spools the collectors write, to be closed by the caller
     * @return one collector per partition
     */
    static PartitionCollector[] collectors(final JoinSpec spec, final Schema schema, final Path output,
        final int partitions, final List<Spool> spools)
    {
        final PartitionCollector[] collectors = new PartitionCollector[partitions];
        for (int p = 0; p < partitions; p++)
        {
            if (output == null)
            {
                collectors[p] = new PartitionCollector(schema, spec.coGroupSchema());
            }
            else
            {
                final Spool results = new Spool(output.resolve("p" + p + ".results.jsonl"));
                final Spool deadLetters = new Spool(output.resolve("p" + p + ".dead.jsonl"));
                spools.add(results);
                spools.add(deadLetters);
                collectors[p] = new PartitionCollector(schema, spec.coGroupSchema(), results, deadLetters);
            }
            collectors[p].multiInputs(spec.multi());
        }
        for (final PartitionCollector collector : collectors)
        {
            collector.output(spec); // SEMANTICS 4.5-4.7: upsert lines
        }
        return collectors;
    }

    /** Merges the spooled and the collected lines by step (stably) into the run's result. */
    static ReplayResult result(final long step, final Path output, final int partitions,
        final PartitionCollector[] collectors, final List<StepLine> refused, final AtomicLong errorCount,
        final List<String> errors, final JoinEngine engine) throws IOException
    {
        final List<StepLine> results = new ArrayList<>();
        final List<StepLine> deadLetters = new ArrayList<>(refused);
        if (output != null)
        {
            deadLetters.clear();
            deadLetters.addAll(Spool.read(output.resolve("input.dead.jsonl")));
            for (int p = 0; p < partitions; p++)
            {
                results.addAll(Spool.read(output.resolve("p" + p + ".results.jsonl")));
                deadLetters.addAll(Spool.read(output.resolve("p" + p + ".dead.jsonl")));
            }
        }
        for (final PartitionCollector collector : collectors)
        {
            results.addAll(collector.results());
            deadLetters.addAll(collector.deadLetters());
        }
        // List.sort is stable: lines of one step keep partition order, and each partition's own order
        results.sort(Comparator.comparingLong(StepLine::step));
        deadLetters.sort(Comparator.comparingLong(StepLine::step));
        final List<String> keptErrors;
        synchronized (errors)
        {
            keptErrors = new ArrayList<>(errors);
        }
        final List<List<HotKey>> hotKeys = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++)
        {
            hotKeys.add(engine.hotKeys(p));
        }
        final List<StepLine> expired = new ArrayList<>();
        for (final PartitionCollector collector : collectors)
        {
            expired.addAll(collector.expired());
        }
        expired.sort(Comparator.comparingLong(StepLine::step));
        return new ReplayResult(step, results, deadLetters, errorCount.get(), keptErrors, engine.metrics(), hotKeys)
            .withExpired(expired);
    }
}
