package io.junction.metrics;

/**
 * A running engine through JMX, registered as {@code io.junction:type=JoinEngine,name=<engine name>}
 * from start until close (the name is {@code JoinEngine.Builder.name(String)}, by default
 * {@code join-1}, {@code join-2}, ...). Counters are the sums over the engine's partitions (each as
 * of its last batch; see {@link JoinPartitionMXBean}); latency is every partition's latency in the
 * current interval, merged.
 */
public interface JoinEngineMXBean extends JoinMetricsMXBean
{
    /** A read rolls the latency interval once the current one is at least this old. */
    long LATENCY_INTERVAL_MILLIS = 1000;

    /** @return the engine's name, unique among the running engines of this JVM. */
    String getName();

    /** @return the join it runs, e.g. {@code interval left}. */
    String getOperator();

    /** @return partitions (threads) of the engine. */
    int getPartitions();

    /** @return partitions whose thread died (see {@code PartitionFailedException}); 0 in a healthy engine. */
    int getFailedPartitions();

    /** @return rows the publishers refused (too large for a slot, malformed); they reached no partition. */
    long getRefusedRows();

    /** @return input rows expanded before the join (docs/SEMANTICS.md 12) and routed; 0 for a join that expands none. */
    long getExpandedInputRows();

    /** @return the rows those input rows made. */
    long getExpandedRows();

    /** @return input rows refused because their expansion failed (dead letters with code {@code expansion_failed}). */
    long getFailedExpansions();

    /**
     * What the engine holds now of one join key (docs/SEMANTICS.md 14): {@code JoinEngine.inspection().inspect} as JSON, at most
     * 100 rows per side.
     *
     * @param side {@code left} or {@code right}: the side the key's field names are of.
     * @param key  a JSON object of that side's key fields and values, such as {@code {"log_id": "1"}}.
     * @return {@code {"left":[{"partition":..,"side":..,"ts":..,"matches":..,"due":..,"row":{..}}],"moreLeft":N,
     *         "right":[..],"moreRight":N}}, or {@code {"unsupported":"why"}} for a kind that cannot list its rows.
     * @throws IllegalArgumentException for another side, a key that is no such object, or a field the side lacks.
     */
    String inspect(String side, String key);

    /**
     * Why does this row (not) join (docs/SEMANTICS.md 14)? {@code JoinEngine.inspection().explain} as JSON.
     *
     * @param side {@code left} or {@code right}.
     * @param row  the row as a JSON object of scalars.
     * @param ts   its event time.
     * @return {@code {"pairs":[{"partition":..,"side":..,"ts":..,"code":..,"detail":..,"row":{..}}],"morePairs":N,
     *         "fate":"CODE","detail":"..."}}, or {@code {"unsupported":"why"}}.
     * @throws IllegalArgumentException for another side, a row that is no such object, or a field the side lacks.
     */
    String explain(String side, String row, long ts);
}
