package io.junction.tools.perf;

import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;


/**
 * The join each benchmark workload runs (WORKLOADS.md): W1 and W1-big are interval joins on
 * {@code key} with {@code right.ts ∈ [left.ts - x, left.ts + x]}, W2 and W3 regular joins on
 * {@code key}, over rows of the workload schema ({@code key, ts, f1, f2, f3}: {@link io.junction.tools.workload.EncodedRows}).
 */
public final class WorkloadJoin
{
    /** Field order of every workload row. */
    public static final Schema SCHEMA = Schema.of("key", "ts", "f1", "f2", "f3");

    private WorkloadJoin()
    {
    }

    /** @return the join spec of a workload for a join type. */
    public static JoinSpec spec(final Workload workload, final JoinType type)
    {
        switch (workload)
        {
            case W1:
            case W1_BIG:
                final long x = Workloads.w1IntervalMillis(workload);
                return JoinSpec.builder(JoinKind.INTERVAL, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key")
                    .interval(IntervalBounds.inclusive(-x, x)).build();
            default:
                return JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key").build();
        }
    }
}
