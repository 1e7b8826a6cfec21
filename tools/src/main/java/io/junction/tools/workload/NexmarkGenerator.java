package io.junction.tools.workload;

/**
 * A seeded, deterministic Nexmark event generator (persons, auctions, bids), following the generator facts of
 * NEXMARK.md, modelled on nexmark/nexmark's {@code nexmark-flink} generator (our own code, with
 * {@link SplitMix64} as the random source, so a seed fixes the whole stream).
 * <p>
 * Not thread safe: owned by the generating thread. After construction it does not allocate per event: strings
 * are built in reused {@link StringBuilder}s (valid only during the {@link NexmarkSink} call) and channel URLs
 * are precomputed.
 *
 * <h2>Event kinds and ids</h2>
 * Event {@code n} (0-based global counter) is a person if {@code n % 50 < 1}, an auction if {@code < 4},
 * else a bid: 2% / 6% / 92%. Person ids are {@code n / 50 + 1000} (sequential); auction ids are sequential
 * from 1000 too, three per block of 50 events. "Last person/auction" below means the most recent id issued
 * at or before event n (base 0, i.e. before adding 1000).
 *
 * <h2>Event time (rate rule)</h2>
 * {@code dateTime(n) = baseTime + (long) (n * 1e6 / rate) / 1000}: event n is {@code n / rate} seconds
 * after {@code baseTime}, truncated to whole ms (the reference's {@code timestampForEvent} with one
 * generator and {@code outOfOrderGroupSize = 1}). At the default 10,000 events/s that is 10 events per ms.
 * Event times never decrease, so no event is late for the watermark below.
 *
 * <h2>Watermarks</h2>
 * The Nexmark DDL declares {@code WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND}. This generator
 * emits {@code watermark(dateTime - 4000)} after every {@code watermarkEveryEvents}-th event (default 1000,
 * 0 = none) when it is higher than the last one.
 *
 * <h2>Choosing keys (hot-key rules)</h2>
 * <ul>
 *   <li>Active person (non-hot seller/bidder): uniform over the last {@code min(persons, 1000)} persons plus
 *       10 future ids, i.e. {@code persons - active + uniform(active + 10)}.</li>
 *   <li>In-flight auction (non-hot bid target): uniform over {@code [max(last - 100, 0), last + 10]}.</li>
 *   <li>{@code auction.seller}: with probability 3/4 (reference {@code hotSellersRatio = 4}) the hot seller,
 *       the first person of the current block of 100 persons ({@code (lastPerson / 100) * 100}); else an
 *       active person.</li>
 *   <li>{@code bid.auction}: with probability 1/2 ({@code hotAuctionRatio = 2}) the hot auction, the first
 *       auction of the current block of 100 ({@code (lastAuction / 100) * 100}); else an in-flight auction.
 *       Half of all bids hit one auction at a time: a join on {@code bid.auction} has one very hot key.</li>
 *   <li>{@code bid.bidder}: with probability 3/4 ({@code hotBiddersRatio = 4}) the hot bidder, the second
 *       person of the current block of 100 ({@code (lastPerson / 100) * 100 + 1}, so hot bidders and sellers
 *       differ); else an active person.</li>
 * </ul>
 * <b>Bidder variant.</b> We emulate the corrected generator: {@code bid.bidder} gets the person id offset
 * (1000) once, so bidders are real person ids (or up to 10 ahead). The reference (since it added channels)
 * adds the offset twice, shifting every bidder by 2000 so that {@code bid.bidder} rarely joins
 * {@code person.id}; the Nexmark queries we run (q3, q8, q20) do not join on the bidder.
 *
 * <h2>Other fields</h2>
 * Person: name "First Last" from 11 x 9 names, email {@code s7@s5.com}, credit card four 4-digit groups,
 * city from 10, state uniform over {AZ, CA, ID, OR, WA, WY}. Auction: item name and description random
 * words (up to 20 and 100 chars), initialBid a price, reserve = initialBid + a price, category
 * {@code 10 + uniform(5)}, {@code expires = dateTime + 1 + uniform(2 * horizon)} where horizon is the
 * event-time span of the next 1666 events (time until 100 more auctions). Bid: price
 * {@code round(10^(6u) * 100)} (log-uniform 100 .. 10^8); channel with probability 1/2 one of 4 hot channels,
 * else "channel-N", N uniform below 10000, each with a fixed URL. {@code extra} is random lowercase letters
 * whose length is uniform in {@code [0.8 d, 1.2 d)}, {@code d} = target size minus the other fields' size
 * (longs 8 B, strings their length), so average sizes are person 200 B, auction 500 B, bid 100 B.
 */
