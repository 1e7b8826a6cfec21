package io.junction.internal.durable;

import io.junction.tools.JunctionCli;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

/**
 * The main class of {@code DurableKillTest}'s child JVMs: {@link JunctionCli#main} with a kill point inside a
 * checkpoint's write. Test code only: it lives in this package for {@link CheckpointStore#writeFault}, the
 * seam the checkpoint code calls on the thread that writes, before each write to a checkpoint's files (its
 * state chunks, its index and, last, its manifest); no main code serves it.
 *
 * <p>With {@code -Djunction.killtest.block=REGEX:M:N}, the {@code N}-th write (counted over all partitions)
 * to a file whose name matches {@code REGEX}, once this JVM has written {@code M} manifests ({@code MANIFEST*},
 * over all partitions: {@code M} = partitions means the first checkpoint is whole, as a replay asks for a
 * checkpoint only once the one before it has completed), prints {@link #BLOCKED} and the file on stderr, then
 * parks its thread for good: the test kills the JVM while that checkpoint is half written, wherever the write
 * runs (the partition thread, or a background writer while the partition goes on). It does not depend on
 * where the files are, only on their writes passing the seam and on the manifest's name. Without the property
 * the child is {@code junction} itself.
 */
public final class KillHookMain
{
    /** The start of the line on stderr when a write is held: the test kills the JVM on it. */
    public static final String BLOCKED = "kill-hook: holding the checkpoint write of ";
    /** The property naming the write to hold. */
    public static final String BLOCK_PROP_NAME = "junction.killtest.block";

    private KillHookMain()
    {
    }

    /**
     * @param args {@code junction}'s.
     */
    public static void main(final String[] args)
    {
        final String block = System.getProperty(BLOCK_PROP_NAME);
        if (block != null)
        {
            final String[] parts = block.split(":");
            final Pattern name = Pattern.compile(parts[0]);
            final int manifestsBefore = Integer.parseInt(parts[1]);
            final int nth = Integer.parseInt(parts[2]);
            final int[] manifests = new int[1];
            final int[] seen = new int[1];
            CheckpointStore.writeFault = file ->
            {
                final String fileName = file.getFileName().toString();
                final boolean hold;
                synchronized (seen)
                {
                    hold = manifests[0] >= manifestsBefore && name.matcher(fileName).matches() && ++seen[0] == nth;
                    if (fileName.startsWith(CheckpointStore.MANIFEST))
                    {
                        manifests[0]++;
                    }
                }
                if (hold)
                {
                    System.err.println(BLOCKED + file);
                    System.err.flush();
                    while (true)
                    {
                        LockSupport.park(); // until the SIGKILL
                    }
                }
            };
        }
        JunctionCli.main(args);
    }
}
