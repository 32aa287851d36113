/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_escape: messages whose bytes start like a compi frame header.
 *
 * compi sends a raw inter-node message unframed (the application's bytes as
 * they are) unless it starts with the frame magic "CMPI"; such a message is
 * escaped (a header in front when small, its first 32 bytes sent aside when
 * large). This sends data that begins with "CMPI", and data that begins
 * with a complete, valid-looking frame header, at sizes around every
 * threshold, through every send mode and receive kind, and checks that each
 * arrives byte for byte with the right count. Plain MPI must pass it too.
 * Pairs: rank r < size/2 sends to r + size/2 (another node under
 * COMPI_DEBUG_RANKS_PER_NODE = 1 or 2 with 4 ranks). */
#include "mpitest.h"

static const int sizes[] = {4, 20, 31, 32, 100, 4000, 16351, 16352, 16353, 16384, 65536, 1 << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
enum { V_MAGIC_RANDOM, V_MAGIC_ZERO, V_FORGED_HEADER, V_COUNT };
static const char *vname[V_COUNT] = {"CMPI+random", "CMPI+zeros", "forged header"};
enum { R_RECV, R_IRECV, R_LARGER, R_WILDCARD, R_PROBE, R_MPROBE, R_PERSISTENT, R_STRIDED, R_COUNT };
static const char *rname[R_COUNT] = {"Recv", "Irecv", "Irecv into a larger buffer", "Recv any source/tag",
                                     "Probe+Recv", "Mprobe+Mrecv", "persistent Recv", "Recv strided"};
static const char *sname[4] = {"Send", "Isend", "Ssend", "Bsend"};

/* A frame header as compi 1 writes it (lib/frame/frame.c): magic, version,
 * codec 0 (raw), class, flags, original and payload length, FNV-1a check. */
static void forge_header(unsigned char *p, uint64_t len)
{
    memset(p, 0, 32);
    memcpy(p, "CMPI", 4);
    p[4] = 1;
    for (int i = 0; i < 8; i++) p[8 + i] = p[16 + i] = (unsigned char)(len >> (8 * i));
    uint32_t h = 2166136261u;
    for (int i = 0; i < 24; i++) h = (h ^ p[i]) * 16777619u;
    for (int i = 0; i < 4; i++) p[24 + i] = (unsigned char)(h >> (8 * i));
}

static void make(unsigned char *b, int n, int v, uint64_t seed)
{
    mt_fill(b, (size_t)n, 'b', v == V_MAGIC_ZERO ? PAT_ZERO : PAT_RANDOM, seed);
    if (v == V_FORGED_HEADER && n >= 32) forge_header(b, (uint64_t)n - 32);
    memcpy(b, "CMPI", 4);
}

static void send_one(int how, const unsigned char *b, int n, int to, int tag)
{
    MPI_Request rq;
    switch (how) {
    case 0: MPI_CALL(MPI_Send(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD)); break;
    case 1:
        MPI_CALL(MPI_Isend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &rq));
        MPI_CALL(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        break;
    case 2: MPI_CALL(MPI_Ssend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD)); break;
    default: {
        /* the buffer may change at once after a buffered send */
        unsigned char *copy = mt_malloc((size_t)n);
        memcpy(copy, b, (size_t)n);
        MPI_CALL(MPI_Bsend(copy, n, MPI_BYTE, to, tag, MPI_COMM_WORLD));
        memset(copy, 0x5a, (size_t)n);
        free(copy);
    }
    }
}