public final class NexmarkGenerator
{
    /** Persons per block of {@value #TOTAL_PROPORTION} events. */
    public static final int PERSON_PROPORTION = 1;
    /** Auctions per block. */
    public static final int AUCTION_PROPORTION = 3;
    /** Bids per block. */
    public static final int BID_PROPORTION = 46;
    /** Events per block. */
    public static final int TOTAL_PROPORTION = PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION;

    /** First person id. */
    public static final long FIRST_PERSON_ID = 1000;
    /** First auction id. */
    public static final long FIRST_AUCTION_ID = 1000;
    /** First category id. */
    public static final long FIRST_CATEGORY_ID = 10;
    /** Number of categories. */
    public static final int NUM_CATEGORIES = 5;

    /** Persons considered active for sellers and bidders. */
    public static final int NUM_ACTIVE_PEOPLE = 1000;
    /** Auctions considered in flight for bids. */
    public static final int NUM_IN_FLIGHT_AUCTIONS = 100;
    /** Future person ids allowed. */
    public static final int PERSON_ID_LEAD = 10;
    /** Future auction ids allowed. */
    public static final int AUCTION_ID_LEAD = 10;
    /** Hot keys change every this many persons / auctions. */
    public static final int HOT_BLOCK = 100;
    /** A seller is hot unless uniform(4) == 0 (probability 3/4). */
    public static final int HOT_SELLERS_RATIO = 4;
    /** A bid's auction is hot unless uniform(2) == 0 (probability 1/2). */
    public static final int HOT_AUCTION_RATIO = 2;
    /** A bidder is hot unless uniform(4) == 0 (probability 3/4). */
    public static final int HOT_BIDDERS_RATIO = 4;
    /** A bid's channel is hot unless uniform(2) == 0. */
    public static final int HOT_CHANNELS_RATIO = 2;
    /** Number of non-hot channels. */
    public static final int CHANNELS = 10_000;

    /** Average person size in bytes. */
    public static final int AVG_PERSON_BYTES = 200;
    /** Average auction size in bytes. */
    public static final int AVG_AUCTION_BYTES = 500;
    /** Average bid size in bytes. */
    public static final int AVG_BID_BYTES = 100;

    /** Watermark = event time minus this. */
    public static final long WATERMARK_DELAY_MS = 4000;
    /** Default: a watermark after every this many events. */
    public static final int WATERMARK_EVERY_EVENTS_DEFAULT = 1000;
    /** Default event rate, events per second of event time (the reference default). */
    public static final long RATE_DEFAULT = 10_000;
    /** Default base time: 2024-01-01T00:00:00Z, fixed so runs are reproducible. */
    public static final long BASE_TIME_DEFAULT = 1_704_067_200_000L;
    /** Default seed. */
    public static final long SEED_DEFAULT = 0x5EED_4E58L;

