package io.junction.internal.durable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The state root's small records (ENGINE, CHECKPOINT, SEED, CLOSED) are byte for byte what the engine wrote
 * before they had classes of their own: the expected bytes below were written by that code (JoinEngine's and
 * DurablePartition's writers at 79afe02), so a state root left by an older build reads back.
 */
class DurableRecordsTest
{
    private static final long FINGERPRINT = 0x0123456789abcdefL;
    static final String ENGINE_BYTES =
        "junction-engine 1\npartitions 2\nfingerprint 0123456789abcdef\nhashSeed fedcba9876543210\ncrc32c a5440a07\n";
    static final String CHECKPOINT_BYTES = "junction-checkpoint-confirmed 1\nid 7\npositions 2 42 -1\ncrc32c a74f1c32\n";
    static final String SEED_BYTES = "junction-seed 1\nhashSeed 00000000deadbeef\ncrc32c 87787e5e\n";
    static final String CLOSED_BYTES =
        "junction-closed 1\nfingerprint 0123456789abcdef\npositions 2 42 -1\ncrc32c dff2b79e\n";

    @TempDir
    Path temp;

    private static void assertBytes(final String expected, final Path file) throws IOException
    {
        assertEquals(expected, new String(Files.readAllBytes(file), StandardCharsets.US_ASCII), file.toString());
    }

    private Path put(final String name, final String bytes) throws IOException
    {
        final Path file = temp.resolve(name);
        Files.write(file, bytes.getBytes(StandardCharsets.US_ASCII));
        return file;
    }

    @Test
    void theWritersWriteTheOldBytes() throws IOException
    {
        EngineRecord.write(temp, 2, FINGERPRINT, 0xfedcba9876543210L);
        assertBytes(ENGINE_BYTES, temp.resolve("ENGINE"));
        ConfirmedRecord.write(temp, 7, new long[] {42, -1});
        assertBytes(CHECKPOINT_BYTES, temp.resolve("CHECKPOINT"));
        assertEquals(0xdeadbeefL, SeedRecord.readOrCreate(temp, () -> 0xdeadbeefL));
        assertBytes(SEED_BYTES, temp.resolve("SEED"));
        ClosedRecord.write(temp.resolve("partition-0"), FINGERPRINT, new long[] {42, -1});
        assertBytes(CLOSED_BYTES, temp.resolve("partition-0").resolve("CLOSED"));
    }

    @Test
    void theReadersReadTheOldBytes() throws IOException
    {
        put("ENGINE", ENGINE_BYTES);
        final List<String> engine = EngineRecord.read(temp);
        EngineRecord.check(temp, engine, 2, FINGERPRINT);
        assertTrue(EngineRecord.hasHashSeed(engine));
        assertEquals(0xfedcba9876543210L, EngineRecord.hashSeed(engine));
        final IOException other = assertThrows(IOException.class, () -> EngineRecord.check(temp, engine, 3, FINGERPRINT));
        assertTrue(other.getMessage().contains(temp.resolve("ENGINE") + " says this state root belongs to another engine"),
            other.getMessage());

        put("CHECKPOINT", CHECKPOINT_BYTES);
        assertEquals(7, ConfirmedRecord.readId(temp));

        put("SEED", SEED_BYTES);
        assertEquals(0xdeadbeefL, SeedRecord.readOrCreate(temp, () -> 1L), "an existing seed is kept");
        assertBytes(SEED_BYTES, temp.resolve("SEED"));

        Files.createDirectories(temp.resolve("partition-1"));
        put("partition-1/CLOSED", CLOSED_BYTES);
        assertTrue(ClosedRecord.exists(temp.resolve("partition-1")));
        assertArrayEquals(new long[] {42, -1}, ClosedRecord.read(temp.resolve("partition-1"), FINGERPRINT));
        final IOException otherJoin = assertThrows(IOException.class, () -> ClosedRecord.read(temp.resolve("partition-1"), 5));
        assertTrue(otherJoin.getMessage().contains("is of another join (fingerprint 0123456789abcdef, this join's " +
            "fingerprint 0000000000000005)"), otherJoin.getMessage());
        ClosedRecord.delete(temp.resolve("partition-1"));
        assertFalse(ClosedRecord.exists(temp.resolve("partition-1")));
    }

    @Test
    void absentRecordsReadAsNone() throws IOException
    {
        assertNull(EngineRecord.read(temp));
        assertFalse(EngineRecord.hasHashSeed(null));
        assertEquals(-1, ConfirmedRecord.readId(temp));
        assertNull(ClosedRecord.read(temp.resolve("partition-0"), FINGERPRINT));
    }

    @Test
    void aRecordOfAnotherKindIsRefusedNamingTheFile() throws IOException
    {
        // Each record's checksum is intact, its lines are another record's.
        put("CHECKPOINT", SEED_BYTES);
        final IOException confirmed = assertThrows(IOException.class, () -> ConfirmedRecord.readId(temp));
        assertEquals(temp.resolve("CHECKPOINT") + " is not a confirmed-checkpoint file", confirmed.getMessage());
        put("SEED", CHECKPOINT_BYTES);
        final IOException seed = assertThrows(IOException.class, () -> SeedRecord.readOrCreate(temp, () -> 1L));
        assertEquals(temp.resolve("SEED") + " is not a seed file", seed.getMessage());
        put("CLOSED", ENGINE_BYTES);
        final IOException closed = assertThrows(IOException.class, () -> ClosedRecord.read(temp, FINGERPRINT));
        assertEquals(temp.resolve("CLOSED") + " is not a clean-close file", closed.getMessage());
        // A torn record: SmallFiles' checksum names it.
        put("ENGINE", ENGINE_BYTES.substring(0, 20));
        final IOException torn = assertThrows(IOException.class, () -> EngineRecord.read(temp));
        assertTrue(torn.getMessage().contains("ENGINE is truncated"), torn.getMessage());
    }
}
