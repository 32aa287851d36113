/* SPDX-License-Identifier: BSD-3-Clause */
/* The raw zone's watch (lib/engine/window.h): a window that chose raw on
 * incompressible data notices, from a few sampled cache lines, when the
 * same peer's messages of the same sizes turn compressible, and reopens at
 * once instead of after reeval_bytes of raw traffic; on data that keep
 * changing but stay incompressible it looks at fewer and fewer messages.
 * Real buffers, evaluation results and time injected: deterministic. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compi.h"
#include "engine/window.h"
#include "common/rng.h"

#include "engine_test.h"

#define KiB ((size_t)1024)
#define MiB ((size_t)1024 * 1024)
#define N (64 * KiB)

static uint64_t rng = 88172645463325252ull;
static uint64_t next_u64(void) { return compi_rng_next(&rng); }

/* classify, then the watch as compi_decision_watch makes it: 1 when the
 * message ends up evaluated */
static int send_one(compi_window *w, const compi_window_params *p, const unsigned char *data, size_t size)
{
    compi_win_action a = compi_window_classify(w, p, size, 0);
    if (a == COMPI_WIN_EVALUATE) return 1;
    if (a != COMPI_WIN_RAW || !compi_window_watch_due(w, p, size, 0)) return 0;
    return compi_window_data_changed(w, p, compi_window_signature(data, size < N ? size : N)); /* the buffers are N */
}

int main(void)
{
    unsigned char *random = malloc(N), *zeros = calloc(1, N), *smooth = malloc(N);
    for (size_t i = 0; i < N; i += 8) {
        uint64_t r = next_u64();
        memcpy(random + i, &r, 8);
        double v = 1.0 + 1e-3 * (double)(i / 8);
        memcpy(smooth + i, &v, 8);
    }
    const compi_codec *lz4 = compi_codec_by_name("lz4");
    unsigned s_random = compi_window_signature(random, N), s_zeros = compi_window_signature(zeros, N),
             s_smooth = compi_window_signature(smooth, N);
    CHECK(s_random < 16, "random data's signature is near 0 (%u)", s_random);
    CHECK(s_zeros > COMPI_SIG_MAX * 3 / 4, "zeros' signature is near the top (%u)", s_zeros);
    CHECK(s_smooth >= s_random + 32, "smooth doubles' signature is apart from random's (%u vs %u)", s_smooth, s_random);

    compi_window_params p;
    compi_window_params_default(&p);
    compi_window w;
    compi_window_init(&w, &p);
    /* random data at 64 KiB and 1 MiB: raw decided, then a long raw run */
    CHECK(send_one(&w, &p, random, N), "an open window evaluates");
    compi_window_evaluated(&w, &p, MiB, NULL, 1.0);
    compi_window_note_data(&w, s_random);
    int evaluations = 0;
    for (int i = 0; i < 200; i++) evaluations += send_one(&w, &p, random, N);
    CHECK(evaluations == 0, "random data stays raw without evaluations (%d)", evaluations);
    /* the same peer and sizes, now zeros: the first message is evaluated */
    uint64_t raw_before = w.raw, evaluated_before = w.evaluated;
    CHECK(send_one(&w, &p, zeros, N), "the data's change reopens the raw zone at once");
    CHECK(w.raw == raw_before && w.evaluated == evaluated_before + 1 && w.sig_reopens == 1,
          "the message counts as an evaluation, not raw");
    compi_window_evaluated(&w, &p, N, lz4, 20.0);
    CHECK(compi_window_classify(&w, &p, 4 * N, 0) == COMPI_WIN_COMPRESS, "larger zeros are compressed at once");
    CHECK(w.sig_misses == 0, "a watch that found compressible data keeps looking at every message");

    /* a re-evaluation on random data, zeros at once after it: the data
     * the evaluation chose raw for are the reference, not the next ones */
    compi_window_init(&w, &p);
    send_one(&w, &p, random, 8 * MiB);
    compi_window_evaluated(&w, &p, 8 * MiB, NULL, 1.0);
    compi_window_note_data(&w, s_random);
    CHECK(!send_one(&w, &p, random, 8 * MiB), "random data go raw");
    CHECK(send_one(&w, &p, random, 8 * MiB), "16 MiB of raw data: re-evaluated");
    compi_window_evaluated(&w, &p, 8 * MiB, NULL, 1.0);
    compi_window_note_data(&w, s_random);
    CHECK(send_one(&w, &p, zeros, N), "zeros right after a raw re-evaluation are evaluated");

    /* data that keep changing and stay incompressible: the watch backs off */
    compi_window_init(&w, &p);
    send_one(&w, &p, random, N);
    compi_window_evaluated(&w, &p, N, NULL, 1.0);
    compi_window_note_data(&w, s_random);
    int looks = 0, reopens = 0;
    for (int i = 0; i < 4000; i++) {
        const unsigned char *d = next_u64() & 1 ? smooth : random;
        compi_win_action a = compi_window_classify(&w, &p, N, 0);
        if (a == COMPI_WIN_EVALUATE) compi_window_evaluated(&w, &p, N, NULL, 1.0); /* every 16 MiB */
        int due = a == COMPI_WIN_RAW && compi_window_watch_due(&w, &p, N, 0);
        looks += due;
        if (due && compi_window_data_changed(&w, &p, compi_window_signature(d, N))) {
            reopens++;
            compi_window_evaluated(&w, &p, N, NULL, 1.0); /* smooth, but not worth it on this link */
        }
    }
    CHECK(reopens <= COMPI_SIG_MAX_MISSES + 8, "reopening for nothing backs off (%d reopens)", reopens);
    CHECK(looks < 100, "the watch looks at few messages once backed off (%d)", looks);
    CHECK(w.sig_misses >= 6, "each reopening for nothing halves the looks (%u misses)", w.sig_misses);

    /* below the floor, or in the compressed zone, nothing is watched */
    compi_window_init(&w, &p);
    CHECK(!compi_window_watch_due(&w, &p, 100, 0), "below the floor is not watched");
    send_one(&w, &p, zeros, N);
    compi_window_evaluated(&w, &p, N, lz4, 20.0);
    compi_window_classify(&w, &p, MiB, 0);
    CHECK(!compi_window_watch_due(&w, &p, MiB, 0), "the compressed zone has its ratio watch instead");
    /* the compressed zone's re-checks count bytes on the wire: zeros at
     * ratio 250 are not re-evaluated every 16 MiB of raw size */
    compi_window_init(&w, &p);
    send_one(&w, &p, zeros, 8 * MiB);
    compi_window_evaluated(&w, &p, 8 * MiB, lz4, 50.0);
    evaluations = 0;
    for (int i = 0; i < 64; i++) {
        evaluations += compi_window_classify(&w, &p, 8 * MiB, 0) == COMPI_WIN_EVALUATE;
        compi_window_wire(&w, 8 * MiB / 250);
    }
    CHECK(evaluations == 0, "512 MiB of zeros, 2 MiB on the wire: no re-check (%d)", evaluations);
    for (int i = 0; i < 4; i++) {
        evaluations += compi_window_classify(&w, &p, 8 * MiB, 0) == COMPI_WIN_EVALUATE;
        compi_window_wire(&w, 8 * MiB);
    }
    CHECK(evaluations == 1, "16 MiB on the wire: one re-check (%d)", evaluations);
    free(random);
    free(zeros);
    free(smooth);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else printf("window watch: all passed\n");
    return failures ? 1 : 0;
}
