package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;

/** A peer engine: converts a tape to its native input once, then builds fresh runs over it. */
interface Peer
{
    /** @return the name printed in the table */
    String name();

    /**
     * @param w workload
     * @param j join kind
     * @return whether this peer has an operator for that workload and join
     */
    boolean supports(Workload w, JoinKind j);

    /**
     * The expected output rows of this peer: peers differ only for W2/W3 left outer (changelog or append-only).
     *
     * @param e expected counts of the tape
     * @param j join kind
     * @return expected rows
     */
    long expected(Expected e, JoinKind j);

    /**
     * Converts the tape into the peer's native input (not timed); called once per workload and join.
     *
     * @param w    workload
     * @param j    join kind
     * @param tape events
     * @return a factory of fresh runs over the converted input
     * @throws Exception from the peer
     */
    Prepared prepare(Workload w, JoinKind j, EventTape tape) throws Exception;

    /** Converted input; {@link #newRun()} sets up a fresh operator with empty state. */
    interface Prepared
    {
        PeerRun newRun() throws Exception;

        /** @return a short note on what exactly runs (operator, state backend, store), printed once */
        String describe();
    }
}
