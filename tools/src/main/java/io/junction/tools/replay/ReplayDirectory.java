package io.junction.tools.replay;

import io.junction.api.JoinSpec;
import io.junction.api.Schema;
import io.junction.internal.durable.SmallFiles;
import io.junction.internal.io.OwnerOnlyFiles;
import io.junction.join.StateConfig;
import io.junction.runtime.CheckpointException;
import io.junction.runtime.CompletedCheckpoint;
import io.junction.runtime.EngineConfig;
import io.junction.tools.replay.Replay.ResumeRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A durable replay's directory ({@link Replay.Durability}): its preparation, the record of what its state was
 * built from ({@code DIR/REPLAY}), the resume checks against the spools and the event log, and the replay's
 * own spool's checkpoint records. Runs on the replay's (caller's) thread.
 */
final class ReplayDirectory
{
    private ReplayDirectory()
    {
    }

    /**
     * Checks every spool (and, past a restored position, the event log) before it cuts any of them back to
     * {@code resumeAfter}: a refused resume changes nothing.
     */
    static void checkAndCut(final List<Spool> spools, final Spool refusedSpool, final Replay.EventSource source,
        final long resumeAfter) throws IOException
    {
        final List<Spool> all = new ArrayList<>(spools);
        all.add(refusedSpool);
        final List<Spool.Checked> checked = new ArrayList<>();
        for (final Spool spool : all)
        {
            checked.add(spool.check(resumeAfter));
        }
        if (resumeAfter >= 0)
        {
            checkLog(source, checked.get(checked.size() - 1), resumeAfter);
        }
        for (int i = 0; i < all.size(); i++)
        {
            all.get(i).cut(checked.get(i));
        }
    }

    /** The members of the replay's own spool's checkpoint record that say how much of the log it consumed. */
    static String logRecord(final long bytes, final long crc, final boolean end)
    {
        return ",\"log_bytes\":" + bytes + ",\"log_crc32c\":\"" + String.format(Locale.ROOT, "%08x", crc) +
            "\",\"log_end\":" + end;
    }

    /** Records a checkpoint in the replay's own spool; a failure to write it fails the checkpoint, naming the file. */
    static void markRefused(final Spool refusedSpool, final long position, final String logRecord)
    {
        try
        {
            refusedSpool.mark(position, logRecord);
        }
        catch (final UncheckedIOException e)
        {
            throw new CheckpointException("checkpoint at step " + position + " failed: " +
                e.getMessage(), e.getCause());
        }
    }

    /**
     * Checks that the event log starts with the bytes the restored checkpoint consumed (and, after a clean
     * close, is exactly them): a resume of another log would mix two runs.
     */
    private static void checkLog(final Replay.EventSource source, final Spool.Checked record, final long position)
        throws IOException
    {
        final String bytesText = record.member("log_bytes");
        final String crcText = record.member("log_crc32c");
        if (bytesText == null || crcText == null)
        {
            throw new ResumeRefusedException("the checkpoint record at step " + position + " in the replay's spool names no " +
                "event log (" + record.record() + ")");
        }
        final long bytes = Long.parseLong(bytesText);
        final boolean end = "true".equals(record.member("log_end"));
        final CRC32C crc = new CRC32C();
        long read = 0;
        long total = 0;
        try (InputStream in = source.open())
        {
            final byte[] buffer = new byte[64 * 1024];
            int n;
            while ((n = in.read(buffer)) > 0)
            {
                final int take = (int) Math.min(n, Math.max(0, bytes - read));
                crc.update(buffer, 0, take);
                read += take;
                total += n;
                if (!end && read == bytes)
                {
                    break;
                }
            }
        }
        final String what = "the event log " + source.name();
        if (read < bytes)
        {
            throw new ResumeRefusedException(what + " is shorter (" + total + " bytes) than the " + bytes +
                " bytes the restored checkpoint at step " + position + " consumed: resume with the log the state was built from");
        }
        if (!String.format(Locale.ROOT, "%08x", crc.getValue()).equals(crcText))
        {
            throw new ResumeRefusedException(what + " is not the one the state was built from: its first " + bytes +
                " bytes (what the restored checkpoint at step " + position + " consumed) do not match their recorded " +
                "crc32c " + crcText);
        }
        if (end && total != bytes)
        {
            throw new ResumeRefusedException(what + " has " + total + " bytes, but the state is a clean close after all " +
                bytes + " bytes of the log it was built from (its end of input was applied): lines cannot be added after it");
        }
    }

    /** The file under a durable replay's directory that records what its state was built from. */
    static final String BUILT_WITH = "REPLAY";
    private static final String BUILT_WITH_HEADER = "junction replay state v1";

    /**
     * A new durable replay records what its state is built from (the spec, the rows' fields and the options
     * that change results or the state's layout) in {@code DIR/REPLAY}; a resumed one must match it, before
     * the engine starts, or is refused naming what differs.
     */
    static void builtWith(final Replay.Durability durability, final EngineConfig config, final JoinSpec spec,
        final Schema schema) throws IOException
    {
        final Path file = durability.directory().resolve(BUILT_WITH);
        final StateConfig state = config.state();
        final CRC32C names = new CRC32C();
        names.update(schema.toString().getBytes(StandardCharsets.UTF_8));
        final Map<String, String> now = new LinkedHashMap<>();
        // The fields first: the spec's fingerprint covers them too, and they are the likelier cause.
        now.put("the rows' fields (learnt from the event log, or --fields: count/crc32c)", schema.size() + "/" +
            String.format(Locale.ROOT, "%08x", names.getValue()));
        now.put("the join spec (fingerprint)", String.format(Locale.ROOT, "%016x", spec.fingerprint()));
        now.put("--partitions", Integer.toString(config.partitions()));
        now.put("--slot-capacity", Integer.toString(config.slotCapacity()));
        now.put("-D" + EngineConfig.RING_SIZE_PROP_NAME, Integer.toString(config.ringSize()));
        now.put("--max-keys", Long.toString(state.maxKeys()));
        now.put("-D" + StateConfig.INDEX_PROP_NAME, String.valueOf(state.indexKind()));
        now.put("-D" + StateConfig.CHUNK_SIZE_PROP_NAME, Integer.toString(state.chunkSize()));
        now.put("-D" + StateConfig.TICK_SHIFT_PROP_NAME, Integer.toString(state.tickShift()));
        now.put("-D" + StateConfig.WHEEL_SLOTS_PROP_NAME, Integer.toString(state.wheelSlots()));
        now.put("-D" + StateConfig.MAX_KEY_LENGTH_PROP_NAME, Integer.toString(state.maxKeyLength()));
        now.put("-D" + StateConfig.MAX_LIVE_ROWS_PROP_NAME, Long.toString(state.maxLiveRows()));
        now.put("-D" + StateConfig.MAX_BYTES_PROP_NAME, Long.toString(state.maxStateBytes()));
        now.put("-D" + StateConfig.FULL_POLICY_PROP_NAME, String.valueOf(state.fullPolicy()));
        final List<String> lines = new ArrayList<>();
        lines.add(BUILT_WITH_HEADER);
        for (final Map.Entry<String, String> entry : now.entrySet())
        {
            lines.add(entry.getKey() + " = " + entry.getValue());
        }
        final boolean hasState = Files.exists(durability.directory().resolve(Replay.STATE));
        if (!durability.resume() || !hasState)
        {
            // Nothing to resume (a new directory, or a run that stopped before its engine started): a new record.
            SmallFiles.write(file, lines);
            return;
        }
        if (Files.notExists(file))
        {
            throw new ResumeRefusedException(file + " is missing: it records what the state in " + durability.directory() +
                " was built from (a directory of an older version, or a deleted file: start again in an empty directory)");
        }
        final List<String> recorded;
        try
        {
            recorded = SmallFiles.read(file);
        }
        catch (final IOException e)
        {
            throw new ResumeRefusedException(file + " is damaged: " + e.getMessage());
        }
        if (recorded.isEmpty() || !recorded.get(0).equals(BUILT_WITH_HEADER))
        {
            throw new ResumeRefusedException(file + " is not a replay's record of its state (" +
                (recorded.isEmpty() ? "empty" : recorded.get(0)) + ")");
        }
        for (int i = 1; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (!recorded.contains(line))
            {
                final String name = line.substring(0, line.indexOf(" = "));
                String was = "nothing";
                for (final String old : recorded)
                {
                    if (old.startsWith(name + " = "))
                    {
                        was = old.substring(name.length() + 3);
                    }
                }
                throw new ResumeRefusedException("the state in " + durability.directory() + " was built with " + name + " " +
                    was + ", this run has " + line.substring(name.length() + 3) + " (" + file + "): resume with the " +
                    "options and log it was built with");
            }
        }
    }

    /** Makes the replay's own dead letters so far durable in their spool (before a checkpoint covers their steps). */
    static void flushRefused(final List<StepLine> refused, final Spool refusedSpool) throws IOException
    {
        for (final StepLine line : refused)
        {
            refusedSpool.append(line.json());
        }
        refused.clear();
        refusedSpool.flush();
    }

    /** A bound on the wait for one checkpoint: a hang is reported (exit status 4), not waited out for ever. */
    static final long CHECKPOINT_TIMEOUT_MINUTES = 10;

    static void awaitCheckpoint(
        final CompletableFuture<CompletedCheckpoint> checkpoint) throws IOException
    {
        if (checkpoint == null)
        {
            return;
        }
        try
        {
            checkpoint.get(CHECKPOINT_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while a checkpoint was written", e);
        }
        catch (final ExecutionException e)
        {
            if (e.getCause() instanceof CheckpointException failed)
            {
                // The state could not be checkpointed (a full disk among the causes): its message names the file.
                throw new CheckpointException(failed.getMessage(), failed);
            }
            throw new IOException(e.getCause().getMessage(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IOException("a checkpoint did not complete within " + CHECKPOINT_TIMEOUT_MINUTES + " minutes", e);
        }
    }

    /** A new durable replay needs an empty directory; a resumed one the directory of the run it resumes. */
    static void prepareDirectory(final Replay.Durability durability, final Path output) throws IOException
    {
        final Path directory = durability.directory();
        if (!durability.resume() && Files.isDirectory(directory))
        {
            try (Stream<Path> entries = Files.list(directory))
            {
                if (entries.findAny().isPresent())
                {
                    throw new IOException(directory + " holds the state of an earlier replay: resume it (--resume) " +
                        "or give an empty or new directory");
                }
            }
        }
        OwnerOnlyFiles.createDirectories(output);
    }

    static void closeAll(final List<Spool> spools, final Spool refusedSpool) throws IOException
    {
        for (final Spool spool : spools)
        {
            spool.close();
        }
        if (refusedSpool != null)
        {
            refusedSpool.close();
        }
    }
}
