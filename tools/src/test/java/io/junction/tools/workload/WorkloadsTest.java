package io.junction.tools.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.naive.NaiveJoin;
import io.junction.tools.naive.NaiveRegularJoin;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import java.util.Arrays;

/** Reproduces the WORKLOADS.md table: counts, checksums and join output rows (brute force). */
class WorkloadsTest
{

    // ---------------------------------------------------------------- W1

    /** Records W1 and checks its order and watermark invariants on the fly. */
    private static final class W1Recorder implements WorkloadSink
    {
        final Checksum checksum = new Checksum();
        final LongLongHashMap impressionTs;
        long[] clickKey = new long[1 << 16];
        long[] clickTs = new long[1 << 16];
        int clicks;
        long nextLeftF1;
        long nextRightF1;
        long lastTs = Long.MIN_VALUE;
        int lastSide = RIGHT;
        long lastWatermark = Long.MIN_VALUE;
        long events;
        long watermarks;
        long lateRows;
        long wrongWatermarkPlacement;
        boolean ended;
        boolean rowAfterEnd;

        W1Recorder(final int n)
        {
            impressionTs = new LongLongHashMap(n);
        }

        @Override
        public void row(final int side, final long key, final long ts, final long f1)
        {
            checksum.row(side, key, ts, f1);
            rowAfterEnd |= ended;
            assertTrue(ts > lastTs || ts == lastTs && !(side == LEFT && lastSide == RIGHT),
                "not (ts, impression first) ordered at event " + events);
            if (ts <= lastWatermark)
            {
                lateRows++;
            }
            lastTs = ts;
            lastSide = side;
            events++;
            if (side == LEFT)
            {
                assertEquals(nextLeftF1++, f1);
                assertEquals(f1, ts);
                assertEquals(SplitMix64.mix64(f1), key);
                assertEquals(LongLongHashMap.MISSING, impressionTs.put(key, ts), "impression keys are unique");
            }
            else
            {
                assertEquals(nextRightF1++, f1);
                if (clicks == clickKey.length)
                {
                    clickKey = Arrays.copyOf(clickKey, clicks * 2);
                    clickTs = Arrays.copyOf(clickTs, clicks * 2);
                }
                clickKey[clicks] = key;
                clickTs[clicks] = ts;
                clicks++;
            }
        }

        @Override
        public void watermark(final long watermark)
        {
            assertTrue(watermark > lastWatermark, "watermarks must increase");
            if (events % 1000 != 0 || watermark != lastTs - 5000)
            {
                wrongWatermarkPlacement++;
            }
            lastWatermark = watermark;
            watermarks++;
        }

        @Override
        public void end()
        {
            assertTrue(!ended, "end() twice");
            ended = true;
        }

        /** Brute-force interval join: {inner rows, append-only left outer rows}. */
        long[] join(final long interval)
        {
            final boolean[] matched = new boolean[(int) nextLeftF1];
            long inner = 0;
            for (int c = 0; c < clicks; c++)
            {
                final long its = impressionTs.get(clickKey[c]);   // keys are unique: at most one candidate
                if (its != LongLongHashMap.MISSING && clickTs[c] >= its - interval && clickTs[c] <= its + interval)
                {
                    inner++;
                    matched[(int) its] = true;                    // impression ts == its index
                }
            }
            long unmatched = 0;
            for (final boolean m : matched)
            {
                if (!m)
                {
                    unmatched++;
                }
            }
            return new long[] {inner, inner + unmatched};
        }
    }

    @Test
    void shouldReproduceW1CountsAndChecksum()
    {
        final W1Recorder r = new W1Recorder(Workloads.W1_N_DEFAULT);
        Workloads.w1(Workloads.W1_N_DEFAULT, r);
        assertEquals(2_398_949L, r.checksum.events());
        assertEquals(2_000_000L, r.checksum.left());
        assertEquals(398_949L, r.checksum.right());
        assertEquals("2dcdae3550414550", r.checksum.hex());
        assertTrue(r.ended && !r.rowAfterEnd, "end() exactly once, last");
        assertEquals(0, r.lateRows, "the merged sequence is ts-ordered, so no row is late");
        assertEquals(0, r.wrongWatermarkPlacement, "watermark = max ts - 5000 right after every 1000th event");
        assertEquals(2_398_949L / 1000, r.watermarks);

        final long[] join = r.join(Workloads.w1IntervalMillis(Workload.W1));
        assertEquals(398_949L, join[0], "W1 inner rows: every click matches exactly its impression");
        assertEquals(2_000_000L, join[1], "W1 append-only left outer rows");
    }

