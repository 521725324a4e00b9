package grid.gateway.routing.select;

/**
 * Test fixture: the central interval of a binomial distribution, computed exactly (log-space probability mass
 * summed from both tails), for statistical checks such as the 2% exploration share.
 */
public final class BinomialBounds {
    private BinomialBounds() {}

    /**
     * The smallest {@code [lo, hi]} such that {@code P(X < lo) ≤ (1 - confidence) / 2} and
     * {@code P(X > hi) ≤ (1 - confidence) / 2} for {@code X ~ Binomial(n, p)}.
     */
    public static long[] central(int n, double p, double confidence) {
        double tail = (1 - confidence) / 2;
        double[] logFactorial = new double[n + 1];
        for (int i = 2; i <= n; i++) {
            logFactorial[i] = logFactorial[i - 1] + Math.log(i);
        }
        double[] pmf = new double[n + 1];
        for (int k = 0; k <= n; k++) {
            double logChoose = logFactorial[n] - logFactorial[k] - logFactorial[n - k];
            pmf[k] = Math.exp(logChoose + k * Math.log(p) + (n - k) * Math.log1p(-p));
        }
        long lo = 0;
        double below = 0;
        while (below + pmf[(int) lo] <= tail) {
            below += pmf[(int) lo];
            lo++;
        }
        long hi = n;
        double above = 0;
        while (above + pmf[(int) hi] <= tail) {
            above += pmf[(int) hi];
            hi--;
        }
        return new long[] {lo, hi};
    }
}
