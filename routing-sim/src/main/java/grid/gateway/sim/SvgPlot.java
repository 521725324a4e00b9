package grid.gateway.sim;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Draws one grid's runs as one SVG: a column per workload, prefix-cache hit rate on top and p90 time to first token
 * (log scale) below, against offered load, one line per policy. Plain SVG 1.1 written by hand: no dependency.
 *
 * <p>Stateless.
 */
final class SvgPlot {
    private static final int PANEL_W = 230;
    private static final int PANEL_H = 170;
    private static final int LEFT = 60;
    private static final int TOP = 60;
    private static final int GAP_X = 40;
    private static final int GAP_Y = 60;
    private static final double X_MIN = 0.45;
    private static final double X_MAX = 1.15;
    private static final double LOG_MIN = -2;
    private static final double LOG_MAX = 2;
    private static final String[] COLORS = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#7f7f7f", "#ff7f0e", "#17becf"
    };

    /** Every policy, then the recommended configuration's two. */
    private static String[] labels() {
        List<String> labels = new java.util.ArrayList<>();
        for (PolicyKind policy : PolicyKind.values()) {
            labels.add(policy.label());
        }
        labels.add(PolicyKind.GRID_SITE_ROUTE.label() + Report.RECOMMENDED);
        labels.add(PolicyKind.LEAST_QUEUED.label() + Report.RECOMMENDED);
        return labels.toArray(new String[0]);
    }

    private SvgPlot() {}

    /** The plot of {@code grid}'s one-replica runs: a column per workload. */
    static String render(List<RunResult> results, String grid) {
        List<RunResult> own = results.stream()
                .filter(r -> r.grid().equals(grid) && r.replicas() == 1)
                .toList();
        String[] workloads = Report.workloads(own).toArray(new String[0]);
        int width = LEFT + Math.max(workloads.length, 4) * (PANEL_W + GAP_X);
        int height = TOP + 2 * (PANEL_H + GAP_Y);
        StringBuilder svg = new StringBuilder();
        svg.append(f(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"sans-serif\" font-size=\"11\">\n",
                width, height, width, height));
        svg.append(f("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height));
        legend(svg);
        for (int w = 0; w < workloads.length; w++) {
            int x0 = LEFT + w * (PANEL_W + GAP_X);
            svg.append(f(
                    "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>\n",
                    x0, TOP - 12, workloads[w] + ", " + grid + " grid"));
            panel(svg, own, workloads[w], x0, false);
            panel(svg, own, workloads[w], x0, true);
        }
        return svg.append("</svg>\n").toString();
    }

    private static void legend(StringBuilder svg) {
        String[] policies = labels();
        for (int i = 0; i < policies.length; i++) {
            int x = LEFT + i * 150;
            svg.append(f(
                    "<line x1=\"%d\" y1=\"18\" x2=\"%d\" y2=\"18\" stroke=\"%s\" stroke-width=\"3\"/>",
                    x, x + 24, COLORS[i]));
            svg.append(f("<text x=\"%d\" y=\"22\">%s</text>\n", x + 30, policies[i]));
        }
    }

    private static void panel(StringBuilder svg, List<RunResult> results, String workload, int x0, boolean ttft) {
        int y0 = ttft ? TOP + PANEL_H + GAP_Y : TOP;
        svg.append(f(
                "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>\n",
                x0, y0, PANEL_W, PANEL_H));
        axes(svg, x0, y0, ttft);
        String[] policies = labels();
        ToDoubleFunction<RunResult> y = ttft ? r -> yTtft(r.p90Ttft()) : r -> 1 - r.hitRate();
        for (int p = 0; p < policies.length; p++) {
            StringBuilder points = new StringBuilder();
            for (double load : Study.LOADS) {
                String grid = results.getFirst().grid();
                var found = Report.find(results, new RunResult.Key(workload, grid, 1, policies[p], load));
                if (found.isPresent()) {
                    double px = x0 + (load - X_MIN) / (X_MAX - X_MIN) * PANEL_W;
                    double py = y0 + y.applyAsDouble(found.get()) * PANEL_H;
                    points.append(f("%.1f,%.1f ", px, py));
                    svg.append(f("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>", px, py, COLORS[p]));
                }
            }
            if (!points.isEmpty()) {
                svg.append(f(
                        "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                        points.toString().trim(), COLORS[p]));
            }
        }
    }

    private static void axes(StringBuilder svg, int x0, int y0, boolean ttft) {
        for (double load : Study.LOADS) {
            double px = x0 + (load - X_MIN) / (X_MAX - X_MIN) * PANEL_W;
            svg.append(f(
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f%%</text>",
                    px, y0 + PANEL_H + 14, load * 100));
        }
        svg.append(f(
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">offered load</text>\n",
                x0 + PANEL_W / 2, y0 + PANEL_H + 28));
        if (ttft) {
            for (int e = (int) LOG_MIN; e <= LOG_MAX; e++) {
                double py = y0 + yTtft(Math.pow(10, e)) * PANEL_H;
                gridLine(svg, x0, py, e < 0 ? f("%.2f s", Math.pow(10, e)) : f("%.0f s", Math.pow(10, e)));
            }
            svg.append(f("<text x=\"%d\" y=\"%d\" fill=\"#555\">p90 TTFT (log)</text>\n", x0 + 4, y0 + 12));
        } else {
            for (int pct = 0; pct <= 100; pct += 25) {
                gridLine(svg, x0, y0 + (1 - pct / 100.0) * PANEL_H, pct + "%");
            }
            svg.append(f(
                    "<text x=\"%d\" y=\"%d\" fill=\"#555\">prefix-cache hit rate</text>\n", x0 + 4, y0 + PANEL_H - 4));
        }
    }

    private static void gridLine(StringBuilder svg, int x0, double py, String label) {
        svg.append(f("<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>", x0, py, x0 + PANEL_W, py));
        svg.append(f("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x0 - 4, py + 4, label));
    }

    /** 0 at the top (100 s) to 1 at the bottom (10 ms), clamped. */
    private static double yTtft(double seconds) {
        double log = Math.log10(Math.max(seconds, 1e-3));
        double clamped = Math.max(LOG_MIN, Math.min(LOG_MAX, log));
        return (LOG_MAX - clamped) / (LOG_MAX - LOG_MIN);
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
