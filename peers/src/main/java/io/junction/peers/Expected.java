package io.junction.peers;

import io.junction.tools.workload.Checksum;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.RegularJoinCounts;
import io.junction.tools.workload.W6;
import io.junction.tools.workload.Workload;

import java.util.HashMap;
import java.util.Map;

/**
 * Expected output row counts of one generated workload, for any size.
 * <p>
 * Computed from the tape by a counting model of the join semantics of WORKLOADS.md ("Counting"), so that scaled
 * runs (-Dw1.n, -Dw2.n, ...) are checked too. Where the size is one of the WORKLOADS.md table rows, the table's
 * numbers and checksum are known as well ({@link #table}); {@link PeersMain} prints both and flags a
 * disagreement, which would mean the generator or the model is wrong.
 * <ul>
 *   <li>W1: every click matches exactly its impression, so inner = clicks and left outer = impressions
 *       (append-only: each impression once, matched or null-padded).</li>
 *   <li>W2/W3 (regular join, condition always true): inner = sum over keys of left x right rows.
 *       Flink SQL left-outer changelog: a left row emits one row per right row of its key so far, or one
 *       {@code +I(l,null)} if there is none; a right row emits one row per left row of its key, plus one
 *       {@code -D(l,null)} per left row when it is the key's first right row. Append-only left outer (Kafka
 *       Streams): inner + left rows whose key never gets a right row.</li>
 *   <li>W4 (a changelog): {@link RegularJoinCounts}, which counts retractions too (an update's {@code -U} and
 *       {@code +U} each emit one row per live row of the other side of their key, the left outer changelog's
 *       padding as for inserts); no append-only count ({@link #leftAppend} = -1).</li>
 *   <li>W5 (a temporal join): every order joins the rate valid at its ts, so inner = left outer = orders.</li>
 *   <li>W6 (ASOF backward within 1 s, final): {@link W6.Counts}: inner = the trades with a quote within the
 *       tolerance, left outer = trades, append-only.</li>
 * </ul>
 */
final class Expected
{
    /** Event rows (both sides). */
    final long events;
    final long leftRows;
    final long rightRows;
    /** Checksum of the tape (WORKLOADS.md). */
    final String checksum;
    final long inner;
    /** Left outer as a Flink SQL changelog (+I/-D/+I); equal to {@link #leftAppend} for W1. */
    final long leftChangelog;
    /** Left outer append-only (pairs + never-matched left rows). */
    final long leftAppend;
    /** The WORKLOADS.md table row for this size, or null when the size is not in the table. */
    final Table table;

    /** A row of the WORKLOADS.md table. */
    static final class Table
    {
        final String name;
        final long events;
        final String checksum;
        final long inner;
        final long leftChangelog;
        final long leftAppend;

        Table(final String name, final long events, final String checksum, final long inner, final long leftChangelog,
              final long leftAppend)
        {
            this.name = name;
            this.events = events;
            this.checksum = checksum;
            this.inner = inner;
            this.leftChangelog = leftChangelog;
            this.leftAppend = leftAppend;
        }
    }

    private Expected(final long events, final long leftRows, final long rightRows, final String checksum,
                     final long inner, final long leftChangelog, final long leftAppend, final Table table)
    {
        this.events = events;
        this.leftRows = leftRows;
        this.rightRows = rightRows;
        this.checksum = checksum;
        this.inner = inner;
        this.leftChangelog = leftChangelog;
        this.leftAppend = leftAppend;
        this.table = table;
    }