    @Test
    void shouldReproduceW1BigCountsChecksumAndJoinRows()
    {
        final W1Recorder r = new W1Recorder(Workloads.W1_BIG_N_DEFAULT);
        Workloads.generate(Workload.W1_BIG, new Properties(), r);
        assertEquals(11_999_661L, r.checksum.events());
        assertEquals(10_000_000L, r.checksum.left());
        assertEquals(1_999_661L, r.checksum.right());
        assertEquals("f32504e695f1d096", r.checksum.hex());
        assertEquals(11_999_661L / 1000, r.watermarks);
        assertEquals(0, r.lateRows);

        final long[] join = r.join(Workloads.w1IntervalMillis(Workload.W1_BIG));
        assertEquals(1_999_661L, join[0], "W1-big inner rows: every click matches exactly its impression");
        assertEquals(10_000_000L, join[1], "W1-big append-only left outer rows");
    }

    @Test
    void shouldGiveW1IntervalsPerVariant()
    {
        assertEquals(30_000L, Workloads.w1IntervalMillis(Workload.W1));
        assertEquals(3_600_000L, Workloads.w1IntervalMillis(Workload.W1_BIG));
        assertThrows(IllegalArgumentException.class, () -> Workloads.w1IntervalMillis(Workload.W2));
    }

    @Test
    void shouldMatchEveryClickToItsOwnImpressionForAnyN()
    {
        final W1Recorder r = new W1Recorder(10_000);
        Workloads.w1(10_000, r);
        assertEquals(10_000L, r.checksum.left());
        assertEquals(10_000L, r.impressionTs.size());
        assertEquals(r.clicks, r.join(30_000)[0]);
    }

    // ---------------------------------------------------------------- W2

    @Test
    void shouldReproduceW2CountsChecksumAndJoinRows()
    {
        final Checksum checksum = new Checksum();
        final RegularJoinCounter join = new RegularJoinCounter(200_000);
        Workloads.w2(1_000_000, 200_000, new Tee(checksum, join));
        assertEquals(2_000_000L, checksum.events());
        assertEquals(1_000_000L, checksum.left());
        assertEquals(1_000_000L, checksum.right());
        assertEquals("762550f0b51997fe", checksum.hex());
        assertEquals(0, checksum.watermarks());
        assertTrue(checksum.ended());
        assertEquals(5_000_737L, join.inner);
        assertEquals(5_000_737L, join.innerFromCounts());
        assertEquals(5_007_459L, join.appendOnlyLeftOuter());
        assertEquals(5_391_191L, join.changelog);
    }

    @Test
    void shouldReproduceW2ScaledForKafkaStreams()
    {
        final Checksum checksum = new Checksum();
        final RegularJoinCounter join = new RegularJoinCounter(20_000);
        final Properties props = new Properties();
        props.setProperty(Workloads.W2_N_PROP_NAME, "100000");
        props.setProperty(Workloads.W2_KEYS_PROP_NAME, "20000");
        Workloads.generate(Workload.W2, props, new Tee(checksum, join));
        assertEquals(200_000L, checksum.events());
        assertEquals(100_000L, checksum.left());
        assertEquals("0646f7acbb3ee137", checksum.hex());
        assertEquals(500_157L, join.inner);
        assertEquals(538_623L, join.changelog);
        assertEquals(500_849L, join.appendOnlyLeftOuter());
    }

    @Test
    void shouldNumberRowsPerSideAndStampTsWithTheGlobalIndex()
    {
        final long[] next = new long[2];
        final long[] t = {0};
        Workloads.w2(1000, 10, new WorkloadSink()
        {
            @Override
            public void row(final int side, final long key, final long ts, final long f1)
            {
                assertEquals(next[side]++, f1);
                assertEquals(t[0]++, ts);
                assertTrue(key >= 0 && key < 10);
            }

            @Override
            public void watermark(final long watermark)
            {
                throw new AssertionError();
            }

            @Override
            public void end()
            {
            }
        });
        assertEquals(1000, next[0]);
        assertEquals(1000, next[1]);
    }

    // ---------------------------------------------------------------- W3

