/* Ouril's default rules (docs/rules/ouril.md; mancala_envs/games/ouril.py) without the repetition
 * memory, as a reference for how fast a plain C engine plays random games (benchmarks/bench_limit.py).
 * 2x6 pits, 4 seeds each; pits 0-5 are player 0's row, 6-11 player 1's, sown counter-clockwise
 * (increasing index). Not part of the library: the rules live once, in mancala_envs/games/ouril.py. */

#include "picker.h"

enum { ROW = 6, SEEDS = 4, THRESHOLD = 25 };

typedef struct {
    int pit[2 * ROW], store[2];
    int player, ply, legal, status;
} Game;

static int row_seeds(const Game *g, int player) {
    int seeds = 0;
    for (int i = player * ROW; i < player * ROW + ROW; i++) seeds += g->pit[i];
    return seeds;
}

/* Rules 1, 4: the non-empty own pits; when the opponent's row is empty, only those whose lap reaches it. */
static int legal_bits(const Game *g) {
    const int *row = g->pit + g->player * ROW;
    int starving = row_seeds(g, 1 - g->player) == 0, bits = 0;
    for (int local = 0; local < ROW; local++)
        if (row[local] > 0 && (!starving || row[local] > ROW - 1 - local)) bits |= 1 << local;
    return bits;
}

/* The end of a game that is not won by the threshold: the owners collect their rows. */
static void collect(Game *g, int status) {
    for (int i = 0; i < 2 * ROW; i++) {
        g->store[i / ROW] += g->pit[i];
        g->pit[i] = 0;
    }
    g->status = status;
}

static void reset_game(Game *g, int first_player) {
    for (int i = 0; i < 2 * ROW; i++) g->pit[i] = SEEDS;
    g->store[0] = g->store[1] = 0;
    g->player = first_player;
    g->ply = 0;
    g->status = 0;
    g->legal = legal_bits(g);
}

static void play(Game *g, int local) {
    int mover = g->player, origin = mover * ROW + local, pit = origin;
    /* Rules 1-2: sow, skipping the origin on every pass. */
    for (int seeds = g->pit[origin]; seeds > 0;) {
        pit = pit + 1 == 2 * ROW ? 0 : pit + 1;
        if (pit == origin) continue;
        g->pit[pit]++;
        seeds--;
    }
    g->pit[origin] = 0;
    /* Rule 3: capture 2s and 3s backwards from the landing pit, inside the opponent's row.
     * Rule 6: a grand slam stands (the default). */
    int zone = (1 - mover) * ROW;
    while (pit >= zone && pit < zone + ROW && (g->pit[pit] == 2 || g->pit[pit] == 3)) {
        g->store[mover] += g->pit[pit];
        g->pit[pit] = 0;
        pit--;
    }
    g->ply++;
    /* Rule 8: the threshold ends the game at once, the board left as it is. */
    if (g->store[mover] >= THRESHOLD) {
        g->status = TERMINATED;
        g->legal = 0;
        return;
    }
    /* Rule 5: a player left with no seeds passes. */
    int opponent = 1 - mover;
    g->player = row_seeds(g, opponent) == 0 && row_seeds(g, mover) > 0 ? mover : opponent;
    g->legal = legal_bits(g);
    /* Rules 4 and 8: no (feeding) move, the ply cap. */
    if (g->legal == 0)
        collect(g, TERMINATED);
    else if (g->ply >= MAX_PLIES)
        collect(g, TRUNCATED);
}

#include "common.h"
