/* SPDX-License-Identifier: BSD-3-Clause */
/* The node structure of a communicator for node-aware collectives: a
 * node-local communicator and one of node leaders, built in the first
 * collective call that needs them (every rank takes the same path, so every
 * rank builds them in the same call), freed with the communicator. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/comm.h"

/* The layout is cached on the communicator under coll's own keyval: MPI
 * calls its delete callback when the application frees the communicator
 * (MPI_Comm_free, MPI_Finalize for MPI_COMM_SELF), and compi_coll_comm_reset
 * and compi_coll_finalize delete it. Dups do not inherit it (each builds its
 * own sub-communicators). The communicators carrying one are listed, so
 * compi_coll_finalize can release them all before MPI_Finalize. */
typedef struct compi_coll_entry {
    MPI_Comm comm;
    compi_coll_layout *l;
    struct compi_coll_entry *next;
} compi_coll_entry;
static compi_coll_entry *compi_coll_live;
static int compi_coll_keyval = MPI_KEYVAL_INVALID;
/* its own lock: the delete callback runs inside MPI calls, some of them
 * made while compi_g.lock is held */
static pthread_mutex_t compi_coll_lock = PTHREAD_MUTEX_INITIALIZER;

/* l's communicators, those made (each MPI_COMM_NULL after). */
static void compi_coll_layout_comms_free(compi_coll_layout *l)
{
    MPI_Comm *made[] = {&l->local, &l->leaders, &l->xall};
    for (int i = 0; i < 3; i++)
        if (*made[i] != MPI_COMM_NULL) PMPI_Comm_free(made[i]);
}

static void compi_coll_layout_free(compi_coll_layout *l)
{
    if (!l) return;
    compi_coll_layout_comms_free(l);
    compi_coll_choices_free(l);
    free(l->node_of);
    free(l->leader_of);
    free(l->first);
    free(l->members);
    free(l);
}

/* Node indices from the comm's peer nodes (engine/leaders.h's grouping:
 * nodes numbered in the order of their lowest comm rank): local, no
 * communication; the communicators stay MPI_COMM_NULL. */
static compi_coll_layout *compi_coll_layout_map(MPI_Comm comm, const compi_comm_info *ci, int *rc)
{
    compi_coll_layout *l = calloc(1, sizeof *l);
    if (!l) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    l->local = l->leaders = l->xall = MPI_COMM_NULL;
    PMPI_Comm_size(comm, &l->size);
    PMPI_Comm_rank(comm, &l->rank);
    int n = l->size;
    l->node_of = malloc(sizeof(int) * (size_t)n);
    l->leader_of = malloc(sizeof(int) * (size_t)n);
    l->first = calloc((size_t)n + 1, sizeof(int));
    l->members = malloc(sizeof(int) * (size_t)n);
    if (!l->node_of || !l->leader_of || !l->first || !l->members) {
        compi_coll_layout_free(l);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    l->nnodes = compi_leaders_group(n, ci->peer_node, l->node_of, l->leader_of, l->first, l->members);
    l->my_node = l->node_of[l->rank];
    *rc = MPI_SUCCESS;
    return l;
}

/* The node-local and leaders' communicators and the dup of comm (collective
 * over comm: every rank makes every call, whatever failed before it, so the
 * calls match across ranks). On failure those made are freed again. */
static int compi_coll_layout_comms(MPI_Comm comm, compi_coll_layout *l)
{
    /* a failure here is compi's to handle (the MPI out of communicator
     * contexts): not raised on the application's handler meanwhile */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(comm, &eh) == MPI_SUCCESS) PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rc = PMPI_Comm_split(comm, l->my_node, l->rank, &l->local);
    int r2 = PMPI_Comm_split(comm, l->leader_of[l->my_node] == l->rank ? 0 : MPI_UNDEFINED, l->my_node, &l->leaders);
    int r3 = PMPI_Comm_dup(comm, &l->xall);
    if (eh != MPI_ERRHANDLER_NULL) {
        PMPI_Comm_set_errhandler(comm, eh);
        PMPI_Errhandler_free(&eh);
    }
    if (rc == MPI_SUCCESS) rc = r2;
    if (rc == MPI_SUCCESS) rc = r3;
    /* errors on compi's communicators come back as codes, raised on comm by
     * the collective (the application's handler), never on these; a
     * damaged chunk on xall is compi's frame error, not an abort */
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_errhandler(l->local, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS && l->leaders != MPI_COMM_NULL) rc = PMPI_Comm_set_errhandler(l->leaders, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = PMPI_Comm_set_errhandler(l->xall, MPI_ERRORS_RETURN);
    /* tests: COMPI_DEBUG_LAYOUT_FAIL=r, comm rank r fails as if short of memory */
    const char *f = getenv("COMPI_DEBUG_LAYOUT_FAIL");
    if (rc == MPI_SUCCESS && f && *f && atoi(f) == l->rank) rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        compi_coll_layout_comms_free(l);
        return rc;
    }
    PMPI_Comm_rank(l->local, &l->local_rank);
    PMPI_Comm_size(l->local, &l->local_size);
    return MPI_SUCCESS;
}

/* Unlinks l's entry (the caller frees l outside the lock). */
static void compi_coll_unlink(const compi_coll_layout *l)
{
    pthread_mutex_lock(&compi_coll_lock);
    for (compi_coll_entry **p = &compi_coll_live; *p; p = &(*p)->next) {
        if ((*p)->l == l) {
            compi_coll_entry *e = *p;
            *p = e->next;
            free(e);
            break;
        }
    }
    pthread_mutex_unlock(&compi_coll_lock);
}

