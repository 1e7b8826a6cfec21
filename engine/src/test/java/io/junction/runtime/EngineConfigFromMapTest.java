package io.junction.runtime;

import io.junction.join.FullPolicy;
import io.junction.join.StateConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link EngineConfig#from(Map)}: the system properties' names from a map, strictly validated. */
class EngineConfigFromMapTest
{
    @Test
    void shouldReadEveryKindOfValueByTheSystemPropertiesNames()
    {
        final Map<String, String> map = new HashMap<>();
        map.put("junction.partitions", "3");
        map.put("junction.ring.size", "1024");
        map.put("junction.wait", "yielding");
        map.put("junction.multiProducer", "true");
        map.put("junction.idleTimeoutMillis", "250");
        map.put("junction.thread.namePrefix", "orders-");
        map.put("junction.thread.daemon", "true");
        map.put("junction.state.dir", "/tmp/junction-state");
        map.put("junction.state.maxKeys", "4096");
        map.put("junction.state.fullPolicy", "back-pressure");
        map.put("junction.state.hashSeed", "0x2a");
        map.put("server.port", "8080"); // another prefix: ignored
        final EngineConfig config = EngineConfig.from(map);
        assertEquals(3, config.partitions());
        assertEquals(1024, config.ringSize());
        assertEquals(WaitStrategyKind.YIELDING, config.waitStrategy());
        assertTrue(config.multiProducer());
        assertEquals(Duration.ofMillis(250), config.idleTimeout());
        assertEquals("orders-", config.threadNamePrefix());
        assertTrue(config.daemonThreads());
        assertEquals(Path.of("/tmp/junction-state"), config.stateRoot());
        final StateConfig state = config.state();
        assertEquals(4096, state.maxKeys());
        assertEquals(FullPolicy.BACK_PRESSURE, state.fullPolicy());
        assertEquals(42, state.hashSeed());
    }

    @Test
    void shouldUseTheDefaultsForAnEmptyMapWithNonDaemonThreads()
    {
        final EngineConfig config = EngineConfig.from(Map.of());
        assertEquals(EngineConfig.defaults().partitions(), config.partitions());
        assertEquals(EngineConfig.RING_SIZE_DEFAULT, config.ringSize());
        assertFalse(config.daemonThreads(), "partition threads keep the JVM alive until close() by default");
        assertEquals(StateConfig.MAX_KEYS_DEFAULT, config.state().maxKeys());
    }

    @Test
    void shouldRefuseAnUnknownJunctionNameAndBadValuesNamingTheProperty()
    {
        final IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
            () -> EngineConfig.from(Map.of("junction.partitons", "2")));
        assertTrue(typo.getMessage().contains("junction.partitons"), typo.getMessage());
        for (final Map.Entry<String, String> bad : Map.of("junction.partitions", "two", "junction.multiProducer", "yes",
            "junction.state.maxKeys", "1e6", "junction.wait", "lazy", "junction.state.index", "btree").entrySet())
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EngineConfig.from(Map.of(bad.getKey(), bad.getValue())), bad.toString());
            assertTrue(e.getMessage().contains(bad.getKey()), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.from(Map.of("junction.partitions", "0")),
            "validated as the wither validates it");
    }

    @Test
    void shouldReadAPropertiesFileTheSameWay()
    {
        final Properties file = new Properties();
        file.setProperty("junction.partitions", "2");
        file.setProperty("junction.state.maxLiveRows", "1000");
        final Map<String, String> map = new HashMap<>();
        file.stringPropertyNames().forEach(name -> map.put(name, file.getProperty(name)));
        final EngineConfig config = EngineConfig.from(map);
        assertEquals(2, config.partitions());
        assertEquals(1000, config.state().maxLiveRows());
    }
}
