// test_kit: a probe of the arena.hpp kit for bots/test-kits.sh (not a bot to copy).
// Its first choose throws and its second returns a move that is not legal (the kit must
// play the first legal move both times); later ones send an info line with everything
// the kit parsed, and play the last legal move. The C and JavaScript kits have the same
// probe; the script checks that all three answer one session identically.
#include "arena.hpp"

#include <stdexcept>

static std::string ms(const std::optional<long long>& v) {
    return v ? std::to_string(*v) : "-";
}

int main(int argc, char** argv) {
    int calls = 0;
    arena::Hooks hooks;
    // With --setup: the untimed set-up reports the game it was called for.
    if (argc > 1 && std::string(argv[1]) == "--setup") {
        hooks.on_setup = [](const arena::Game& g) {
            arena::info("setup game=" + g.name + " seat=" + std::to_string(g.seat) +
                        " played=" + std::to_string(g.played.size()));
        };
    }
    hooks.on_gameover = [](const arena::Result& r, const arena::Game& g) {
        arena::log("gameover " + r.outcome + " " + r.reason + " in " + g.name);
    };
    return arena::run(
        "probe kit",
        [&](const arena::Turn& t) -> std::string {
            calls++;
            if (calls == 1) throw std::runtime_error("a bug in choose");
            if (calls == 2) return "zz";
            arena::info("n=" + std::to_string(calls) + " game=" + t.game.name +
                        " seat=" + std::to_string(t.game.seat) +
                        " seed=" + std::to_string(t.game.seed) +
                        " holes=" + t.game.param("holes").value_or("-") +
                        " params=" + std::to_string(t.game.params.size()) +
                        " played=" + std::to_string(t.game.played.size()) +
                        " time=" + ms(t.clock.time) + " opptime=" + ms(t.clock.opptime) +
                        " inc=" + std::to_string(t.clock.inc) +
                        " movetime=" + ms(t.clock.movetime) +
                        " budget=" + ms(t.clock.budget_ms()) +
                        " legal=" + std::to_string(t.legal.size()) + " state=" + t.state);
            return t.legal.back();
        },
        hooks);
}
