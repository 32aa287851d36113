/* SPDX-License-Identifier: BSD-3-Clause */
/* huffman: canonical static Huffman over bytes, block by block.
 *
 * Stream: [version=1][LEB128 original length][block_log] then blocks of
 * 2^block_log bytes (the last one shorter), each starting with a type byte:
 *   0 raw:     the block's bytes verbatim (used when coding would not help)
 *   1 huffman: [lo][hi] code lengths of symbols lo..hi as 4-bit nibbles
 *              (low nibble first, 0 = unused); then k LEB128 payload byte
 *              counts and the k payloads: canonical codes, LSB-first bit
 *              order. k = 4 for blocks of >= 4096 bytes (the block cut in 4
 *              segments of ceil(n/4), the last one shorter), else 1.
 *   2 fill:    one byte repeated over the whole block (a one-symbol alphabet
 *              has no complete prefix code)
 * Code lengths are limited to 11 bits so the decoder is a single 2048-entry
 * table lookup; the decoder accepts only complete code-length sets (Kraft sum
 * exactly 1), which every Huffman tree with >= 2 leaves gives. */
#include <stdlib.h>
#include <string.h>
#include "codec_util.h"

#define HUF_VERSION 1
#define HUF_MAX_LEN 11
#define HUF_TABLE (1u << HUF_MAX_LEN)
#define HUF_BLOCK_LOG 16
#define HUF_BLOCK_LOG_MIN 8
#define HUF_BLOCK_LOG_MAX 24
#define HUF_SPLIT_MIN 4096
#define HUF_T_RAW 0
#define HUF_T_CODED 1
#define HUF_T_FILL 2

static size_t huf_bound(size_t n)
{
    size_t block = (size_t)1 << HUF_BLOCK_LOG;
    return compi_hdr_len(n) + 1 + n + (n + block - 1) / block;
}

/* Huffman code lengths for the nonzero counts by the two-queue method over
 * symbols sorted by count. Returns the maximum length. */
static unsigned huf_build_lengths(const uint32_t cnt[256], uint8_t len[256])
{
    uint16_t sym[256];
    uint64_t w[512];
    uint16_t parent[512];
    unsigned n = 0;
    for (unsigned s = 0; s < 256; s++) {
        len[s] = 0;
        if (cnt[s]) sym[n++] = (uint16_t)s;
    }
    /* insertion sort by count: at most 256 symbols, once per block */
    for (unsigned i = 1; i < n; i++) {
        uint16_t s = sym[i];
        unsigned j = i;
        while (j > 0 && cnt[sym[j - 1]] > cnt[s]) {
            sym[j] = sym[j - 1];
            j--;
        }
        sym[j] = s;
    }
    if (n < 2) { /* callers code >= 2 symbols; keep the tree code in bounds */
        if (n) len[sym[0]] = 1;
        return n;
    }
    for (unsigned i = 0; i < n; i++) w[i] = cnt[sym[i]];
    /* leaves 0..n-1 ascending, internal nodes n..2n-2 created ascending */
    unsigned leaf = 0, node = n, next = n;
    for (unsigned k = 0; k + 1 < n; k++) {
        unsigned pick[2];
        for (int t = 0; t < 2; t++) {
            if (leaf < n && (node >= next || w[leaf] <= w[node])) pick[t] = leaf++;
            else pick[t] = node++;
        }
        w[next] = w[pick[0]] + w[pick[1]];
        parent[pick[0]] = parent[pick[1]] = (uint16_t)next;
        next++;
    }
    /* depths: root is next-1; parents always have higher index */
    uint8_t depth[512];
    unsigned maxlen = 0;
    depth[next - 1] = 0;
    for (unsigned i = next - 1; i-- > 0;) {
        depth[i] = (uint8_t)(depth[parent[i]] + 1);
    }
    for (unsigned i = 0; i < n; i++) {
        len[sym[i]] = depth[i];
        if (depth[i] > maxlen) maxlen = depth[i];
    }
    return maxlen;
}

/* Length-limited lengths: halve the counts (keeping them nonzero) until the
 * tree fits in HUF_MAX_LEN bits. Converges: equal counts give depth 8. */
static void huf_limited_lengths(const uint32_t cnt_in[256], uint8_t len[256])
{
    uint32_t cnt[256];
    memcpy(cnt, cnt_in, sizeof cnt);
    while (huf_build_lengths(cnt, len) > HUF_MAX_LEN) {
        for (unsigned s = 0; s < 256; s++)
            if (cnt[s]) cnt[s] = (cnt[s] >> 1) | 1;
    }
}

