/*
 * arena.c: the protocol loop of the C kit (see arena.h for what it does and how to use it).
 */
#define _POSIX_C_SOURCE 200809L
#include "arena.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable array of words pointing into one owned line. */
typedef struct {
    char *text;   /* the owned copy the words point into */
    char **words;
    size_t count, room;
} words;

static void words_free(words *w) {
    free(w->text);
    free(w->words);
    memset(w, 0, sizeof *w);
}

/* Splits a copy of `line` on runs of spaces and tabs into w; 0 on success, -1 out of memory. */
static int words_split(words *w, const char *line) {
    words_free(w);
    w->text = strdup(line);
    if (!w->text) return -1;
    for (char *p = w->text;;) {
        while (*p == ' ' || *p == '\t') *p++ = '\0';
        if (!*p) break;
        if (w->count == w->room) {
            size_t room = w->room ? 2 * w->room : 64;
            char **grown = realloc(w->words, room * sizeof *grown);
            if (!grown) return -1;
            w->words = grown;
            w->room = room;
        }
        w->words[w->count++] = p;
        while (*p && *p != ' ' && *p != '\t') p++;
    }
    return 0;
}

/* Splits `key=value` words (from index `from` on) into fields; the words are cut at `=`. */
static arena_field *fields_of(words *w, size_t from, size_t *n) {
    *n = 0;
    arena_field *f = malloc((w->count + 1) * sizeof *f);
    if (!f) return NULL;
    for (size_t i = from; i < w->count; i++) {
        char *eq = strchr(w->words[i], '=');
        if (!eq) continue;
        *eq = '\0';
        f[*n].key = w->words[i];
        f[*n].value = eq + 1;
        (*n)++;
    }
    return f;
}

