/* SPDX-License-Identifier: BSD-3-Clause */
/* MTestGetStressLevel() of MPICH's newer mtest.c (mpich_io/util's mtest.c is
 * MPICH 4.0's, which lacks it): 0 unless MPITEST_STRESS is set, as there. */
#include <stdlib.h>

int MTestGetStressLevel(void);
int MTestGetStressLevel(void)
{
    return getenv("MPITEST_STRESS") != NULL;
}
