package io.junction.kafka;

import io.junction.api.Expansion;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.MultiJoinSpec;
import io.junction.api.Side;
import io.junction.runtime.EngineConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a {@link KafkaJoinRunner} joins and how: the cluster and group, the two input topics and the output
 * topic, the join, the rows' serde, event-time settings and where state and checkpoints live. Immutable;
 * built with {@link #builder()}.
 * <p>
 * A multi-way join ({@code JoinKind.MULTI}, SEMANTICS 10) reads N co-partitioned topics instead of a left and a right
 * one: {@link Builder#inputs(List)} names them in the spec's input order (docs/KAFKA-MULTI.md).
 *
 * <pre>{@code
 * KafkaJoinConfig config = KafkaJoinConfig.builder()
 *     .bootstrapServers("broker:9092").groupId("clicks-join")
 *     .leftTopic("shows").rightTopic("clicks").outputTopic("shows-clicks")
 *     .spec(spec)
 *     .watermarkDelayMillis(2_000).idleTimeoutMillis(30_000)
 *     .checkpointInterval(Duration.ofSeconds(10))
 *     .stateDir(Path.of("/var/lib/junction/state"))              // scratch, this process only
 *     .checkpointDir(Path.of("/mnt/shared/junction/clicks-join"))  // shared by every member
 *     .build();
 * }</pre>
 */
public final class KafkaJoinConfig
{
    /** Default {@link Builder#checkpointInterval}: 10 s. */
    public static final Duration CHECKPOINT_INTERVAL_DEFAULT = Duration.ofSeconds(10);
    /** Default {@link Builder#startTimeout}: 30 s. */
    public static final Duration START_TIMEOUT_DEFAULT = Duration.ofSeconds(30);
    /** Default {@link Builder#metadataCheckInterval}: 5 s. */
    public static final Duration METADATA_CHECK_INTERVAL_DEFAULT = Duration.ofSeconds(5);

    /**
     * Client properties the runner sets itself, because its guarantees depend on them; passing one through
     * {@link Builder#clientProperty} is refused.
     */
    public static final Set<String> RUNNER_OWNED_PROPERTIES = Set.of(
        "bootstrap.servers", "group.id", "group.protocol", "partition.assignment.strategy", "enable.auto.commit",
        "key.deserializer", "value.deserializer", "key.serializer", "value.serializer", "acks", "enable.idempotence",
        "isolation.level", "transactional.id");

    private final String bootstrapServers;
    private final String groupId;
    private final String leftTopic;
    private final String rightTopic;
    private final List<String> inputs;
    private final List<RowDecoder> inputDecoders;
    private final String outputTopic;
    private final JoinSpec spec;
    private final RowDecoder leftDecoder;
    private final RowDecoder rightDecoder;
    private final ResultEncoder resultEncoder;
    private final KafkaDeadLetterHandler deadLetterHandler;
    private final long watermarkDelayMillis;
    private final long idleTimeoutMillis;
    private final Duration checkpointInterval;
    private final Duration startTimeout;
    private final Duration metadataCheckInterval;
    private final Path stateDir;
    private final Path checkpointDir;
    private final EngineConfig engineConfig;
    private final Map<String, Object> clientProperties;
    private final String engineName;
    private final boolean exactlyOnce;
    private final InputKeys inputKeys;

    /**
     * How the input records' keys encode their rows' join keys, which the runner checks on every record (a
     * record that fails is dead-lettered {@link io.junction.api.DeadLetterReason#MISROUTED}): the inputs are
     * co-partitioned by key, so a record keyed otherwise than its row may sit in a partition where its key's
     * rows are not, and would silently never join them.
     */
    public enum InputKeys
    {
        /**
         * Any non-null key: the producers key the records their own way (the same on every input); only a
         * null key, which Kafka's default partitioner spreads over the partitions, is misrouted.
         */
        ANY,
        /**
         * The key is a binary row ({@link io.junction.api.RowFormat}) of the row's join-key values, field
         * {@code i} the {@code i}-th key field, as {@code junction kafka produce} writes it and as
         * {@link ResultEncoder#binary} keys the output; any other key, and a null one, is misrouted.
         */
        BINARY_KEY_ROW
    }

    private KafkaJoinConfig(final Builder b)
    {
        bootstrapServers = b.bootstrapServers;
        groupId = b.groupId;
        leftTopic = b.leftTopic;
        rightTopic = b.rightTopic;
        inputs = b.inputs == null ? null : List.copyOf(b.inputs);
        if (b.inputs == null)
        {
            inputDecoders = null;
        }
        else if (b.inputDecoders == null)
        {
            inputDecoders = Collections.nCopies(b.inputs.size(), RowDecoder.binary());
        }
        else
        {
            inputDecoders = List.copyOf(b.inputDecoders);
        }
        outputTopic = b.outputTopic;
        spec = b.spec;
        leftDecoder = b.leftDecoder;
        rightDecoder = b.rightDecoder;
        resultEncoder = b.resultEncoder != null ? b.resultEncoder : ResultEncoder.binary(b.spec);
        deadLetterHandler = b.deadLetterHandler != null ? b.deadLetterHandler : KafkaDeadLetterHandler.logging();
        watermarkDelayMillis = b.watermarkDelayMillis;
        idleTimeoutMillis = b.idleTimeoutMillis;
        checkpointInterval = b.checkpointInterval;
        startTimeout = b.startTimeout;
        metadataCheckInterval = b.metadataCheckInterval;
        stateDir = b.stateDir;
        checkpointDir = b.checkpointDir;
        engineConfig = b.engineConfig != null ? b.engineConfig : EngineConfig.defaults();
        clientProperties = Collections.unmodifiableMap(new LinkedHashMap<>(b.clientProperties));
        engineName = b.engineName;
        exactlyOnce = b.exactlyOnce;
        inputKeys = b.inputKeys;
    }

    /** @return how the input records' keys encode their rows' join keys (see {@link Builder#inputKeys}). */
    public InputKeys inputKeys()
    {
        return inputKeys;
    }

    /**
     * @return whether the output is exactly-once: transactional, committed with the input offsets once per
     *         checkpoint interval (see {@link Builder#exactlyOnce(boolean)}); false (the default): at least once.
     */
    public boolean exactlyOnce()
    {
        return exactlyOnce;
    }

    /** @return a builder with the defaults. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return the Kafka cluster's bootstrap servers. */
    public String bootstrapServers()
    {
        return bootstrapServers;
    }

    /** @return the consumer group every member of this join shares. */
    public String groupId()
    {
        return groupId;
    }

    /**
     * @return the input topics in the order the engine numbers its inputs: those of {@link Builder#inputs(List)}
     *         (a multi-way join, the spec's input order), else the left and the right topic.
     */
    public List<String> inputTopics()
    {
        return inputs != null ? inputs : List.of(leftTopic, rightTopic);
    }

    /**
     * @param input the input's index in {@link #inputTopics()}.
     * @return that input's value decoder.
     */
    public RowDecoder inputDecoder(final int input)
    {
        if (inputs != null)
        {
            return inputDecoders.get(input);
        }
        return input == 0 ? leftDecoder : rightDecoder;
    }

    /**
     * @return whether the inputs were given as a list ({@link Builder#inputs(List)}, a multi-way join) rather
     *         than as a left and a right topic.
     */
    public boolean hasInputList()
    {
        return inputs != null;
    }

    /** @return the left input topic, or null when the inputs are given as a list ({@link #inputTopics()}). */
    public String leftTopic()
    {
        return leftTopic;
    }

    /** @return the right input topic, or null when the inputs are given as a list ({@link #inputTopics()}). */
    public String rightTopic()
    {
        return rightTopic;
    }

    /** @return the output topic. */
    public String outputTopic()
    {
        return outputTopic;
    }

    /** @return the join. */
    public JoinSpec spec()
    {
        return spec;
    }

    /** @return the left input's value decoder. */
    public RowDecoder leftDecoder()
    {
        return leftDecoder;
    }

    /** @return the right input's value decoder. */
    public RowDecoder rightDecoder()
    {
        return rightDecoder;
    }

    /** @return the output records' encoder. */
    public ResultEncoder resultEncoder()
    {
        return resultEncoder;
    }

    /** @return the dead-letter hook. */
    public KafkaDeadLetterHandler deadLetterHandler()
    {
        return deadLetterHandler;
    }

    /** @return how far an input partition's watermark trails the highest record timestamp read from it, ms. */
    public long watermarkDelayMillis()
    {
        return watermarkDelayMillis;
    }

    /** @return after how long without a record an input partition is marked idle, ms; 0: never. */
    public long idleTimeoutMillis()
    {
        return idleTimeoutMillis;
    }

    /** @return how often each served partition is checkpointed and its offsets committed. */
    public Duration checkpointInterval()
    {
        return checkpointInterval;
    }

    /** @return how long the start waits for the cluster to describe the topics. */
    public Duration startTimeout()
    {
        return startTimeout;
    }

    /** @return how often the runner checks that its topics still exist. */
    public Duration metadataCheckInterval()
    {
        return metadataCheckInterval;
    }

    /** @return this process's scratch state directory. */
    public Path stateDir()
    {
        return stateDir;
    }

    /** @return the checkpoint directory every member of the group shares. */
    public Path checkpointDir()
    {
        return checkpointDir;
    }

    /**
     * @return the engine's configuration; the runner sets its partitions (the topics' partition count), state
     *         root ({@link #stateDir()}) and checkpoint root ({@link #checkpointDir()}).
     */
    public EngineConfig engineConfig()
    {
        return engineConfig;
    }

    /**
     * @return the engine's name (its JMX bean's), or null for the default {@code kafka-<groupId>-<n>}, {@code n}
     *         numbering this JVM's runners.
     */
    public String engineName()
    {
        return engineName;
    }

    /** @return the extra client properties given to the consumer, the producer and the admin client. */
    public Map<String, Object> clientProperties()
    {
        return clientProperties;
    }

    @Override
    public String toString()
    {
        return "KafkaJoinConfig[" + bootstrapServers + ", group " + groupId + ", " + String.join(" x ", inputTopics()) + " -> " +
            outputTopic + ", " + spec + ", watermark delay " + watermarkDelayMillis + " ms, idle timeout " + idleTimeoutMillis +
            " ms, checkpoints every " + checkpointInterval.toMillis() + " ms into " + checkpointDir + ", state " + stateDir + "]";
    }

    /** Builds a {@link KafkaJoinConfig}; {@link #build()} checks it. Not thread safe. */
    public static final class Builder
    {
        private String bootstrapServers;
        private String groupId;
        private String leftTopic;
        private String rightTopic;
        private List<String> inputs;
        private List<RowDecoder> inputDecoders;
        private String outputTopic;
        private JoinSpec spec;
        private RowDecoder leftDecoder = RowDecoder.binary();
        private RowDecoder rightDecoder = RowDecoder.binary();
        private ResultEncoder resultEncoder;
        private KafkaDeadLetterHandler deadLetterHandler;
        private long watermarkDelayMillis;
        private long idleTimeoutMillis;
        private Duration checkpointInterval = CHECKPOINT_INTERVAL_DEFAULT;
        private Duration startTimeout = START_TIMEOUT_DEFAULT;
        private Duration metadataCheckInterval = METADATA_CHECK_INTERVAL_DEFAULT;
        private Path stateDir;
        private Path checkpointDir;
        private EngineConfig engineConfig;
        private final Map<String, Object> clientProperties = new LinkedHashMap<>();
        private String engineName;
        private boolean exactlyOnce;
        private InputKeys inputKeys = InputKeys.ANY;

        private Builder()
        {
        }

        /**
         * @param keys how the input records' keys encode their rows' join keys: {@link InputKeys#ANY} (the
         *             default) refuses null keys only, {@link InputKeys#BINARY_KEY_ROW} also checks each key
         *             against its row's join key; a record that fails is a {@code MISROUTED} dead letter.
         * @return this builder.
         */
        public Builder inputKeys(final InputKeys keys)
        {
            if (keys == null)
            {
                throw new IllegalArgumentException("inputKeys must not be null");
            }
            this.inputKeys = keys;
            return this;
        }

        /**
         * @param servers the cluster's bootstrap servers, {@code host:port,...} (required).
         * @return this builder.
         */
        public Builder bootstrapServers(final String servers)
        {
            this.bootstrapServers = servers;
            return this;
        }

        /**
         * @param groupId the consumer group every member of this join shares (required).
         * @return this builder.
         */
        public Builder groupId(final String groupId)
        {
            this.groupId = groupId;
            return this;
        }

        /**
         * @param topic the left input topic (required), keyed by the left join key.
         * @return this builder.
         */
        public Builder leftTopic(final String topic)
        {
            this.leftTopic = topic;
            return this;
        }

        /**
         * @param topic the right input topic (required), keyed by the right join key, with as many partitions
         *              as the left one.
         * @return this builder.
         */
        public Builder rightTopic(final String topic)
        {
            this.rightTopic = topic;
            return this;
        }

        /**
         * The input topics of a multi-way join ({@code JoinKind.MULTI}, SEMANTICS 10), instead of
         * {@link #leftTopic}/{@link #rightTopic}: topic {@code i} holds the rows of the spec's input {@code i}, keyed
         * by the common key with the same partitioner (Kafka's default), every topic with the same partition
         * count. The runner refuses at start, with a {@link KafkaJoinException}, a list whose size is not the
         * spec's input count, a spec that is not a multi-way join, and topics whose partition counts differ.
         *
         * @param topics the input topics, in the spec's input order (at least two, distinct).
         * @return this builder.
         */
        public Builder inputs(final List<String> topics)
        {
            this.inputs = topics == null ? null : new ArrayList<>(topics);
            return this;
        }

        /**
         * @param topics the input topics, in the spec's input order; see {@link #inputs(List)}.
         * @return this builder.
         */
        public Builder inputs(final String... topics)
        {
            return inputs(topics == null ? null : List.of(topics));
        }

        /**
         * @param decoders how each input's values become rows, one per {@link #inputs(List) input} in its order;
         *                 default {@link RowDecoder#binary()} for every input.
         * @return this builder.
         */
        public Builder inputDecoders(final List<RowDecoder> decoders)
        {
            this.inputDecoders = decoders == null ? null : new ArrayList<>(decoders);
            return this;
        }

        /**
         * @param topic the output topic (required); with as many partitions as the inputs, the results of
         *              input partition {@code p} go to its partition {@code p}, else the producer partitions
         *              them by key.
         * @return this builder.
         */
        public Builder outputTopic(final String topic)
        {
            this.outputTopic = topic;
            return this;
        }

        /**
         * @param spec the join (required).
         * @return this builder.
         */
        public Builder spec(final JoinSpec spec)
        {
            this.spec = spec;
            return this;
        }

        /**
         * @param decoder how left values become rows; default {@link RowDecoder#binary()}.
         * @return this builder.
         */
        public Builder leftDecoder(final RowDecoder decoder)
        {
            this.leftDecoder = decoder;
            return this;
        }

        /**
         * @param decoder how right values become rows; default {@link RowDecoder#binary()}.
         * @return this builder.
         */
        public Builder rightDecoder(final RowDecoder decoder)
        {
            this.rightDecoder = decoder;
            return this;
        }

        /**
         * @param encoder how results become output records; default {@link ResultEncoder#binary}.
         * @return this builder.
         */
        public Builder resultEncoder(final ResultEncoder encoder)
        {
            this.resultEncoder = encoder;
            return this;
        }

        /**
         * @param handler the dead-letter hook; default {@link KafkaDeadLetterHandler#logging()}.
         * @return this builder.
         */
        public Builder deadLetterHandler(final KafkaDeadLetterHandler handler)
        {
            this.deadLetterHandler = handler;
            return this;
        }

        /**
         * @param millis the bounded out-of-orderness of each input partition: its watermark trails the highest
         *               record timestamp read from it by this much, ms (default 0).
         * @return this builder.
         */
        public Builder watermarkDelayMillis(final long millis)
        {
            this.watermarkDelayMillis = millis;
            return this;
        }

        /**
         * @param millis after how long without a record an input partition is marked idle (it then stops
         *               holding back the partition's join watermark until its next record), ms; 0 (the
         *               default): never.
         * @return this builder.
         */
        public Builder idleTimeoutMillis(final long millis)
        {
            this.idleTimeoutMillis = millis;
            return this;
        }

        /**
         * @param interval how often each served partition is checkpointed and its offsets committed (default
         *                 10 s): the most input a failover replays.
         * @return this builder.
         */
        public Builder checkpointInterval(final Duration interval)
        {
            this.checkpointInterval = interval;
            return this;
        }

        /**
         * @param timeout how long the start waits for the cluster to describe the topics before it gives up
         *                (default 30 s).
         * @return this builder.
         */
        public Builder startTimeout(final Duration timeout)
        {
            this.startTimeout = timeout;
            return this;
        }

        /**
         * @param interval how often the runner checks that its topics still exist with the partitions it
         *                 started with (default 5 s).
         * @return this builder.
         */
        public Builder metadataCheckInterval(final Duration interval)
        {
            this.metadataCheckInterval = interval;
            return this;
        }

        /**
         * @param dir this process's state directory (required): scratch, emptied at start, never shared.
         * @return this builder.
         */
        public Builder stateDir(final Path dir)
        {
            this.stateDir = dir;
            return this;
        }

        /**
         * @param dir the checkpoint directory (required): one per join, shared by every member of the group
         *            (a network file system in production, as Flink's checkpoint directory).
         * @return this builder.
         */
        public Builder checkpointDir(final Path dir)
        {
            this.checkpointDir = dir;
            return this;
        }

        /**
         * @param config the engine's configuration (default {@link EngineConfig#defaults()}); its partitions,
         *               state root and checkpoint root are set by the runner. Its idle timeout and interval
         *               checkpoints must be off (the runner does both per partition).
         * @return this builder.
         */
        public Builder engineConfig(final EngineConfig config)
        {
            this.engineConfig = config;
            return this;
        }

        /**
         * Exactly-once output (default false: at least once, de-duplicated by provenance downstream). With it the
         * producer is transactional and, once per {@link #checkpointInterval}, on revocation and at close, the
         * runner checkpoints every partition it serves and commits the outputs since the last commit together
         * with the input offsets ({@code sendOffsetsToTransaction} with the consumer's group metadata); after a
         * failover a partition restarts from the checkpoint of its committed offsets, and outputs of events after
         * them were never committed. The output topic's committed content is then one run's changelog of the
         * join, each result once. Consumers of the output must read with {@code isolation.level=read_committed};
         * outputs become visible at each commit, so up to a checkpoint interval later (the latency cost). Needs
         * a cluster with transactions; keep {@code transaction.timeout.ms} above the checkpoint interval (a
         * killed member's open transaction holds back {@code read_committed} readers of the partitions it wrote
         * until that timeout aborts it).
         *
         * @param exactlyOnce whether the output is exactly-once.
         * @return this builder.
         */
        public Builder exactlyOnce(final boolean exactlyOnce)
        {
            this.exactlyOnce = exactlyOnce;
            return this;
        }

        /**
         * @param name the engine's name, which names its JMX bean and must be unique in the JVM; default
         *             {@code kafka-<groupId>-<n>}, {@code n} numbering this JVM's runners.
         * @return this builder.
         */
        public Builder engineName(final String name)
        {
            this.engineName = name;
            return this;
        }

        /**
         * Passes a property to the Kafka clients the runner creates (consumer, producer, admin client), e.g.
         * security settings, {@code session.timeout.ms}, {@code max.poll.records}, {@code linger.ms}. The ones
         * in {@link KafkaJoinConfig#RUNNER_OWNED_PROPERTIES} are refused.
         *
         * @param name  the property.
         * @param value its value.
         * @return this builder.
         * @throws IllegalArgumentException for a property the runner owns.
         */
        public Builder clientProperty(final String name, final Object value)
        {
            if (RUNNER_OWNED_PROPERTIES.contains(name))
            {
                throw new IllegalArgumentException(name + " is set by the runner (its guarantees depend on it); " +
                    "use the builder's own method where there is one");
            }
            clientProperties.put(name, value);
            return this;
        }

        /**
         * @return the configuration.
         * @throws IllegalArgumentException naming what is missing or out of range.
         */
        public KafkaJoinConfig build()
        {
            require(bootstrapServers, "bootstrapServers");
            require(groupId, "groupId");
            require(outputTopic, "outputTopic");
            require(spec, "spec");
            require(stateDir, "stateDir");
            require(checkpointDir, "checkpointDir");
            checkExpansionKeys(spec);
            if (inputs != null)
            {
                checkInputs();
            }
            else
            {
                require(leftTopic, "leftTopic");
                require(rightTopic, "rightTopic");
                require(leftDecoder, "leftDecoder");
                require(rightDecoder, "rightDecoder");
                if (inputDecoders != null)
                {
                    throw new IllegalArgumentException("inputDecoders: only with inputs (use leftDecoder and rightDecoder)");
                }
                if (leftTopic.equals(rightTopic))
                {
                    throw new IllegalArgumentException("leftTopic and rightTopic must differ: " + leftTopic);
                }
                if (outputTopic.equals(leftTopic) || outputTopic.equals(rightTopic))
                {
                    throw new IllegalArgumentException("outputTopic must not be an input topic: " + outputTopic);
                }
            }
            if (watermarkDelayMillis < 0)
            {
                throw new IllegalArgumentException("watermarkDelayMillis must be >= 0: " + watermarkDelayMillis);
            }
            if (idleTimeoutMillis < 0)
            {
                throw new IllegalArgumentException("idleTimeoutMillis must be >= 0 (0: never idle): " + idleTimeoutMillis);
            }
            positive(checkpointInterval, "checkpointInterval");
            positive(startTimeout, "startTimeout");
            positive(metadataCheckInterval, "metadataCheckInterval");
            if (stateDir.toAbsolutePath().normalize().equals(checkpointDir.toAbsolutePath().normalize()))
            {
                throw new IllegalArgumentException("stateDir and checkpointDir must differ: " + stateDir);
            }
            if (engineConfig != null)
            {
                if (!engineConfig.idleTimeout().isZero())
                {
                    throw new IllegalArgumentException("the engine's idle timeout must be off: the runner marks each input " +
                        "partition idle itself (idleTimeoutMillis)");
                }
                if (engineConfig.checkpointEveryEvents() > 0 || !engineConfig.checkpointInterval().isZero())
                {
                    throw new IllegalArgumentException("the engine's interval checkpoints must be off: the runner checkpoints " +
                        "each partition itself (checkpointInterval)");
                }
                if (engineConfig.multiProducer())
                {
                    throw new IllegalArgumentException("the engine must be single-producer: the runner's consumer thread publishes");
                }
            }
            return new KafkaJoinConfig(this);
        }

        private void checkInputs()
        {
            if (leftTopic != null || rightTopic != null)
            {
                throw new IllegalArgumentException("inputs: give either inputs or leftTopic and rightTopic, not both");
            }
            if (inputs.size() < 2)
            {
                throw new IllegalArgumentException("inputs: at least two topics, got " + inputs);
            }
            final HashSet<String> seen = new HashSet<>();
            for (int i = 0; i < inputs.size(); i++)
            {
                final String topic = inputs.get(i);
                if (topic == null || topic.isEmpty())
                {
                    throw new IllegalArgumentException("inputs[" + i + "]: a topic name is required");
                }
                if (!seen.add(topic))
                {
                    throw new IllegalArgumentException("inputs[" + i + "]: topic '" + topic + "' is given twice");
                }
                if (topic.equals(outputTopic))
                {
                    throw new IllegalArgumentException("outputTopic must not be an input topic: " + outputTopic);
                }
            }
            if (inputDecoders != null)
            {
                if (inputDecoders.size() != inputs.size())
                {
                    throw new IllegalArgumentException("inputDecoders: " + inputDecoders.size() + " decoders for " +
                        inputs.size() + " inputs");
                }
                for (int i = 0; i < inputDecoders.size(); i++)
                {
                    require(inputDecoders.get(i), "inputDecoders[" + i + "]");
                }
            }
        }

        /**
         * The runner takes each engine partition from one partition of every input topic, keyed by the join key
         * (docs/KAFKA.md): an expansion that makes a key field would route its rows away from their key's rows.
         * Expansions whose new fields are no key field run as they are (docs/SEMANTICS.md 12).
         */
        static void checkExpansionKeys(final JoinSpec spec)
        {
            final MultiJoinSpec multi = spec.multi();
            final int inputs = multi == null ? 2 : multi.inputs();
            for (int i = 0; i < inputs; i++)
            {
                final Expansion e = multi != null ? multi.expansion(i) : spec.kind() == JoinKind.EXPAND
                    ? (i == 0 ? spec.expand() : null) : spec.expansion(Side.of(i));
                final List<String> key = multi != null ? multi.key(i) : i == 0 ? spec.leftKey() : spec.rightKey();
                if (e == null)
                {
                    continue;
                }
                for (final String field : e.addedFields())
                {
                    if (key.contains(field))
                    {
                        throw new IllegalArgumentException("spec: the expansion of " + (multi != null ? "input '" +
                            multi.names().get(i) + "'" : Side.of(i).name().toLowerCase(Locale.ROOT) + " rows") +
                            " makes the key field '" + field + "', so its rows belong to other partitions than the " +
                            "record's; kafka join takes co-partitioned topics: expand before producing (or key the " +
                            "topic by a field the expansion keeps)");
                    }
                }
            }
        }

        private static void require(final Object value, final String name)
        {
            if (value == null)
            {
                throw new IllegalArgumentException(name + " is required");
            }
        }

        private static void positive(final Duration value, final String name)
        {
            if (value == null || value.isZero() || value.isNegative())
            {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
        }
    }
}