static uint32_t huf_reverse(uint32_t code, unsigned len)
{
    uint32_t r = 0;
    for (unsigned i = 0; i < len; i++) {
        r = (r << 1) | (code & 1);
        code >>= 1;
    }
    return r;
}

/* Canonical codes (bit-reversed for LSB-first output) from lengths. Returns
 * 0 if the lengths are not a complete prefix code within HUF_MAX_LEN. */
static int huf_canonical(const uint8_t len[256], uint16_t code[256])
{
    unsigned bl_count[HUF_MAX_LEN + 1] = {0};
    uint32_t kraft = 0;
    for (unsigned s = 0; s < 256; s++) {
        if (len[s] > HUF_MAX_LEN) return 0;
        if (len[s]) {
            bl_count[len[s]]++;
            kraft += HUF_TABLE >> len[s];
        }
    }
    if (kraft != HUF_TABLE) return 0; /* oversubscribed or incomplete */
    uint32_t next_code[HUF_MAX_LEN + 2];
    uint32_t c = 0;
    for (unsigned l = 1; l <= HUF_MAX_LEN; l++) {
        c = (c + bl_count[l - 1]) << 1;
        next_code[l] = c;
    }
    for (unsigned s = 0; s < 256; s++)
        if (len[s]) code[s] = (uint16_t)huf_reverse(next_code[len[s]]++, len[s]);
    return 1;
}

/* A coded block of HUF_SPLIT_MIN bytes or more is cut into 4 segments coded
 * as separate bit streams, so the decoder can run 4 independent lookup
 * chains at once (a single chain is bound by load latency). */
static unsigned huf_nstreams(size_t n)
{
    return n >= HUF_SPLIT_MIN ? 4 : 1;
}

/* Segment s of a block of n bytes split into k streams: [*off, *off + *len) */
static void huf_segment(size_t n, unsigned k, unsigned s, size_t *off, size_t *len)
{
    size_t seg = (n + k - 1) / k;
    size_t a = seg * s < n ? seg * s : n;
    size_t b = seg * (s + 1) < n ? seg * (s + 1) : n;
    *off = a;
    *len = b - a;
}

/* Write n codes as an LSB-first bit stream into exactly payload bytes. */
static void huf_write_stream(const uint8_t *src, size_t n, const uint16_t code[256], const uint8_t len[256], uint8_t *p,
                             size_t payload)
{
    uint8_t *end = p + payload;
    uint64_t bb = 0;
    unsigned bc = 0;
    size_t i = 0;
    /* fast path: 4 codes (<= 44 bits) on top of < 8 pending bits, then an
     * unconditional 8-byte store while 8 bytes of room remain */
    while (i + 4 <= n && end - p >= 8) {
        for (int k = 0; k < 4; k++, i++) {
            bb |= (uint64_t)code[src[i]] << bc;
            bc += len[src[i]];
        }
        compi_store_le64(p, bb);
        p += bc >> 3;
        bb >>= bc & ~7u;
        bc &= 7;
    }
    for (; i < n; i++) {
        bb |= (uint64_t)code[src[i]] << bc;
        bc += len[src[i]];
        while (bc >= 8) {
            *p++ = (uint8_t)bb;
            bb >>= 8;
            bc -= 8;
        }
    }
    if (bc) *p++ = (uint8_t)bb;
}

/* Encode one block of n >= 1 bytes at op (room for 1 + n bytes guaranteed).
 * Returns bytes written. */
static size_t huf_encode_block(const uint8_t *src, size_t n, uint8_t *op)
{
    uint32_t cnt[256] = {0};
    for (size_t i = 0; i < n; i++) cnt[src[i]]++;
    unsigned lo = 0, hi = 255, used = 0;
    while (!cnt[lo]) lo++;
    while (!cnt[hi]) hi--;
    for (unsigned s = lo; s <= hi; s++) used += cnt[s] != 0;
    if (used == 1) {
        op[0] = n < 2 ? HUF_T_RAW : HUF_T_FILL;
        op[1] = src[0];
        return 2;
    }
    uint8_t len[256];
    uint16_t code[256];
    huf_limited_lengths(cnt, len);
    if (!huf_canonical(len, code)) { /* cannot happen; stay safe anyway */
        op[0] = HUF_T_RAW;
        memcpy(op + 1, src, n);
        return 1 + n;
    }
    unsigned k = huf_nstreams(n);
    size_t payload[4], coded = 1 + 2 + (hi - lo + 2) / 2;
    for (unsigned s = 0; s < k; s++) {
        size_t off, sl;
        uint64_t bits = 0;
        huf_segment(n, k, s, &off, &sl);
        for (size_t i = 0; i < sl; i++) bits += len[src[off + i]];
        payload[s] = (size_t)((bits + 7) / 8);
        coded += compi_varint_len(payload[s]) + payload[s];
    }
    if (coded >= 1 + n) {
        op[0] = HUF_T_RAW;
        memcpy(op + 1, src, n);
        return 1 + n;
    }

    uint8_t *p = op;
    *p++ = HUF_T_CODED;
    *p++ = (uint8_t)lo;
    *p++ = (uint8_t)hi;
    for (unsigned s = lo; s <= hi; s += 2) {
        unsigned l2 = s + 1 <= hi ? len[s + 1] : 0;
        *p++ = (uint8_t)(len[s] | (l2 << 4));
    }
    for (unsigned s = 0; s < k; s++) p += compi_varint_put(p, payload[s]);
    for (unsigned s = 0; s < k; s++) {
        size_t off, sl;
        huf_segment(n, k, s, &off, &sl);
        huf_write_stream(src + off, sl, code, len, p, payload[s]);
        p += payload[s];
    }
    return (size_t)(p - op);
}

