/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's one pseudo-random generator: splitmix64 (Steele, Lea, Flood 2014).
 * Deterministic for a given state, 2^64 period, passes BigCrush; used by the
 * synthetic data sets and by every test and fuzz driver that needs repeatable
 * random input. Not for anything that needs unpredictability. */
#ifndef COMPI_RNG_H
#define COMPI_RNG_H
#include <stdint.h>

/* Advance *state and return the next 64 random bits. */
static inline uint64_t compi_rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
