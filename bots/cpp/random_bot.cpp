// random_bot: a uniformly random legal move, in any game, on the arena.hpp kit.
//
//   bots/cpp/build/random_bot [--seed N]        (build: make -C bots/cpp)
//
// Deterministic: at each `newgame ... seed=S` the generator restarts from N ^ S with
// splitmix64, the generator of the C, JavaScript and Java random bots, so all four pick
// the same moves. Copy this file to start your own bot: choose gets the position, the
// legal moves, the clock and the game; return one of the legal moves.
#include "arena.hpp"

int main(int argc, char** argv) {
    const std::uint64_t bot_seed = arena::parse_seed(argc, argv);
    arena::SplitMix64 rng(bot_seed);

    arena::Hooks hooks;
    hooks.on_newgame = [&](const arena::Game& game) { rng = arena::SplitMix64(bot_seed ^ game.seed); };

    return arena::run("random-cpp seed=" + std::to_string(bot_seed),
                      [&](const arena::Turn& t) {
                          // t.state: the position text, t.clock.budget_ms(): how long to
                          // think, t.game.param("holes"): a parameter; arena::info("...")
                          // sends an info line, arena::log("...") writes to stderr.
                          return t.legal[rng.below(t.legal.size())];
                      },
                      hooks);
}