/* Receives n bytes from `from` with receive kind how; returns them dense. */
static unsigned char *recv_one(int how, int n, int from, int tag, MPI_Status *st)
{
    int room = how == R_LARGER ? n + 100 : n;
    unsigned char *b = mt_malloc((size_t)(how == R_STRIDED ? 2 * n : room));
    memset(b, 0xee, (size_t)(how == R_STRIDED ? 2 * n : room));
    MPI_Request rq;
    MPI_Message msg;
    MPI_Datatype t;
    switch (how) {
    case R_RECV: MPI_CALL(MPI_Recv(b, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, st)); break;
    case R_IRECV:
    case R_LARGER:
        MPI_CALL(MPI_Irecv(b, room, MPI_BYTE, from, tag, MPI_COMM_WORLD, &rq));
        MPI_CALL(MPI_Wait(&rq, st));
        break;
    case R_WILDCARD: MPI_CALL(MPI_Recv(b, n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)); break;
    case R_PROBE: {
        MPI_Status pst;
        int cnt = -1;
        MPI_CALL(MPI_Probe(from, tag, MPI_COMM_WORLD, &pst));
        MPI_Get_count(&pst, MPI_BYTE, &cnt);
        CHECK_INT("probed count", n, cnt);
        MPI_CALL(MPI_Recv(b, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, st));
        break;
    }
    case R_MPROBE:
        MPI_CALL(MPI_Mprobe(from, tag, MPI_COMM_WORLD, &msg, st));
        MPI_CALL(MPI_Mrecv(b, n, MPI_BYTE, &msg, st));
        break;
    case R_PERSISTENT:
        MPI_CALL(MPI_Recv_init(b, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &rq));
        MPI_CALL(MPI_Start(&rq));
        MPI_CALL(MPI_Wait(&rq, st));
        MPI_CALL(MPI_Request_free(&rq));
        break;
    default: {
        MPI_Type_vector(n, 1, 2, MPI_BYTE, &t);
        MPI_Type_commit(&t);
        MPI_CALL(MPI_Recv(b, 1, t, from, tag, MPI_COMM_WORLD, st));
        MPI_Type_free(&t);
        for (int i = 0; i < n; i++) {
            if (b[2 * i + 1] != 0xee) {
                mt_failf(__LINE__, "strided gap", "byte %d of the gaps was written", 2 * i + 1);
                break;
            }
            b[i] = b[2 * i];
        }
    }
    }
    if (how == R_LARGER)
        for (int i = n; i < room; i++)
            if (b[i] != 0xee) { mt_failf(__LINE__, "tail", "byte %d past the message was written", i); break; }
    return b;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "p2p_escape");
    mt_require_size(2);
    int half = mt_size / 2, sender = mt_rank < half, peer = sender ? mt_rank + half : mt_rank - half;
    if (mt_rank >= 2 * half) peer = -1;   /* odd sizes: the last rank idles */
    int bsize = 4 * ((1 << 20) + MPI_BSEND_OVERHEAD);
    void *battach = mt_malloc((size_t)bsize);
    MPI_Buffer_attach(battach, bsize);
    for (int v = 0; v < V_COUNT; v++) {
        mt_group_begin("%s", vname[v]);
        for (int k = 0; k < NSIZES; k++) {
            for (int how = 0; how < R_COUNT; how++) {
                if (peer < 0) continue;
                int n = sizes[k], tag = 1000 + (v * NSIZES + k) * R_COUNT + how;
                uint64_t seed = (uint64_t)tag * 31 + (uint64_t)(sender ? mt_rank : peer);
                unsigned char *exp = mt_malloc((size_t)n);
                make(exp, n, v, seed);
                if (sender) {
                    send_one((k + how) % 4, exp, n, peer, tag);
                } else {
                    char w[200];
                    snprintf(w, sizeof w, "%d bytes, %s, sent with %s", n, rname[how], sname[(k + how) % 4]);
                    MPI_Status st;
                    mt_status_prefill(&st);
                    unsigned char *got = recv_one(how, n, peer, tag, &st);
                    int cnt = -1;
                    MPI_Get_count(&st, MPI_BYTE, &cnt);
                    CHECK_INT(w, n, cnt);
                    CHECK_INT(w, peer, st.MPI_SOURCE);
                    CHECK_INT(w, tag, st.MPI_TAG);
                    CHECK_DATA(w, got, exp, (size_t)n, 'b');
                    free(got);
                }
                free(exp);
            }
        }
        mt_group_end();
    }
    MPI_Buffer_detach(&battach, &bsize);
    free(battach);
    return mt_finish();
}