    @Test
    void shouldReproduceW3RunSizeCountsChecksumStatsAndJoinRows()
    {
        final Checksum checksum = new Checksum();
        final RegularJoinCounter join = new RegularJoinCounter(1_000_001);
        Workloads.generate(Workload.W3, new Properties(), new Tee(checksum, join));
        assertEquals(100_000L, checksum.events());
        assertEquals(50_000L, checksum.left());
        assertEquals(50_000L, checksum.right());
        assertEquals("7a0494d861fa7dcd", checksum.hex());
        assertEquals(0, join.left[0] + join.right[0], "W3 keys are 1 .. M");
        assertEquals(24_138, join.distinctKeys());
        final int hot = join.hottestKey();
        assertEquals(1, hot);
        assertEquals(6_136, join.left[hot]);
        assertEquals(6_237, join.right[hot]);
        assertEquals(57_123_820L, join.inner);
        assertEquals(57_123_820L, join.innerFromCounts());
        assertEquals(57_140_380L, join.changelog);
        assertEquals(57_135_066L, join.appendOnlyLeftOuter());
    }

    @Test
    void shouldReproduceW3AsBriefedWithOneMillionRowsPerSide()
    {
        final Checksum checksum = new Checksum();
        final RegularJoinCounter join = new RegularJoinCounter(1_000_001);
        Workloads.w3(1_000_000, 1_000_000, new Tee(checksum, join));
        assertEquals(2_000_000L, checksum.events());
        assertEquals("c3bbbea79d0849b1", checksum.hex());
        assertEquals(22_846_200_228L, join.inner);
        assertEquals(22_846_377_535L, join.changelog);
    }

    @Test
    void shouldBuildZipfCdfAndSearchTheSmallestKeyAbove()
    {
        final double[] cdf = Workloads.zipfCdf(1000, 1.1);
        assertEquals(1.0, cdf[1000], 1e-12);
        assertEquals(1L, Workloads.zipfKey(cdf, 0.0));
        assertEquals(2L, Workloads.zipfKey(cdf, cdf[1]));           // v < cdf[k] is strict
        assertEquals(1000L, Workloads.zipfKey(cdf, Math.nextDown(1.0)));
        for (int k = 2; k <= 1000; k++)
        {
            assertTrue(cdf[k] >= cdf[k - 1]);
        }
    }

    // ---------------------------------------------------------------- W4

    /** Checks W4's construction on the fly: ids, versions, -U/+U pairs, positions as ts, fixed keys. */
    private static final class W4Recorder implements WorkloadSink
    {
        final Checksum checksum = new Checksum();
        final int n;
        final long[][] key;
        final long[][] ts;
        final int[][] updates;
        final int[] inserted = new int[2];
        final long[] kinds = new long[4];
        long position;
        int pendingPlus = -1;        // side of a -U whose +U must come next, or -1
        long pendingId;
        boolean ended;

        W4Recorder(final int n)
        {
            this.n = n;
            key = new long[2][n];
            ts = new long[2][n];
            updates = new int[2][n];
        }

        @Override
        public void row(final int side, final long k, final long t, final long f1)
        {
            change(side, INSERT, k, t, f1);
        }

        @Override
        public void change(final int side, final byte kind, final long k, final long t, final long f1)
        {
            checksum.change(side, kind, k, t, f1);
            kinds[kind]++;
            final int id = Math.toIntExact(f1);
            if (pendingPlus >= 0)
            {
                assertEquals(UPDATE_AFTER, kind, "a -U is immediately followed by its +U, at event " + position);
                assertEquals(pendingPlus, side);
                assertEquals(pendingId, f1);
            }
            switch (kind)
            {
                case INSERT:
                    assertEquals(inserted[side]++, f1, "ids are numbered in insert order per side");
                    assertEquals(position, t, "ts of a +I is its position");
                    assertTrue(k >= 1 && k <= Workloads.W4_M_DEFAULT);
                    key[side][id] = k;
                    ts[side][id] = t;
                    break;
                case UPDATE_BEFORE:
                    assertTrue(id < inserted[side], "an update follows its id's insert");
                    assertEquals(key[side][id], k, "the -U retracts the id's current version: same key");
                    assertEquals(ts[side][id], t, "the -U retracts the id's current version: same ts");
                    pendingPlus = side;
                    pendingId = f1;
                    break;
                case UPDATE_AFTER:
                    assertEquals(side, pendingPlus, "a +U comes right after its -U");
                    assertEquals(key[side][id], k, "an update never changes the join key");
                    assertEquals(position, t, "ts of a +U is its position");
                    ts[side][id] = t;
                    updates[side][id]++;
                    pendingPlus = -1;
                    break;
                default:
                    throw new AssertionError("W4 has no deletes");
            }
            position++;
        }

