package io.junction.kafka.testing;

import kafka.tools.StorageTool;

import java.io.IOException;
import java.io.InputStream;

/**
 * The child JVM's main class of {@link KafkaTestBroker}: formats the KRaft storage of a fresh data directory
 * and runs a combined-mode (broker + controller) Kafka server from a properties file, until its standard
 * input closes. The parent holds the write end of that pipe: closing it (or the parent dying, which closes
 * it too) halts this JVM, so that no broker outlives the test JVM that started it.
 *
 * <p>Arguments: the server properties file and the cluster id.
 */
public final class BrokerMain
{
    private BrokerMain()
    {
    }

    /**
     * @param args the server properties file and the cluster id.
     * @throws Exception when the storage cannot be formatted.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length != 2)
        {
            System.err.println("usage: BrokerMain <server.properties> <cluster id>");
            Runtime.getRuntime().halt(2);
        }
        final Thread watchdog = new Thread(BrokerMain::haltAtEndOfInput, "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        final int formatted = StorageTool.execute(
            new String[] {"format", "--cluster-id", args[1], "--config", args[0], "--ignore-formatted"}, System.out);
        if (formatted != 0)
        {
            System.err.println("BrokerMain: formatting the storage failed (" + formatted + ")");
            System.err.flush();
            Runtime.getRuntime().halt(3);
        }
        System.out.println("BrokerMain: storage formatted, starting the server");
        System.out.flush();
        // Blocks while the server runs; it exits the JVM itself on a fatal error.
        kafka.Kafka.main(new String[] {args[0]});
    }

    /**
     * Reads standard input until end of file, then halts: no shutdown hooks, no controlled shutdown, since
     * the data directory is thrown away.
     */
    private static void haltAtEndOfInput()
    {
        final InputStream in = System.in;
        final byte[] buffer = new byte[256];
        try
        {
            while (in.read(buffer) >= 0)
            {
                // The parent never writes; anything it did is ignored.
            }
        }
        catch (final IOException e)
        {
            // A broken pipe is the parent gone, as an end of file is.
        }
        System.out.println("BrokerMain: standard input closed, halting");
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
