/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point messages beyond 2 GiB (ctest label "big", opt-in stage).
 *
 * Plain MPI accepts a send of 300,000,000 doubles (2.4 GB): so must compi,
 * whatever its frames come to. Rank 0 sends, rank 1 receives; every message
 * is compared with the data by a checksum each rank computes from the
 * generator (no second copy in memory), and every status is checked the way
 * MPI defines it: Get_count/Get_elements in an int report MPI_UNDEFINED when
 * the count does not fit, the _x variants the full value.
 *
 * BIG_CASE=probe   Probe+Recv, Mprobe+Mrecv, Iprobe+Recv, Improbe+Imrecv
 * BIG_CASE=send    Send+Recv, Isend+Irecv, Ssend+(Probe, Recv)
 * BIG_DATA=ramp    a repeating ramp (lz4 and zstd compress it a lot)
 * BIG_DATA=dense   random bytes with one zero byte in eight: zstd keeps about
 *                  94%, so a whole zstd frame is itself beyond INT_MAX bytes
 * Each rank prints its peak resident memory (VmHWM). */
#include "mpitest.h"

#define BIG_N 300000000ULL   /* doubles: 2.4e9 bytes */

static int dense;

static uint64_t big_word(uint64_t i)
{
    if (!dense) {
        double v = (double)(i % 1000) * 0.5;
        uint64_t w;
        memcpy(&w, &v, sizeof w);
        return w;
    }
    uint64_t x = i * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;   /* splitmix64 */
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x & 0x00ffffffffffffffULL;   /* a zero byte in every word */
}

static void big_fill(uint64_t *a, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) a[i] = big_word(i);
}

static uint64_t big_mix(uint64_t h, uint64_t w)
{
    return (h ^ w) * 0x100000001B3ULL + (h >> 29);
}

static uint64_t big_sum(const uint64_t *a, uint64_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (uint64_t i = 0; i < n; i++) h = big_mix(h, a[i]);
    return h;
}

static uint64_t big_expected(uint64_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (uint64_t i = 0; i < n; i++) h = big_mix(h, big_word(i));
    return h;
}

/* The status of a message of BIG_N doubles, as MPI defines it. */
static void big_check_status(const MPI_Status *st, int tag, const char *what)
{
    int c = 0;
    MPI_Count x = 0;
    CHECK_INT("MPI_SOURCE", 0, st->MPI_SOURCE);
    CHECK_INT("MPI_TAG", tag, st->MPI_TAG);
    MPI_Get_count(st, MPI_DOUBLE, &c);
    CHECK(c == (int)BIG_N, "Get_count(DOUBLE)", "%s: expected %llu, got %d", what, BIG_N, c);
    MPI_Get_count(st, MPI_BYTE, &c);
    CHECK(c == MPI_UNDEFINED, "Get_count(BYTE)", "%s: expected MPI_UNDEFINED, got %d", what, c);
    MPI_Get_elements(st, MPI_BYTE, &c);
    CHECK(c == MPI_UNDEFINED, "Get_elements(BYTE)", "%s: expected MPI_UNDEFINED, got %d", what, c);
    MPI_Get_elements(st, MPI_DOUBLE, &c);
    CHECK(c == (int)BIG_N, "Get_elements(DOUBLE)", "%s: expected %llu, got %d", what, BIG_N, c);
    MPI_Get_elements_x(st, MPI_BYTE, &x);
    CHECK(x == (MPI_Count)(BIG_N * 8), "Get_elements_x(BYTE)", "%s: expected %llu, got %lld", what, BIG_N * 8,
          (long long)x);
    MPI_Get_elements_x(st, MPI_DOUBLE, &x);
    CHECK(x == (MPI_Count)BIG_N, "Get_elements_x(DOUBLE)", "%s: expected %llu, got %lld", what, BIG_N,
          (long long)x);
}

static void big_check_data(uint64_t *buf, uint64_t want, const char *what)
{
    uint64_t got = big_sum(buf, BIG_N);
    CHECK(got == want, "checksum", "%s: expected %016llx, got %016llx", what, (unsigned long long)want,
          (unsigned long long)got);
    buf[0] = ~buf[0];   /* the next message must overwrite it */
    buf[BIG_N - 1] = ~buf[BIG_N - 1];
}

static void big_peak(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) printf("[big_p2p] rank %d peak RSS %s", mt_rank, line + 6);
    if (f) fclose(f);
}

