/* Written for compi: MPICH's configure generates this (MPIX extensions);
 * the io programs need none of it. */
