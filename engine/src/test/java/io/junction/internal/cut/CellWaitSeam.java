package io.junction.internal.cut;

/**
 * Test sources only: lets a test in another package set {@link DirtyChunks#onCellWait}, the hook a write runs on
 * the partition thread as it starts to wait for the checkpoint writer (so that the test knows, without sleeping,
 * that the partition is waiting).
 */
public final class CellWaitSeam
{
    private CellWaitSeam()
    {
    }

    /** @param hook run as a write starts to wait for the writer; null: none. */
    public static void set(final Runnable hook)
    {
        DirtyChunks.onCellWait = hook;
    }
}
