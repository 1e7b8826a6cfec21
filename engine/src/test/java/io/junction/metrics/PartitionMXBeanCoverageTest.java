package io.junction.metrics;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every figure of a {@link PartitionSnapshot} is a {@link JoinPartitionMXBean} attribute and every attribute is a
 * figure (or one of the few the bean computes elsewhere), so that a new counter is not left out of JMX
 * (docs/OPERATIONS.md): the bean's getters are written out by hand, as a standard MXBean needs. A figure's
 * attribute is its name capitalized, {@code ...Nanos} read as {@code ...Micros}, except for the names below.
 */
class PartitionMXBeanCoverageTest
{
    /** Figures whose attribute is named otherwise. */
    private static final Map<String, String> RENAMED = Map.of(
        "expiredLeft", "ExpiredLeftRows", "expiredRight", "ExpiredRightRows",
        "liveLeft", "LiveLeftRows", "liveRight", "LiveRightRows");
    /** Figures the snapshot has and JMX does not show. */
    private static final Set<String> NOT_IN_JMX = Set.of("lastCheckpointBytesLinked", "lastCheckpointBytesStaged");
    /** Attributes that are not one snapshot field: the engine's name, the hot keys, dead letters and latency. */
    private static final Set<String> NOT_A_FIELD = Set.of("EngineName", "HotKeys", "DeadLetters", "DeadLettersByReason",
        "LatencyCount", "LatencyIntervalMillis", "LatencyP50Micros", "LatencyP90Micros", "LatencyP99Micros",
        "LatencyP999Micros", "LatencyMaxMicros");

    @Test
    void shouldShowEverySnapshotFigureAsAnAttributeAndNoOther()
    {
        final Set<String> fromFields = new TreeSet<>();
        for (final Field field : PartitionSnapshot.class.getFields())
        {
            if (Modifier.isStatic(field.getModifiers()) || NOT_IN_JMX.contains(field.getName()))
            {
                continue;
            }
            final String name = field.getName();
            final String attribute = RENAMED.containsKey(name) ? RENAMED.get(name) :
                Character.toUpperCase(name.charAt(0)) + name.substring(1);
            fromFields.add(attribute.endsWith("Nanos") ? attribute.substring(0, attribute.length() - 5) + "Micros" : attribute);
        }
        final Set<String> attributes = new TreeSet<>();
        for (final Method getter : JoinPartitionMXBean.class.getMethods())
        {
            final String name = getter.getName();
            final String attribute = name.startsWith("is") ? name.substring(2) : name.substring(3);
            if (!NOT_A_FIELD.contains(attribute))
            {
                attributes.add(attribute);
            }
        }
        assertEquals(fromFields, attributes, "PartitionSnapshot's figures against JoinPartitionMXBean's attributes: " +
            "a new figure needs its getter in JoinPartitionMXBean and EngineBeans.PartitionBean");
    }
}
