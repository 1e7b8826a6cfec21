package io.junction.join;

import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.internal.state.RowStore;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;

/**
 * A join's predicate applied to the row in hand: its side's pre-filter, its join key (extracted into a
 * reused buffer and hashed with the engine's seed, so that routing and the key index agree), and the
 * match of a stored row of the other side against it (same key bytes, the post-join condition).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class JoinPredicate
{
    /** Returned by {@link #extractKey} when the row can never match: a null key or a failed pre-filter. */
    static final int UNMATCHABLE = -1;
    /** Returned by {@link #extractKey} when the key does not fit the key buffer. */
    static final int TOO_LONG = -2;
    /**
     * Returned by {@link #extractKey} when the side's user filter threw: the operator dead-letters the
     * row ({@code PREDICATE_FAILED}) before it has any effect; the exception went to the error handler.
     */
    static final int PREDICATE_FAILED = -3;

    /**
     * @param keyLength what {@link #extractKey} returned.
     * @return the dead-letter reason of a row whose key was refused ({@link #TOO_LONG}, {@link #PREDICATE_FAILED}),
     *         or null for a key or {@link #UNMATCHABLE}, which every operator handles its own way.
     */
    static DeadLetterReason refusal(final int keyLength)
    {
        if (keyLength == TOO_LONG)
        {
            return DeadLetterReason.KEY_TOO_LONG;
        }
        return keyLength == PREDICATE_FAILED ? DeadLetterReason.PREDICATE_FAILED : null;
    }

    /** Key of the row being processed; valid from {@link #extractKey} until the next call. */
    final UnsafeBuffer key;
    /** The stored row that {@link #matches} last looked at; valid until its next call. */
    final RowView otherRow = new RowView();
    private final UnsafeBuffer otherBuffer = new UnsafeBuffer(0, 0);
    private final CompiledJoin compiled;
    private final long hashSeed;
    private final RowStore store;
    private final JoinCounters counters;
    /** Set by {@link #extractVersionKey}: the version failed the right pre-filter. */
    boolean versionFiltered;
    /** Where a user predicate's exception goes: the runtime's guarded handler; null when driven directly. */
    private final ErrorHandler errors;
    /** The row in hand's join-key hash as its publisher computed it, when {@link #hashSupplied}. */
    private long suppliedHash;
    /** Whether the row in hand came with its join-key hash ({@link #supplyKeyHash}). */
    private boolean hashSupplied;

    /** As the five-argument constructor with no error handler: a user predicate's failure is only counted. */
    JoinPredicate(final CompiledJoin compiled, final StateConfig config, final RowStore store, final JoinCounters counters)
    {
        this(compiled, config, store, counters, (ErrorHandler)null);
    }

    /**
     * @param compiled the spec's keys, filters and condition.
     * @param config   the key buffer's size and the hash seed.
     * @param store    the store whose records {@link #matches} compares.
     * @param counters the operator's counters: this counts hash collisions and user predicate failures.
     * @param errors   where a user predicate's exception is reported (the runtime's guarded handler), handed
     *                 in; null to only count it.
     */
    JoinPredicate(
        final CompiledJoin compiled, final StateConfig config, final RowStore store, final JoinCounters counters,
        final ErrorHandler errors)
    {
        this.errors = errors;
        this.compiled = compiled;
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(config.maxKeyLength()));
        this.hashSeed = config.withResolvedHashSeed().hashSeed();
        this.store = store;
        this.counters = counters;
    }

    /**
     * Extracts the join key of a row into {@link #key} and applies the row's own pre-filter.
     *
     * @return the key length, {@link #UNMATCHABLE}, {@link #TOO_LONG} or {@link #PREDICATE_FAILED}.
     */
    int extractKey(final Side side, final RowView row)
    {
        return extractKey(side, row, key.capacity());
    }

    /** As {@link #extractKey(Side, RowView)}, leaving the key buffer's tail beyond {@code capacity} free. */
    int extractKey(final Side side, final RowView row, final int capacity)
    {
        final int pass = filter(side, row);
        if (pass != 1)
        {
            return pass == 0 ? UNMATCHABLE : PREDICATE_FAILED;
        }
        return extractKeyIgnoringFilter(side, row, capacity);
    }

    /** @return 1 when the row passes its side's pre-filter, 0 when not, -1 when a user filter threw. */
    private int filter(final Side side, final RowView row)
    {
        try
        {
            return compiled.filter(side).test(row) ? 1 : 0;
        }
        catch (final Throwable t)
        {
            failed(t);
            return -1;
        }
    }

    /** Counts a user predicate's failure and reports it to the runtime's error handler, which guards its own failures. */
    private void failed(final Throwable t)
    {
        counters.predicateFailures++;
        if (errors != null)
        {
            errors.onError(t);
        }
    }

    /** As {@link #extractKey(Side, RowView, int)} whatever the pre-filter says: {@link #UNMATCHABLE} means a null key. */
    int extractKeyIgnoringFilter(final Side side, final RowView row, final int capacity)
    {
        final int length = compiled.key(side).extract(row, key, 0, capacity);
        if (length == KeyExtractor.KEY_TOO_LONG)
        {
            return TOO_LONG;
        }
        return length == KeyExtractor.NULL_KEY ? UNMATCHABLE : length;
    }

    /**
     * The key of a right row of a versioned table (the temporal and lookup joins): a row that fails the right
     * pre-filter is still its key's version (it ends the one before it) and only matches nothing, so its key is
     * extracted all the same, and {@link #versionFiltered} says so; a tombstone ({@code -D}) has no filter to pass.
     *
     * @param row       the right row.
     * @param tombstone whether it is a {@code -D}.
     * @return as {@link #extractKey(Side, RowView)}: {@link #UNMATCHABLE} now means a null key.
     */
    int extractVersionKey(final RowView row, final boolean tombstone)
    {
        versionFiltered = false;
        if (tombstone)
        {
            return extractKeyIgnoringFilter(Side.RIGHT, row, key.capacity());
        }
        final int keyLength = extractKey(Side.RIGHT, row);
        if (keyLength != UNMATCHABLE)
        {
            return keyLength;
        }
        versionFiltered = true;
        return extractKeyIgnoringFilter(Side.RIGHT, row, key.capacity());
    }

    /** @return true when the row passes its side's pre-filter; false (reported) when a user filter threw. */
    boolean passesFilter(final Side side, final RowView row)
    {
        return filter(side, row) == 1;
    }

    /** @return the hash of {@code length} bytes at the start of {@code bytes} (a unique key, a window's key), under the state's seed. */
    long hash(final DirectBuffer bytes, final int length)
    {
        return KeyHash.hash(hashSeed, bytes, 0, length);
    }

    /**
     * The row in hand comes with its join key's hash, computed by the publisher that routed it
     * ({@link KeyHash#hash(long, DirectBuffer, int, int)} of the same {@link KeyExtractor} bytes under the same seed):
     * {@link #keyHash} returns it instead of hashing the key again, until the next row. Its driver calls this or
     * {@link #hashRowKey} before every row; nothing but a row's own processing asks {@link #keyHash}.
     *
     * @param hash the row's join-key hash.
     */
    void supplyKeyHash(final long hash)
    {
        suppliedHash = hash;
        hashSupplied = true;
    }

    /** The row in hand comes without a hash (a caller other than the runtime's publisher): {@link #keyHash} computes it. */
    void hashRowKey()
    {
        hashSupplied = false;
    }

    /**
     * The hash of the row in hand's join key, just extracted into {@link #key} ({@link #extractKey}): the one
     * supplied with the row ({@link #supplyKeyHash}), else computed here with the state's seed. Only for that key:
     * any other bytes (a window's key with its suffix, a unique key) go to {@link #hash}.
     *
     * @param keyLength the key's length, as {@link #extractKey} returned it.
     * @return its hash.
     */
    long keyHash(final int keyLength)
    {
        return hashSupplied ? suppliedHash : KeyHash.hash(hashSeed, key, 0, keyLength);
    }

    /**
     * @return true when a stored record of the other side has the current key and satisfies the
     *         condition with {@code row}; the record is then in {@link #otherRow}.
     */
    boolean matches(final long otherRecord, final int keyLength, final Side side, final RowView row)
    {
        if (!store.keyEquals(otherRecord, key, 0, keyLength))
        {
            counters.hashCollisions++;
            return false;
        }
        StoredRows.wrap(otherRecord, otherBuffer, otherRow);
        return side == Side.LEFT ? conditionHolds(row, otherRow) : conditionHolds(otherRow, row);
    }

    /**
     * As {@link #matches}, telling a user condition that threw apart from one that is false.
     *
     * @return 1 when the record matches (it is then in {@link #otherRow}), 0 when not, -1 when a user condition threw.
     */
    int match(final long otherRecord, final int keyLength, final Side side, final RowView row)
    {
        final long failuresBefore = counters.predicateFailures;
        final boolean matched = matches(otherRecord, keyLength, side, row);
        return counters.predicateFailures != failuresBefore ? -1 : matched ? 1 : 0;
    }

    /** Wraps a stored record of the other side in {@link #otherRow}, as {@link #matches} does when it matches. */
    void wrapOther(final long otherRecord)
    {
        StoredRows.wrap(otherRecord, otherBuffer, otherRow);
    }

    /**
     * @return true when the post-join condition holds for a left and a right row. A user condition that
     *         throws counts as false for the pair (reported); a regular join asks {@link #match} first and
     *         dead-letters the whole row instead.
     */
    boolean conditionHolds(final RowView left, final RowView right)
    {
        if (compiled.condition().acceptsAll())
        {
            return true;
        }
        try
        {
            return compiled.condition().test(left, right);
        }
        catch (final Throwable t)
        {
            failed(t);
            return false;
        }
    }

    /** @return where a user function's exception is reported (handed in), for the parts that call user code besides the predicate (a window coGroup); null for none. */
    ErrorHandler errors()
    {
        return errors;
    }
}
