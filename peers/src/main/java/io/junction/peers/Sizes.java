package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.W6;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;

/**
 * Workload sizes, from system properties (each also accepted as a {@code -Dname=value} program argument):
 * {@code w1.n} (impressions of W1, default 2,000,000; the peers' own knob, W1's generator has no property),
 * and the knobs {@link Workloads#generate} reads: {@code w2.n}, {@code w2.keys}, {@code w3.n}, {@code w4.n}, {@code w5.n}, {@code w6.trades}.
 */
final class Sizes
{
    /** System property: W1 impressions. */
    static final String W1_N = "w1.n";

    final int w1n;
    final int w2n;
    final int w2keys;
    final int w3n;
    final int w4n;
    final int w5n;
    /** W6 trades ({@code w6.trades}; quotes are five times as many). */
    final int w6trades = intProp(W6.TRADES_PROP_NAME, W6.DEFAULT_TRADES);

    private Sizes(final int w1n, final int w2n, final int w2keys, final int w3n, final int w4n, final int w5n)
    {
        this.w1n = w1n;
        this.w2n = w2n;
        this.w2keys = w2keys;
        this.w3n = w3n;
        this.w4n = w4n;
        this.w5n = w5n;
    }

    static Sizes fromSystemProperties()
    {
        return new Sizes(
            intProp(W1_N, Workloads.W1_N_DEFAULT),
            intProp(Workloads.W2_N_PROP_NAME, Workloads.W2_N_DEFAULT),
            intProp(Workloads.W2_KEYS_PROP_NAME, Workloads.W2_KEYS_DEFAULT),
            intProp(Workloads.W3_N_PROP_NAME, Workloads.W3_N_DEFAULT),
            intProp(Workloads.W4_N_PROP_NAME, Workloads.W4_N_DEFAULT),
            intProp(Workloads.W5_N_PROP_NAME, Workloads.W5_N_DEFAULT));
    }

    /** Generates a workload at these sizes into a new tape. */
    EventTape generate(final Workload w)
    {
        final EventTape tape = new EventTape();
        switch (w)
        {
            case W1:
                Workloads.w1(w1n, tape);
                break;
            case W2:
                Workloads.w2(w2n, w2keys, tape);
                break;
            case W3:
                Workloads.w3(w3n, Workloads.W3_M_DEFAULT, tape);
                break;
            case W4:
                Workloads.w4(w4n, Workloads.W4_M_DEFAULT, Workloads.W4_UPDATES, tape);
                break;
            case W5:
                Workloads.w5(w5n, Workloads.W5_RATE_EVERY_DEFAULT, tape);
                break;
            case W6:
                W6.generate(w6trades, tape);
                break;
            default:
                throw new IllegalArgumentException("peers run W1, W2, W3, W4, W5 and W6, not " + w);
        }
        return tape;
    }

    String describe(final Workload w)
    {
        switch (w)
        {
            case W1:
                return "w1.n=" + w1n;
            case W2:
                return "w2.n=" + w2n + " w2.keys=" + w2keys;
            case W3:
                return "w3.n=" + w3n;
            case W4:
                return "w4.n=" + w4n;
            case W5:
                return "w5.n=" + w5n;
            case W6:
                return "w6.trades=" + w6trades;
            default:
                return "";
        }
    }

    private static int intProp(final String name, final int def)
    {
        final String s = System.getProperty(name);
        if (s == null || s.isBlank())
        {
            return def;
        }
        final int v = Integer.parseInt(s.trim().replace("_", "").replace(",", ""));
        if (v < 1)
        {
            throw new IllegalArgumentException("-D" + name + "=" + s + " must be >= 1");
        }
        return v;
    }
}
