/* SPDX-License-Identifier: BSD-3-Clause */
/* compi's wire format: what a compressed (or specially sent) message looks
 * like between two ranks on different nodes. MPI-free, so the fuzzers and
 * the unit tests exercise exactly the code the library runs.
 *
 * A frame is a 32-byte header (compi_frame_write_header) and a payload:
 *   codec 0 (raw)        the application's bytes
 *   codec id of a codec  that codec's output for them
 *   COMPI_CODEC_ESCAPE   a raw message whose first 32 bytes went aside
 *                        (lib/core/escape.c); header only on the wire
 *   COMPI_CODEC_CHUNKED  a pipelined message (lib/core/pipeline.c): header
 *                        only; the bytes follow as chunk messages, each a
 *                        frame of its own (raw or compressed; flags = its
 *                        number mod 256), so the codec of one chunk
 *                        overlaps the wire time of the next. */
#ifndef COMPI_FRAME_H
#define COMPI_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include "compi.h"

#define COMPI_FRAME_MAGIC 0x49504d43u /* "CMPI" little endian */
#define COMPI_FRAME_VERSION 1
#define COMPI_FRAME_HEADER_SIZE 32
#define COMPI_CODEC_RAW 0
/* A raw message that starts with the frame magic, sent without its first
 * 32 bytes (they travel aside; see lib/core/escape.c). Never a codec id. */
#define COMPI_CODEC_ESCAPE 255
/* A pipelined message's header: original_len = the message's bytes,
 * payload_len = the tag its chunks carry on compi's side communicator,
 * flags = log2 of the chunk size (every chunk but the last is that long).
 * Never a codec id. */
#define COMPI_CODEC_CHUNKED 254
/* A chunk its sender's compi could not send (it failed part way through the
 * message: no memory, an MPI error): header only, flags = the chunk's
 * number, original_len = the chunk's length, payload_len = 0. It stands in
 * for the chunk so that the receiver fails the message at once instead of
 * waiting for bytes that will never come. Only ever a chunk; never a codec id. */
#define COMPI_CODEC_UNSENT 253
#define COMPI_CHUNK_LOG2_MIN 12 /* 4 KiB */
#define COMPI_CHUNK_LOG2_MAX 26 /* 64 MiB */

typedef struct {
    uint8_t codec; /* 0 = raw */
    uint8_t dtclass;
    uint64_t original_len; /* bytes of packed application data */
    uint64_t payload_len;  /* bytes of codec output after the header, exactly
                               what follows it on the wire */
    uint8_t flags;         /* 0; COMPI_CODEC_CHUNKED: log2 chunk size; a chunk: its number mod 256 */
} compi_frame_header;

void compi_frame_write_header(void *dst, const compi_frame_header *h);
/* The one test that tells frames from unframed raw messages on framed
 * communicators, from a message's length and its first avail bytes: raw
 * data that passes it is escaped by the sender (escape.c). */
static inline int compi_bytes_look_framed(const void *p, size_t avail, size_t len)
{
    const unsigned char *b = p;
    return len >= COMPI_FRAME_HEADER_SIZE && avail >= 4 && b[0] == 'C' && b[1] == 'M' && b[2] == 'P' && b[3] == 'I';
}
/* Validates magic, version, checksum, codec id and the fields' consistency;
 * fills why on failure (COMPI_ERR_CORRUPT). */
int compi_frame_read_header(const void *src, size_t avail, compi_frame_header *h, char *why, size_t whylen);

/* ---------------------------------------------------------- whole frames */
/* A frame whose payload is all in memory (a collective's block, a stashed
 * message): its header and original length come from the peer, so every
 * length is checked before a byte is decoded. */

/* Whether arrived payload bytes fit header h: payloads are exact (raw or
 * compressed: nothing is padded); a pipelined header travels alone. 1 if
 * they do; else 0 with why. */
int compi_frame_length_check(const compi_frame_header *h, uint64_t arrived, char *why, size_t whylen);
/* The frame_len bytes at frame as one whole frame: a valid header, neither
 * an escape nor a pipelined header (those are resolved where they arrive),
 * and a payload of a length the header allows. COMPI_OK with *h, or
 * COMPI_ERR_CORRUPT with why. */
int compi_frame_check_whole(const void *frame, size_t frame_len, compi_frame_header *h, char *why, size_t whylen);
/* Decodes the payload of a checked header h (h->payload_len bytes at
 * payload) into dst, which has room for cap bytes: COMPI_OK when it gave
 * exactly h->original_len bytes; COMPI_ERR_DST_TOO_SMALL (nothing written)
 * when cap < h->original_len; COMPI_ERR_CORRUPT with why when the payload
 * does not decode to exactly that many bytes (dst[0..original_len) may then
 * hold garbage; nothing beyond is written). */