static int compi_coll_layout_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    compi_coll_unlink(attr);
    compi_coll_layout_free(attr);
    return MPI_SUCCESS;
}

int compi_coll_init(void)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&compi_coll_lock);
    if (compi_coll_keyval == MPI_KEYVAL_INVALID)
        rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, compi_coll_layout_delete, &compi_coll_keyval, NULL);
    pthread_mutex_unlock(&compi_coll_lock);
    return rc;
}

/* Caches l on comm (freed with it); NULL with *rc on failure (l freed). */
static compi_coll_layout *compi_coll_layout_cache(MPI_Comm comm, compi_coll_layout *l, int *rc)
{
    compi_coll_entry *e = l ? malloc(sizeof *e) : NULL;
    if (l && !e) {
        compi_coll_layout_free(l);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    if (!l) return NULL;
    e->comm = comm;
    e->l = l;
    pthread_mutex_lock(&compi_coll_lock);
    e->next = compi_coll_live;
    compi_coll_live = e;
    pthread_mutex_unlock(&compi_coll_lock);
    *rc = PMPI_Comm_set_attr(comm, compi_coll_keyval, l);
    if (*rc != MPI_SUCCESS) {
        compi_coll_unlink(l);
        compi_coll_layout_free(l);
        return NULL;
    }
    return l;
}

/* comm's cached layout (NULL: none yet, or an error in *rc). */
static compi_coll_layout *compi_coll_layout_cached(MPI_Comm comm, int *rc)
{
    /* MPI_Init's wrapper made the keyval, unless compi started lazily */
    *rc = compi_coll_keyval == MPI_KEYVAL_INVALID ? compi_coll_init() : MPI_SUCCESS;
    if (*rc != MPI_SUCCESS) return NULL;
    void *attr;
    int found = 0;
    *rc = PMPI_Comm_get_attr(comm, compi_coll_keyval, &attr, &found);
    return *rc == MPI_SUCCESS && found ? attr : NULL;
}

/* l's communicators, made now, and whether every rank of comm made them
 * (an MPI out of communicator contexts fails the same call everywhere, a
 * rank short of memory fails alone). When any rank could not, none keeps
 * them and l is marked unusable: comm's collectives run as the MPI's own.
 * Returns an error only when comm itself fails. */
static int compi_coll_layout_build(MPI_Comm comm, compi_coll_layout *l)
{
    int rc = compi_coll_layout_comms(comm, l), ok = rc == MPI_SUCCESS, all = 0;
    int arc = PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (arc != MPI_SUCCESS || !all) compi_coll_layout_comms_free(l); /* none left where this rank failed */
    if (arc != MPI_SUCCESS) return arc;
    if (!all) {
        char es[MPI_MAX_ERROR_STRING] = "";
        int el = 0;
        if (!ok) PMPI_Error_string(rc, es, &el);
        compi_log(1,
                  "could not make compi's communicators for a communicator of %d ranks (%s): its collectives run "
                  "as the MPI's own",
                  l->size, ok ? "on another rank" : es);
        l->unusable = 1;
    }
    return MPI_SUCCESS;
}

/* Whether a layout's communicators were built is the same on every rank:
 * only the blocking collectives build them, each rank in the same call. */
const compi_coll_layout *compi_coll_layout_get(MPI_Comm comm, const compi_comm_info *ci, int *rc)
{
    compi_coll_layout *l = compi_coll_layout_cached(comm, rc);
    if (*rc != MPI_SUCCESS) return NULL;
    if (l) { /* a node map (compi_coll_nodes_get) gets its communicators now */
        if (l->local == MPI_COMM_NULL && !l->unusable) *rc = compi_coll_layout_build(comm, l);
        return *rc == MPI_SUCCESS && !l->unusable ? l : NULL;
    }
    l = compi_coll_layout_map(comm, ci, rc);
    if (l && (*rc = compi_coll_layout_build(comm, l)) != MPI_SUCCESS) {
        compi_coll_layout_free(l);
        return NULL;
    }
    l = compi_coll_layout_cache(comm, l, rc);
    return l && !l->unusable ? l : NULL;
}

const compi_coll_layout *compi_coll_nodes_get(MPI_Comm comm, const compi_comm_info *ci, int *rc)
{
    compi_coll_layout *l = compi_coll_layout_cached(comm, rc);
    if (l || *rc != MPI_SUCCESS) return l;
    return compi_coll_layout_cache(comm, compi_coll_layout_map(comm, ci, rc), rc);
}

void compi_coll_comm_reset(MPI_Comm comm)
{
    if (compi_coll_keyval == MPI_KEYVAL_INVALID) return;
    /* only a present one is deleted: deleting a missing attribute is an
     * error Open MPI 4.1 hands to the communicator's handler */
    void *attr;
    int found = 0;
    PMPI_Comm_get_attr(comm, compi_coll_keyval, &attr, &found);
    if (found) PMPI_Comm_delete_attr(comm, compi_coll_keyval);
}

void compi_coll_finalize(void)
{
    if (compi_coll_keyval == MPI_KEYVAL_INVALID) return;
    for (;;) {
        pthread_mutex_lock(&compi_coll_lock);
        MPI_Comm comm = compi_coll_live ? compi_coll_live->comm : MPI_COMM_NULL;
        pthread_mutex_unlock(&compi_coll_lock);
        if (comm == MPI_COMM_NULL) break;
        /* the delete callback unlinks it */
        PMPI_Comm_delete_attr(comm, compi_coll_keyval);
    }
    PMPI_Comm_free_keyval(&compi_coll_keyval);
}
