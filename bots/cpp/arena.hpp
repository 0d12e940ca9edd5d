// arena.hpp: a one-header kit for writing arena bots in C++17 (standard library only).
//
// The kit runs the line protocol of protocol.md between the referee and your bot; you
// write one function:
//
//     #include "arena.hpp"
//     int main() {
//         return arena::run("my-bot", [](const arena::Turn& t) { return t.legal[0]; });
//     }
//
// `t.state` is the latest `position` text (without the word), `t.legal` the moves of the
// latest `legal` line, `t.clock` the fields of the `go` line, `t.game` the current game
// (the `newgame` line: name, seat, seed, parameters, and the `played` moves since).
// Return one of the legal moves.
//
// What the kit does for you (as bots/python/arena_bot.py and bots/java/ArenaBot.java):
// - answers `arena 1` with `ready <name>` at once (do heavy set-up later: in on_setup,
//   off the clock at the start of each game, never before run; on_newgame and choose
//   are on your first move's clock);
// - tolerates "\r\n", runs of spaces and tabs, ignores empty lines and lines it does not
//   know (a newer referee may send more messages, or more key=value fields);
// - flushes after every line it writes; log with arena::log (stderr), never std::cout;
// - answers every `go` with exactly one `move`: if choose throws or returns a move that is
//   not in the legal list, it logs that and plays the first legal move (a bad move rather
//   than a forfeit);
// - returns 0 from run on `quit` or at end of input.
//
// Build: g++ -std=c++17 -O2 -o my_bot my_bot.cpp (bots/cpp/Makefile does it for you).
#ifndef ARENA_HPP
#define ARENA_HPP

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace arena {

constexpr const char* PROTOCOL_VERSION = "1";

// Splits on runs of spaces and tabs (the referee sends single spaces; be lenient).
inline std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> words;
    std::size_t i = 0, n = text.size();
    while (i < n) {
        while (i < n && (text[i] == ' ' || text[i] == '\t')) i++;
        std::size_t start = i;
        while (i < n && text[i] != ' ' && text[i] != '\t') i++;
        if (i > start) words.emplace_back(text, start, i - start);
    }
    return words;
}

