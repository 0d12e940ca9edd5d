/*
 * arena.h: a small kit for writing arena bots in C (C11 and POSIX getline; arena.c holds
 * the code). The kit runs the line protocol of protocol.md; you write one function:
 *
 *     #include "arena.h"
 *
 *     static const char *choose(const arena_turn *t, void *user) {
 *         (void)user;
 *         return t->legal[0];              // one of t->legal[0 .. t->nlegal-1]
 *     }
 *
 *     int main(void) {
 *         arena_bot bot = {.name = "my-c-bot", .choose = choose};
 *         return arena_run(&bot);
 *     }
 *
 * Build: cc -O2 -std=c11 my_bot.c arena.c -o my_bot (or add it to BOTS in the Makefile).
 *
 * What the kit does for you (as bots/python/arena_bot.py and the C++ and Java kits):
 * - answers `arena 1` with `ready <name>` at once (do heavy set-up later: in on_setup,
 *   off the clock at the start of each game, never before arena_run; on_newgame and
 *   choose are on your first move's clock);
 * - reads lines of any length (getline), strips "\r\n", splits on runs of spaces and tabs,
 *   ignores empty lines and lines it does not know;
 * - flushes after every line it writes; log with arena_log (stderr), never printf;
 * - answers every `go` with exactly one `move`: if choose returns NULL or a move that is
 *   not in the legal list, it logs that and plays the first legal move;
 * - returns 0 from arena_run on `quit` or at end of input (1 if memory ran out).
 *
 * Every pointer the kit hands to a callback is valid during that call only: copy what you
 * want to keep. The string choose returns must stay valid until choose returns to the
 * kit's loop (a pointer into t->legal, or your own static buffer, both do).
 */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define ARENA_PROTOCOL_VERSION "1"
/* A clock field the referee sent as `-`: no such limit. */
#define ARENA_NO_LIMIT (-1LL)

/* The fields of one `go` line, in ms (ARENA_NO_LIMIT where the referee sent `-`). */
typedef struct {
    long long time;     /* your remaining game clock */
    long long opptime;  /* your opponent's */
    long long inc;      /* added to your clock after this move (0 if none) */
    long long movetime; /* the limit for this one decision */
    struct timespec started; /* CLOCK_MONOTONIC when the `go` line was read */
} arena_clock;

/* One `key=value` field of a line. */
typedef struct {
    const char *key;
    const char *value;
} arena_field;

/* The current game, from its `newgame` line. */
typedef struct {
    const char *name;          /* "dakon", "latrunculi" (or a newer game) */
    int seat;                  /* 0 or 1; seat 0 moves first */
    uint64_t seed;             /* the game's seed: mix it into your randomness */
    const arena_field *params; /* every game parameter, defaults included, in order */
    size_t nparams;
    size_t nplayed;            /* moves `played` since newgame */
} arena_game;

/* What choose gets at each `go`. */
typedef struct {
    const char *state;         /* the `position` text, without the word */
    const char *const *legal;  /* the moves of the `legal` line; never empty */
    size_t nlegal;
    arena_clock clock;
    const arena_game *game;
} arena_turn;

typedef struct {
    const char *name; /* the text of `ready` */
    /* Required: the move to play. */
    const char *(*choose)(const arena_turn *turn, void *user);
    /* Optional hooks (NULL: none), called as their lines arrive. */
    void (*on_newgame)(const arena_game *game, void *user);
    void (*on_played)(int seat, const char *move, const arena_game *game, void *user);
    /* outcome: win, loss or draw; reason: normal, adjudicated, timeout, ...;
       fields: scores=, plies= and whatever a newer referee adds. */
    void (*on_gameover)(const char *outcome, const char *reason, const arena_field *fields,
                        size_t nfields, const arena_game *game, void *user);
    void *user; /* passed to every callback */
    /* Optional: the untimed set-up of each game (load books, tables, networks here).
       Given, the kit puts `isready` in its `ready` line; the referee then sends
       `isready` at each game (after `newgame` and the opening's `played` lines) and
       waits, off the clock, within the start-up limit, for the `readyok` the kit
       sends when on_setup returns. */
    void (*on_setup)(const arena_game *game, void *user);
} arena_bot;

/* Plays until `quit` or end of input; returns the exit status for main (0). */
int arena_run(const arena_bot *bot);

/* A printf-style line to stderr, the bot's free channel. */
void arena_log(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A printf-style `info` line to the referee (newlines become spaces), flushed. */
void arena_info(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A parameter's value, or NULL: arena_param(t->game, "holes"). */
const char *arena_param(const arena_game *game, const char *key);

/* Milliseconds since the `go` line arrived. */
double arena_elapsed_ms(const arena_clock *clock);

/* A suggested thinking time in ms, or ARENA_NO_LIMIT when nothing limits this move:
   80% of movetime, and 1/30 of the game clock plus the increment (at most half the clock),
   whichever is smaller, less 50 ms for the pipes and the scheduler (never below 0).
   The same rule as the Python kit's Clock.budget_ms() with its defaults. */
long long arena_budget_ms(const arena_clock *clock);

/* splitmix64, the generator of every reference random bot (C, C++, JavaScript, Java):
   the next number from *state. */
uint64_t arena_random(uint64_t *state);
/* Uniform in [0, n) without modulo bias, n > 0. */
size_t arena_random_below(uint64_t *state, size_t n);

#endif /* ARENA_H */