static void send_line(const char *a, const char *b) {
    fputs(a, stdout);
    if (b) fputs(b, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

void arena_log(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    vfprintf(stderr, format, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void arena_info(const char *format, ...) {
    char small[512];
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(small, sizeof small, format, ap);
    va_end(ap);
    if (n < 0) return;
    char *text = small;
    if ((size_t)n >= sizeof small) {
        text = malloc((size_t)n + 1);
        if (!text) return;
        va_start(ap, format);
        vsnprintf(text, (size_t)n + 1, format, ap);
        va_end(ap);
    }
    /* One protocol line: a newline inside would make the rest a message of its own. */
    for (char *p = text; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    send_line(*text ? "info " : "info", text);
    if (text != small) free(text);
}

const char *arena_param(const arena_game *game, const char *key) {
    for (size_t i = 0; game && i < game->nparams; i++)
        if (strcmp(game->params[i].key, key) == 0) return game->params[i].value;
    return NULL;
}

double arena_elapsed_ms(const arena_clock *clock) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - clock->started.tv_sec) * 1000.0 +
           (double)(now.tv_nsec - clock->started.tv_nsec) / 1e6;
}

long long arena_budget_ms(const arena_clock *clock) {
    double limit = 0;
    int limited = 0;
    if (clock->movetime != ARENA_NO_LIMIT) {
        limit = clock->movetime * 0.8 - 50;
        limited = 1;
    }
    if (clock->time != ARENA_NO_LIMIT) {
        double share = ((double)clock->time / 30 + clock->inc) * 0.8 - 50;
        double half = clock->time * 0.5 - 50;
        if (half < share) share = half;
        if (!limited || share < limit) limit = share;
        limited = 1;
    }
    if (!limited) return ARENA_NO_LIMIT;
    return limit < 0 ? 0 : (long long)limit;
}

uint64_t arena_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

size_t arena_random_below(uint64_t *state, size_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do {
        r = arena_random(state);
    } while (r >= limit);
    return (size_t)(r % n);
}

/* A `go` field in ms: `-` (or something unreadable) is no limit; negatives read as 0. */
static long long ms_of(const char *v) {
    if (strcmp(v, "-") == 0) return ARENA_NO_LIMIT;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (end == v || *end || errno) return ARENA_NO_LIMIT;
    return n < 0 ? 0 : n;
}

int arena_run(const arena_bot *bot) {
    const char *name = bot->name ? bot->name : "c-bot";
    char *line = NULL, *state = NULL;
    size_t cap = 0;
    ssize_t len;
    int status = 0;
    words cmd = {0}, legal = {0}, newgame = {0};
    arena_field *params = NULL;
    arena_game game = {.name = ""};

    while ((len = getline(&line, &cap, stdin)) != -1) {
        struct timespec read_at;
        clock_gettime(CLOCK_MONOTONIC, &read_at);
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (words_split(&cmd, line) < 0) goto out_of_memory;
        if (cmd.count == 0) continue; /* an empty line */
        const char *command = cmd.words[0];
        /* What follows the first word, as sent (the position text keeps its spaces). */
        const char *rest = line + (cmd.words[0] - cmd.text) + strlen(command);
        while (*rest == ' ' || *rest == '\t') rest++;

        if (strcmp(command, "arena") == 0) {
            if (cmd.count < 2 || strcmp(cmd.words[1], ARENA_PROTOCOL_VERSION) != 0)
                arena_log("%s: the referee speaks protocol '%s', this kit knows %s; answering anyway",
                          name, rest, ARENA_PROTOCOL_VERSION);
            /* `isready` in the ready line asks for the untimed set-up at each game. */
            if (bot->on_setup) {
                fputs("ready ", stdout);
                fputs(name, stdout);
                send_line(" isready", NULL);
            } else {
                send_line("ready ", name);
            }
        } else if (strcmp(command, "isready") == 0) {
            if (bot->on_setup) bot->on_setup(&game, bot->user);
            send_line("readyok", NULL);
        } else if (strcmp(command, "newgame") == 0) {
            if (words_split(&newgame, rest) < 0) goto out_of_memory;
            free(params);
            size_t n;
            params = fields_of(&newgame, 1, &n);
            if (!params) goto out_of_memory;
            game = (arena_game){.name = newgame.count ? newgame.words[0] : ""};
            /* seat and seed are the game's own fields; the rest are its parameters. */
            for (size_t i = 0; i < n; i++) {
                if (strcmp(params[i].key, "seat") == 0) {
                    game.seat = atoi(params[i].value);
                } else if (strcmp(params[i].key, "seed") == 0) {
                    game.seed = strtoull(params[i].value, NULL, 10);
                } else {
                    params[game.nparams++] = params[i];
                }
            }
            game.params = params;
            free(state);
            state = NULL;
            words_free(&legal);
            if (bot->on_newgame) bot->on_newgame(&game, bot->user);
        } else if (strcmp(command, "position") == 0) {
            free(state);
            state = strdup(rest);
            if (!state) goto out_of_memory;
        } else if (strcmp(command, "legal") == 0) {
            if (words_split(&legal, rest) < 0) goto out_of_memory;
        } else if (strcmp(command, "go") == 0) {
            if (legal.count == 0) {
                /* The referee never does this (protocol.md: `legal` is never empty). */
                arena_log("%s: `go` without a `legal` line; no move to send", name);
                continue;
            }
            arena_turn turn = {
                .state = state ? state : "",
                .legal = (const char *const *)legal.words,
                .nlegal = legal.count,
                .clock = {ARENA_NO_LIMIT, ARENA_NO_LIMIT, 0, ARENA_NO_LIMIT, read_at},
                .game = &game,
            };
            size_t nf;
            arena_field *f = fields_of(&cmd, 1, &nf);
            if (!f) goto out_of_memory;
            for (size_t i = 0; i < nf; i++) {
                if (strcmp(f[i].key, "time") == 0) turn.clock.time = ms_of(f[i].value);
                else if (strcmp(f[i].key, "opptime") == 0) turn.clock.opptime = ms_of(f[i].value);
                else if (strcmp(f[i].key, "movetime") == 0) turn.clock.movetime = ms_of(f[i].value);
                else if (strcmp(f[i].key, "inc") == 0) {
                    long long inc = ms_of(f[i].value);
                    turn.clock.inc = inc == ARENA_NO_LIMIT ? 0 : inc;
                }
            }
            free(f);
            const char *move = bot->choose(&turn, bot->user);
            int ok = 0;
            for (size_t i = 0; move && i < legal.count; i++)
                if (strcmp(legal.words[i], move) == 0) ok = 1;
            if (!ok) {
                arena_log("%s: choose returned %s%s%s, not a legal move; playing %s", name,
                          move ? "`" : "", move ? move : "NULL", move ? "`" : "", legal.words[0]);
                move = legal.words[0];
            }
            send_line("move ", move);
            words_free(&legal);
        } else if (strcmp(command, "played") == 0) {
            if (cmd.count >= 3) {
                game.nplayed++;
                if (bot->on_played) bot->on_played(atoi(cmd.words[1]), cmd.words[2], &game, bot->user);
            }
        } else if (strcmp(command, "gameover") == 0) {
            if (bot->on_gameover) {
                size_t nf;
                arena_field *f = fields_of(&cmd, 3, &nf);
                if (!f) goto out_of_memory;
                bot->on_gameover(cmd.count > 1 ? cmd.words[1] : "", cmd.count > 2 ? cmd.words[2] : "",
                                 f, nf, &game, bot->user);
                free(f);
            }
        } else if (strcmp(command, "quit") == 0) {
            break;
        }
        /* Anything else (a newer referee's message): ignored, as protocol.md asks. */
    }
    goto done;
out_of_memory:
    arena_log("%s: out of memory", name);
    status = 1;
done:
    free(line);
    free(state);
    free(params);
    words_free(&cmd);
    words_free(&legal);
    words_free(&newgame);
    return status;
}