/* Rank 0 sends message k as the application would, rank 1 receives it one
 * way per group (the group's end is collective: one message per group). */
static void big_probe(uint64_t *buf, uint64_t want)
{
    static const char *names[] = {"Probe+Recv", "Mprobe+Mrecv", "Iprobe+Recv", "Improbe+Imrecv"};
    for (int tag = 1; tag <= 4; tag++) {
        MPI_Status st;
        MPI_Message m;
        MPI_Request r;
        int flag = 0;
        mt_group_begin("%s", names[tag - 1]);
        if (mt_rank == 0) {
            MPI_CALL(MPI_Send(buf, (int)BIG_N, MPI_DOUBLE, 1, tag, MPI_COMM_WORLD));
        } else if (mt_rank == 1) {
            switch (tag) {
            case 1:
                MPI_CALL(MPI_Probe(0, 1, MPI_COMM_WORLD, &st));
                big_check_status(&st, 1, "Probe");
                MPI_CALL(MPI_Recv(buf, (int)BIG_N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st));
                break;
            case 2:
                MPI_CALL(MPI_Mprobe(0, 2, MPI_COMM_WORLD, &m, &st));
                big_check_status(&st, 2, "Mprobe");
                MPI_CALL(MPI_Mrecv(buf, (int)BIG_N, MPI_DOUBLE, &m, &st));
                break;
            case 3:
                while (!flag) MPI_CALL(MPI_Iprobe(0, 3, MPI_COMM_WORLD, &flag, &st));
                big_check_status(&st, 3, "Iprobe");
                MPI_CALL(MPI_Recv(buf, (int)BIG_N, MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st));
                break;
            default:
                while (!flag) MPI_CALL(MPI_Improbe(0, 4, MPI_COMM_WORLD, &flag, &m, &st));
                big_check_status(&st, 4, "Improbe");
                MPI_CALL(MPI_Imrecv(buf, (int)BIG_N, MPI_DOUBLE, &m, &r));
                MPI_CALL(MPI_Wait(&r, &st));
                break;
            }
            big_check_status(&st, tag, names[tag - 1]);
            big_check_data(buf, want, names[tag - 1]);
        }
        mt_group_end();
    }
}

static void big_send(uint64_t *buf, uint64_t want)
{
    static const char *names[] = {"Send+Recv", "Isend+Irecv", "Ssend+Probe+Recv"};
    for (int tag = 1; tag <= 3; tag++) {
        MPI_Status st;
        MPI_Request r;
        mt_group_begin("%s", names[tag - 1]);
        if (mt_rank == 0) {
            if (tag == 1) MPI_CALL(MPI_Send(buf, (int)BIG_N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
            if (tag == 2) {
                MPI_CALL(MPI_Isend(buf, (int)BIG_N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, &r));
                MPI_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
            }
            if (tag == 3) MPI_CALL(MPI_Ssend(buf, (int)BIG_N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD));
        } else if (mt_rank == 1) {
            if (tag == 1) MPI_CALL(MPI_Recv(buf, (int)BIG_N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st));
            if (tag == 2) {
                MPI_CALL(MPI_Irecv(buf, (int)BIG_N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, &r));
                MPI_CALL(MPI_Wait(&r, &st));
            }
            if (tag == 3) {
                MPI_CALL(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                big_check_status(&st, 3, "Probe");
                MPI_CALL(MPI_Recv(buf, (int)BIG_N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, &st));
            }
            big_check_status(&st, tag, names[tag - 1]);
            big_check_data(buf, want, names[tag - 1]);
        }
        mt_group_end();
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "big_p2p");
    mt_require_size(2);
    const char *c = getenv("BIG_CASE"), *d = getenv("BIG_DATA");
    dense = d && strcmp(d, "dense") == 0;
    uint64_t *buf = malloc(BIG_N * sizeof *buf);
    if (!buf) {
        printf("FAIL [big_p2p] rank %d: no memory for %llu bytes\n", mt_rank, BIG_N * 8);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint64_t want = 0;
    if (mt_rank == 0) big_fill(buf, BIG_N);
    else if (mt_rank == 1) want = big_expected(BIG_N);
    if (mt_rank <= 1) {
        if (c && strcmp(c, "send") == 0) big_send(buf, want);
        else big_probe(buf, want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    big_peak();
    free(buf);
    return mt_finish();
}
