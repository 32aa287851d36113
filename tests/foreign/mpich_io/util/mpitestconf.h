/* Written for compi (not MPICH's): stands in for the header MPICH's configure
 * generates for its test suite, for the programs built by mpich_io.sh and
 * mpich_suite.sh. POSIX threads, as MPICH's configure finds on Linux (the
 * threads suite starts threads through mtest_thread.c; glibc >= 2.34 has
 * them in libc, so no program needs -lpthread). */
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define USE_STRICT_MPI 1
