package io.junction.kafka.testing;

import java.io.IOException;
import java.io.InputStream;

/**
 * The test broker for scripts (bench/scripts/kafka-figures.sh): starts a {@link KafkaTestBroker}, prints its
 * bootstrap servers on a line of their own, and stops it when standard input closes.
 */
public final class StandaloneBroker
{
    private StandaloneBroker()
    {
    }

    /**
     * @param args none.
     * @throws IOException when standard input fails.
     */
    public static void main(final String[] args) throws IOException
    {
        try (KafkaTestBroker broker = KafkaTestBroker.start())
        {
            System.out.println(broker.bootstrapServers());
            System.out.flush();
            final InputStream in = System.in;
            final byte[] skip = new byte[256];
            while (in.read(skip) >= 0)
            {
                // until the script closes our standard input (or dies)
            }
        }
    }
}
