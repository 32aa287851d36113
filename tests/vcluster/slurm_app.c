/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurm_app: the MPI program of tests/vcluster/test_slurm.sh.
 *
 * Every rank prints where it runs, then the ranks exchange compressible
 * data two ways and check every element against the formula the sender
 * used (the oracle is the formula, not a second run):
 *   - a ring of MPI_Sendrecv, 1 MiB of ints per rank (rank r sends to r+1);
 *   - an MPI_Alltoall of 256 KiB of ints per block.
 * Output (machine-readable, one fact per line):
 *   HOST rank=<r> name=<MPI_Get_processor_name>
 *   NODES <number of distinct processor names>      (rank 0)
 *   RESULT ok | RESULT errors=<n>                   (rank 0)
 * Exit status 0 only when every element of every rank was right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_INTS (256 * 1024)
#define A2A_INTS (64 * 1024)

/* Compressible: runs of equal values, different per sender and receiver. */
static int ring_val(int src, int i) { return (i / 64) * 7 + src; }
static int a2a_val(int src, int dst, int i) { return (i / 32) + 1000 * src + 100000 * dst; }

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);
    printf("HOST rank=%d name=%s\n", rank, name);
    fflush(stdout);

    char *names = rank == 0 ? calloc((size_t)size, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);

    long errors = 0;
    int *out = malloc(sizeof(int) * RING_INTS), *in = malloc(sizeof(int) * RING_INTS);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < RING_INTS; i++) out[i] = ring_val(rank, i);
    MPI_Status st;
    MPI_Sendrecv(out, RING_INTS, MPI_INT, next, 7, in, RING_INTS, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    if (count != RING_INTS || st.MPI_SOURCE != prev || st.MPI_TAG != 7) errors++;
    for (int i = 0; i < RING_INTS; i++) errors += in[i] != ring_val(prev, i);

    int *sa = malloc(sizeof(int) * A2A_INTS * (size_t)size), *ra = malloc(sizeof(int) * A2A_INTS * (size_t)size);
    for (int d = 0; d < size; d++)
        for (int i = 0; i < A2A_INTS; i++) sa[(size_t)d * A2A_INTS + i] = a2a_val(rank, d, i);
    MPI_Alltoall(sa, A2A_INTS, MPI_INT, ra, A2A_INTS, MPI_INT, MPI_COMM_WORLD);
    for (int s = 0; s < size; s++)
        for (int i = 0; i < A2A_INTS; i++) errors += ra[(size_t)s * A2A_INTS + i] != a2a_val(s, rank, i);

    long total = 0;
    MPI_Reduce(&errors, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int distinct = 0;
        for (int r = 0; r < size; r++) {
            int seen = 0;
            for (int q = 0; q < r && !seen; q++)
                seen = strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, names + (size_t)q * MPI_MAX_PROCESSOR_NAME) == 0;
            distinct += !seen;
        }
        printf("NODES %d\n", distinct);
        if (total == 0) printf("RESULT ok\n");
        else printf("RESULT errors=%ld\n", total);
        free(names);
    }
    free(out); free(in); free(sa); free(ra);
    MPI_Finalize();
    return total == 0 ? 0 : (rank == 0 ? 1 : 0);
}