static long long huf_compress(const void *srcv, size_t n, void *dstv, size_t cap, const compi_codec_params *params)
{
    const uint8_t *src = srcv;
    uint8_t *dst = dstv;
    if (cap < huf_bound(n)) return COMPI_ERR_DST_TOO_SMALL;
    uint8_t *op = dst;
    op += compi_hdr_put(op, HUF_VERSION, n);
    *op++ = HUF_BLOCK_LOG;
    size_t block = (size_t)1 << HUF_BLOCK_LOG;
    for (size_t off = 0; off < n; off += block) {
        size_t len = n - off < block ? n - off : block;
        op += huf_encode_block(src + off, len, op);
    }
    return (long long)(op - dst);
}

/* Bit reader over one stream; reads past the end yield zero bits counted in
 * pad, and huf_br_done rejects any stream that needed them. */
typedef struct {
    const uint8_t *in, *in0, *end;
    uint64_t bb, pad;
    unsigned bc;
} huf_br;

static inline void huf_br_refill(huf_br *br)
{
    if (br->end - br->in >= 8) {
        br->bb |= compi_load_le64(br->in) << br->bc;
        br->in += (63 - br->bc) >> 3;
        br->bc |= 56;
    } else {
        while (br->bc <= 56) {
            if (br->in < br->end) br->bb |= (uint64_t)*br->in++ << br->bc;
            else br->pad += 8;
            br->bc += 8;
        }
    }
}

static inline uint8_t huf_br_decode(huf_br *br, const uint16_t *table)
{
    unsigned e = table[br->bb & (HUF_TABLE - 1)];
    br->bb >>= e >> 8;
    br->bc -= e >> 8;
    return (uint8_t)e;
}

/* The stream was consumed exactly: no bits beyond it, no whole unused byte,
 * zero padding bits in the last byte. */
static int huf_br_done(const huf_br *br)
{
    uint64_t plen = (uint64_t)(br->end - br->in0);
    uint64_t consumed = (uint64_t)(br->in - br->in0) * 8 + br->pad - br->bc;
    if (consumed > plen * 8 || (consumed + 7) / 8 != plen) return 0;
    if (consumed % 8 && (br->bb & ((1u << (8 - consumed % 8)) - 1))) return 0;
    return 1;
}

