package io.junction.kafka;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.kafka.JoinFixture.Event;
import io.junction.kafka.testing.KafkaTestBroker;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import io.junction.runtime.EngineConfig;

/**
 * Upsert output through the runner (docs/SEMANTICS.md 4.6): a regular left join of impressions
 * and their clicks, keyed by the left unique key (the right unique key is the join key), written with the
 * result key as the record key; the topic read back into a table keyed by record key (a tombstone
 * removes) equals the SQL left join. The bound is a hang guard, not a timing assert.
 */
class KafkaUpsertOutputTest
{
    private static final Duration HANG_GUARD = Duration.ofMinutes(3);

    @Test
    void aCompactedTopicOfUpsertsReadsBackAsTheSqlJoin() throws Exception
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(JoinFixture.LEFT, JoinFixture.RIGHT)
            .leftKey("k").rightKey("k").leftUniqueKey("f1").rightUniqueKey("k").output(OutputMode.UPSERT).build();
        final List<Event> events = new ArrayList<>();
        final Map<Long, String> expected = new TreeMap<>();
        for (long i = 0; i < 300; i++)
        {
            events.add(new Event(true, i, 1_000 + i, i));
            if (i % 3 == 0)
            {
                events.add(new Event(false, i, 1_000 + i + (i % 2 == 0 ? 5 : -5), i * 10));
            }
            expected.put(i, i + "|" + (i % 3 == 0 ? String.valueOf(i * 10) : "null"));
        }
        try (KafkaTestBroker broker = KafkaTestBroker.start())
        {
            broker.createTopic("upsert-left", 2);
            broker.createTopic("upsert-right", 2);
            broker.createTopic("upsert-out", 2);
            JoinFixture.produce(broker, "upsert-left", "upsert-right", events);
            final Path dir = JoinFixture.freshDir("upsert");
            // the left unique key lies outside the join key: its index is sized by the live-row limit
            final EngineConfig engine = JoinFixture.engineConfig();
            final KafkaJoinRunner runner = new KafkaJoinRunner(JoinFixture.config(broker, spec)
                .engineConfig(engine.withState(engine.state().withMaxLiveRows(1 << 14)))
                .groupId("upsert-group").leftTopic("upsert-left").rightTopic("upsert-right").outputTopic("upsert-out")
                .stateDir(dir.resolve("state")).checkpointDir(dir.resolve("checkpoints")).build());
            final Map<Long, String> table = new TreeMap<>();
            assertTimeoutPreemptively(HANG_GUARD, () ->
            {
                final CompletableFuture<Void> run = new CompletableFuture<>();
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        runner.run();
                        run.complete(null);
                    }
                    catch (final Throwable e)
                    {
                        run.completeExceptionally(e);
                    }
                }, "runner-upsert");
                thread.setDaemon(true);
                thread.start();
                JoinFixture.await(() -> runner.recordsConsumed() >= events.size() && read(broker, table).equals(expected) ||
                    run.isDone(), 120, () -> "the upsert table (" + table.size() + " of " + expected.size() + " keys)");
                runner.close();
                run.get();
            });
            assertEquals(expected, read(broker, table));
        }
    }

    /** Reads the topic into {@code table}: per record key (the left unique key f1) the last value, a tombstone removing it. */
    private static Map<Long, String> read(final KafkaTestBroker broker, final Map<Long, String> table)
    {
        table.clear();
        final Schema keySchema = Schema.of("f1");
        for (final ConsumerRecord<byte[], byte[]> record : JoinFixture.readAll(broker, "upsert-out"))
        {
            final Row key = RowCodec.decode(keySchema, new RowView().wrap(new UnsafeBuffer(record.key()), 0, record.key().length));
            if (record.value() == null)
            {
                table.remove(key.getLong("f1"));
            }
            else
            {
                final String described = JoinFixture.describe(BinaryResult.parse(record.value()));
                table.put(key.getLong("f1"), described.substring(0, described.lastIndexOf('|')));
            }
        }
        return table;
    }
}