// `key=value key=value ...` as (key, value) pairs, in order; a token without `=` gets an
// empty value. Works for states (`pits=... stores=... turn=0`), newgame and go fields.
inline std::vector<std::pair<std::string, std::string>> parse_fields(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> fields;
    for (const std::string& w : split(text)) {
        std::size_t eq = w.find('=');
        if (eq == std::string::npos)
            fields.emplace_back(w, "");
        else
            fields.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    return fields;
}

// The value of `key` among parse_fields' pairs, or nullopt.
inline std::optional<std::string> field(
    const std::vector<std::pair<std::string, std::string>>& fields, const std::string& key) {
    for (const auto& kv : fields)
        if (kv.first == key) return kv.second;
    return std::nullopt;
}

// A line to stderr, the bot's free channel (the referee keeps it in the game's log).
inline void log(const std::string& text) {
    std::fputs(text.c_str(), stderr);
    std::fputc('\n', stderr);
    std::fflush(stderr);
}

namespace detail {
// One protocol line to stdout, flushed: the referee waits for whole lines.
inline void send(const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

inline std::optional<long long> ms(const std::string& v) {
    if (v.empty() || v == "-") return std::nullopt;
    char* end = nullptr;
    long long n = std::strtoll(v.c_str(), &end, 10);
    if (end == v.c_str() || *end != '\0') return std::nullopt;
    return n < 0 ? 0 : n;
}
}  // namespace detail

// An `info <text>` line for the referee's record: one line, whitespace collapsed.
inline void info(const std::string& text) {
    std::string line = "info";
    for (const std::string& w : split(text)) {
        std::string clean;
        for (char c : w) clean += (c == '\r' || c == '\n') ? ' ' : c;
        line += ' ';
        line += clean;
    }
    detail::send(line);
}

// The fields of one `go` line, in ms; nullopt where the referee sent `-` (no limit).
struct Clock {
    std::optional<long long> time;      // your remaining game clock
    std::optional<long long> opptime;   // your opponent's
    long long inc = 0;                  // added to your clock after this move
    std::optional<long long> movetime;  // the limit for this one decision
    // When the `go` line was read: the referee's clock started just before.
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

    static Clock from_go(const std::string& rest) {
        Clock c;
        for (const auto& kv : parse_fields(rest)) {
            if (kv.first == "time") c.time = detail::ms(kv.second);
            else if (kv.first == "opptime") c.opptime = detail::ms(kv.second);
            else if (kv.first == "movetime") c.movetime = detail::ms(kv.second);
            else if (kv.first == "inc") c.inc = detail::ms(kv.second).value_or(0);
        }
        return c;
    }

    // Milliseconds since the `go` line arrived.
    double elapsed_ms() const {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                         started)
            .count();
    }

    // A suggested thinking time in ms, or nullopt when nothing limits this move: `safety`
    // of movetime, and about 1/moves_to_go of the game clock plus the increment (never
    // more than half the clock), whichever is smaller, less reserve_ms for the pipes and
    // the scheduler. The same rule as the Python kit's Clock.budget_ms.
    std::optional<long long> budget_ms(int moves_to_go = 30, double safety = 0.8,
                                       long long reserve_ms = 50) const {
        std::optional<double> limit;
        auto take = [&](double v) {
            if (!limit || v < *limit) limit = v;
        };
        if (movetime) take(*movetime * safety - reserve_ms);
        if (time) {
            take((double(*time) / (moves_to_go > 0 ? moves_to_go : 1) + inc) * safety -
                 reserve_ms);
            take(*time * 0.5 - reserve_ms);
        }
        if (!limit) return std::nullopt;
        return *limit < 0 ? 0 : (long long)*limit;
    }
};

// The current game, from its `newgame` line, plus the moves `played` since.
struct Game {
    std::string name;  // "dakon", "latrunculi" (or a newer game)
    int seat = 0;      // 0 or 1; seat 0 moves first
    std::uint64_t seed = 0;  // the game's seed: mix it into your randomness
    // Every game parameter (defaults included), in the game's canonical order.
    std::vector<std::pair<std::string, std::string>> params;
    std::vector<std::pair<int, std::string>> played;  // (seat, move), in order

    // A parameter's value, or nullopt: game.param("holes").
    std::optional<std::string> param(const std::string& key) const { return field(params, key); }

    static Game from_newgame(const std::string& rest) {
        Game g;
        std::vector<std::string> words = split(rest);
        if (!words.empty()) g.name = words[0];
        for (std::size_t i = 1; i < words.size(); i++) {
            const std::string& w = words[i];
            std::size_t eq = w.find('=');
            if (eq == std::string::npos) continue;
            std::string k = w.substr(0, eq), v = w.substr(eq + 1);
            if (k == "seat")
                g.seat = std::atoi(v.c_str());
            else if (k == "seed")
                g.seed = std::strtoull(v.c_str(), nullptr, 10);
            else
                g.params.emplace_back(k, v);
        }
        return g;
    }
};

// What choose gets at each `go`.
struct Turn {
    const std::string& state;               // the `position` text
    const std::vector<std::string>& legal;  // never empty when the referee asks
    const Clock& clock;
    const Game& game;
};

// The end of a game, from its `gameover` line, from your point of view.
struct Result {
    std::string outcome;  // win, loss or draw
    std::string reason;   // normal, adjudicated, timeout, illegal, crash, protocol
    std::vector<std::pair<std::string, std::string>> fields;  // scores=, plies=, ...
};

using Chooser = std::function<std::string(const Turn&)>;

// Optional hooks, called as their lines arrive.
struct Hooks {
    std::function<void(const Game&)> on_newgame;
    std::function<void(int seat, const std::string& move, const Game&)> on_played;
    std::function<void(const Result&, const Game&)> on_gameover;
    // The untimed set-up of each game (load books, tables, networks here). Set, the kit
    // puts `isready` in its `ready` line; the referee then sends `isready` at each game
    // (after `newgame` and the opening's `played` lines) and waits, off the clock, within
    // the start-up limit, for the `readyok` the kit sends when on_setup returns.
    std::function<void(const Game&)> on_setup;
};

// splitmix64: tiny, the same numbers on every platform; the C, JavaScript and Java random
// bots use it too, so with the same seeds they and random_bot.cpp pick the same moves.
struct SplitMix64 {
    std::uint64_t state = 0;
    explicit SplitMix64(std::uint64_t seed = 0) : state(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n), without modulo bias; n > 0.
    std::size_t below(std::size_t n) {
        std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        std::uint64_t r;
        do r = next();
        while (r >= limit);
        return std::size_t(r % n);
    }
};

namespace detail {
inline std::string decide(const Chooser& choose, const std::string& name, const Turn& turn) {
    std::string move;
    bool ok = false;
    try {
        move = choose(turn);
        ok = true;
    } catch (const std::exception& e) {
        log(name + ": choose threw: " + e.what());
    } catch (...) {
        log(name + ": choose threw");
    }
    for (const std::string& m : turn.legal)
        if (ok && m == move) return move;
    if (ok) log(name + ": `" + move + "` is not a legal move; playing " + turn.legal[0]);
    return turn.legal[0];
}
}  // namespace detail

// Plays until `quit` or end of input; returns 0 (the process's exit status).
inline int run(const std::string& name, const Chooser& choose, const Hooks& hooks = {}) {
    std::string ready = "ready";
    for (const std::string& w : split(name)) ready += " " + w;
    if (hooks.on_setup) ready += " isready";
    Game game;
    std::string state;
    std::vector<std::string> legal;
    std::string line;
    while (std::getline(std::cin, line)) {
        auto read_at = std::chrono::steady_clock::now();
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::size_t i = line.find_first_not_of(" \t");
        if (i == std::string::npos) continue;  // an empty line
        std::size_t j = line.find_first_of(" \t", i);
        std::string command = line.substr(i, j == std::string::npos ? std::string::npos : j - i);
        std::string rest;
        if (j != std::string::npos) {
            std::size_t k = line.find_first_not_of(" \t", j);
            if (k != std::string::npos) rest = line.substr(k);
        }
        if (command == "arena") {
            std::vector<std::string> v = split(rest);
            if (v.empty() || v[0] != PROTOCOL_VERSION)
                log(name + ": the referee speaks protocol '" + rest + "', this kit knows " +
                    PROTOCOL_VERSION + "; answering anyway");
            detail::send(ready);
        } else if (command == "isready") {
            if (hooks.on_setup) hooks.on_setup(game);
            detail::send("readyok");
        } else if (command == "newgame") {
            game = Game::from_newgame(rest);
            state.clear();
            legal.clear();
            if (hooks.on_newgame) hooks.on_newgame(game);
        } else if (command == "position") {
            state = rest;
            while (!state.empty() && (state.back() == ' ' || state.back() == '\t')) state.pop_back();
        } else if (command == "legal") {
            legal = split(rest);
        } else if (command == "go") {
            if (legal.empty()) {
                // The referee never does this (protocol.md: `legal` is never empty).
                log(name + ": `go` without a `legal` line; no move to send");
                continue;
            }
            Clock clock = Clock::from_go(rest);
            clock.started = read_at;
            Turn turn{state, legal, clock, game};
            detail::send("move " + detail::decide(choose, name, turn));
            legal.clear();
        } else if (command == "played") {
            std::vector<std::string> v = split(rest);
            if (v.size() >= 2) {
                int seat = std::atoi(v[0].c_str());
                game.played.emplace_back(seat, v[1]);
                if (hooks.on_played) hooks.on_played(seat, v[1], game);
            }
        } else if (command == "gameover") {
            std::vector<std::string> v = split(rest);
            Result r;
            if (!v.empty()) r.outcome = v[0];
            if (v.size() > 1) r.reason = v[1];
            for (std::size_t k = 2; k < v.size(); k++) {
                std::size_t eq = v[k].find('=');
                if (eq != std::string::npos) r.fields.emplace_back(v[k].substr(0, eq), v[k].substr(eq + 1));
            }
            if (hooks.on_gameover) hooks.on_gameover(r, game);
        } else if (command == "quit") {
            return 0;
        }
        // Anything else (a newer referee's message): ignored, as protocol.md asks.
    }
    return 0;
}

// The command line of the reference bots: `--seed N` (default 0). Exits with status 2 and
// a usage line on anything else.
inline std::uint64_t parse_seed(int argc, char** argv) {
    std::uint64_t seed = 0;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--seed" && i + 1 < argc) {
            char* end = nullptr;
            const char* v = argv[++i];
            // A negative seed wraps to 64 bits, as the JavaScript bot's BigInt.asUintN.
            seed = (v[0] == '-') ? std::uint64_t(std::strtoll(v, &end, 10))
                                 : std::strtoull(v, &end, 10);
            if (end == v || *end != '\0') {
                std::fprintf(stderr, "%s: --seed wants an integer, not '%s'\n", argv[0], v);
                std::exit(2);
            }
        } else {
            std::fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
            std::exit(2);
        }
    }
    return seed;
}

}  // namespace arena

#endif  // ARENA_HPP