/* Decode one coded block body (after the type byte) into out[0..n). */
static int huf_decode_block(const uint8_t *src, size_t avail, size_t *used, uint8_t *out, size_t n)
{
    if (avail < 2) return COMPI_ERR_CORRUPT;
    unsigned lo = src[0], hi = src[1];
    if (lo > hi) return COMPI_ERR_CORRUPT;
    size_t nib = (hi - lo + 2) / 2, ip = 2;
    if (nib > avail - ip) return COMPI_ERR_CORRUPT;
    uint8_t len[256] = {0};
    for (unsigned s = lo; s <= hi; s++) {
        unsigned b = src[ip + (s - lo) / 2];
        len[s] = (uint8_t)(((s - lo) & 1) ? b >> 4 : b & 15);
    }
    if ((hi - lo) % 2 == 0 && (src[ip + nib - 1] >> 4)) return COMPI_ERR_CORRUPT;
    ip += nib;
    uint16_t code[256];
    if (!huf_canonical(len, code)) return COMPI_ERR_CORRUPT;
    uint16_t table[HUF_TABLE];
    for (unsigned s = lo; s <= hi; s++) {
        if (!len[s]) continue;
        uint16_t e = (uint16_t)(s | (len[s] << 8));
        for (uint32_t k = code[s]; k < HUF_TABLE; k += 1u << len[s]) table[k] = e;
    }
    unsigned k = huf_nstreams(n);
    uint64_t plen[4];
    for (unsigned s = 0; s < k; s++) {
        size_t vl = compi_varint_get(src + ip, avail - ip, &plen[s]);
        if (!vl) return COMPI_ERR_CORRUPT;
        ip += vl;
    }
    huf_br br[4];
    uint8_t *o[4];
    size_t cnt[4];
    for (unsigned s = 0; s < k; s++) {
        if (plen[s] > avail - ip) return COMPI_ERR_CORRUPT;
        size_t off;
        huf_segment(n, k, s, &off, &cnt[s]);
        o[s] = out + off;
        br[s] = (huf_br){src + ip, src + ip, src + ip + plen[s], 0, 0, 0};
        ip += (size_t)plen[s];
    }
    size_t i = 0;
    if (k == 4) {
        /* lockstep over the shortest (last) segment; after a refill each
         * reader holds >= 56 bits, enough for 5 codes of <= 11 bits */
        for (; i + 5 <= cnt[3]; i += 5) {
            huf_br_refill(&br[0]);
            huf_br_refill(&br[1]);
            huf_br_refill(&br[2]);
            huf_br_refill(&br[3]);
            for (int r = 0; r < 5; r++) {
                o[0][i + r] = huf_br_decode(&br[0], table);
                o[1][i + r] = huf_br_decode(&br[1], table);
                o[2][i + r] = huf_br_decode(&br[2], table);
                o[3][i + r] = huf_br_decode(&br[3], table);
            }
            /* hostile input: stop early once a reader is far past its end */
            if ((br[0].pad | br[1].pad | br[2].pad | br[3].pad) > 64) return COMPI_ERR_CORRUPT;
        }
    }
    for (unsigned s = 0; s < k; s++) {
        size_t j = i;
        for (; j + 5 <= cnt[s]; j += 5) {
            huf_br_refill(&br[s]);
            for (int r = 0; r < 5; r++) o[s][j + r] = huf_br_decode(&br[s], table);
            if (br[s].pad > 64) return COMPI_ERR_CORRUPT;
        }
        for (; j < cnt[s]; j++) {
            huf_br_refill(&br[s]);
            o[s][j] = huf_br_decode(&br[s], table);
        }
        if (!huf_br_done(&br[s])) return COMPI_ERR_CORRUPT;
    }
    *used = ip;
    return COMPI_OK;
}

static long long huf_decompress(const void *srcv, size_t src_len, void *dstv, size_t dst_len,
                                const compi_codec_params *params)
{
    const uint8_t *src = srcv;
    uint8_t *dst = dstv;
    size_t ip;
    int rc = compi_hdr_get(src, src_len, HUF_VERSION, 3, dst_len, &ip);
    if (rc) return rc;
    if (ip >= src_len) return COMPI_ERR_CORRUPT;
    unsigned blog = src[ip++];
    if (blog < HUF_BLOCK_LOG_MIN || blog > HUF_BLOCK_LOG_MAX) return COMPI_ERR_CORRUPT;
    size_t block = (size_t)1 << blog;
    for (size_t off = 0; off < dst_len; off += block) {
        size_t n = dst_len - off < block ? dst_len - off : block;
        if (ip >= src_len) return COMPI_ERR_CORRUPT;
        unsigned type = src[ip++];
        if (type == HUF_T_RAW) {
            if (n > src_len - ip) return COMPI_ERR_CORRUPT;
            memcpy(dst + off, src + ip, n);
            ip += n;
        } else if (type == HUF_T_FILL) {
            if (ip >= src_len) return COMPI_ERR_CORRUPT;
            memset(dst + off, src[ip++], n);
        } else if (type == HUF_T_CODED) {
            size_t used;
            int rc = huf_decode_block(src + ip, src_len - ip, &used, dst + off, n);
            if (rc) return rc;
            ip += used;
        } else {
            return COMPI_ERR_CORRUPT;
        }
    }
    if (ip != src_len) return COMPI_ERR_CORRUPT;
    return (long long)dst_len;
}

const compi_codec compi_codec_huffman = {
    .name = "huffman",
    .id = COMPI_CODEC_ID_HUFFMAN,
    .summary = "canonical static Huffman over bytes, 11-bit limited, per 64 KiB block (hand-written)",
    .bound = huf_bound,
    .compress = huf_compress,
    .decompress = huf_decompress,
};
