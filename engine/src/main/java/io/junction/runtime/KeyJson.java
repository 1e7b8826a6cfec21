package io.junction.runtime;

import io.junction.api.Row;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The key of a JMX inspect (docs/SEMANTICS.md 14) as a flat JSON object of scalars, {@code {"log_id": "1", "n": 2}},
 * parsed into a {@link Row}: strings, integers (longs), other numbers (doubles), booleans and null, as the replay
 * format reads them. Keys are scalars, so nested values are refused; so is anything after the object.
 *
 * <p>Threads: any; a parse holds its own state.
 */
final class KeyJson
{
    private final String text;
    private int at;

    private KeyJson(final String text)
    {
        this.text = text;
    }

    /**
     * @param text a JSON object of scalar values.
     * @return the row it names.
     * @throws IllegalArgumentException saying where the text is not such an object.
     */
    static Row parse(final String text)
    {
        if (text == null)
        {
            throw new IllegalArgumentException("the key must be a JSON object such as {\"id\": 1}, got null");
        }
        return new KeyJson(text).object();
    }

    private Row object()
    {
        final Map<String, Object> fields = new LinkedHashMap<>();
        skipSpace();
        expect('{');
        skipSpace();
        if (peek() == '}')
        {
            at++;
        }
        else
        {
            while (true)
            {
                skipSpace();
                final String name = string();
                skipSpace();
                expect(':');
                skipSpace();
                if (fields.put(name, value()) != null)
                {
                    throw error("the field '" + name + "' is named twice");
                }
                skipSpace();
                final char c = next();
                if (c == '}')
                {
                    break;
                }
                if (c != ',')
                {
                    throw error("expected ',' or '}'");
                }
            }
        }
        skipSpace();
        if (at != text.length())
        {
            throw error("text after the object");
        }
        return Row.of(fields);
    }

    private Object value()
    {
        final char c = peek();
        if (c == '"')
        {
            return string();
        }
        if (c == '{' || c == '[')
        {
            throw error("a key value must be a string, number, boolean or null");
        }
        if (text.startsWith("true", at))
        {
            at += 4;
            return Boolean.TRUE;
        }
        if (text.startsWith("false", at))
        {
            at += 5;
            return Boolean.FALSE;
        }
        if (text.startsWith("null", at))
        {
            at += 4;
            return null;
        }
        return number();
    }

    private Object number()
    {
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
        final String digits = text.substring(start, at);
        if (digits.isEmpty())
        {
            throw error("expected a value");
        }
        try
        {
            if (digits.indexOf('.') < 0 && digits.indexOf('e') < 0 && digits.indexOf('E') < 0)
            {
                return Long.parseLong(digits);
            }
            return Double.parseDouble(digits);
        }
        catch (final NumberFormatException e)
        {
            throw error("'" + digits + "' is not a number a key can hold");
        }
    }

    private String string()
    {
        expect('"');
        final StringBuilder out = new StringBuilder();
        while (true)
        {
            final char c = next();
            if (c == '"')
            {
                return out.toString();
            }
            if (c != '\\')
            {
                out.append(c);
                continue;
            }
            final char e = next();
            switch (e)
            {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' ->
                {
                    if (at + 4 > text.length())
                    {
                        throw error("a \\u escape needs four hex digits");
                    }
                    try
                    {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    }
                    catch (final NumberFormatException ex)
                    {
                        throw error("a \\u escape needs four hex digits");
                    }
                    at += 4;
                }
                default -> throw error("unknown escape \\" + e);
            }
        }
    }

    private void expect(final char c)
    {
        if (next() != c)
        {
            at--;
            throw error("expected '" + c + "'");
        }
    }

    private char next()
    {
        if (at >= text.length())
        {
            throw error("the text ends early");
        }
        return text.charAt(at++);
    }

    private char peek()
    {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private void skipSpace()
    {
        while (at < text.length() && Character.isWhitespace(text.charAt(at)))
        {
            at++;
        }
    }

    private IllegalArgumentException error(final String what)
    {
        return new IllegalArgumentException("the key must be a JSON object of scalars such as {\"id\": 1}: " + what +
            " at character " + at + " of " + text);
    }
}
