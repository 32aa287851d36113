/* SPDX-License-Identifier: BSD-3-Clause */
/* Damaged frames on the wire: a clear error naming the cause, never garbage.
 *
 * Rank 0 sends byte strings that start like compi frames (magic "CMPI") but
 * are damaged in one way each: a bad header checksum, a version or codec
 * compi does not know, inconsistent lengths, a payload the codec cannot
 * decode, an escape header of the wrong length, or naming a side message
 * that was never sent (the test runs with a short COMPI_ESCAPE_WAIT) or a
 * tag no MPI allows. It sends them with
 * PMPI_Send, which no wrapper sees: they reach rank 1 exactly as written,
 * the way a damaged frame or a sender without compi would.
 *
 * Plain MPI: they are ordinary bytes and must arrive unchanged.
 * Under compi (rank 1 is another "node", COMPI_DEBUG_RANKS_PER_NODE=1): the
 * receive (Recv, Irecv+Wait, Probe, Mprobe, a strided receive) must return
 * an error (MPI_ERRORS_RETURN) whose string names compi, and compi's message
 * on stderr must name the cause. Afterwards ordinary messages still work.
 *
 * The header is written here from the documented wire layout
 * (lib/frame/frame.c), independently of compi's own writer. */
#include "mpitest.h"

