package io.junction.tools.workload;

/**
 * Receiver of Nexmark events from {@link NexmarkGenerator}, one method per event type, fields as in the
 * Nexmark schema (nexmark/nexmark {@code Person}, {@code Auction}, {@code Bid}); times are epoch ms.
 * <p>
 * The {@link CharSequence} arguments are reused by the generator: they are valid only during the call.
 * Copy them (or encode them) if they must outlive it.
 */
public interface NexmarkSink
{

    /**
     * A new person (2% of events).
     *
     * @param id           person id, sequential from 1000
     * @param name         "First Last"
     * @param emailAddress random address ending in ".com"
     * @param creditCard   "dddd dddd dddd dddd"
     * @param city         one of 10 US cities
     * @param state        one of AZ, CA, ID, OR, WA, WY
     * @param dateTime     event time, ms
     * @param extra        padding so a person averages 200 bytes
     */
    void person(long id, CharSequence name, CharSequence emailAddress, CharSequence creditCard, CharSequence city,
                CharSequence state, long dateTime, CharSequence extra);

    /**
     * A new auction (6% of events).
     *
     * @param id          auction id, sequential from 1000
     * @param itemName    random words
     * @param description random words
     * @param initialBid  log-uniform price in cents
     * @param reserve     initialBid plus another price
     * @param dateTime    event time, ms
     * @param expires     dateTime + 1 + uniform(2 * horizon)
     * @param seller      person id (hot seller with probability 3/4)
     * @param category    10 + uniform(5)
     * @param extra       padding so an auction averages 500 bytes
     */
    void auction(long id, CharSequence itemName, CharSequence description, long initialBid, long reserve, long dateTime,
                 long expires, long seller, long category, CharSequence extra);

    /**
     * A bid (92% of events).
     *
     * @param auction  auction id (hot auction with probability 1/2)
     * @param bidder   person id (hot bidder with probability 3/4)
     * @param price    log-uniform price in cents, 100 .. 10^8
     * @param channel  one of 4 hot channels (half the bids) or "channel-N", N &lt; 10000
     * @param url      the channel's URL
     * @param dateTime event time, ms
     * @param extra    padding so a bid averages 100 bytes
     */
    void bid(long auction, long bidder, long price, CharSequence channel, CharSequence url, long dateTime,
             CharSequence extra);

    /**
     * A watermark (event time minus 4 s), for both inputs of a join; default: ignored.
     *
     * @param watermark event time, ms
     */
    default void watermark(final long watermark)
    {
    }
}