    private static final String[] STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
    private static final String[] CITIES = {
        "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"
    };
    private static final String[] FIRST_NAMES = {
        "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
    };
    private static final String[] LAST_NAMES = {
        "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
    };
    private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};
    private static final int MIN_STRING_LENGTH = 3;

    private final SplitMix64 rng;
    private final long seed;
    private final long baseTime;
    private final double interEventDelayUs;
    private final int watermarkEveryEvents;
    private final String[] hotUrls;
    private final String[] channelNames;
    private final String[] channelUrls;

    private final StringBuilder s1 = new StringBuilder(128);
    private final StringBuilder s2 = new StringBuilder(128);
    private final StringBuilder s3 = new StringBuilder(32);
    private final StringBuilder extra = new StringBuilder(512);
    private final char[] scratch = new char[128];

    private long n;
    private long lastWatermark = Long.MIN_VALUE;

    /** A generator with the default seed, base time, rate and watermark interval. */
    public NexmarkGenerator()
    {
        this(SEED_DEFAULT);
    }

    /**
     * @param seed the random seed; equal seeds give equal streams
     */
    public NexmarkGenerator(final long seed)
    {
        this(seed, BASE_TIME_DEFAULT, RATE_DEFAULT, WATERMARK_EVERY_EVENTS_DEFAULT);
    }

    /**
     * @param seed                 the random seed
     * @param baseTime             event time of event 0, epoch ms
     * @param eventsPerSecond      event-time rate, 1 .. 10^9
     * @param watermarkEveryEvents a watermark after every this many events, 0 for none
     */
    public NexmarkGenerator(final long seed, final long baseTime, final long eventsPerSecond,
                            final int watermarkEveryEvents)
    {
        if (eventsPerSecond < 1 || eventsPerSecond > 1_000_000_000L)
        {
            throw new IllegalArgumentException("eventsPerSecond=" + eventsPerSecond + " out of range [1, 1000000000]");
        }
        if (watermarkEveryEvents < 0)
        {
            throw new IllegalArgumentException("watermarkEveryEvents=" + watermarkEveryEvents + " must be >= 0");
        }
        this.seed = seed;
        this.rng = new SplitMix64(seed);
        this.baseTime = baseTime;
        this.interEventDelayUs = 1_000_000.0 / eventsPerSecond;
        this.watermarkEveryEvents = watermarkEveryEvents;

        // URLs are fixed per channel: derive them from a separate stream so the event stream does not depend
        // on how many are precomputed.
        final SplitMix64 urlRng = new SplitMix64(SplitMix64.mix64(seed ^ 0x55524C53L));
        final StringBuilder sb = new StringBuilder(96);
        hotUrls = new String[HOT_CHANNELS.length];
        for (int i = 0; i < hotUrls.length; i++)
        {
            hotUrls[i] = baseUrl(urlRng, sb).toString();
        }
        channelNames = new String[CHANNELS];
        channelUrls = new String[CHANNELS];
        for (int c = 0; c < CHANNELS; c++)
        {
            channelNames[c] = "channel-" + c;
            baseUrl(urlRng, sb);
            if (urlRng.nextInt(10) > 0)
            {
                sb.append("&channel_id=").append(Math.abs(Integer.reverse(c)));
            }
            channelUrls[c] = sb.toString();
        }
    }

    /** @return the seed this generator was built with */
    public long seed()
    {
        return seed;
    }

    /** @return events generated so far; also the number of the next event */
    public long eventsSoFar()
    {
        return n;
    }

    /**
     * @param eventNumber global event number, 0-based
     * @return its event time: {@code baseTime + (long) (eventNumber * 1e6 / rate) / 1000} ms
     */
    public long timestampForEvent(final long eventNumber)
    {
        return baseTime + (long) (eventNumber * interEventDelayUs) / 1000L;
    }

    /**
     * Generates {@code count} events.
     *
     * @param count number of events
     * @param sink  receives them
     */
    public void generate(final long count, final NexmarkSink sink)
    {
        for (long i = 0; i < count; i++)
        {
            next(sink);
        }
    }

    /**
     * Generates the next event (and a watermark after it if one is due).
     *
     * @param sink receives it
     */
    public void next(final NexmarkSink sink)
    {
        final long id = n;
        final long ts = timestampForEvent(id);
        final long rem = id % TOTAL_PROPORTION;
        if (rem < PERSON_PROPORTION)
        {
            nextPerson(id, ts, sink);
        }
        else if (rem < PERSON_PROPORTION + AUCTION_PROPORTION)
        {
            nextAuction(id, ts, sink);
        }
        else
        {
            nextBid(id, ts, sink);
        }
        n = id + 1;
        if (watermarkEveryEvents > 0 && n % watermarkEveryEvents == 0)
        {
            final long w = ts - WATERMARK_DELAY_MS;
            if (w > lastWatermark)
            {
                lastWatermark = w;
                sink.watermark(w);
            }
        }
    }

    // ------------------------------------------------------------------ ids

    /**
     * @param eventId event number
     * @return the last person id issued at or before it, base 0 (the current one for a person event)
     */
    public static long lastBase0PersonId(final long eventId)
    {
        final long epoch = eventId / TOTAL_PROPORTION;
        long offset = eventId % TOTAL_PROPORTION;
        if (offset >= PERSON_PROPORTION)
        {
            offset = PERSON_PROPORTION - 1;
        }
        return epoch * PERSON_PROPORTION + offset;
    }

    /**
     * @param eventId event number
     * @return the last auction id issued at or before it, base 0 (the current one for an auction event);
     *         -1 before the first auction
     */
    public static long lastBase0AuctionId(final long eventId)
    {
        long epoch = eventId / TOTAL_PROPORTION;
        long offset = eventId % TOTAL_PROPORTION;
        if (offset < PERSON_PROPORTION)
        {
            epoch--;
            offset = AUCTION_PROPORTION - 1;
        }
        else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION)
        {
            offset = AUCTION_PROPORTION - 1;
        }
        else
        {
            offset -= PERSON_PROPORTION;
        }
        return epoch * AUCTION_PROPORTION + offset;
    }

    private long activePerson(final long eventId)
    {
        final long numPeople = lastBase0PersonId(eventId) + 1;
        final long active = Math.min(numPeople, NUM_ACTIVE_PEOPLE);
        return numPeople - active + rng.nextInt((int) (active + PERSON_ID_LEAD));
    }

    private long inFlightAuction(final long eventId)
    {
        final long last = lastBase0AuctionId(eventId);
        final long min = Math.max(last - NUM_IN_FLIGHT_AUCTIONS, 0);
        return min + rng.nextInt((int) (last - min + 1 + AUCTION_ID_LEAD));
    }

    // ------------------------------------------------------------------ events

    private void nextPerson(final long eventId, final long ts, final NexmarkSink sink)
    {
        final long id = lastBase0PersonId(eventId) + FIRST_PERSON_ID;
        final StringBuilder name = s1;
        name.setLength(0);
        name.append(FIRST_NAMES[rng.nextInt(FIRST_NAMES.length)]).append(' ')
            .append(LAST_NAMES[rng.nextInt(LAST_NAMES.length)]);
        final StringBuilder email = s2;
        email.setLength(0);
        appendRandomString(7, email);
        email.append('@');
        appendRandomString(5, email);
        email.append(".com");
        final StringBuilder card = s3;
        card.setLength(0);
        for (int i = 0; i < 4; i++)
        {
            if (i > 0)
            {
                card.append(' ');
            }
            final int g = rng.nextInt(10_000);
            card.append((char) ('0' + g / 1000)).append((char) ('0' + g / 100 % 10))
                .append((char) ('0' + g / 10 % 10)).append((char) ('0' + g % 10));
        }
        final String city = CITIES[rng.nextInt(CITIES.length)];
        final String state = STATES[rng.nextInt(STATES.length)];
        final int size = 8 + name.length() + email.length() + card.length() + city.length() + state.length();
        nextExtra(size, AVG_PERSON_BYTES);
        sink.person(id, name, email, card, city, state, ts, extra);
    }

    private void nextAuction(final long eventId, final long ts, final NexmarkSink sink)
    {
        final long id = lastBase0AuctionId(eventId) + FIRST_AUCTION_ID;
        final long seller;
        if (rng.nextInt(HOT_SELLERS_RATIO) > 0)
        {
            seller = (lastBase0PersonId(eventId) / HOT_BLOCK) * HOT_BLOCK;
        }
        else
        {
            seller = activePerson(eventId);
        }
        final long category = FIRST_CATEGORY_ID + rng.nextInt(NUM_CATEGORIES);
        final long initialBid = nextPrice();
        // horizon: event time until NUM_IN_FLIGHT_AUCTIONS more auctions (1666 events at 3 per 50)
        final long eventsForAuctions = (long) NUM_IN_FLIGHT_AUCTIONS * TOTAL_PROPORTION / AUCTION_PROPORTION;
        final long horizon = timestampForEvent(eventId + eventsForAuctions) - ts;
        final long expires = ts + 1 + nextLong(Math.max(horizon * 2, 1L));
        final StringBuilder itemName = s1;
        itemName.setLength(0);
        appendRandomString(20, itemName);
        final StringBuilder description = s2;
        description.setLength(0);
        appendRandomString(100, description);
        final long reserve = initialBid + nextPrice();
        final int size = 8 + itemName.length() + description.length() + 8 + 8 + 8 + 8 + 8;
        nextExtra(size, AVG_AUCTION_BYTES);
        sink.auction(id, itemName, description, initialBid, reserve, ts, expires, seller + FIRST_PERSON_ID,
            category, extra);
    }

    private void nextBid(final long eventId, final long ts, final NexmarkSink sink)
    {
        long auction;
        if (rng.nextInt(HOT_AUCTION_RATIO) > 0)
        {
            auction = (lastBase0AuctionId(eventId) / HOT_BLOCK) * HOT_BLOCK;
        }
        else
        {
            auction = inFlightAuction(eventId);
        }
        auction += FIRST_AUCTION_ID;
        long bidder;
        if (rng.nextInt(HOT_BIDDERS_RATIO) > 0)
        {
            bidder = (lastBase0PersonId(eventId) / HOT_BLOCK) * HOT_BLOCK + 1;
        }
        else
        {
            bidder = activePerson(eventId);
        }
        bidder += FIRST_PERSON_ID;                 // once: the corrected variant, see the class Javadoc
        final long price = nextPrice();
        final String channel;
        final String url;
        if (rng.nextInt(HOT_CHANNELS_RATIO) > 0)
        {
            final int i = rng.nextInt(HOT_CHANNELS.length);
            channel = HOT_CHANNELS[i];
            url = hotUrls[i];
        }
        else
        {
            final int c = rng.nextInt(CHANNELS);
            channel = channelNames[c];
            url = channelUrls[c];
        }
        nextExtra(8 + 8 + 8 + 8, AVG_BID_BYTES);
        sink.bid(auction, bidder, price, channel, url, ts, extra);
    }

    // ------------------------------------------------------------------ values

    /** @return a log-uniform price in cents: round(10^(6u) * 100), 100 .. 10^8 */
    private long nextPrice()
    {
        return Math.round(Math.pow(10.0, rng.nextDouble() * 6.0) * 100.0);
    }

    private long nextLong(final long bound)
    {
        return bound <= Integer.MAX_VALUE ? rng.nextInt((int) bound) : Long.remainderUnsigned(rng.nextLong(), bound);
    }

    /**
     * Appends random words: {@code 3 + uniform(maxLength - 3)} chars, each a space with probability 1/13,
     * else a lowercase letter, then trimmed of leading and trailing spaces.
     */
    private void appendRandomString(final int maxLength, final StringBuilder dst)
    {
        final int len = MIN_STRING_LENGTH + rng.nextInt(maxLength - MIN_STRING_LENGTH);
        for (int i = 0; i < len; i++)
        {
            scratch[i] = rng.nextInt(13) == 0 ? ' ' : (char) ('a' + rng.nextInt(26));
        }
        int from = 0;
        int to = len;
        while (from < to && scratch[from] == ' ')
        {
            from++;
        }
        while (to > from && scratch[to - 1] == ' ')
        {
            to--;
        }
        dst.append(scratch, from, to - from);
    }

    /**
     * Fills {@link #extra} so that {@code currentSize + extra.length()} averages {@code averageSize}:
     * length uniform in [0.8 d, 1.2 d) with d = averageSize - currentSize; empty if currentSize is larger.
     */
    private void nextExtra(final int currentSize, final int averageSize)
    {
        extra.setLength(0);
        if (currentSize > averageSize)
        {
            return;
        }
        final int desired = averageSize - currentSize;
        final int delta = (int) Math.round(desired * 0.2);
        int length = desired - delta + (delta == 0 ? 0 : rng.nextInt(2 * delta));
        while (length > 0)
        {
            long bits = rng.nextLong() >>> 1;       // 13 letters per draw (26^13 < 2^63)
            for (int i = 0; i < 13 && length > 0; i++, length--)
            {
                extra.append((char) ('a' + (int) (bits % 26)));
                bits /= 26;
            }
        }
    }

    private static StringBuilder baseUrl(final SplitMix64 r, final StringBuilder sb)
    {
        sb.setLength(0);
        sb.append("https://www.nexmark.com/");
        for (int part = 0; part < 3; part++)
        {
            final int len = MIN_STRING_LENGTH + r.nextInt(5 - MIN_STRING_LENGTH);
            for (int i = 0; i < len; i++)
            {
                sb.append(r.nextInt(13) == 0 ? '_' : (char) ('a' + r.nextInt(26)));
            }
            sb.append('/');
        }
        return sb.append("item.htm?query=1");
    }
}