    /**
     * @param w    the workload the tape holds
     * @param size the size knobs it was generated with (for the table lookup)
     * @param tape the events
     * @return the expected counts
     */
    static Expected of(final Workload w, final Sizes size, final EventTape tape)
    {
        final Checksum sum = new Checksum();
        tape.replay(sum);
        final Table table = table(w, size);
        if (w == Workload.W1 || w == Workload.W1_BIG)
        {
            return new Expected(sum.events(), sum.left(), sum.right(), sum.hex(), sum.right(), sum.left(), sum.left(),
                table);
        }
        if (w == Workload.W5)
        {
            // temporal join: every order joins the rate valid at its ts (each currency has one from ts 0)
            return new Expected(sum.events(), sum.left(), sum.right(), sum.hex(), sum.left(), sum.left(), sum.left(), table);
        }
        if (w == Workload.W6)
        {
            final W6.Counts counts = new W6.Counts();
            tape.replay(counts);
            return new Expected(sum.events(), sum.left(), sum.right(), sum.hex(), counts.matched(), counts.trades(),
                counts.trades(), table);
        }
        if (w == Workload.W4)
        {
            final RegularJoinCounts counts = RegularJoinCounts.of(tape);
            return new Expected(sum.events(), sum.left(), sum.right(), sum.hex(), counts.inner(), counts.leftChangelog(),
                -1, table);
        }
        // regular join: per-key counters of left and right rows seen so far
        final Map<Long, long[]> perKey = new HashMap<>(1 << 16);
        long inner = 0;
        long changelog = 0;
        for (int i = 0, n = tape.size(); i < n; i++)
        {
            final byte type = tape.type(i);
            if (type != EventTape.TYPE_LEFT && type != EventTape.TYPE_RIGHT)
            {
                continue;
            }
            final long[] c = perKey.computeIfAbsent(tape.key(i), k -> new long[2]);
            if (type == EventTape.TYPE_LEFT)
            {
                inner += c[1];
                changelog += c[1] == 0 ? 1 : c[1];
                c[0]++;
            }
            else
            {
                inner += c[0];
                changelog += c[1] == 0 ? 2 * c[0] : c[0];
                c[1]++;
            }
        }
        long neverMatchedLeft = 0;
        for (final long[] c : perKey.values())
        {
            if (c[1] == 0)
            {
                neverMatchedLeft += c[0];
            }
        }
        return new Expected(sum.events(), sum.left(), sum.right(), sum.hex(), inner, changelog,
            inner + neverMatchedLeft, table);
    }

    private static Table table(final Workload w, final Sizes s)
    {
        switch (w)
        {
            case W1:
                return s.w1n == 2_000_000
                    ? new Table("W1", 2_398_949, "2dcdae3550414550", 398_949, 2_000_000, 2_000_000) : null;
            case W2:
                if (s.w2n == 1_000_000 && s.w2keys == 200_000)
                {
                    return new Table("W2", 2_000_000, "762550f0b51997fe", 5_000_737, 5_391_191, 5_007_459);
                }
                if (s.w2n == 100_000 && s.w2keys == 20_000)
                {
                    return new Table("W2 scaled for Kafka Streams", 200_000, "0646f7acbb3ee137", 500_157, 538_623,
                        500_849);
                }
                return null;
            case W3:
                if (s.w3n == 50_000)
                {
                    return new Table("W3 (run size)", 100_000, "7a0494d861fa7dcd", 57_123_820, 57_140_380, 57_135_066);
                }
                if (s.w3n == 1_000_000)
                {
                    return new Table("W3 (as briefed)", 2_000_000, "c3bbbea79d0849b1", 22_846_200_228L,
                        22_846_377_535L, -1);
                }
                return null;
            case W4:
                if (s.w4n == 20_000)
                {
                    return new Table("W4 (run size)", 280_000, "575036d4300ee770", 91_368_983, 91_418_031, -1);
                }
                if (s.w4n == 200_000)
                {
                    return new Table("W4 at 200,000 ids per side", 2_800_000, "ee9a9973eac34011", 9_169_471_996L,
                        9_169_787_030L, -1);
                }
                return null;
            case W5:
                return s.w5n == 1_000_000
                    ? new Table("W5", 1_101_000, "390bc4b8679b4774", 1_000_000, 1_000_000, 1_000_000) : null;
            case W6:
                return s.w6trades == W6.DEFAULT_TRADES
                    ? new Table("W6", 1_200_000, "c0fcba53937f0a4e", 140_983, 200_000, 200_000) : null;
            default:
                return null;
        }
    }

    /**
     * @return null if the model agrees with the table row (or there is none), else a description of the difference
     */
    String tableDisagreement()
    {
        if (table == null)
        {
            return null;
        }
        final StringBuilder sb = new StringBuilder();
        if (table.events != events)
        {
            sb.append(" events ").append(events).append(" != ").append(table.events);
        }
        if (!table.checksum.equals(checksum))
        {
            sb.append(" checksum ").append(checksum).append(" != ").append(table.checksum);
        }
        if (table.inner != inner)
        {
            sb.append(" inner ").append(inner).append(" != ").append(table.inner);
        }
        if (table.leftChangelog != leftChangelog)
        {
            sb.append(" left(changelog) ").append(leftChangelog).append(" != ").append(table.leftChangelog);
        }
        if (table.leftAppend >= 0 && table.leftAppend != leftAppend)
        {
            sb.append(" left(append) ").append(leftAppend).append(" != ").append(table.leftAppend);
        }
        return sb.length() == 0 ? null : sb.toString().trim();
    }
}
