/* SPDX-License-Identifier: BSD-3-Clause */
/* The node structure of a communicator for node-aware collectives: a
 * node-local communicator and one of node leaders, built in the first
 * collective call that needs them (every rank takes the same path, so every
 * rank builds them in the same call), freed with the communicator. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"

/* infos that carry a layout, so MPI_Finalize can release them all */
typedef struct compi_coll_entry {
    compi_comm_info *ci;
    struct compi_coll_entry *next;
} compi_coll_entry;
static compi_coll_entry *compi_coll_live;
/* its own lock: compi_coll_forget runs inside attribute callbacks, some of
 * them called while compi_g.lock is held (compi_comm_apply_hints) */
static pthread_mutex_t compi_coll_lock = PTHREAD_MUTEX_INITIALIZER;

static void compi_coll_layout_free(compi_coll_layout *l)
{
    if (!l) return;
    if (l->local != MPI_COMM_NULL) PMPI_Comm_free(&l->local);
    if (l->leaders != MPI_COMM_NULL) PMPI_Comm_free(&l->leaders);
    if (l->xall != MPI_COMM_NULL) PMPI_Comm_free(&l->xall);
    if (l->xleaders != MPI_COMM_NULL) PMPI_Comm_free(&l->xleaders);
    compi_coll_choices_free(l);
    free(l->node_of);
    free(l->leader_of);
    free(l->first);
    free(l->members);
    free(l);
}

/* Node indices from the comm's peer nodes (engine/leaders.h's grouping:
 * nodes numbered in the order of their lowest comm rank). */
static compi_coll_layout *compi_coll_layout_build(MPI_Comm comm, const compi_comm_info *ci, int *rc)
{
    compi_coll_layout *l = calloc(1, sizeof *l);
    if (!l) { *rc = MPI_ERR_NO_MEM; return NULL; }
    l->local = l->leaders = l->xall = l->xleaders = MPI_COMM_NULL;
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
    *rc = PMPI_Comm_split(comm, l->my_node, l->rank, &l->local);
    if (*rc == MPI_SUCCESS)
        *rc = PMPI_Comm_split(comm, l->leader_of[l->my_node] == l->rank ? 0 : MPI_UNDEFINED, l->my_node,
                              &l->leaders);
    /* errors on compi's communicators come back as codes, raised on comm by
     * the collective (the application's handler), never on these */
    if (*rc == MPI_SUCCESS) *rc = PMPI_Comm_set_errhandler(l->local, MPI_ERRORS_RETURN);
    if (*rc == MPI_SUCCESS && l->leaders != MPI_COMM_NULL) *rc = PMPI_Comm_set_errhandler(l->leaders, MPI_ERRORS_RETURN);
    if (*rc == MPI_SUCCESS) {
        /* a damaged chunk is compi's frame error, not an abort */
        *rc = PMPI_Comm_dup(comm, &l->xall);
        if (*rc == MPI_SUCCESS) *rc = PMPI_Comm_set_errhandler(l->xall, MPI_ERRORS_RETURN);
        if (*rc == MPI_SUCCESS && l->leaders != MPI_COMM_NULL) *rc = PMPI_Comm_dup(l->leaders, &l->xleaders);
        if (*rc == MPI_SUCCESS && l->xleaders != MPI_COMM_NULL)
            *rc = PMPI_Comm_set_errhandler(l->xleaders, MPI_ERRORS_RETURN);
    }
    if (*rc != MPI_SUCCESS) { compi_coll_layout_free(l); return NULL; }
    PMPI_Comm_rank(l->local, &l->local_rank);
    PMPI_Comm_size(l->local, &l->local_size);
    return l;
}

const compi_coll_layout *compi_coll_layout_get(MPI_Comm comm, const compi_comm_info *ci, int *rc)
{
    *rc = MPI_SUCCESS;
    compi_comm_info *c = (compi_comm_info *)ci;
    if (c->coll) return c->coll;
    compi_coll_layout *l = compi_coll_layout_build(comm, ci, rc);
    compi_coll_entry *e = l ? malloc(sizeof *e) : NULL;
    if (l && !e) { compi_coll_layout_free(l); *rc = MPI_ERR_NO_MEM; return NULL; }
    if (!l) return NULL;
    pthread_mutex_lock(&compi_coll_lock);
    c->coll = l;
    e->ci = c;   /* the attribute's reference keeps c until compi_coll_forget */
    e->next = compi_coll_live;
    compi_coll_live = e;
    pthread_mutex_unlock(&compi_coll_lock);
    return l;
}

/* Unlinks ci's entry; returns its layout (the caller frees it outside the lock). */
static compi_coll_layout *compi_coll_unlink(compi_comm_info *ci, int *found)
{
    compi_coll_layout *l = NULL;
    *found = 0;
    pthread_mutex_lock(&compi_coll_lock);
    for (compi_coll_entry **p = &compi_coll_live; *p; p = &(*p)->next) {
        if ((*p)->ci == ci) {
            compi_coll_entry *e = *p;
            *p = e->next;
            free(e);
            l = ci->coll;
            ci->coll = NULL;
            *found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&compi_coll_lock);
    return l;
}

void compi_coll_forget(compi_comm_info *ci)
{
    int found;
    compi_coll_layout_free(compi_coll_unlink(ci, &found));
}

void compi_coll_finalize(void)
{
    for (;;) {
        pthread_mutex_lock(&compi_coll_lock);
        compi_comm_info *ci = compi_coll_live ? compi_coll_live->ci : NULL;
        pthread_mutex_unlock(&compi_coll_lock);
        if (!ci) return;
        compi_coll_forget(ci);
    }
}
