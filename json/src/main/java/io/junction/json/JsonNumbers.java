package io.junction.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;

/**
 * The number rule of the replay format (SEMANTICS 1): a JSON number is a 64-bit integer when it is integral
 * and fits one, otherwise the nearest double; a nearest double that is itself integral and fits a long
 * is that long (so {@code 1}, {@code 1.0}, {@code 1e0} and {@code 1.00000000000000001} are all the
 * integer 1, {@code 9007199254740993.0} is the integer 9007199254740993, and {@code 2^63} as a number
 * stays the double 9.223372036854776E18).
 * <p>
 * Integrality is decided on the exact decimal value, which is why the tools' mappers read
 * non-integer numbers as {@link BigDecimal}: a double would already have rounded
 * {@code 9007199254740993.0} to {@code 9007199254740992}. Thread safe (stateless).
 */
public final class JsonNumbers
{
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private JsonNumbers()
    {
    }

    /**
     * @param node a number node
     * @return true when the rule makes it a long ({@link #longValue}), false when a double ({@link #doubleValue})
     */
    public static boolean isLong(final JsonNode node)
    {
        if (node.isIntegralNumber() && node.canConvertToLong())
        {
            return true;
        }
        if (!node.isIntegralNumber() && isExactLong(node.decimalValue()))
        {
            return true;
        }
        return isLongValued(node.doubleValue());
    }

    /**
     * @param node a number node for which {@link #isLong} is true
     * @return its long value
     */
    public static long longValue(final JsonNode node)
    {
        if (node.isIntegralNumber() && node.canConvertToLong())
        {
            return node.longValue();
        }
        if (!node.isIntegralNumber())
        {
            final BigDecimal exact = node.decimalValue();
            if (isExactLong(exact))
            {
                return exact.longValueExact();
            }
        }
        return (long) node.doubleValue();
    }

    /**
     * @param node a number node
     * @return the nearest double (infinite when the number is outside the double range)
     */
    public static double doubleValue(final JsonNode node)
    {
        return node.doubleValue();
    }

    /**
     * @param d a double
     * @return true when it is integral and in {@code [-2^63, 2^63)}, so that it converts to a long exactly
     */
    public static boolean isLongValued(final double d)
    {
        return d == Math.rint(d) && d >= -0x1p63 && d < 0x1p63;
    }

    private static boolean isExactLong(final BigDecimal value)
    {
        // range first: cheap whatever the exponent, and it keeps the integrality test on small numbers
        if (value.compareTo(LONG_MIN) < 0 || value.compareTo(LONG_MAX) > 0)
        {
            return false;
        }
        return value.signum() == 0 || value.scale() <= 0 || value.stripTrailingZeros().scale() <= 0;
    }
}
