package io.junction.join;

import io.junction.api.JoinType;
import io.junction.api.Side;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.Predicate;

/**
 * A brute-force model of the regular join's retraction changelog with SEMANTICS 4.5-4.7's padded-row delay (and
 * SEMANTICS 1's state TTL), written from the SPEC's sentences, independently of the operator: every stored
 * copy is an object in a list per side, in arrival order; every event walks the lists.
 * <ul>
 *   <li>A row arrives: it joins each matching stored row of the other side ({@code -(o, null)} first when
 *       o is an outer row with count 0 that is no longer pending); it is pending when its side has a delay,
 *       it is stored and matchable, and the join watermark is not above {@code ts + D}; unmatched and not
 *       pending, it is padded at once.</li>
 *   <li>A retraction removes the oldest equal stored copy (none: a dead letter, no output), retracting its
 *       pairs ({@code +(o, null)} when o's count returns to 0 and o is not pending), then its own padded
 *       row if its stored count is 0 and it is not pending.</li>
 *   <li>The join watermark (min of the inputs') rises to W: each pending row whose {@code ts + D < W}
 *       stops pending and is padded if its count is 0; then rows with {@code ts + ttl < W} leave the state
 *       silently, keeping the counts of the rows they matched; one still pending and unmatched is padded
 *       all the same at the first watermark above its {@code ts + D} (it can never match again).</li>
 *   <li>End of input: every pending row, in the state or expired, is padded if its count is 0.</li>
 * </ul>
 * Outputs are {@code "+ left right"} / {@code "- left right"} texts, {@code null} for a padded side.
 */
final class ShapingModel
{
    /** One stored copy. */
    static final class Copy
    {
        final int row;
        final String text;
        final long ts;
        int count;
        boolean pending;

        Copy(final int row, final String text, final long ts)
        {
            this.row = row;
            this.text = text;
            this.ts = ts;
        }
    }

    private final JoinType type;
    private final long delay;
    private final long leftTtl;
    private final long rightTtl;
    /** (left row index, right row index) match the ON clause. */
    private final BiPredicate<Integer, Integer> match;
    /** A row of the side can match at all (non-null key, own filter passes). */
    private final Predicate<Integer> leftMatchable;
    private final Predicate<Integer> rightMatchable;
    private final List<Copy> left = new ArrayList<>();
    private final List<Copy> right = new ArrayList<>();
    /** Rows that expired unmatched inside their delay: out of the state, waiting only for their padding. */
    private final List<Copy> awaiting = new ArrayList<>();
    private final List<Side> awaitingSide = new ArrayList<>();
    private long leftWatermark = Long.MIN_VALUE;
    private long rightWatermark = Long.MIN_VALUE;

    ShapingModel(
        final JoinType type, final long delay, final long leftTtl, final long rightTtl,
        final BiPredicate<Integer, Integer> match, final Predicate<Integer> leftMatchable, final Predicate<Integer> rightMatchable)
    {
        this.type = type;
        this.delay = delay;
        this.leftTtl = leftTtl;
        this.rightTtl = rightTtl;
        this.match = match;
        this.leftMatchable = leftMatchable;
        this.rightMatchable = rightMatchable;
    }

    long watermark()
    {
        return Math.min(leftWatermark, rightWatermark);
    }

    private long ttl(final Side side)
    {
        return side == Side.LEFT ? leftTtl : rightTtl;
    }

    private boolean matches(final Side side, final int row, final int other)
    {
        return side == Side.LEFT ? match.test(row, other) : match.test(other, row);
    }

    private static String pair(final Side side, final String row, final String other)
    {
        return side == Side.LEFT ? row + " " + other : other + " " + row;
    }

    private static String padded(final Side side, final String row)
    {
        return side == Side.LEFT ? row + " null" : "null " + row;
    }

