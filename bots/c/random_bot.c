/*
 * random_bot: a uniformly random legal move, in any game, on the C kit (arena.h).
 *
 *   bots/c/build/random_bot [--seed N]        (build: make -C bots/c)
 *
 * Deterministic: at each `newgame ... seed=S` the generator restarts from N ^ S with
 * splitmix64, as first_legal.c and the C++, JavaScript and Java random bots do, so they
 * all pick the same moves. Copy this file to start your own bot: choose gets the
 * position, the legal moves, the clock and the game; return one of the legal moves.
 */
#include "arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t bot_seed;
    uint64_t rng;
} random_bot;

static void on_newgame(const arena_game *game, void *user) {
    random_bot *me = user;
    me->rng = me->bot_seed ^ game->seed; /* same seeds, same game: reproducible */
}

static const char *choose(const arena_turn *t, void *user) {
    random_bot *me = user;
    /* t->state: the position text; arena_budget_ms(&t->clock): how long to think;
       arena_param(t->game, "holes"): a parameter; arena_info("...") sends an info line,
       arena_log("...") writes to stderr. */
    return t->legal[arena_random_below(&me->rng, t->nlegal)];
}

int main(int argc, char **argv) {
    random_bot me = {0, 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            me.bot_seed = strtoull(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: %s [--seed N]\n", argv[0]);
            return 2;
        }
    }
    me.rng = me.bot_seed;
    char name[64];
    snprintf(name, sizeof name, "random-c seed=%llu", (unsigned long long)me.bot_seed);
    arena_bot bot = {.name = name, .choose = choose, .on_newgame = on_newgame, .user = &me};
    return arena_run(&bot);
}
