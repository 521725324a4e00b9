package grid.gateway.app;

import java.io.PrintStream;

/**
 * Command-line entry point of the grid gateway.
 *
 * <p>Placeholder until the server arrives with issue 4: it prints one line and exits 0 for {@code --help}, 2 for
 * anything else.
 */
public final class Main {

    static final String USAGE = "grid-gateway: the server arrives with issue 4; use --help";

    private Main() {}

    /**
     * Runs the gateway.
     *
     * @param args command-line arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Prints the usage line and returns the process exit code: 0 for {@code --help}, 2 otherwise. */
    static int run(String[] args, PrintStream out) {
        out.println(USAGE);
        return args.length == 1 && args[0].equals("--help") ? 0 : 2;
    }
}
