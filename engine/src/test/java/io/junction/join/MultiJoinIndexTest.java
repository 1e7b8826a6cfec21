package io.junction.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.Schema;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;
import io.junction.testing.Rows;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The multi-way join on the shared state parts (docs/SEMANTICS.md "Multi-way joins"), on both key
 * indexes: colliding key hashes give the output of distinct ones; a durable state (the partition state's
 * mapped arena and index files, as every kind's) persisted, closed and reopened continues exactly as a join
 * that was never interrupted; the hot-key report names the key with the most rows and reads its live rows
 * from its bucket.
 */
class MultiJoinIndexTest
{
    private static final Schema SCHEMA = Schema.of("id", "ref", "a", "b");

    private static StateConfig config(final IndexKind kind)
    {
        return StateConfig.defaults().withMaxKeys(1 << 10).withIndex(kind);
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void collidingKeyHashesGiveTheOutputOfDistinctOnes(final IndexKind kind)
    {
        // Fewer on Chronicle Map: each of its maps costs milliseconds to create.
        final int scenarios = kind == IndexKind.CHRONICLE ? 20 : 60;
        for (int seed = 0; seed < scenarios; seed++)
        {
            final Random random = new Random(0x23_1000L + seed);
            final int inputs = 2 + random.nextInt(3);
            final JoinSpec spec = JoinSpec.multi(MultiJoinStateTest.spec(random, inputs));
            final MultiJoinStateTest.Collector plain = new MultiJoinStateTest.Collector();
            final MultiJoinStateTest.Collector oneHash = new MultiJoinStateTest.Collector();
            try (MultiJoin a = new MultiJoin(spec, config(kind), plain, plain);
                 MultiJoin c = new MultiJoin(spec, config(kind), oneHash, oneHash, 0L))
            {
                assertEquals(kind.name(), a.state().index.kind().name());
                MultiJoinStateTest.feed(random, inputs, a, c);
                final String where = "seed " + seed + " " + spec.multi();
                assertEquals(plain.lines, oneHash.lines, where);
                assertEquals(a.keys(), c.keys(), where);
                for (int i = 0; i < inputs; i++)
                {
                    assertEquals(a.liveRows(i), c.liveRows(i), where);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void aDurableStateReopensAndContinuesAsIfUninterrupted(final IndexKind kind, @TempDir final Path dir) throws IOException
    {
        int reopenedWithRows = 0;
        for (int seed = 0; seed < 12; seed++)
        {
            final Random random = new Random(0x23_2000L + seed);
            final int inputs = 2 + random.nextInt(3);
            final JoinSpec spec = JoinSpec.multi(MultiJoinStateTest.spec(random, inputs));
            final long feeds = random.nextLong();
            final Path directory = dir.resolve("partition-" + seed);
            final StateConfig durable = config(kind).withStateDirectory(directory);
            final MultiJoinStateTest.Collector memoryOut = new MultiJoinStateTest.Collector();
            final MultiJoinStateTest.Collector durableOut = new MultiJoinStateTest.Collector();
            final String where = "seed " + seed + " " + spec.multi();
            try (MultiJoin memory = new MultiJoin(spec, config(kind), memoryOut, memoryOut))
            {
                try (MultiJoin first = new MultiJoin(spec, durable, durableOut, durableOut))
                {
                    assertTrue(first.durable());
                    MultiJoinStateTest.feed(new Random(feeds), inputs, memory, first);
                    first.persist();
                    // A persist is a checkpoint, not an end: the join goes on after it.
                    MultiJoinStateTest.feed(new Random(feeds + 1), inputs, memory, first);
                }
                assertTrue(Files.exists(directory.resolve(DurableState.ARENA)), where);
                assertTrue(Files.exists(directory.resolve(kind == IndexKind.CHRONICLE ? DurableState.CHRONICLE_INDEX : DurableState.INDEX)), where);
                assertFalse(Files.exists(directory.resolve("multi-join.state")), "no file of its own: " + where);
                try (MultiJoin reopened = new MultiJoin(spec, durable, durableOut, durableOut))
                {
                    assertEquals(kind.name(), reopened.state().index.kind().name());
                    long live = 0;
                    for (int i = 0; i < inputs; i++)
                    {
                        assertEquals(memory.liveRows(i), reopened.liveRows(i), where);
                        live += reopened.liveRows(i);
                    }
                    if (live > 0)
                    {
                        reopenedWithRows++;
                    }
                    assertEquals(memory.keys(), reopened.keys(), where);
                    final OperatorCounters m = memory.counters();
                    final OperatorCounters r = reopened.counters();
                    assertEquals(m.rowsIn(), r.rowsIn(), where);
                    assertEquals(m.rowsOut(), r.rowsOut(), where);
                    assertEquals(m.watermark(), r.watermark(), where);
                    assertEquals(m.pendingTimers(), r.pendingTimers(), where);
                    assertEquals(m.liveLeft(), r.liveLeft(), where);
                    assertEquals(m.liveRight(), r.liveRight(), where);
                    if (kind == IndexKind.HASH)
                    {
                        assertEquals(m.liveStateBytes(), r.liveStateBytes(), where);
                    }
                    MultiJoinStateTest.feed(new Random(feeds + 2), inputs, memory, reopened);
                }
            }
            // Uninterrupted: the same output and dead letters, in the same order, as the join that kept running.
            assertEquals(memoryOut.lines, durableOut.lines, where);
        }
        assertTrue(reopenedWithRows > 6, "scenarios reopened with rows in state: " + reopenedWithRows);
    }

    /**
     * Every write into the mapped state marks its chunk (docs/DURABILITY.md "What a checkpoint costs"): the test
     * JVM runs with {@code junction.state.checkDirtyChunks}, so each persist compares the chunks left unmarked
     * with their copy at the previous persist and fails naming the byte. A state of many chunks is changed all
     * over between two persists (counts, group arrays, TTL queue slots, new records), then reopened: it must
     * continue exactly as the same join kept in memory.
     */
    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void changesAllOverAManyChunkStateAreMarkedAndReopenExactly(final IndexKind kind, @TempDir final Path dir)
        throws IOException
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.INNER, "ref").stateTtl("i2", 1_000_000L).build());
        final StateConfig memoryConfig = StateConfig.defaults().withMaxKeys(1 << 14).withIndex(kind);
        final StateConfig durable = memoryConfig.withStateDirectory(dir);
        final MultiJoinStateTest.Collector memoryOut = new MultiJoinStateTest.Collector();
        final MultiJoinStateTest.Collector durableOut = new MultiJoinStateTest.Collector();
        final int keys = 12_000;
        try (MultiJoin memory = new MultiJoin(spec, memoryConfig, memoryOut, memoryOut))
        {
            try (MultiJoin first = new MultiJoin(spec, durable, durableOut, durableOut))
            {
                long step = 0;
                for (long k = 0; k < keys; k++)
                {
                    for (final MultiJoin join : new MultiJoin[] {memory, first})
                    {
                        join.onInputRow(0, ChangeKind.INSERT, Rows.row(SCHEMA, "id", k, "a", 0L), k, step + 1);
                        join.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", k, "a", 1L), k, step + 2);
                        join.onInputRow(2, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", k, "b", 2L), k, step + 3);
                    }
                    step += 3;
                }
                assertTrue(first.counters().usedStateBytes() > 2 << 20, "several chunks: " + first.counters().usedStateBytes());
                first.persist();
                // Every seventh of the first 700 keys (the rest of the rows' chunks are written only where the TTL
                // queue moves a record's slot): a second row of input 1 (its group becomes an array), a retraction
                // of input 2 (a TTL queue slot moves), a new row of input 2 (a new record, a queue slot).
                for (long k = 0; k < 700; k += 7)
                {
                    for (final MultiJoin join : new MultiJoin[] {memory, first})
                    {
                        join.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", k, "a", 9L), k, step + 1);
                        join.onInputRow(2, ChangeKind.DELETE, Rows.row(SCHEMA, "ref", k, "b", 2L), k, step + 2);
                        join.onInputRow(2, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", k, "b", 3L), k, step + 3);
                    }
                    step += 3;
                }
                first.persist();
            }
            try (MultiJoin reopened = new MultiJoin(spec, durable, durableOut, durableOut))
            {
                assertEquals(memory.keys(), reopened.keys());
                assertEquals(memory.counters().pendingTimers(), reopened.counters().pendingTimers());
                for (int i = 0; i < 3; i++)
                {
                    assertEquals(memory.liveRows(i), reopened.liveRows(i));
                }
                for (final MultiJoin join : new MultiJoin[] {memory, reopened})
                {
                    join.onWatermark(2_000_000L, 1_000_000);
                    for (long k = 3; k < keys; k += 11)
                    {
                        join.onInputRow(1, ChangeKind.DELETE, Rows.row(SCHEMA, "ref", k, "a", 1L), 3_000_000L, 1_000_001 + k);
                    }
                }
            }
        }
        assertEquals(memoryOut.lines, durableOut.lines);
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void aReopenMapsTheFilesAndReadsNoneOfTheRowsAndKeepsTheTtlQueue(final IndexKind kind, @TempDir final Path dir)
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.INNER, "ref").stateTtl("i2", 1_000_000L).build());
        final StateConfig durable = StateConfig.defaults().withMaxKeys(1 << 14).withIndex(kind).withStateDirectory(dir);
        final MultiJoinStateTest.Collector out = new MultiJoinStateTest.Collector();
        final int keys = 8_000;
        final long used;
        try (MultiJoin first = new MultiJoin(spec, durable, out, out))
        {
            long step = 0;
            for (long k = 0; k < keys; k++)
            {
                first.onInputRow(0, ChangeKind.INSERT, Rows.row(SCHEMA, "id", k, "a", 0L), 0, ++step);
                first.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", k, "a", 1L), 0, ++step);
                first.onInputRow(2, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", k, "b", 2L), 0, ++step);
            }
            used = first.counters().usedStateBytes();
        }
        assertTrue(used > 1 << 20, "used " + used);
        out.lines.clear();
        try (MultiJoin reopened = new MultiJoin(spec, durable, out, out))
        {
            assertTrue(reopened.state().bytesReadToOpen() < 1 << 20,
                "reopen read " + reopened.state().bytesReadToOpen() + " bytes of " + used + " bytes of state");
            assertEquals(keys, reopened.keys());
            // The TTL queue (16 bytes a row, beyond the heap image's fixed 64 KiB) came back whole.
            assertEquals(keys, reopened.counters().pendingTimers());
            assertEquals(3L * keys, reopened.counters().liveLeft() + reopened.counters().liveRight());
            // The reopened rows join: a retraction of input 1 turns each combination of its key into a padded one.
            reopened.onInputRow(1, ChangeKind.DELETE, Rows.row(SCHEMA, "ref", 77L, "a", 1L), 0, 1);
            assertEquals(List.of(
                "1 -D ts=0 " + Rows.format(SCHEMA, Rows.row(SCHEMA, "id", 77L, "a", 0L)) + " " +
                    Rows.format(SCHEMA, Rows.row(SCHEMA, "ref", 77L, "a", 1L)) + " " + Rows.format(SCHEMA, Rows.row(SCHEMA, "ref", 77L, "b", 2L)),
                "1 +I ts=0 " + Rows.format(SCHEMA, Rows.row(SCHEMA, "id", 77L, "a", 0L)) + " null " +
                    Rows.format(SCHEMA, Rows.row(SCHEMA, "ref", 77L, "b", 2L))), out.lines);
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void hotKeysNameTheKeyWithTheMostRowsAndReadItsLiveRows(final IndexKind kind)
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA).input("i0", "id")
            .input("i1", JoinType.LEFT, "ref").input("i2", JoinType.LEFT, "ref").build());
        final MultiJoinStateTest.Collector out = new MultiJoinStateTest.Collector();
        try (MultiJoin join = new MultiJoin(spec, config(kind).withHotKeys(4), out, out))
        {
            long step = 0;
            join.onInputRow(0, ChangeKind.INSERT, Rows.row(SCHEMA, "id", 7L, "a", 0L), 0, ++step);
            for (int i = 0; i < 30; i++)
            {
                join.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", 7L, "a", (long)i), 0, ++step);
                join.onInputRow(2, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", 7L, "b", (long)i), 0, ++step);
                join.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", 100L + i, "a", 0L), 0, ++step);
            }
            final List<HotKey> hot = join.hotKeys();
            assertFalse(hot.isEmpty());
            final HotKey top = hot.get(0);
            assertEquals(61, top.liveRows, "input 0's row and 30 of each later input: " + hot);
            assertTrue(top.storedRows >= 61, hot.toString());
            assertTrue(top.visitedRows > 0, "a row's event visits the key's rows of the other inputs: " + hot);
            // Through the factory as the runtime builds it (JMX reads the same report).
            try (JoinOperator operator = JoinOperators.create(spec, config(kind).withHotKeys(4), out, out))
            {
                operator.onInputRow(1, ChangeKind.INSERT, Rows.row(SCHEMA, "ref", 9L, "a", 0L), 0, 1);
                assertEquals(1, operator.hotKeys().get(0).liveRows);
            }
            for (int i = 0; i < 30; i++)
            {
                join.onInputRow(1, ChangeKind.DELETE, Rows.row(SCHEMA, "ref", 7L, "a", (long)i), 0, ++step);
            }
            final HotKey after = join.hotKeys().stream().filter(k -> k.keyHash == top.keyHash).findFirst().orElseThrow();
            assertEquals(31, after.liveRows, join.hotKeys().toString());
        }
    }
}
