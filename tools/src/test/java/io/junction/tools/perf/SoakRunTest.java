package io.junction.tools.perf;

import io.junction.tools.cli.CliError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.internal.durable.DirectoryLock;

class SoakRunTest
{
    @Test
    void reportsEveryIntervalAndWritesCsvAndPlot(@TempDir final Path dir) throws Exception
    {
        final SoakRun.Options options = new SoakRun.Options();
        options.rate = 20_000;
        options.durationSeconds = 3;
        options.reportSeconds = 1;
        // a short lap so the run wraps into later laps within the test
        options.lapImpressions = 20_000;
        final ByteArrayOutputStream text = new ByteArrayOutputStream();
        options.out = new PrintStream(text, true, StandardCharsets.UTF_8);
        options.csv = dir.resolve("soak.csv");
        options.svg = dir.resolve("soak.svg");

        final List<SoakRun.Sample> samples = SoakRun.run(options);

        // one sample per whole interval before the end (one fewer if the host stalls across an interval's end)
        assertTrue(samples.size() == 2 || samples.size() == 1, "samples: " + samples.size());
        for (final SoakRun.Sample s : samples)
        {
            assertTrue(s.eventsPerSecond > 0, "events flowed");
            assertTrue(s.liveRows > 0, "W1 keeps rows inside the interval live");
            assertTrue(s.p999Nanos >= s.p50Nanos);
        }
        final List<String> csv = Files.readAllLines(options.csv);
        assertEquals(samples.size() + 1, csv.size());
        assertTrue(csv.get(0).startsWith("elapsed_s,events_per_s,"));
        assertTrue(Files.readString(options.svg).contains("<path d=\"M"));
        assertEquals(samples.size() + 1, text.toString(StandardCharsets.UTF_8).lines().count(), "a header and a line per interval");
    }

    @Test
    void liveRowsDoNotGrowAcrossLaps() throws Exception
    {
        final SoakRun.Options options = new SoakRun.Options();
        options.rate = 40_000;
        options.durationSeconds = 4;
        options.reportSeconds = 1;
        // a lap: 10,000 impressions and ~2,000 clicks over 10 s of event time, all live at its end
        options.lapImpressions = 10_000;
        options.out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

        final List<SoakRun.Sample> samples = SoakRun.run(options);

        // ~13 laps run; were a lap's rows never freed, the state would hold ~13 laps' rows (~160,000)
        long most = 0;
        for (final SoakRun.Sample s : samples)
        {
            most = Math.max(most, s.liveRows);
        }
        assertTrue(most < 2 * 12_000, "live rows stay within a lap or two: " + most);
    }

    @Test
    void durableSoakReportsItsCheckpointPauses(@TempDir final Path dir) throws Exception
    {
        final SoakRun.Options options = new SoakRun.Options();
        options.rate = 20_000;
        options.durationSeconds = 4;
        options.reportSeconds = 2;
        options.lapImpressions = 10_000;
        options.stateRoot = dir.resolve("state");
        options.checkpointSeconds = 1;
        options.out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

        final List<SoakRun.Sample> samples = SoakRun.run(options);

        final SoakRun.Sample last = samples.get(samples.size() - 1);
        assertTrue(last.checkpoints >= 1, "checkpoints: " + last.checkpoints);
        long pause = 0;
        for (final SoakRun.Sample s : samples)
        {
            pause = Math.max(pause, s.checkpointPauseNanos);
        }
        assertTrue(pause > 0, "a checkpoint pauses its partition thread for some time");
        assertTrue(Files.exists(options.stateRoot.resolve("partition-0").resolve("checkpoints")));
    }

    @Test
    void aDirectoryThatIsNoStateRootIsNeverEmptied(@TempDir final Path dir) throws Exception
    {
        final Path precious = dir.resolve("notes.txt");
        Files.writeString(precious, "keep me");
        assertEquals(4, assertThrows(CliError.class, () -> LoadRun.emptyDirectory(dir)).exitCode());
        assertTrue(Files.exists(precious));
        final Path root = dir.resolve("root");
        Files.createDirectories(root.resolve("partition-0"));
        Files.writeString(root.resolve("ENGINE"), "x");
        LoadRun.emptyDirectory(root);
        assertEquals(0, Files.list(root).count(), "a former state root is emptied");
    }

    @Test
    @SuppressWarnings("try") // a resource held for the duration of the block, not used in it
    void aStateRootThatIsLockedIsNeverEmptied(@TempDir final Path dir) throws Exception
    {
        final Path root = dir.resolve("root");
        Files.createDirectories(root.resolve("partition-0"));
        Files.writeString(root.resolve("ENGINE"), "x");
        try (DirectoryLock held = DirectoryLock.acquire(root, "the state root"))
        {
            final CliError e = assertThrows(CliError.class, () -> LoadRun.emptyDirectory(root));
            assertTrue(e.getMessage().contains("LOCK") && e.getMessage().contains("not emptied"), e.getMessage());
            assertTrue(Files.exists(root.resolve("ENGINE")) && Files.exists(root.resolve("partition-0")), "nothing was deleted");
        }
        LoadRun.emptyDirectory(root);
        assertEquals(0, Files.list(root).count(), "once released, it is emptied");
    }

    @Test
    void refusesAClosedLoopRate()
    {
        final SoakRun.Options options = new SoakRun.Options();
        options.rate = 0;
        assertThrows(IllegalArgumentException.class, () -> SoakRun.run(options));
    }

    @Test
    void axisCeilingsAreRound()
    {
        assertEquals(1, SoakPlot.niceCeiling(0));
        assertEquals(2, SoakPlot.niceCeiling(1.5));
        assertEquals(500, SoakPlot.niceCeiling(230));
        assertEquals(1000, SoakPlot.niceCeiling(501));
    }
}