    private static long plus(final long a, final long b)
    {
        final long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** @return the outputs, or null when the event is a dead letter (a retraction of a row not stored). */
    List<String> row(final Side side, final boolean accumulate, final int row, final String text, final long ts)
    {
        final List<String> out = new ArrayList<>();
        final List<Copy> mine = side == Side.LEFT ? left : right;
        final List<Copy> others = side == Side.LEFT ? right : left;
        final boolean otherOuter = type.isOuter(side.other());
        final boolean outer = type.isOuter(side);
        if (!accumulate)
        {
            Copy stored = null;
            for (final Copy c : mine)
            {
                if (c.row == row)
                {
                    stored = c;
                    break;
                }
            }
            if (stored == null)
            {
                return null;
            }
            for (final Copy o : others)
            {
                if (matches(side, row, o.row))
                {
                    out.add("- " + pair(side, text, o.text));
                    o.count--;
                    if (otherOuter && o.count == 0 && !o.pending)
                    {
                        out.add("+ " + padded(side.other(), o.text));
                    }
                }
            }
            if (outer && stored.count == 0 && !stored.pending)
            {
                out.add("- " + padded(side, text));
            }
            mine.remove(stored);
            return out;
        }
        int matches = 0;
        for (final Copy o : others)
        {
            if (matches(side, row, o.row))
            {
                if (otherOuter && o.count == 0 && !o.pending)
                {
                    out.add("- " + padded(side.other(), o.text));
                }
                o.count++;
                matches++;
                out.add("+ " + pair(side, text, o.text));
            }
        }
        final long ttl = ttl(side);
        final boolean stored = !(ttl > 0 && plus(ts, ttl) < watermark());
        final boolean matchable = side == Side.LEFT ? leftMatchable.test(row) : rightMatchable.test(row);
        final boolean pending = outer && delay >= 0 && stored && matchable && !(plus(ts, delay) < watermark());
        if (outer && matches == 0 && !pending)
        {
            out.add("+ " + padded(side, text));
        }
        if (stored)
        {
            final Copy c = new Copy(row, text, ts);
            c.count = matches;
            c.pending = pending;
            mine.add(c);
        }
        return out;
    }

    List<String> watermark(final Side side, final long watermark)
    {
        final long before = watermark();
        if (side == null || side == Side.LEFT)
        {
            leftWatermark = Math.max(leftWatermark, watermark);
        }
        if (side == null || side == Side.RIGHT)
        {
            rightWatermark = Math.max(rightWatermark, watermark);
        }
        final List<String> out = new ArrayList<>();
        if (watermark() == before)
        {
            return out;
        }
        final long w = watermark();
        for (int i = 0; i < awaiting.size(); i++)
        {
            final Copy c = awaiting.get(i);
            if (plus(c.ts, delay) < w)
            {
                out.add("+ " + padded(awaitingSide.get(i), c.text));
                awaiting.remove(i);
                awaitingSide.remove(i);
                i--;
            }
        }
        for (final Side s : Side.values())
        {
            final List<Copy> mine = s == Side.LEFT ? left : right;
            final long ttl = ttl(s);
            for (final Copy c : new ArrayList<>(mine))
            {
                final boolean expires = ttl > 0 && plus(c.ts, ttl) < w;
                if (c.pending && plus(c.ts, delay) < w)
                {
                    c.pending = false;
                    if (c.count == 0)
                    {
                        out.add("+ " + padded(s, c.text));
                    }
                }
                if (expires)
                {
                    // expiry is silent; an unmatched row inside its delay is still padded when the delay ends
                    if (c.pending && c.count == 0)
                    {
                        awaiting.add(c);
                        awaitingSide.add(s);
                    }
                    mine.remove(c);
                }
            }
        }
        return out;
    }

    List<String> endOfInput()
    {
        final List<String> out = new ArrayList<>();
        for (int i = 0; i < awaiting.size(); i++)
        {
            out.add("+ " + padded(awaitingSide.get(i), awaiting.get(i).text));
        }
        awaiting.clear();
        awaitingSide.clear();
        for (final Side s : Side.values())
        {
            for (final Copy c : s == Side.LEFT ? left : right)
            {
                if (c.pending)
                {
                    c.pending = false;
                    if (c.count == 0)
                    {
                        out.add("+ " + padded(s, c.text));
                    }
                }
            }
        }
        return out;
    }

    int stored(final Side side)
    {
        return (side == Side.LEFT ? left : right).size();
    }

    /** @return a stored row of the side, weighted by copies, or -1 when none. */
    int storedRow(final Side side, final int pick)
    {
        final List<Copy> mine = side == Side.LEFT ? left : right;
        return mine.isEmpty() ? -1 : mine.get(Math.floorMod(pick, mine.size())).row;
    }
}