        @Override
        public void watermark(final long watermark)
        {
            throw new AssertionError("W4 has no watermarks");
        }

        @Override
        public void end()
        {
            assertFalse(ended, "end() twice");
            assertEquals(-1, pendingPlus, "the last -U has its +U");
            ended = true;
        }

        void assertEveryIdUpdated(final int u)
        {
            for (int side = 0; side < 2; side++)
            {
                assertEquals(n, inserted[side]);
                for (int id = 0; id < n; id++)
                {
                    assertEquals(u, updates[side][id], "updates of id " + id + " on side " + side);
                }
            }
        }
    }

    private static EventTape w4(final Properties props, final W4Recorder recorder)
    {
        final EventTape tape = new EventTape();
        Workloads.generate(Workload.W4, props, new Tee(tape, recorder));
        return tape;
    }

    @Test
    void shouldReproduceW4RunSizeCountsChecksumStatsAndJoinRowsByANaiveChangelogJoin()
    {
        final W4Recorder r = new W4Recorder(Workloads.W4_N_DEFAULT);
        final EventTape tape = w4(new Properties(), r);
        assertEquals(280_000L, r.checksum.events());
        assertEquals(140_000L, r.checksum.left());
        assertEquals(140_000L, r.checksum.right());
        assertEquals(120_000L, r.checksum.retractions());
        assertEquals("575036d4300ee770", r.checksum.hex());
        assertEquals(40_000L, r.kinds[WorkloadSink.INSERT]);
        assertEquals(120_000L, r.kinds[WorkloadSink.UPDATE_BEFORE]);
        assertEquals(120_000L, r.kinds[WorkloadSink.UPDATE_AFTER]);
        assertTrue(r.ended);
        r.assertEveryIdUpdated(Workloads.W4_UPDATES);
        assertEquals(280_001, tape.size(), "rows and the end, no watermarks");
        assertEquals(120_000L * 2, tape.changes());

        // the hottest key, counted in ids (+I rows)
        final long[][] idsPerKey = new long[2][Workloads.W4_M_DEFAULT + 1];
        for (int side = 0; side < 2; side++)
        {
            for (int id = 0; id < Workloads.W4_N_DEFAULT; id++)
            {
                idsPerKey[side][(int) r.key[side][id]]++;
            }
        }
        int hottest = 1;
        int distinct = 0;
        for (int k = 1; k <= Workloads.W4_M_DEFAULT; k++)
        {
            final long ids = idsPerKey[0][k] + idsPerKey[1][k];
            distinct += ids > 0 ? 1 : 0;
            if (ids > idsPerKey[0][hottest] + idsPerKey[1][hottest])
            {
                hottest = k;
            }
        }
        assertEquals(11_628, distinct);
        assertEquals(1, hottest);
        assertEquals(2_523L, idsPerKey[0][1]);
        assertEquals(2_465L, idsPerKey[1][1]);

        // brute force: rows stored and retracted by value
        final NaiveRegularJoin inner = new NaiveRegularJoin(NaiveJoin.Type.INNER);
        tape.replay(inner);
        assertEquals(0L, inner.deadLetters(), "every -U finds the version it retracts");
        assertEquals(91_368_983L, inner.outputRows());
        assertEquals(9_164_585L, inner.inserts());
        assertEquals(82_204_398L, inner.updates());
        assertEquals(0L, inner.deletes());
        assertEquals(40_000L, inner.liveRows(), "n rows per side stay live");

        final NaiveRegularJoin left = new NaiveRegularJoin(NaiveJoin.Type.LEFT);
        tape.replay(left);
        assertEquals(0L, left.deadLetters());
        assertEquals(91_418_031L, left.outputRows());
        assertEquals(50_294_030L, left.inserts());
        assertEquals(41_124_001L, left.deletes());
        assertEquals(0L, left.updates(), "outer pairs are +I or -D");
        assertEquals(91_368_983L, left.pairs());

        // the counting model loadgen and the peers check against agrees with the brute force
        final RegularJoinCounts counts = RegularJoinCounts.of(tape);
        assertEquals(91_368_983L, counts.inner());
        assertEquals(91_418_031L, counts.leftChangelog());
        assertEquals(0L, counts.deadLetters());
        assertEquals(11_628, counts.distinctKeys());
    }

