/**
 * Junction as a Kafka consumer group: {@link io.junction.kafka.KafkaJoinRunner} joins two co-partitioned
 * topics (equal partition counts, keyed by the join key with the same partitioner) and writes the results to
 * a topic, with their provenance in headers ({@link io.junction.kafka.Provenance}). Engine partition
 * {@code p} is topic partition {@code p} of both inputs; its state moves between the group's members with
 * per-partition checkpoints in a directory every member can read.
 */
package io.junction.kafka;
