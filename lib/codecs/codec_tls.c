/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-thread codec objects (codec_tls.h). The objects hang off a __thread
 * array for a lookup without a call into libpthread; a pthread key whose
 * value is that array's owner record makes the destructor run at thread
 * exit. */
#include <pthread.h>
#include <stdlib.h>
#include "codec_tls.h"

typedef struct {
    void *obj[COMPI_TLS_KINDS];
    void (*destroy[COMPI_TLS_KINDS])(void *);
} compi_tls_set;

static __thread compi_tls_set *compi_tls_mine;
static pthread_key_t compi_tls_key;
static pthread_once_t compi_tls_once = PTHREAD_ONCE_INIT;
static int compi_tls_key_ok;

static void compi_tls_free(void *p)
{
    compi_tls_set *s = p;
    for (int k = 0; k < COMPI_TLS_KINDS; k++)
        if (s->obj[k] && s->destroy[k]) s->destroy[k](s->obj[k]);
    free(s);
    compi_tls_mine = NULL;
}

static void compi_tls_make_key(void)
{
    compi_tls_key_ok = pthread_key_create(&compi_tls_key, compi_tls_free) == 0;
}

void *compi_codec_tls(compi_tls_kind kind, void *(*make)(void), void (*destroy)(void *))
{
    if ((unsigned)kind >= COMPI_TLS_KINDS) return NULL;
    compi_tls_set *s = compi_tls_mine;
    if (!s) {
        pthread_once(&compi_tls_once, compi_tls_make_key);
        /* without a key the set could not be freed at thread exit: per-call path */
        if (!compi_tls_key_ok || !(s = calloc(1, sizeof *s))) return NULL;
        if (pthread_setspecific(compi_tls_key, s) != 0) {
            free(s);
            return NULL;
        }
        compi_tls_mine = s;
    }
    if (!s->obj[kind]) {
        s->obj[kind] = make();
        s->destroy[kind] = destroy;
    }
    return s->obj[kind];
}