int compi_frame_decode_payload(const compi_frame_header *h, const void *payload, void *dst, size_t cap, char *why,
                               size_t whylen);
/* Both: the whole frame at frame into dst (cap bytes); *h gets its header
 * (when the header checks out, also on COMPI_ERR_DST_TOO_SMALL). */
int compi_frame_decode_whole(const void *frame, size_t frame_len, void *dst, size_t cap, compi_frame_header *h,
                             char *why, size_t whylen);

/* --------------------------------------------------------------- escapes */
/* An escape header (h, read from the landed bytes at the head of an
 * n-byte message; truncated: the MPI cut the message) before its side
 * message is fetched: the declared length must be the message's, the side
 * tag an MPI tag (at most tag_ub), and the 32 bytes to put back must be in
 * memory. COMPI_OK, or COMPI_ERR_CORRUPT with why. */
int compi_escape_check(const compi_frame_header *h, size_t landed, size_t n, int truncated, uint64_t tag_ub, char *why,
                       size_t whylen);
/* Puts the side message (got bytes at aside) back over the escape header
 * at head (landed bytes of room): exactly the 32 bytes the sender set
 * aside, which look like a frame (that is why they were escaped).
 * COMPI_OK, or COMPI_ERR_CORRUPT with why and head unchanged. */
int compi_escape_put_back(unsigned char *head, size_t landed, const unsigned char *aside, size_t got, char *why,
                          size_t whylen);

/* ---------------------------------------------------------------- chunks */
/* Chunks of a pipelined message: chunk k holds bytes [k*chunk, k*chunk+len)
 * of the message. */
static inline size_t compi_chunk_count(uint64_t total, unsigned log2)
{
    return (size_t)((total + ((uint64_t)1 << log2) - 1) >> log2);
}
/* The length of chunk k of a message of total bytes in chunks of chunk
 * bytes (every chunk but the last is that long). */
static inline size_t compi_chunk_len(size_t total, size_t chunk, size_t k)
{
    return total - k * chunk < chunk ? total - k * chunk : chunk;
}
/* Room compi_chunk_encode needs for a chunk of len bytes. */
size_t compi_chunk_capacity(size_t len);
/* Encodes len bytes at src as chunk number index of a message, at out (cap
 * bytes, at least compi_chunk_capacity(len)): the codec's output if it is
 * smaller than the data, else the data raw (codec NULL: raw); the header's
 * flags byte numbers the chunk (mod 256). Returns the message's length, or a
 * negative compi error; *compressed tells which it became. */
long long compi_chunk_encode(size_t index, const void *src, size_t len, const compi_codec *codec,
                             const compi_codec_params *p, unsigned char *out, size_t cap, int *compressed);
/* Writes the stand-in for chunk number index of len bytes (COMPI_CODEC_UNSENT)
 * at out (COMPI_FRAME_HEADER_SIZE bytes); returns its length. */
long long compi_chunk_unsent(size_t index, size_t len, unsigned char *out);
/* The number (mod 256) of the chunk message at msg, or -1 when its header
 * does not check out. */
int compi_chunk_number(const unsigned char *msg, size_t got);
/* Checks one chunk message as it arrived (got bytes at msg) against the
 * number and length it must have and decodes it into dst (len bytes);
 * *codec (if not NULL) gets its codec id. COMPI_OK, or COMPI_ERR_CORRUPT
 * with why naming what is wrong; dst may then hold garbage. */
int compi_chunk_decode(size_t index, const unsigned char *msg, size_t got, size_t len, unsigned char *dst,
                       uint8_t *codec, char *why, size_t whylen);

/* The pace hint of a chunk message: bytes 28..31 of its header (u32,
 * little-endian), outside the checked bytes and never validated, so that no
 * value of it can make a receiver refuse or misread a chunk (a receiver
 * that does not know the hint ignores it; a sender that does not set it
 * leaves 0, "not said"). Otherwise it is 1 + the sender's time, in us
 * (saturating), from posting the chunk before to posting this one: how
 * fast the sender's coding let the chunks go. The receiver's link learning
 * compares it with the chunk's arrival after the one before: when the
 * arrival took clearly longer, the wire paced the chunk and its time is a
 * sample of the link; else the sender's coding paced it. */
void compi_chunk_set_gap(unsigned char *msg, double gap_us);
/* The sender's gap of a chunk message as it arrived (us): -1 when not said
 * or shorter than a header. */
double compi_chunk_gap(const unsigned char *msg, size_t got);

#endif
