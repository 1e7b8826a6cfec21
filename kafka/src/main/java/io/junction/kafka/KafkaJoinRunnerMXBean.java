package io.junction.kafka;

/**
 * The JMX face of a running {@link KafkaJoinRunner}: its own counters, registered as
 * {@code io.junction:type=KafkaJoinRunner,name=<engine name>} ({@link KafkaJoinRunner#mbeanName()}) while
 * {@link KafkaJoinRunner#run()} runs, beside its engine's {@code JoinEngine} and {@code JoinPartition} beans
 * (docs/OPERATIONS.md). Each attribute reads the getter of the same name on the runner.
 *
 * <p>Thread safe: JMX calls the getters from its own threads.
 */
public interface KafkaJoinRunnerMXBean
{
    /** @return {@link KafkaJoinRunner#recordsConsumed()}. */
    long getRecordsConsumed();

    /** @return {@link KafkaJoinRunner#outputsProduced()}. */
    long getOutputsProduced();

    /** @return {@link KafkaJoinRunner#deadLetters()}. */
    long getDeadLetters();

    /** @return {@link KafkaJoinRunner#misrouted()}: of the dead letters, the records dead-lettered {@code MISROUTED}. */
    long getMisrouted();

    /** @return {@link KafkaJoinRunner#checkpoints()}. */
    long getCheckpoints();

    /** @return {@link KafkaJoinRunner#commits()}. */
    long getCommits();

    /** @return {@link KafkaJoinRunner#partitionsRestored()}. */
    long getPartitionsRestored();

    /** @return {@link KafkaJoinRunner#servedPartitions()}. */
    int getServedPartitions();

    /** @return {@link KafkaJoinRunner#partitions()}. */
    int getPartitions();
}
