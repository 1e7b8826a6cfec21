package io.junction.internal.cut;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A failed checkpoint write against a write of the partition (docs/DURABILITY.md "Copy-on-write cuts"): the writer
 * makes every cell still frozen dirty ({@link StagedCut#abandon()}: CAS frozen to dirty) while the partition writes
 * the cell ({@link DirtyChunks#mark}: CAS frozen to copying, copy, dirty).
 *
 * <p>Invariant: one CAS wins; either way the cell ends dirty (the next cut takes the chunk, which the failed
 * checkpoint does not hold) and the write lands; the partition copies the old bytes only when it won.
 *
 * <p>Result: r1 whether the side buffer holds the old bytes, r2 the cell's state after both (1 dirty), r3 the
 * live file (2 new).
 */
@JCStressTest
@Outcome(id = "0, 1, 2", expect = Expect.ACCEPTABLE, desc = "The writer made the cell dirty first; the write copied nothing.")
@Outcome(id = "1, 1, 2", expect = Expect.ACCEPTABLE_INTERESTING,
    desc = "The partition copied the cell before the writer gave up; the cell is dirty.")
@Outcome(expect = Expect.FORBIDDEN, desc = "A cell left frozen or clean, or a lost write.")
@State
public class CellAbandonStress
{
    private final FrozenCell cell = FrozenCell.take();

    /** The partition thread: a write path's mark, then its stores. */
    @Actor
    public void partition()
    {
        cell.write(FrozenCell.NEW);
    }

    /** The background checkpoint writer, its write failed: the cut abandoned. */
    @Actor
    public void writer()
    {
        cell.abandon();
    }

    @Arbiter
    public void outcome(final III_Result r)
    {
        r.r1 = cell.sideHoldsOld();
        r.r2 = cell.cellState();
        r.r3 = cell.live();
        cell.recycle();
    }
}
