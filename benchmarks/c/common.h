/* The driver shared by ouril.c and kalah.c. A game file includes picker.h,
 * defines Game, ROW, reset_game() and play(), then
 * includes this file for main():
 *
 *   ./game bench SECONDS SEED   random games until SECONDS have passed (checked after each game);
 *                               prints "plies games seconds"
 *   ./game play N SEED          N random games; prints "plies games wins0 wins1 draws truncated
 *                               sum_of_squared_lengths"
 *   ./game replay               one game per stdin line "first_player a1 a2 ...";
 *                               prints "pit0 .. pit11 store0 store1 player ply status" per game
 */
#ifndef COMMON_H
#define COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "picker.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* plays one random game to its end; returns its plies */
static long random_game(Game *g, Xorshift *rng) {
    reset_game(g, uniform(rng) < 0.5 ? 1 : 0);
    while (g->status == RUNNING) play(g, legal_action_at(g->legal, uniform(rng)));
    return g->ply;
}

static int winner(const Game *g) {
    return g->store[0] > g->store[1] ? 0 : g->store[1] > g->store[0] ? 1 : -1;
}

int main(int argc, char **argv) {
    Game g;
    Xorshift rng;
    if (argc == 4 && strcmp(argv[1], "bench") == 0) {
        double seconds = atof(argv[2]);
        seed_xorshift(&rng, strtoull(argv[3], NULL, 10));
        long plies = 0, games = 0;
        double start = now(), elapsed = 0;
        do {
            plies += random_game(&g, &rng);
            games++;
            elapsed = now() - start;
        } while (elapsed < seconds);
        printf("%ld %ld %.6f\n", plies, games, elapsed);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "play") == 0) {
        long n = atol(argv[2]), plies = 0, results[4] = {0, 0, 0, 0};
        double squares = 0;
        seed_xorshift(&rng, strtoull(argv[3], NULL, 10));
        for (long i = 0; i < n; i++) {
            long length = random_game(&g, &rng);
            plies += length;
            squares += (double)length * length;
            int w = winner(&g);
            results[w < 0 ? 2 : w]++;
            results[3] += g.status == TRUNCATED;
        }
        printf("%ld %ld %ld %ld %ld %ld %.0f\n", plies, n, results[0], results[1], results[2], results[3], squares);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "replay") == 0) {
        char line[1 << 16];
        while (fgets(line, sizeof line, stdin)) {
            char *p = line, *end;
            reset_game(&g, (int)strtol(p, &end, 10));
            for (p = end;; p = end) {
                long action = strtol(p, &end, 10);
                if (end == p) break;
                if (g.status != RUNNING || action < 0 || action >= ROW || !((g.legal >> action) & 1)) {
                    printf("illegal %ld at ply %d\n", action, g.ply);
                    return 1;
                }
                play(&g, (int)action);
            }
            for (int i = 0; i < 2 * ROW; i++) printf("%d ", g.pit[i]);
            printf("%d %d %d %d %d\n", g.store[0], g.store[1], g.player, g.ply, g.status);
        }
        return 0;
    }
    fprintf(stderr, "usage: %s bench SECONDS SEED | play N SEED | replay < games\n", argv[0]);
    return 2;
}

#endif
