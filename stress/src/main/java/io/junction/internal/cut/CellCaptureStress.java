package io.junction.internal.cut;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * The copy-on-write cell protocol of a checkpoint cut (docs/DURABILITY.md "Copy-on-write cuts"): the partition
 * writes a frozen cell ({@link DirtyChunks#mark}: CAS frozen to copying, copy to the side buffer, dirty; or wait
 * while the writer holds it) while the checkpoint writer captures it ({@code CutFile.captureChunk}: CAS
 * frozen to capturing, copy, clean; or take the partition's side copy).
 *
 * <p>Invariant: exactly one of {the writer captured the old bytes from the mapping and the partition's write came
 * after, the partition copied the old bytes into the side buffer before its write and the writer took them from
 * there} happens; the captured image is always the bytes at the freeze (never the new bytes, never torn); the
 * write lands and leaves the cell dirty (the next cut takes it).
 *
 * <p>Result: r1 the captured image (1 old, 2 new, 3 torn), r2 whether the side buffer holds the old bytes, r3 the
 * cell's state after both (1 dirty), r4 the live file (2 new).
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 2", expect = Expect.ACCEPTABLE, desc = "The writer captured the old bytes; the write came after.")
@Outcome(id = "1, 1, 1, 2", expect = Expect.ACCEPTABLE_INTERESTING,
    desc = "The partition copied the old bytes to the side buffer before its write; the writer took them there.")
@Outcome(expect = Expect.FORBIDDEN, desc = "A new or torn image, a lost write, or a cell not dirty after the write.")
@State
public class CellCaptureStress
{
    private final FrozenCell cell = FrozenCell.take();

    /** The partition thread: a write path's mark, then its stores. */
    @Actor
    public void partition()
    {
        cell.write(FrozenCell.NEW);
    }

    /** The background checkpoint writer: the capture of the frozen chunk. */
    @Actor
    public void writer(final IIII_Result r)
    {
        r.r1 = cell.capture();
    }

    @Arbiter
    public void outcome(final IIII_Result r)
    {
        r.r2 = cell.sideHoldsOld();
        r.r3 = cell.cellState();
        r.r4 = cell.live();
        cell.recycle();
    }
}