static void put_le(unsigned char *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* magic | version | codec | dtclass | flags | original u64 | payload u64 | FNV-1a of 0..23 | 0 */
static void write_header_flags(unsigned char *p, int version, int codec, uint64_t original, uint64_t payload,
                               int flags)
{
    memcpy(p, "CMPI", 4);
    p[4] = (unsigned char)version;
    p[5] = (unsigned char)codec;
    p[6] = 3;   /* class "byte" */
    p[7] = (unsigned char)flags;
    put_le(p + 8, original, 8);
    put_le(p + 16, payload, 8);
    uint32_t h = 2166136261u;
    for (int i = 0; i < 24; i++) h = (h ^ p[i]) * 16777619u;
    put_le(p + 24, h, 4);
    put_le(p + 28, 0, 4);
}
static void write_header(unsigned char *p, int version, int codec, uint64_t original, uint64_t payload)
{
    write_header_flags(p, version, codec, original, payload, 0);
}

enum { CODEC_RAW = 0, CODEC_LZ4 = 7, CODEC_CHUNKED = 254, CODEC_ESCAPE = 255, VERSION = 1 };

typedef struct {
    const char *name;
    const char *cause;   /* what compi's message must say */
} damage;

static const damage damages[] = {
    {"checksum", "frame header checksum mismatch"},
    {"version", "unsupported frame version 9"},
    {"codec", "frame names unknown codec id 200"},
    {"raw lengths", "raw frame with payload"},
    {"undecodable payload", "did not decode"},
    {"payload longer than arrived", "payload bytes but"},
    {"escape length", "escaped message of"},
    {"escape never sent", "did not arrive within"},
    {"escape tag out of range", "MPI_TAG_UB is"},
    /* pipelined messages (lib/core/pipeline.c): a header alone, its chunks on compi's side communicator */
    {"pipelined chunk size", "pipelined message header names chunks of 2^0 bytes"},
    {"pipelined header with data", "payload bytes but"},
    {"pipelined single chunk", "at least two chunks expected"},
    {"pipelined chunks never sent", "chunk 0 of 256 (side tag 4343) did not arrive within"},
    {"flags on a plain frame", "frame header flags 0x07"},
};
#define ND (int)(sizeof damages / sizeof damages[0])

static void forge(unsigned char *m, size_t n, int k)
{
    mt_fill(m, n, 'b', PAT_RANDOM, (uint64_t)k + 77);
    switch (k) {
    case 0: write_header(m, VERSION, CODEC_LZ4, n, n / 2); m[9] ^= 0x40; break;
    case 1: write_header(m, 9, CODEC_LZ4, n, n / 2); break;
    case 2: write_header(m, VERSION, 200, n, n / 2); break;
    case 3: write_header(m, VERSION, CODEC_RAW, n - 32, n - 33); break;
    case 4: write_header(m, VERSION, CODEC_LZ4, n, n - 32); break;
    case 5: write_header(m, VERSION, CODEC_LZ4, n, n); break;
    case 6: write_header(m, VERSION, CODEC_ESCAPE, n + 8, 0); break;
    case 7: write_header(m, VERSION, CODEC_ESCAPE, n, 4242); break;   /* no side message: COMPI_ESCAPE_WAIT */
    case 8: write_header(m, VERSION, CODEC_ESCAPE, n, 1ull << 40); break;
    case 9: write_header_flags(m, VERSION, CODEC_CHUNKED, 1 << 20, 4343, 0); break;
    case 10: write_header_flags(m, VERSION, CODEC_CHUNKED, 1 << 20, 4343, 12); break;
    case 11: write_header_flags(m, VERSION, CODEC_CHUNKED, 4096, 4343, 12); break;
    case 12: write_header_flags(m, VERSION, CODEC_CHUNKED, 1 << 20, 4343, 12); break;   /* sent alone: no chunks */
    default: write_header_flags(m, VERSION, CODEC_LZ4, n, n / 2, 7); break;
    }
}
/* bytes of forgery k on the wire: a pipelined header travels alone */
static size_t forged_len(size_t n, int k)
{
    return k == 12 ? 32 : n;
}

enum { RK_RECV, RK_IRECV, RK_PROBE, RK_MPROBE, RK_STRIDED, RK_COUNT };
static const char *rk_name[RK_COUNT] = {"Recv", "Irecv+Wait", "Probe+Recv", "Mprobe+Mrecv", "strided Recv"};

/* One receive of an n-byte message in the given kind into buf (2n bytes);
 * returns the first error code met. */
static int receive(int kind, unsigned char *buf, size_t n, int tag, MPI_Datatype strided, int *got)
{
    MPI_Status st;
    MPI_Request rq;
    MPI_Message msg;
    int rc;
    *got = -1;
    switch (kind) {
    case RK_RECV: rc = MPI_Recv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st); break;
    case RK_IRECV:
        rc = MPI_Irecv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, &st);
        break;
    case RK_PROBE:
        rc = MPI_Probe(0, tag, MPI_COMM_WORLD, &st);
        if (rc == MPI_SUCCESS) rc = MPI_Recv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st);
        break;
    case RK_MPROBE:
        rc = MPI_Mprobe(0, tag, MPI_COMM_WORLD, &msg, &st);
        if (rc == MPI_SUCCESS) rc = MPI_Mrecv(buf, (int)n, MPI_BYTE, &msg, &st);
        break;
    default: rc = MPI_Recv(buf, 1, strided, 0, tag, MPI_COMM_WORLD, &st); break;
    }
    if (rc == MPI_SUCCESS) MPI_Get_count(&st, MPI_BYTE, got);
    return rc;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "frame_corrupt");
    mt_require_size(2);
    int compi = mt_libcompi_mapped();
    /* staged (small) and straight-into-the-buffer (large) receive paths */
    const size_t sizes[] = {4096, 65536};
    for (int si = 0; si < 2; si++) {
        size_t n = sizes[si];
        unsigned char *m = malloc(n), *buf = malloc(2 * n), *want = malloc(n);
        MPI_Datatype strided;
        MPI_Type_vector((int)n, 1, 2, MPI_BYTE, &strided);
        MPI_Type_commit(&strided);
        mt_group_begin("%zu-byte damaged frames", n);
        for (int k = 0; k < ND; k++) {
            for (int kind = 0; kind < RK_COUNT; kind++) {
                int tag = 100 + k * RK_COUNT + kind;
                if (mt_rank == 0) {
                    forge(m, n, k);
                    MPI_CALL(PMPI_Send(m, (int)forged_len(n, k), MPI_BYTE, 1, tag, MPI_COMM_WORLD));
                } else if (mt_rank == 1) {
                    forge(want, n, k);
                    memset(buf, 0xA5, 2 * n);
                    char path[128], text[8192];
                    int saved = mt_capture_begin(path, sizeof path), got;
                    int rc = receive(kind, buf, n, tag, strided, &got);
                    if (saved >= 0) mt_capture_end(saved, path, text, sizeof text);
                    else text[0] = 0;
                    if (!compi) {
                        CHECK(rc == MPI_SUCCESS, "plain MPI delivers the bytes", "%s %s: %s", damages[k].name,
                              rk_name[kind], mt_errstr(rc));
                        CHECK_INT("received count", (long long)forged_len(n, k), got);
                        int same = 1;
                        for (size_t i = 0; i < forged_len(n, k); i++)
                            if (buf[kind == RK_STRIDED ? 2 * i : i] != want[i]) { same = 0; break; }
                        CHECK(same, "bytes unchanged", "%s %s", damages[k].name, rk_name[kind]);
                        continue;
                    }
                    CHECK(rc != MPI_SUCCESS, "damaged frame refused", "%s %s: receive succeeded (count %d)",
                          damages[k].name, rk_name[kind], got);
                    char es[MPI_MAX_ERROR_STRING];
                    int el = 0;
                    es[0] = 0;
                    if (rc != MPI_SUCCESS) MPI_Error_string(rc, es, &el);
                    CHECK(strstr(es, "compi") != NULL, "error string names compi", "%s %s: %s", damages[k].name,
                          rk_name[kind], mt_errstr(rc));
                    CHECK(strstr(text, damages[k].cause) != NULL, "stderr names the cause",
                          "%s %s: expected \"%s\" in \"%s\"", damages[k].name, rk_name[kind], damages[k].cause, text);
                }
            }
        }
        /* the library is still sound: ordinary messages both ways */
        for (int it = 0; it < 2; it++) {
            if (mt_rank == 0) mt_fill(m, n, 'b', PAT_RAMP, (uint64_t)it);
            if (mt_rank == 0) MPI_CALL(MPI_Send(m, (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
            if (mt_rank == 1) {
                MPI_Status st;
                MPI_CALL(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
                mt_fill(want, n, 'b', PAT_RAMP, (uint64_t)it);
                CHECK(memcmp(buf, want, n) == 0, "ordinary message after the damaged ones", "iteration %d", it);
            }
        }
        MPI_Type_free(&strided);
        free(m);
        free(buf);
        free(want);
        mt_group_end();
    }
    return mt_finish();
}
