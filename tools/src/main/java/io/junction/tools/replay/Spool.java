package io.junction.tools.replay;

import io.junction.internal.durable.OwnerOnlyFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The output lines of a durable replay, in a file as they are produced, so that what was produced before
 * a checkpoint survives a crash: {@link #flush()} (at each checkpoint, before the state is persisted)
 * makes them durable. A resumed replay first cuts each spool back to the lines of the steps at or before
 * the restored position ({@link #truncateAfter}): the rest is produced again. That is the de-duplication
 * by step that turns the engine's at-least-once output into exactly-once lines.
 * <p>
 * Not thread safe: written by one thread (a partition's, or the replay's), read after the run.
 */
final class Spool implements AutoCloseable {
    private final Path file;
    /** Opened at the first line, so that a resumed run cuts the file back before anything is appended. */
    private FileChannel channel;
    private Writer writer;

    /**
     * @param file the spool, created owner-only when missing, appended to otherwise
     */
    Spool(final Path file) {
        this.file = file;
    }

    private void open() throws IOException {
        if (Files.notExists(file)) {
            OwnerOnlyFiles.createFile(file);
        }
        channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        writer = Channels.newWriter(channel, StandardCharsets.UTF_8);
    }

    void append(final String json) {
        try {
            if (writer == null) {
                open();
            }
            writer.write(json);
            writer.write('\n');
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    void flush() {
        if (writer == null) {
            return;
        }
        try {
            writer.flush();
            channel.force(false);
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot flush " + file, e);
        }
    }

    @Override
    public void close() throws IOException {
        if (writer != null) {
            writer.close();
        }
    }

    /** The step a line starts with ({@code {"step":N,...}}); -1 for a torn line. */
    static long step(final String line) {
        if (!line.startsWith("{\"step\":") || !line.endsWith("}")) {
            return -1;
        }
        final int comma = line.indexOf(',');
        try {
            return Long.parseLong(line.substring("{\"step\":".length(), comma < 0 ? line.length() - 1 : comma));
        } catch (final NumberFormatException e) {
            return -1;
        }
    }

    /**
     * @param file a spool
     * @return its whole lines with their steps; a torn last line (a crash while it was written) is left out
     * @throws IOException when it cannot be read
     */
    static List<StepLine> read(final Path file) throws IOException {
        final List<StepLine> lines = new ArrayList<>();
        if (Files.notExists(file)) {
            return lines;
        }
        final byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
            end--;
        }
        try (BufferedReader reader = new BufferedReader(new java.io.StringReader(
            new String(bytes, 0, end, StandardCharsets.UTF_8)))) {
            String line;
            while ((line = reader.readLine()) != null) {
                final long step = step(line);
                if (step >= 0) {
                    lines.add(new StepLine(step, line));
                }
            }
        }
        return lines;
    }

    /**
     * Keeps the lines of steps up to {@code position}, in their order; drops the rest and a torn last line.
     *
     * @param file     a spool (nothing happens when it does not exist)
     * @param position the restored position: the last step whose output counts
     * @throws IOException when it cannot be rewritten
     */
    static void truncateAfter(final Path file, final long position) throws IOException {
        if (Files.notExists(file)) {
            return;
        }
        final StringBuilder kept = new StringBuilder();
        for (final StepLine line : read(file)) {
            if (line.step() <= position) {
                kept.append(line.json()).append('\n');
            }
        }
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        OwnerOnlyFiles.createFile(tmp);
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            out.write(StandardCharsets.UTF_8.encode(kept.toString()));
            out.force(true);
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}
