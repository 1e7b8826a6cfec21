package io.junction.tools.perf;

import io.junction.api.AsofSpec;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.RegularJoinCounts;
import io.junction.tools.workload.W6;
import io.junction.tools.workload.W8;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;


/**
 * The join each benchmark workload runs (WORKLOADS.md): W1 and W1-big are interval joins on
 * {@code key} with {@code right.ts ∈ [left.ts - x, left.ts + x]}, W2, W3 and W4 regular joins on
 * {@code key} (W8 and W8-flat: {@link W8}'s own rows), over rows of the workload schema ({@code key, ts, f1, f2, f3}: {@link io.junction.tools.workload.EncodedRows}).
 */
public final class WorkloadJoin
{
    /** Field order of every workload row. */
    public static final Schema SCHEMA = Schema.of("key", "ts", "f1", "f2", "f3");

    private WorkloadJoin()
    {
    }

    /** @return the join spec of a workload for a join type, without unique keys. */
    public static JoinSpec spec(final Workload workload, final JoinType type)
    {
        return spec(workload, type, false);
    }

    /**
     * @param workload  the workload
     * @param type      the join type
     * @param uniqueKey declare {@code f1} ({@link Workloads#W4_UNIQUE_KEY_FIELD}, unique per live row of a side in
     *                  every regular-join workload) as both sides' unique key; regular joins only
     * @return the join spec of a workload for a join type
     * @throws IllegalArgumentException for a unique key on an interval join (W1, W1-big)
     */
    public static JoinSpec spec(final Workload workload, final JoinType type, final boolean uniqueKey)
    {
        if (workload == Workload.W8 || workload == Workload.W8_FLAT)
        {
            if (uniqueKey)
            {
                throw new IllegalArgumentException("unique keys are for regular joins; " + workload.displayName() + " is an interval join");
            }
            return workload == Workload.W8 ? W8.spec(type) : W8.flatSpec(type);
        }
        if (workload == Workload.W6)
        {
            if (uniqueKey)
            {
                throw new IllegalArgumentException("unique keys are for regular joins; W6 is an ASOF join");
            }
            return w6Spec(type, AsofSpec.Emit.FINAL);
        }
        if (workload == Workload.W5)
        {
            if (uniqueKey)
            {
                throw new IllegalArgumentException("unique keys are for regular joins; W5 is a temporal join");
            }
            // The rate table's primary key is the currency, the join key (WORKLOADS.md "W5").
            return JoinSpec.builder(JoinKind.TEMPORAL, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key").build();
        }
        if (!isRegular(workload))
        {
            if (uniqueKey)
            {
                throw new IllegalArgumentException("unique keys are for regular joins; " + workload.displayName() + " is an interval join");
            }
            final long x = Workloads.w1IntervalMillis(workload);
            return JoinSpec.builder(JoinKind.INTERVAL, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key")
                .interval(IntervalBounds.inclusive(-x, x)).build();
        }
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key");
        if (uniqueKey)
        {
            b.leftUniqueKey(Workloads.W4_UNIQUE_KEY_FIELD).rightUniqueKey(Workloads.W4_UNIQUE_KEY_FIELD);
        }
        return b.build();
    }

    /**
     * @param type inner or left
     * @param emit the emission mode
     * @return W6's join (WORKLOADS.md "W6"): trades (left) ASOF quotes (right) on {@code key}, backward, within
     *         {@link W6#TOLERANCE_MS}
     */
    public static JoinSpec w6Spec(final JoinType type, final AsofSpec.Emit emit)
    {
        return JoinSpec.builder(JoinKind.ASOF, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key")
            .asof(AsofSpec.of(AsofSpec.Direction.BACKWARD).withTolerance(W6.TOLERANCE_MS).withEmit(emit)).build();
    }

    /**
     * @param type inner or left (else -1)
     * @param emit the emission mode
     * @param tape W6's events (or a prefix)
     * @return the output rows W6's counting model ({@link W6.Counts}) gives for the join, -1 for other types
     */
    public static long w6ExpectedOutputRows(final JoinType type, final AsofSpec.Emit emit, final EventTape tape)
    {
        if (type != JoinType.INNER && type != JoinType.LEFT)
        {
            return -1;
        }
        final W6.Counts counts = new W6.Counts();
        tape.replay(counts);
        if (emit == AsofSpec.Emit.EAGER)
        {
            return type == JoinType.INNER ? counts.eagerInner() : counts.eagerLeft();
        }
        return type == JoinType.INNER ? counts.matched() : counts.trades();
    }

    /** @return whether the workload is a regular join (W2, W3, W4), not an interval join (W1, W1-big) or a temporal join (W5). */
    public static boolean isRegular(final Workload workload)
    {
        return workload != Workload.W1 && workload != Workload.W1_BIG && workload != Workload.W5 && workload != Workload.W6
            && workload != Workload.W8 && workload != Workload.W8_FLAT;
    }

    /**
     * The output rows a run of a tape must produce, where WORKLOADS.md's construction or counting model gives
     * them: W1 and W1-big (inner: one row per click; left: one per impression, any prefix of the sequence as
     * well, since a click never precedes its impression), W2, W3 and W4 (inner, and left outer as a changelog,
     * counted from the tape by {@link RegularJoinCounts}).
     *
     * @param workload the workload the tape holds (or a prefix of it)
     * @param type     the join type
     * @param tape     the events
     * @return the expected output rows, or -1 when not known (other join types)
     */
    public static long expectedOutputRows(final Workload workload, final JoinType type, final EventTape tape)
    {
        if (type != JoinType.INNER && type != JoinType.LEFT)
        {
            return -1;
        }
        switch (workload)
        {
            case W1:
            case W1_BIG:
            case W8_FLAT:
                // W8-flat's left rows are W8's ads: each is W1's impression, one click at most
                long left = 0;
                long right = 0;
                for (int i = 0, n = tape.size(); i < n; i++)
                {
                    final byte t = tape.type(i);
                    if (t == EventTape.TYPE_LEFT)
                    {
                        left++;
                    }
                    else if (t == EventTape.TYPE_RIGHT)
                    {
                        right++;
                    }
                }
                return type == JoinType.INNER ? right : left;
            case W6:
                return w6ExpectedOutputRows(type, AsofSpec.Emit.FINAL, tape);
            case W8:
            {
                // W8's counting model: a click meets exactly its own ad; the left join emits each ad once
                final W8.Counts counts = new W8.Counts();
                tape.replay(counts);
                return type == JoinType.INNER ? counts.clicks() : counts.ads();
            }
            case W5:
                // every order joins the rate valid at its ts (each currency has one from ts 0): one row per order
                long orders = 0;
                for (int i = 0, n = tape.size(); i < n; i++)
                {
                    if (tape.type(i) == EventTape.TYPE_LEFT)
                    {
                        orders++;
                    }
                }
                return orders;
            default:
                final RegularJoinCounts counts = RegularJoinCounts.of(tape);
                return type == JoinType.INNER ? counts.inner() : counts.leftChangelog();
        }
    }
}
