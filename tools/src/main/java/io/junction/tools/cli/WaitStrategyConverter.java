package io.junction.tools.cli;

import io.junction.runtime.WaitStrategyKind;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code --wait-strategy} with the engine's own names (blocking, sleeping, yielding, busy-spin). */
public final class WaitStrategyConverter implements ITypeConverter<WaitStrategyKind>
{
    @Override
    public WaitStrategyKind convert(final String value)
    {
        final WaitStrategyKind kind = WaitStrategyKind.fromName(value);
        if (kind == null)
        {
            throw new TypeConversionException("expected blocking, sleeping, yielding or busy-spin, got '" + value + "'");
        }
        return kind;
    }
}