    @Test
    void shouldReproduceW4AtTwoHundredThousandIdsPerSideByCounting()
    {
        final Properties props = new Properties();
        props.setProperty(Workloads.W4_N_PROP_NAME, "200000");
        final Checksum checksum = new Checksum();
        final RegularJoinCounts counts = new RegularJoinCounts();
        Workloads.generate(Workload.W4, props, new Tee(checksum, counts));
        assertEquals(2_800_000L, checksum.events());
        assertEquals(1_400_000L, checksum.left());
        assertEquals("ee9a9973eac34011", checksum.hex());
        assertEquals(9_169_471_996L, counts.inner());
        assertEquals(9_169_787_030L, counts.leftChangelog());
        assertEquals(0L, counts.deadLetters());
    }

    @Test
    void shouldBuildW4ForAnySizeFromIdsInsertedOnceAndUpdatedUTimes()
    {
        final Properties props = new Properties();
        props.setProperty(Workloads.W4_N_PROP_NAME, "1500");
        final W4Recorder r = new W4Recorder(1500);
        final EventTape tape = w4(props, r);
        r.assertEveryIdUpdated(Workloads.W4_UPDATES);
        assertEquals(Workloads.rowCount(Workload.W4, props), tape.rows());
        final NaiveRegularJoin naive = new NaiveRegularJoin(NaiveJoin.Type.LEFT);
        tape.replay(naive);
        assertEquals(RegularJoinCounts.of(tape).leftChangelog(), naive.outputRows());
        assertEquals(0L, naive.deadLetters());

        final W4Recorder none = new W4Recorder(10);
        Workloads.w4(10, 100, 0, none);
        none.assertEveryIdUpdated(0);
        assertEquals(20L, none.checksum.events(), "no updates: inserts only");
    }

    @Test
    void shouldRefuseToFeedW4ToAnInsertOnlySink()
    {
        final RegularJoinCounter insertOnly = new RegularJoinCounter(1_000_001);
        final UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
            () -> Workloads.w4(100, 1_000_000, 3, insertOnly));
        assertTrue(e.getMessage().contains("-U"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Workloads.w4(10, 100, -1, new Checksum()));
        assertThrows(IllegalArgumentException.class, () -> Workloads.w4(0, 100, 3, new Checksum()));
    }

    @Test
    void shouldAddTheChangeKindToTheChecksumOnly()
    {
        final Checksum insert = new Checksum();
        insert.row(WorkloadSink.RIGHT, 5, 7, 0);
        final Checksum update = new Checksum();
        update.change(WorkloadSink.RIGHT, WorkloadSink.UPDATE_AFTER, 5, 7, 0);
        assertEquals(5 * 7 + 7 * 3 + 1, insert.value());
        assertEquals(insert.value() + 2 * WorkloadSink.UPDATE_AFTER, update.value());
        assertEquals(0L, insert.retractions());
    }

    // ---------------------------------------------------------------- W5

    @Test
    void shouldBuildW5AsOrdersAndRateUpdatesThatAreNeverLate()
    {
        final int n = 20_000;
        final int every = 10;
        final Properties props = new Properties();
        props.setProperty(Workloads.W5_N_PROP_NAME, Integer.toString(n));
        props.setProperty(Workloads.W5_RATE_EVERY_PROP_NAME, Integer.toString(every));
        final long[] counts = new long[4];
        final long[] hot = new long[Workloads.W5_CURRENCIES + 1];
        final long[] watermark = {Long.MIN_VALUE};
        final WorkloadSink check = new WorkloadSink()
        {
            @Override
            public void row(final int side, final long key, final long ts, final long f1)
            {
                change(side, WorkloadSink.INSERT, key, ts, f1);
            }

            @Override
            public void change(final int side, final byte kind, final long key, final long ts, final long f1)
            {
                assertTrue(key >= 1 && key <= Workloads.W5_CURRENCIES, "currency " + key);
                assertTrue(ts >= watermark[0], "late row at ts " + ts + " below watermark " + watermark[0]);
                if (side == LEFT)
                {
                    assertEquals(WorkloadSink.INSERT, kind, "orders are append-only");
                    hot[(int) key]++;
                    counts[0]++;
                }
                else if (kind == WorkloadSink.INSERT)
                {
                    assertEquals(0L, ts, "the table's first versions are at ts 0");
                    counts[1]++;
                }
                else
                {
                    assertEquals(WorkloadSink.UPDATE_AFTER, kind);
                    counts[2]++;
                }
            }

            @Override
            public void watermark(final long w)
            {
                assertTrue(w > watermark[0]);
                watermark[0] = w;
                counts[3]++;
            }

            @Override
            public void end()
            {
            }
        };
        final EventTape tape = new EventTape();
        Workloads.generate(Workload.W5, props, new Tee(tape, check));
        assertEquals(n, counts[0]);
        assertEquals(Workloads.W5_CURRENCIES, counts[1]);
        assertEquals(n / every, counts[2]);
        assertTrue(counts[3] > 10, "watermarks: " + counts[3]);
        assertEquals(Workloads.rowCount(Workload.W5, props), tape.rows());
        assertTrue(hot[1] > n / 10, "Zipf: currency 1 is hot, " + hot[1] + " orders");
    }

