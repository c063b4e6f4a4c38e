/* Kalah's rules as OpenSpiel's mancala plays them (docs/rules/kalah.md; mancala_envs/games/kalah.py),
 * as a reference for how fast a plain C engine plays random games (benchmarks/bench_limit.py).
 * 2x6 pits, 4 seeds each; pits 0-5 are player 0's row, 6-11 player 1's; a lap goes counter-clockwise
 * through the mover's store (after their last pit) and skips the opponent's. Not part of the library:
 * the rules live once, in mancala_envs/games/kalah.py. */

#include "picker.h"

enum { ROW = 6, SEEDS = 4 };

typedef struct {
    int pit[2 * ROW], store[2];
    int player, ply, legal, status;
} Game;

static int own_pit_bits(const Game *g) {
    const int *row = g->pit + g->player * ROW;
    int bits = 0;
    for (int local = 0; local < ROW; local++)
        if (row[local] > 0) bits |= 1 << local;
    return bits;
}

static int row_seeds(const Game *g, int player) {
    int seeds = 0;
    for (int i = player * ROW; i < player * ROW + ROW; i++) seeds += g->pit[i];
    return seeds;
}

static void collect(Game *g, int status) {
    for (int i = 0; i < 2 * ROW; i++) {
        g->store[i / ROW] += g->pit[i];
        g->pit[i] = 0;
    }
    g->status = status;
    g->legal = 0;
}

static void reset_game(Game *g, int first_player) {
    for (int i = 0; i < 2 * ROW; i++) g->pit[i] = SEEDS;
    g->store[0] = g->store[1] = 0;
    g->player = first_player;
    g->ply = 0;
    g->status = 0;
    g->legal = own_pit_bits(g);
}

static void play(Game *g, int local) {
    enum { IN_STORE = -1 };
    int mover = g->player, last_own = mover * ROW + ROW - 1, origin = mover * ROW + local, place = origin;
    int seeds = g->pit[origin];
    g->pit[origin] = 0;
    /* Rule 1: sow round the mover's ring (own row, own store, opponent's row). */
    for (; seeds > 0; seeds--) {
        if (place == last_own) {
            place = IN_STORE;
            g->store[mover]++;
            continue;
        }
        place = place == IN_STORE ? (last_own + 1) % (2 * ROW) : place + 1 == 2 * ROW ? 0 : place + 1;
        g->pit[place]++;
    }
    /* Rule 3: a last seed in an empty own pit takes the opposite pit, if it holds any. */
    if (place >= mover * ROW && place <= last_own && g->pit[place] == 1 && g->pit[2 * ROW - 1 - place] > 0) {
        g->store[mover] += g->pit[2 * ROW - 1 - place] + 1;
        g->pit[2 * ROW - 1 - place] = 0;
        g->pit[place] = 0;
    }
    g->ply++;
    /* Rule 2: a last seed in the own store gives another move. */
    if (place != IN_STORE) g->player = 1 - mover;
    /* Rule 4: an empty row ends the game; rule 5: the ply cap. */
    if (row_seeds(g, 0) == 0 || row_seeds(g, 1) == 0)
        collect(g, TERMINATED);
    else if (g->ply >= MAX_PLIES)
        collect(g, TRUNCATED);
    else
        g->legal = own_pit_bits(g);
}

#include "common.h"
