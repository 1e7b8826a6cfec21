package io.junction.tools.cli;

import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.perf.NexmarkRun;
import io.junction.tools.perf.RowTape;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Locale;
import java.util.concurrent.Callable;

/** {@code junction nexmark}: the Nexmark join queries q3, q8 and q20 through the engine. */
@Command(name = "nexmark", mixinStandardHelpOptions = true,
    description = "Run the Nexmark join queries (q3 regular, q8 tumbling window, q20 regular) on seeded generated events.")
public final class NexmarkCommand implements Callable<Integer>
{
    @Option(names = "--query", split = ",", defaultValue = "q3,q8,q20", description = "Queries, comma-separated (default ${DEFAULT-VALUE}).")
    String[] queries;

    @Option(names = "--events", defaultValue = "2000000", description = "Generated events (persons, auctions, bids) per query (default ${DEFAULT-VALUE}).")
    long events;

    @Option(names = "--partitions", defaultValue = "1", description = "Partitions (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--wait-strategy", defaultValue = "sleeping", converter = WaitStrategyConverter.class,
        description = "blocking, sleeping, yielding or busy-spin (default ${DEFAULT-VALUE}).")
    WaitStrategyKind waitStrategy;

    @Option(names = "--seed", defaultValue = "0x5EED4E58", converter = LongConverter.class, description = "Generator seed (default ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public Integer call()
    {
        for (final String name : queries)
        {
            final NexmarkRun.Query query;
            try
            {
                query = NexmarkRun.Query.valueOf(name.trim().toUpperCase(Locale.ROOT));
            }
            catch (final IllegalArgumentException e)
            {
                System.err.println("unknown query " + name + ": expected q3, q8 or q20");
                return 2;
            }
            final RowTape tape = NexmarkRun.generate(query, events, seed);
            System.out.println(NexmarkRun.run(query, tape, events, partitions, waitStrategy));
        }
        return 0;
    }

    /** Reads decimal or 0x-prefixed hexadecimal longs. */
    static final class LongConverter implements picocli.CommandLine.ITypeConverter<Long>
    {
        @Override
        public Long convert(final String value)
        {
            return value.startsWith("0x") || value.startsWith("0X") ? Long.parseUnsignedLong(value.substring(2), 16) : Long.parseLong(value);
        }
    }
}