    @Test
    void shouldReproduceW5sCountsAndChecksum()
    {
        final Checksum checksum = new Checksum();
        final EventTape tape = new EventTape();
        Workloads.generate(Workload.W5, new Properties(), new Tee(checksum, tape));
        assertEquals("390bc4b8679b4774", checksum.hex());
        assertEquals(1_101_000L, tape.rows());
        long left = 0;
        long watermarks = 0;
        for (int i = 0; i < tape.size(); i++)
        {
            left += tape.type(i) == EventTape.TYPE_LEFT ? 1 : 0;
            watermarks += tape.type(i) == EventTape.TYPE_WATERMARK ? 1 : 0;
        }
        assertEquals(1_000_000L, left);
        assertEquals(1_101L, watermarks);
    }

    // ---------------------------------------------------------------- W6

    @Test
    void shouldReproduceW6sCountsAndChecksum()
    {
        final Checksum checksum = new Checksum();
        final W6.Counts counts = new W6.Counts();
        final long[] hot = new long[W6.SYMBOLS + 1];
        final WorkloadSink trades = new WorkloadSink()
        {
            @Override
            public void row(final int side, final long key, final long ts, final long f1)
            {
                if (side == LEFT)
                {
                    hot[(int) key]++;
                }
            }

            @Override
            public void watermark(final long watermark)
            {
            }

            @Override
            public void end()
            {
            }
        };
        Workloads.generate(Workload.W6, new Properties(), new Tee(checksum, new Tee(counts, trades)));
        assertEquals("c0fcba53937f0a4e", checksum.hex());
        assertEquals(200_000L, checksum.left());
        assertEquals(1_000_000L, checksum.right());
        assertEquals(12_000L, checksum.watermarks());
        assertEquals(1_200_000L, Workloads.rowCount(Workload.W6, new Properties()));
        assertEquals(0L, counts.late());
        assertEquals(200_000L, counts.trades(), "left join, final: one row per trade");
        assertEquals(140_983L, counts.matched(), "inner join, final: the trades with a quote within 1 s");
        assertEquals(374_950L, counts.eagerLeft(), "left join, eager: one per trade, two per correction");
        assertEquals(315_005L, counts.eagerInner(), "inner join, eager: one per first match, two per correction");
        assertEquals(31_728L, hot[1], "Zipf: symbol 1 is hot");
    }

    /** A small W6 against the SPEC's words, by brute force: no row late, quotes out of order within 50 ms, merge_asof. */
    @Test
    void w6sCountingModelIsABruteForceMergeAsof()
    {
        final int n = 3_000;
        final List<long[]> rows = new ArrayList<>();
        final long[] position = {0};
        final long[] lastWatermark = {Long.MIN_VALUE};
        final W6.Counts counts = new W6.Counts();
        Workloads.generate(Workload.W6, props(W6.TRADES_PROP_NAME, n), new Tee(counts, new WorkloadSink()
        {
            @Override
            public void row(final int side, final long key, final long ts, final long f1)
            {
                final long i = position[0]++;
                assertTrue(ts >= lastWatermark[0], "never late: " + ts + " below " + lastWatermark[0]);
                assertTrue(ts <= i && ts >= i - W6.MAX_QUOTE_DELAY_MS, "within 50 ms of its position " + i + ": " + ts);
                assertEquals(side == LEFT, i % 6 == 5);
                assertTrue(key >= 1 && key <= W6.SYMBOLS);
                rows.add(new long[] {side, key, ts});
            }

            @Override
            public void watermark(final long watermark)
            {
                assertTrue(watermark > lastWatermark[0]);
                lastWatermark[0] = watermark;
            }

            @Override
            public void end()
            {
            }
        }));
        long matched = 0;
        for (final long[] t : rows)
        {
            if (t[0] != WorkloadSink.LEFT)
            {
                continue;
            }
            for (final long[] q : rows)
            {
                if (q[0] == WorkloadSink.RIGHT && q[1] == t[1] && q[2] <= t[2] && t[2] - q[2] <= W6.TOLERANCE_MS)
                {
                    matched++;
                    break;
                }
            }
        }
        assertEquals(n, counts.trades());
        assertEquals(matched, counts.matched());
        assertTrue(counts.eagerLeft() > n, "eager mode corrects some trades: " + counts.eagerLeft());
    }

