/*
 * test_kit: a probe of the C kit for bots/test-kits.sh (not a bot to copy). Its first
 * choose returns NULL and its second a move that is not legal (the kit must play the
 * first legal move both times); later ones send an info line with everything the kit
 * parsed, and play the last legal move. The C++ and JavaScript kits have the same probe;
 * the script checks that all three answer one session identically.
 */
#include "arena.h"

#include <stdio.h>
#include <string.h>

static int calls;

static void ms(char *buf, size_t n, long long v) {
    if (v == ARENA_NO_LIMIT) snprintf(buf, n, "-");
    else snprintf(buf, n, "%lld", v);
}

static void on_gameover(const char *outcome, const char *reason, const arena_field *fields,
                        size_t nfields, const arena_game *game, void *user) {
    (void)fields, (void)nfields, (void)user;
    arena_log("gameover %s %s in %s", outcome, reason, game->name);
}

static const char *choose(const arena_turn *t, void *user) {
    (void)user;
    calls++;
    if (calls == 1) return NULL;
    if (calls == 2) return "zz";
    char time[24], opptime[24], movetime[24], budget[24];
    ms(time, sizeof time, t->clock.time);
    ms(opptime, sizeof opptime, t->clock.opptime);
    ms(movetime, sizeof movetime, t->clock.movetime);
    ms(budget, sizeof budget, arena_budget_ms(&t->clock));
    const char *holes = arena_param(t->game, "holes");
    arena_info("n=%d game=%s seat=%d seed=%llu holes=%s params=%zu played=%zu time=%s "
               "opptime=%s inc=%lld movetime=%s budget=%s legal=%zu state=%s",
               calls, t->game->name, t->game->seat, (unsigned long long)t->game->seed,
               holes ? holes : "-", t->game->nparams, t->game->nplayed, time, opptime,
               t->clock.inc, movetime, budget, t->nlegal, t->state);
    return t->legal[t->nlegal - 1];
}

/* With --setup: the untimed set-up reports the game it was called for. */
static void on_setup(const arena_game *game, void *user) {
    (void)user;
    arena_info("setup game=%s seat=%d played=%zu", game->name, game->seat, game->nplayed);
}

int main(int argc, char **argv) {
    arena_bot bot = {.name = "probe kit", .choose = choose, .on_gameover = on_gameover};
    if (argc > 1 && strcmp(argv[1], "--setup") == 0) bot.on_setup = on_setup;
    return arena_run(&bot);
}
