package io.junction.peers;

/**
 * One prepared run of a peer on one workload: the input is already converted to the peer's native types and
 * the operator is set up; {@link #run()} is the timed part.
 */
@SuppressWarnings("try") // a PeerRun closes a Flink harness, whose close() declares Exception (InterruptedException among them)
interface PeerRun extends AutoCloseable
{
    /**
     * Feeds every event in order (rows on their side, watermarks, then the end of input) and returns the
     * number of output rows of any kind.
     *
     * @return output rows
     * @throws Exception from the peer
     */
    long run() throws Exception;

    /** Releases the operator / driver and its state (not timed). */
    @Override
    void close() throws Exception;
}