    private static Properties props(final String name, final int value)
    {
        final Properties props = new Properties();
        props.setProperty(name, Integer.toString(value));
        return props;
    }

    // ---------------------------------------------------------------- generate / parse

    @Test
    void shouldParseWorkloadNamesCaseInsensitively()
    {
        assertEquals(Workload.W1, Workload.parse("w1"));
        assertEquals(Workload.W1_BIG, Workload.parse("W1-big"));
        assertEquals(Workload.W1_BIG, Workload.parse("w1-BIG"));
        assertEquals(Workload.W1_BIG, Workload.parse("W1_BIG"));
        assertEquals(Workload.W2, Workload.parse(" W2 "));
        assertEquals(Workload.W3, Workload.parse("w3"));
        assertEquals(Workload.W4, Workload.parse("w4"));
        assertTrue(Workload.W4.isChangelog());
        assertFalse(Workload.W3.isChangelog());
        assertEquals("W1-big", Workload.W1_BIG.toString());
        assertEquals(Workload.W5, Workload.parse("w5"));
        assertFalse(Workload.W5.isChangelog());
        assertEquals(Workload.W6, Workload.parse("w6"));
        assertFalse(Workload.W6.isChangelog());
        assertEquals(Workload.W8, Workload.parse("w8"));
        assertEquals(Workload.W8_FLAT, Workload.parse("W8-FLAT"));
        assertEquals("W8-flat", Workload.W8_FLAT.displayName());
        assertThrows(IllegalArgumentException.class, () -> Workload.parse("W9"));
        assertThrows(IllegalArgumentException.class, () -> Workload.parse(null));
    }

    @Test
    void shouldRejectBadSizesWithTheRangeInTheMessage()
    {
        final Properties props = new Properties();
        props.setProperty(Workloads.W2_N_PROP_NAME, "0");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Workloads.generate(Workload.W2, props, new Checksum()));
        assertTrue(e.getMessage().contains("w2.n"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Workloads.w1(0, new Checksum()));
        assertThrows(IllegalArgumentException.class, () -> Workloads.w3(10, 0, new Checksum()));
    }

    @Test
    void shouldPredictRowCountsOfRegularJoinWorkloads()
    {
        final Properties props = new Properties();
        assertEquals(2_000_000L, Workloads.rowCount(Workload.W2, props));
        assertEquals(100_000L, Workloads.rowCount(Workload.W3, props));
        assertEquals(280_000L, Workloads.rowCount(Workload.W4, props));
        assertEquals(-1L, Workloads.rowCount(Workload.W1, props));
    }

    /** Forwards every event to two sinks. */
    static final class Tee implements WorkloadSink
    {
        private final WorkloadSink a;
        private final WorkloadSink b;

        Tee(final WorkloadSink a, final WorkloadSink b)
        {
            this.a = a;
            this.b = b;
        }

        @Override
        public void row(final int side, final long key, final long ts, final long f1)
        {
            a.row(side, key, ts, f1);
            b.row(side, key, ts, f1);
        }

        @Override
        public void change(final int side, final byte kind, final long key, final long ts, final long f1)
        {
            a.change(side, kind, key, ts, f1);
            b.change(side, kind, key, ts, f1);
        }

        @Override
        public void watermark(final long watermark)
        {
            a.watermark(watermark);
            b.watermark(watermark);
        }

        @Override
        public void end()
        {
            a.end();
            b.end();
        }
    }

    // ---------------------------------------------------------------- W7

