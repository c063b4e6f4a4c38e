/* What ouril.c and kalah.c share before their rules: the statuses, and the move picker: the engine's xorshift128
 * (mancala_envs/engine/prng.py) and its uniform pick among the set bits of a
 * legal-move mask (mancala_envs/rollout.py, legal_action_at). */
#ifndef PICKER_H
#define PICKER_H

#include <stdint.h>

/* a game's status, and the ply cap of both games' default configs */
enum { RUNNING = 0, TERMINATED = 1, TRUNCATED = 2, MAX_PLIES = 1000 };

typedef struct { uint32_t w[4]; } Xorshift;

static void seed_xorshift(Xorshift *g, uint64_t seed) {
    /* splitmix64 spreads the seed over four non-zero words */
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        g->w[i] = (uint32_t)(z ^ (z >> 31)) | 1u;
    }
}

static inline uint32_t next_word(Xorshift *g) {
    uint32_t t = g->w[0];
    t ^= t << 11;
    t ^= t >> 8;
    g->w[0] = g->w[1];
    g->w[1] = g->w[2];
    g->w[2] = g->w[3];
    uint32_t w = g->w[3];
    w ^= w >> 19;
    w ^= t;
    g->w[3] = w;
    return w;
}

static inline double uniform(Xorshift *g) { return next_word(g) / 4294967296.0; }

/* The legal action a uniform draw selects: the int(draw * count)-th set bit of legal (-1: none). */
static inline int legal_action_at(int legal, double draw) {
    int count = 0;
    for (int bits = legal; bits; bits &= bits - 1) count++;
    if (count == 0) return -1;
    int pick = (int)(draw * count);
    if (pick > count - 1) pick = count - 1;
    for (int action = 0;; action++, legal >>= 1) {
        if (legal & 1) {
            if (pick == 0) return action;
            pick--;
        }
    }
}

#endif
