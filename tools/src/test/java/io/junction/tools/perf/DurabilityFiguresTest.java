package io.junction.tools.perf;

import io.junction.api.JoinType;
import io.junction.tools.workload.Workload;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DurabilityFiguresTest
{
    @Test
    void reopensAndRestoresAtTheCheckpointedStep(@TempDir final Path dir) throws Exception
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DurabilityFigures.run(Workload.W1, JoinType.LEFT, 2, 50_000, dir.resolve("root"), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String out = bytes.toString(StandardCharsets.UTF_8);

        final Matcher reopen = Pattern.compile("reopen after the clean close: .* resumes after step \\[(\\d+)]").matcher(out);
        assertTrue(reopen.find(), out);
        final Matcher restore = Pattern.compile("restore without a clean close: .* resumes after step \\[(\\d+)] \\(expected \\[(\\d+)]\\)").matcher(out);
        assertTrue(restore.find(), out);
        assertEquals(restore.group(2), restore.group(1), out);
        assertEquals(restore.group(2), reopen.group(1), "the clean close was taken where the last checkpoint was");
        assertTrue(out.contains("first checkpoint (full copy)"), out);
        // the later checkpoints are cut by the partitions and written in the background
        assertTrue(Pattern.compile("second checkpoint after .* \\(1%\\): .* MiB staged").matcher(out).find(), out);
        assertTrue(Pattern.compile("third checkpoint after .* \\(10%\\): .* MiB staged").matcher(out).find(), out);
        // each timed checkpoint's pause in parts (docs/DURABILITY.md "The pause in parts")
        assertEquals(3, Pattern.compile("  pause parts of the longest: watermark work [0-9.]+, wait [0-9.]+, install [0-9.]+, " +
            "flush [0-9.]+, collect [0-9.]+, freeze [0-9.]+, heap image [0-9.]+, other [0-9.]+ ms; writes that waited for the " +
            "writer's capture so far: [0-9]+\n").matcher(out).results().count(), out);
    }
}
