package io.junction.tools.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NexmarkGeneratorTest
{

    /** Counts, checks invariants and folds every field into a 64-bit digest. */
    private static final class Recorder implements NexmarkSink
    {
        long persons;
        long auctions;
        long bids;
        long events;
        long digest;
        long firstPersonId = -1;
        long firstAuctionId = -1;
        long lastPersonId = FIRST - 1;
        long lastAuctionId = FIRST - 1;
        long lastTs = Long.MIN_VALUE;
        long lastWatermark = Long.MIN_VALUE;
        long watermarks;
        long hotAuctionBids;
        long hotBidderBids;
        long hotSellerAuctions;
        long personBytes;
        long auctionBytes;
        long bidBytes;
        long category10;
        long minPrice = Long.MAX_VALUE;
        long maxPrice = Long.MIN_VALUE;

        static final long FIRST = 1000;

        private void mix(final long v)
        {
            digest = SplitMix64.mix64(digest * 31 + v);
        }

        private void mix(final CharSequence s)
        {
            for (int i = 0; i < s.length(); i++)
            {
                mix(s.charAt(i));
            }
            mix(-1);
        }

        private void time(final long ts)
        {
            assertTrue(ts >= lastTs, "event time never decreases");
            assertTrue(ts > lastWatermark, "no event is late");
            lastTs = ts;
            events++;
        }

        @Override
        public void person(final long id, final CharSequence name, final CharSequence emailAddress,
                           final CharSequence creditCard, final CharSequence city, final CharSequence state,
                           final long dateTime, final CharSequence extra)
        {
            time(dateTime);
            if (firstPersonId < 0)
            {
                firstPersonId = id;
            }
            assertEquals(lastPersonId + 1, id, "person ids are sequential");
            lastPersonId = id;
            assertEquals(19, creditCard.length());
            assertTrue(emailAddress.toString().endsWith(".com"));
            assertTrue("AZ CA ID OR WA WY".contains(state) && state.length() == 2);
            persons++;
            personBytes += 8 + name.length() + emailAddress.length() + creditCard.length() + city.length()
                + state.length() + extra.length();
            mix(id);
            mix(name);
            mix(emailAddress);
            mix(creditCard);
            mix(city);
            mix(state);
            mix(dateTime);
            mix(extra);
        }

        @Override
        public void auction(final long id, final CharSequence itemName, final CharSequence description,
                            final long initialBid, final long reserve, final long dateTime, final long expires,
                            final long seller, final long category, final CharSequence extra)
        {
            time(dateTime);
            if (firstAuctionId < 0)
            {
                firstAuctionId = id;
            }
            assertEquals(lastAuctionId + 1, id, "auction ids are sequential");
            lastAuctionId = id;
            assertTrue(category >= 10 && category < 15);
            assertTrue(expires > dateTime);
            assertTrue(reserve > initialBid);
            assertTrue(seller >= FIRST && seller <= lastPersonId + 10, "seller " + seller);
            if ((seller - FIRST) % 100 == 0)
            {
                hotSellerAuctions++;
            }
            if (category == 10)
            {
                category10++;
            }
            auctions++;
            auctionBytes += 8 + itemName.length() + description.length() + 8 * 5 + extra.length();
            mix(id);
            mix(itemName);
            mix(description);
            mix(initialBid);
            mix(reserve);
            mix(dateTime);
            mix(expires);
            mix(seller);
            mix(category);
            mix(extra);
        }

        @Override
        public void bid(final long auction, final long bidder, final long price, final CharSequence channel,
                        final CharSequence url, final long dateTime, final CharSequence extra)
        {
            time(dateTime);
            assertTrue(auction >= FIRST && auction <= lastAuctionId + 10, "auction " + auction);
            // corrected variant: bidder is a person id (or up to 10 ahead), not shifted by another 1000
            assertTrue(bidder >= FIRST && bidder <= lastPersonId + 10, "bidder " + bidder);
            assertTrue(price >= 100 && price <= 100_000_000L, "price " + price);
            minPrice = Math.min(minPrice, price);
            maxPrice = Math.max(maxPrice, price);
            assertTrue(url.toString().startsWith("https://www.nexmark.com/"));
            if ((auction - FIRST) % 100 == 0)
            {
                hotAuctionBids++;
            }
            if ((bidder - FIRST) % 100 == 1)
            {
                hotBidderBids++;
            }
            bids++;
            bidBytes += 32 + extra.length();
            mix(auction);
            mix(bidder);
            mix(price);
            mix(channel);
            mix(url);
            mix(dateTime);
            mix(extra);
        }

        @Override
        public void watermark(final long watermark)
        {
            assertTrue(watermark > lastWatermark);
            assertEquals(lastTs - 4000, watermark);
            lastWatermark = watermark;
            watermarks++;
        }
    }

    @Test
    void shouldEmitPersonsAuctionsAndBidsIn2To6To92Proportion()
    {
        final Recorder r = new Recorder();
        new NexmarkGenerator(1L).generate(100_000, r);
        assertEquals(100_000, r.events);
        assertEquals(2_000, r.persons);
        assertEquals(6_000, r.auctions);
        assertEquals(92_000, r.bids);
        assertEquals(100, r.watermarks);
    }

    @Test
    void shouldStartIdsAt1000()
    {
        final Recorder r = new Recorder();
        new NexmarkGenerator(1L).generate(100_000, r);
        assertEquals(1000, r.firstPersonId);
        assertEquals(1000, r.firstAuctionId);
        assertEquals(1000 + 2_000 - 1, r.lastPersonId);
        assertEquals(1000 + 6_000 - 1, r.lastAuctionId);
    }

    @Test
    void shouldBeDeterministicForASeed()
    {
        final Recorder a = new Recorder();
        final Recorder b = new Recorder();
        final Recorder c = new Recorder();
        new NexmarkGenerator(42L).generate(20_000, a);
        new NexmarkGenerator(42L).generate(20_000, b);
        new NexmarkGenerator(43L).generate(20_000, c);
        assertEquals(a.digest, b.digest);
        assertNotEquals(a.digest, c.digest);
    }

    @Test
    void shouldHitHotKeysAtTheReferenceRatesAndSizes()
    {
        final Recorder r = new Recorder();
        new NexmarkGenerator(7L).generate(100_000, r);
        final double hotAuction = (double) r.hotAuctionBids / r.bids;
        final double hotBidder = (double) r.hotBidderBids / r.bids;
        final double hotSeller = (double) r.hotSellerAuctions / r.auctions;
        assertTrue(hotAuction > 0.49 && hotAuction < 0.53, "hot auction share " + hotAuction);
        assertTrue(hotBidder > 0.74 && hotBidder < 0.77, "hot bidder share " + hotBidder);
        assertTrue(hotSeller > 0.73 && hotSeller < 0.78, "hot seller share " + hotSeller);
        final double category10 = (double) r.category10 / r.auctions;
        assertTrue(category10 > 0.18 && category10 < 0.22, "category 10 share " + category10);
        assertEquals(200.0, (double) r.personBytes / r.persons, 10.0);
        assertEquals(500.0, (double) r.auctionBytes / r.auctions, 10.0);
        assertEquals(100.0, (double) r.bidBytes / r.bids, 3.0);
        assertTrue(r.minPrice < 1_000 && r.maxPrice > 10_000_000, "log-uniform price range");
    }

    @Test
    void shouldStampEventTimeFromTheRate()
    {
        final NexmarkGenerator g = new NexmarkGenerator(1L, 5_000L, 10_000L, 0);
        assertEquals(5_000L, g.timestampForEvent(0));
        assertEquals(5_000L, g.timestampForEvent(9));
        assertEquals(5_001L, g.timestampForEvent(10));
        assertEquals(6_000L, g.timestampForEvent(10_000));
        assertEquals(0L, NexmarkGenerator.lastBase0PersonId(49));
        assertEquals(1L, NexmarkGenerator.lastBase0PersonId(50));
        assertEquals(2L, NexmarkGenerator.lastBase0AuctionId(49));
        assertEquals(2L, NexmarkGenerator.lastBase0AuctionId(50));
        assertEquals(3L, NexmarkGenerator.lastBase0AuctionId(51));
    }
}
