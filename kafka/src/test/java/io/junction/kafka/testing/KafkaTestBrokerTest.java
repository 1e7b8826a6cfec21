package io.junction.kafka.testing;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KafkaTestBrokerTest
{
    private static KafkaTestBroker broker;

    @BeforeAll
    static void startBroker()
    {
        broker = KafkaTestBroker.start();
    }

    @AfterAll
    static void stopBroker()
    {
        if (broker != null)
        {
            broker.close();
        }
    }

    @Test
    void shouldDeliverAProducedRecordToAConsumer() throws Exception
    {
        broker.createTopic("greetings", 2);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer()))
        {
            producer.send(new ProducerRecord<>("greetings", 1, 42L, "k", "hello")).get(30, TimeUnit.SECONDS);
        }
        final List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer()))
        {
            final TopicPartition partition = new TopicPartition("greetings", 1);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (received.isEmpty() && System.nanoTime() < deadline)
            {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
            }
        }
        assertEquals(1, received.size());
        assertEquals("k", received.get(0).key());
        assertEquals("hello", received.get(0).value());
        assertEquals(42L, received.get(0).timestamp());
    }

    @Test
    void shouldLeaveNoLiveChildProcessWhenClosed()
    {
        final KafkaTestBroker second = KafkaTestBroker.start();
        final ProcessHandle child = second.process();
        assertTrue(child.isAlive());
        assertTrue(ProcessHandle.current().children().anyMatch(h -> h.pid() == child.pid()));
        second.close();
        assertFalse(child.isAlive());
        assertEquals(0, second.exitValue(), "the broker halts when its standard input closes, before any signal");
        assertFalse(ProcessHandle.current().children().anyMatch(h -> h.pid() == child.pid()));
    }
}
