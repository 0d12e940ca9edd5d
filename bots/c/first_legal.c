/*
 * first_legal: the smallest honest arena bot, for any game.
 *
 * It never looks at the position: it answers each `go` with a move taken from the
 * latest `legal` line, a seeded-random one by default, or the first one with --first.
 * It shows that the protocol needs nothing but reading and writing lines.
 *
 *   build/first_legal [--seed N] [--first]
 *
 * Determinism: at each `newgame ... seed=S` the generator restarts from N ^ S, so the
 * same bot seed and game seed give the same moves.
 *
 * Pitfalls this file shows how to avoid:
 *   - stdout to a pipe is fully buffered in C: fflush(stdout) after every line;
 *   - the `legal` line can be long (tens of KiB): getline() grows its buffer, no
 *     fixed-size array to overflow;
 *   - a line may end in "\r\n": strip both;
 *   - unknown lines are ignored, `quit` and end of input both exit with status 0;
 *   - logging goes to stderr, never stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

/* splitmix64: tiny, good enough, same numbers on every platform. */
static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Unbiased index in [0, n). */
static size_t random_below(size_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do {
        r = next_random();
    } while (r >= limit);
    return (size_t)(r % n);
}

static void send_line(const char *a, const char *b) {
    fputs(a, stdout);
    if (b) fputs(b, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* The word at the start of line (up to a space or the end) equals word? */
static int starts_with_word(const char *line, const char *word) {
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\0');
}

int main(int argc, char **argv) {
    uint64_t bot_seed = 0;
    int first = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            bot_seed = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--first") == 0) {
            first = 1;
        } else {
            fprintf(stderr, "usage: %s [--seed N] [--first]\n", argv[0]);
            return 2;
        }
    }
    rng_state = bot_seed;

    char *line = NULL, *legal = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) != -1) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';

        if (starts_with_word(line, "arena")) {
            send_line(first ? "ready first_legal-c --first" : "ready first_legal-c", NULL);
        } else if (starts_with_word(line, "newgame")) {
            const char *s = strstr(line, " seed=");
            uint64_t game_seed = s ? strtoull(s + 6, NULL, 10) : 0;
            rng_state = bot_seed ^ game_seed;
        } else if (starts_with_word(line, "legal")) {
            free(legal);
            legal = strdup(line + 5); /* keep the moves; tokenised when `go` comes */
        } else if (starts_with_word(line, "go")) {
            if (!legal) {
                fprintf(stderr, "first_legal: 'go' without a 'legal' line\n");
                continue;
            }
            /* Split the legal list in place into an array of moves. */
            size_t count = 0, room = 64;
            char **moves = malloc(room * sizeof *moves);
            for (char *tok = strtok(legal, " "); tok; tok = strtok(NULL, " ")) {
                if (count == room) moves = realloc(moves, (room *= 2) * sizeof *moves);
                moves[count++] = tok;
            }
            if (count == 0) {
                fprintf(stderr, "first_legal: empty 'legal' line\n");
            } else {
                send_line("move ", moves[first ? 0 : random_below(count)]);
            }
            free(moves);
            free(legal);
            legal = NULL;
        } else if (starts_with_word(line, "quit")) {
            break;
        }
        /* position, played, gameover, info from newer referees, empty lines: ignored. */
    }
    free(line);
    free(legal);
    return 0;
}
