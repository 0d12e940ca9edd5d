// ArenaBot: a one-file kit for writing arena bots in Java (standard library only).
//
// The kit runs the line protocol between the referee and your bot; you write one method:
//
//     ArenaBot.run("my-bot", (state, legal, clock, game) -> legal.get(0));
//
// `state` is the latest `position` text (without the word), `legal` the moves of the
// latest `legal` line, `clock` the numbers of the `go` line, `game` the current game
// (name, seat, seed, parameters). Return one of the legal moves.
//
// What the kit does for you (the same as bots/python/arena_bot.py):
// - answers `arena 1` with `ready <name>` at once (do heavy set-up later: in a Setup,
//   `ArenaBot.run("my-bot", chooser, game -> load())`, off the clock at the start of each
//   game; the first choose is on your first move's clock);
// - tolerates "\r\n", ignores empty and unknown lines;
// - flushes after every line; log with ArenaBot.log (stderr), never System.out;
// - answers every `go` with exactly one `move`: if choose throws or returns a move that is
//   not legal, it logs that and plays the first legal move (a bad move, not a forfeit);
// - returns from run on `quit` or end of input.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class ArenaBot {
    /** The numbers of a `go` line, in ms; null where the referee sent `-`. */
    public static final class Clock {
        public Long time, opptime, movetime;
        public long inc;
    }

    /** The current game, from its `newgame` line. */
    public static final class Game {
        public String name = "";
        public int seat;
        public long seed;
        public final Map<String, String> params = new LinkedHashMap<>();
    }

    /** Your bot: the move to play (one of `legal`). */
    public interface Chooser {
        String choose(String state, List<String> legal, Clock clock, Game game) throws Exception;
    }

    /**
     * The untimed set-up of each game (load books, tables, networks here). Given, the kit
     * puts `isready` in its `ready` line; the referee then sends `isready` at each game
     * (after `newgame` and the opening's `played` lines) and waits, off the clock, within
     * the start-up limit, for the `readyok` the kit sends when setUp returns.
     */
    public interface Setup {
        void setUp(Game game) throws Exception;
    }

    private static final PrintStream OUT =
            new PrintStream(System.out, false, StandardCharsets.UTF_8);

    private ArenaBot() {}

    /** A line to stderr, the bot's free channel. */
    public static void log(String text) {
        System.err.println(text);
        System.err.flush();
    }

    /** An `info` line for the referee's record (one line of free text). */
    public static void info(String text) {
        send("info " + text.replaceAll("\\s+", " ").trim());
    }

    private static void send(String line) {
        OUT.print(line + "\n");
        OUT.flush();
    }

    private static Long ms(String v) {
        return v.equals("-") ? null : Long.valueOf(v);
    }

    /** Plays until `quit` or end of input. */
    public static void run(String name, Chooser chooser) throws Exception {
        run(name, chooser, null);
    }

    /** Plays until `quit` or end of input, with an untimed set-up at each game (or null). */
    public static void run(String name, Chooser chooser, Setup setup) throws Exception {
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Game game = new Game();
        String state = "";
        List<String> legal = List.of();
        String line;
        while ((line = in.readLine()) != null) {
            line = line.strip();
            if (line.isEmpty()) continue;
            String[] w = line.split(" ");
            switch (w[0]) {
                case "arena" -> send("ready " + name + (setup != null ? " isready" : ""));
                case "isready" -> {
                    if (setup != null) {
                        try {
                            setup.setUp(game);
                        } catch (Exception e) {
                            log(name + ": set-up failed: " + e);
                        }
                    }
                    send("readyok");
                }
                case "newgame" -> {
                    game = new Game();
                    game.name = w.length > 1 ? w[1] : "";
                    for (int i = 2; i < w.length; i++) {
                        int eq = w[i].indexOf('=');
                        if (eq < 0) continue;
                        String k = w[i].substring(0, eq), v = w[i].substring(eq + 1);
                        switch (k) {
                            case "seat" -> game.seat = Integer.parseInt(v);
                            case "seed" -> game.seed = Long.parseUnsignedLong(v);
                            default -> game.params.put(k, v);
                        }
                    }
                }
                case "position" -> state = line.substring(Math.min(line.length(), 9));
                case "legal" -> legal = Arrays.asList(w).subList(1, w.length);
                case "go" -> {
                    Clock clock = new Clock();
                    for (int i = 1; i < w.length; i++) {
                        String[] kv = w[i].split("=", 2);
                        if (kv.length < 2) continue;
                        switch (kv[0]) {
                            case "time" -> clock.time = ms(kv[1]);
                            case "opptime" -> clock.opptime = ms(kv[1]);
                            case "movetime" -> clock.movetime = ms(kv[1]);
                            case "inc" -> clock.inc = Long.parseLong(kv[1]);
                            default -> {}
                        }
                    }
                    String move;
                    try {
                        move = chooser.choose(state, legal, clock, game);
                    } catch (Exception e) {
                        log(name + ": choose failed: " + e);
                        move = null;
                    }
                    if (move == null || !legal.contains(move)) {
                        log(name + ": `" + move + "` is not legal; playing the first legal move");
                        move = legal.get(0);
                    }
                    send("move " + move);
                }
                case "quit" -> { return; }
                default -> {} // played, gameover and lines a newer referee may send
            }
        }
    }
}
