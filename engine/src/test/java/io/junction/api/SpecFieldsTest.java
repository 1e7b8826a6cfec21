package io.junction.api;

import io.junction.internal.row.BufferCompare;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.FieldCompare;
import io.junction.internal.row.Fields;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The api's own checks agree with the operators' compilation ({@code internal.row}), which the api may not import
 * (docs/ARCHITECTURE.md, "Layering"): the same unknown-field message, the first unknown name in the order the
 * operators compile a spec, byte order and equality as {@link BufferCompare}'s, the comparison outcomes as
 * {@link FieldCompare}'s.
 */
final class SpecFieldsTest
{
    private static final Schema LEFT = Schema.of("id", "a", "b");
    private static final Schema RIGHT = Schema.of("id", "c", "d");
    private static final String[] LEFT_NAMES = {"id", "a", "b", "zl"};
    private static final String[] RIGHT_NAMES = {"id", "c", "d", "zr"};

    @Test
    void resolvesAndRejectsAsTheCompilerDoes()
    {
        assertEquals(Fields.resolve(LEFT, "b", "leftKey"), SpecFields.resolve(LEFT, "b", "leftKey"));
        final String api = assertThrows(IllegalArgumentException.class, () -> SpecFields.resolve(LEFT, "x", "leftKey")).getMessage();
        final String compiled = assertThrows(IllegalArgumentException.class, () -> Fields.resolve(LEFT, "x", "leftKey")).getMessage();
        assertEquals(compiled, api);
        assertEquals(FieldCompare.INCOMPARABLE, CompareOp.INCOMPARABLE);
        assertEquals(FieldCompare.DIFFERENT_TYPES, CompareOp.DIFFERENT_TYPES);
    }

    /** Random specs: a spec builds exactly when it names no unknown field, naming the first the compiler would meet. */
    @Test
    void buildNamesTheFirstUnknownFieldInCompileOrder()
    {
        final Random random = new Random(21);
        int rejected = 0;
        for (int scenario = 0; scenario < 400; scenario++)
        {
            final List<String> expected = new ArrayList<>();
            final JoinSpec.Builder builder = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(LEFT, RIGHT);
            final String leftKey = pick(random, LEFT_NAMES);
            final String rightKey = pick(random, RIGHT_NAMES);
            builder.leftKey(leftKey).rightKey(rightKey);
            expect(expected, LEFT, leftKey, "leftKey");
            expect(expected, RIGHT, rightKey, "rightKey");
            if (random.nextInt(4) == 0)
            {
                final String unique = pick(random, LEFT_NAMES);
                builder.leftUniqueKey(unique);
                expect(expected, LEFT, unique, "leftUniqueKey");
            }
            final List<FieldFilter> leftFilter = filters(random, LEFT_NAMES);
            leftFilter.forEach(builder::leftFilter);
            final List<FieldFilter> rightFilter = filters(random, RIGHT_NAMES);
            rightFilter.forEach(builder::rightFilter);
            expectFilter(expected, LEFT, leftFilter, "leftFilter.field");
            expectFilter(expected, RIGHT, rightFilter, "rightFilter.field");
            for (int t = random.nextInt(3); t > 0; t--)
            {
                final String l = pick(random, LEFT_NAMES);
                final String r = pick(random, RIGHT_NAMES);
                builder.condition(l, CompareOp.LT, r);
                expect(expected, LEFT, l, "condition.left");
                expect(expected, RIGHT, r, "condition.right");
            }
            if (expected.isEmpty())
            {
                CompiledJoin.of(builder.build());
            }
            else
            {
                rejected++;
                assertEquals(expected.get(0), assertThrows(IllegalArgumentException.class, builder::build).getMessage());
            }
        }
        assertEquals(true, rejected > 100 && rejected < 390, "rejected " + rejected);
    }

    @Test
    void comparesBytesAsBufferCompare()
    {
        final Random random = new Random(7);
        for (int i = 0; i < 500; i++)
        {
            final byte[] a = bytes(random);
            final byte[] b = random.nextInt(3) == 0 ? a.clone() : bytes(random);
            final UnsafeBuffer x = new UnsafeBuffer(a);
            final UnsafeBuffer y = new UnsafeBuffer(b);
            assertEquals(Integer.signum(BufferCompare.compare(x, 0, a.length, b)), Integer.signum(Bytes.compare(x, 0, a.length, b)));
            final int length = Math.min(a.length, b.length);
            assertEquals(BufferCompare.equals(x, 0, y, 0, length), Bytes.equals(x, 0, y, 0, length));
        }
    }

    private static byte[] bytes(final Random random)
    {
        final byte[] bytes = new byte[random.nextInt(20)];
        for (int i = 0; i < bytes.length; i++)
        {
            bytes[i] = (byte)(random.nextInt(3) == 0 ? 0xF0 + random.nextInt(16) : random.nextInt(3));
        }
        return bytes;
    }

    private static List<FieldFilter> filters(final Random random, final String[] names)
    {
        final List<FieldFilter> filters = new ArrayList<>();
        for (int t = random.nextInt(3); t > 0; t--)
        {
            filters.add(filter(random, names, 2));
        }
        return filters;
    }

    private static FieldFilter filter(final Random random, final String[] names, final int depth)
    {
        final int shape = random.nextInt(depth > 0 ? 3 : 2);
        if (shape == 0)
        {
            return new FieldFilter(pick(random, names), CompareOp.GE, Literal.of(1L));
        }
        if (shape == 1)
        {
            return FieldFilter.in(pick(random, names), Literal.of(1L), Literal.of("x"));
        }
        return FieldFilter.any(filter(random, names, depth - 1), filter(random, names, depth - 1));
    }

    private static void expectFilter(final List<String> expected, final Schema schema, final List<FieldFilter> terms, final String what)
    {
        for (final FieldFilter term : terms)
        {
            if (term.isAny())
            {
                expectFilter(expected, schema, term.alternatives(), what);
            }
            else
            {
                expect(expected, schema, term.field(), what);
            }
        }
    }

    private static void expect(final List<String> expected, final Schema schema, final String field, final String what)
    {
        if (schema.indexOf(field) < 0)
        {
            expected.add(what + ": unknown field '" + field + "' (schema has " + schema + ")");
        }
    }

    private static String pick(final Random random, final String[] names)
    {
        return names[random.nextInt(names.length) == 0 ? names.length - 1 : random.nextInt(names.length - 1)];
    }
}