    @Test
    void w7IsExactToItsChecksum()
    {
        final W7.Checksum checksum = new W7.Checksum();
        final long[][] live = W7.generate(W7.DEFAULT_ORDERS, checksum);
        final StringBuilder counts = new StringBuilder();
        for (int i = 0; i < 4; i++)
        {
            counts.append(W7.INPUTS.get(i)).append(' ');
            for (byte k = 0; k < 4; k++)
            {
                counts.append(k == 0 ? "" : "/").append(checksum.count(i, k));
            }
            counts.append("; ");
        }
        long liveRows = 0;
        for (final long[] input : live)
        {
            for (final long f1 : input)
            {
                liveRows += f1 >= 0 ? 1 : 0;
            }
        }
        assertEquals("21840facd85ed26c", checksum.hex());
        assertEquals(242_048, checksum.events());
        assertEquals("orders 12634/20549/20549/6862; payments 14892/24854/24854/8368; shipments 14701/24854/24854/8343; " +
            "refunds 8211/11791/11791/3941; ", counts.toString(), "+I/-U/+U/-D per input");
        assertEquals(22_924, liveRows);
        assertEquals(5_772, W7Bench.bruteForce(live).size(), "join rows at the end: one per live order");
    }


    // ---------------------------------------------------------------- W8

    private static final long W8_EVENTS = 948_980;
    private static final long W8_ADS = 2_248_872;
    private static final long W8_CLICKS = 448_980;

    @Test
    void w8IsExactToItsChecksumAndCounts()
    {
        final Checksum checksum = new Checksum();
        final EventTape tape = new EventTape();
        W8.generate(W8.DEFAULT_SHOWS, tape);
        tape.replay(checksum);
        final W8.Counts counts = new W8.Counts();
        tape.replay(counts);
        assertEquals("3cafef9d6722463f", checksum.hex());
        assertEquals(W8_EVENTS, checksum.events());
        assertEquals(500_000L, checksum.left());
        assertEquals(W8_ADS, counts.ads(), "ads, the rows the unnest makes and the left join's rows");
        assertEquals(W8_CLICKS, counts.clicks(), "clicks, the inner join's rows");
        final Checksum flat = new Checksum();
        Workloads.generate(Workload.W8_FLAT, new Properties(), flat);
        assertEquals(W8_ADS, flat.left(), "W8-flat: one left row per ad");
        assertEquals(W8_CLICKS, flat.right());
        assertEquals("8bf19b01efde81df", flat.hex());
    }

    @Test
    void w8sClicksEachMeetExactlyTheirOwnAdInTime()
    {
        final EventTape tape = new EventTape();
        W8.generate(2_000, tape);
        // Brute force: every (show, ad) against every click on the ad id, within the interval.
        final Map<Long, Long> showOfAd = new HashMap<>();
        final List<long[]> clicks = new ArrayList<>();
        long maxTs = Long.MIN_VALUE;
        long lastWatermark = Long.MIN_VALUE;
        int adsPerShowSeen = 0;
        for (int i = 0; i < tape.size(); i++)
        {
            final byte type = tape.type(i);
            if (type == EventTape.TYPE_LEFT)
            {
                assertEquals(tape.f1(i), tape.ts(i), "show i at ts i");
                final int k = W8.ads(tape.f1(i));
                assertTrue(k >= 1 && k <= W8.MAX_ADS);
                adsPerShowSeen |= 1 << (k - 1);
                for (int j = 0; j < k; j++)
                {
                    assertEquals(null, showOfAd.put(W8.ad(tape.f1(i), j), tape.ts(i)), "ad ids are distinct");
                }
            }
            else if (type == EventTape.TYPE_RIGHT)
            {
                clicks.add(new long[] {tape.key(i), tape.ts(i)});
            }
            if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
            {
                assertTrue(tape.ts(i) > lastWatermark, "no row is late");
                maxTs = Math.max(maxTs, tape.ts(i));
            }
            else if (type == EventTape.TYPE_WATERMARK)
            {
                assertTrue(tape.ts(i) <= maxTs - Workloads.W1_WATERMARK_LAG_MS);
                lastWatermark = tape.ts(i);
            }
        }
        assertEquals(0xFF, adsPerShowSeen, "shows of every size from 1 to 8 ads");
        for (final long[] click : clicks)
        {
            int matches = 0;
            for (final Map.Entry<Long, Long> ad : showOfAd.entrySet())
            {
                if (ad.getKey() == click[0] && Math.abs(click[1] - ad.getValue()) <= W8.INTERVAL_MS)
                {
                    matches++;
                }
            }
            assertEquals(1, matches, "a click meets its own ad's show only");
        }
        final W8.Counts counts = new W8.Counts();
        tape.replay(counts);
        assertEquals(clicks.size(), counts.clicks());
        assertEquals(showOfAd.size(), counts.ads());
    }
}
