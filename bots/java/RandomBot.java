// A uniformly random legal move, in any game, on the ArenaBot kit.
//
//   java -cp bots/java/build RandomBot [--seed N] [--setup-ms MS]
//
// Deterministic: at each `newgame ... seed=S` the generator restarts from N ^ S with
// splitmix64, the generator of the C and JavaScript bots, so all three pick the same
// moves. `--hog` instead allocates (and touches) memory at its first move until it is
// stopped: arena's tests use it to show that a memory limit kills a JVM that grows.
// `--setup-ms MS` sets up for MS at each game, off the clock (the kit's Setup).
import java.util.ArrayList;
import java.util.List;

public final class RandomBot {
    private static long state;

    private static long next() {
        state += 0x9E3779B97F4A7C15L;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Uniform in [0, n), without modulo bias (as the C and JavaScript bots). */
    private static int below(int n) {
        long limit = -1L - Long.remainderUnsigned(-1L, n);
        long r;
        do {
            r = next();
        } while (Long.compareUnsigned(r, limit) >= 0);
        return (int) Long.remainderUnsigned(r, n);
    }

    public static void main(String[] args) throws Exception {
        long seed = 0;
        boolean hog = false;
        long setupMs = -1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--hog" -> hog = true;
                case "--setup-ms" -> setupMs = Long.parseLong(args[++i]);
                default -> {
                    System.err.println("usage: RandomBot [--seed N] [--hog] [--setup-ms MS]");
                    System.exit(2);
                }
            }
        }
        final long botSeed = seed;
        final boolean hogging = hog;
        final long[] gameSeed = {-1};
        final List<byte[]> hoard = new ArrayList<>();
        final long setupFor = setupMs;
        // --setup-ms MS: an untimed set-up of MS at each game (as loading a network would
        // take), through the kit's Setup: the kit asks for `isready`.
        ArenaBot.Setup setup = setupMs < 0 ? null : game -> {
            ArenaBot.log("java-random: setting up for " + setupFor + " ms");
            Thread.sleep(setupFor);
        };
        ArenaBot.run("java-random", (position, legal, clock, game) -> {
            if (game.seed != gameSeed[0]) {
                gameSeed[0] = game.seed;
                state = botSeed ^ game.seed;
            }
            if (hogging) {
                while (true) {
                    byte[] block = new byte[16 << 20];
                    for (int i = 0; i < block.length; i += 4096) block[i] = 1;
                    hoard.add(block);
                    ArenaBot.log("java-random: holding " + 16 * hoard.size() + " MB");
                }
            }
            return legal.get(below(legal.size()));
        }, setup);
    }
}
