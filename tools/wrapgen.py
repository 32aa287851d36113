#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generates compi's PMPI entry points from lib/wrappers/mpi_calls.def.

One table row gives, for MPI call X:
  * the C entry point MPI_X, which counts the call and runs compi_impl_X;
  * for Open MPI (whose Fortran bindings call PMPI_ directly, so C wrappers
    never see Fortran calls) the Fortran entry points mpi_x_, mpi_x__, mpi_x
    and MPI_X (upper case), converting handles, sentinels (MPI_BOTTOM,
    MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE), LOGICALs and 1-based indices.
  * for Open MPI's "use mpi_f08" the entry point mpi_x_f08_ (same conversions);
  * for MPICH 4.0, whose mpif.h / "use mpi" bindings and whose f08 calls with a
    choice buffer (mpi_x_f08ts_) call the C MPI_ functions (caught by the C
    entry points), only the f08 calls without a buffer, which call PMPI_
    directly: mpi_x_f08_ (e.g. mpi_wait_f08_, mpi_mprobe_f08_, mpi_init_f08_).
"""
import argparse
import re
import sys

# kind -> C parameter type ("{}" is the name, for arrays)
C_TYPES = {
    "argc": "int *{}", "argv": "char ***{}",
    "cbuf": "const void *{}", "buf": "void *{}",
    "int": "int {}", "dtype": "MPI_Datatype {}", "comm": "MPI_Comm {}", "info": "MPI_Info {}", "comm_out": "MPI_Comm *{}",
    "cints": "const int {}[]", "caints": "const MPI_Aint {}[]", "op": "MPI_Op {}", "dtypes": "const MPI_Datatype {}[]",
    "status": "MPI_Status *{}", "statuses": "MPI_Status {}[]",
    "req_out": "MPI_Request *{}", "req_inout": "MPI_Request *{}", "req_in": "MPI_Request {}",
    "reqs": "MPI_Request {}[]",
    "flag": "int *{}", "iout": "int *{}", "index": "int *{}", "indices": "int {}[]",
    "msg_out": "MPI_Message *{}", "msg_inout": "MPI_Message *{}",
    # MPI-IO
    "file": "MPI_File {}", "file_out": "MPI_File *{}", "file_inout": "MPI_File *{}",
    "str": "const char *{}", "offset": "MPI_Offset {}", "offset_out": "MPI_Offset *{}",
    "info_out": "MPI_Info *{}",
    # MPI 4.0 large counts
    "count": "MPI_Count {}", "count_out": "MPI_Count *{}", "ccounts": "const MPI_Count {}[]",
}


# kind -> how a Fortran argument becomes the C one (gen_fortran_one):
#   arg      the C call's argument
#   pre      lines before the call (C copies of handles, arrays, strings)
#   post     lines after a successful call (results back to Fortran)
#   always   lines after the call whatever it returned
#   cleanup  lines freeing the copies
#   fparam   the Fortran parameter when it is not MPI_Fint *
#   hidden   hidden parameters after ierror (string lengths)
# Fields: {n} the parameter's name, {ln} an array's length before the call,
# {cnt} the entries holding results after it, {base} the Fortran index base,
# {st_ign} / {sts_ign} the STATUS(ES)_IGNORE tests of the flavour.
F_CONVERSIONS = {
    "int": {"arg": "(int)*{n}"},
    "dtype": {"arg": "PMPI_Type_f2c(*{n})"},
    "comm": {"arg": "PMPI_Comm_f2c(*{n})"},
    "info": {"arg": "PMPI_Info_f2c(*{n})"},
    "op": {"arg": "PMPI_Op_f2c(*{n})"},
    "comm_out": {"pre": ["MPI_Comm c_{n} = MPI_COMM_NULL;"], "arg": "&c_{n}",
                 "post": ["*{n} = PMPI_Comm_c2f(c_{n});"]},
    "cints": {"arg": "(const int *){n}"},
    # c_status starts as the caller's status: fields the MPI leaves alone
    # (MPI_ERROR in single completions) stay as they were, as in C; copied
    # back also on error: the MPIs' own bindings hand the caller's status to
    # C directly, so e.g. a truncated receive (MPI_ERR_TRUNCATE) still
    # reports its source and tag
    "status": {"pre": ["MPI_Status c_{n}, *p_{n} = {st_ign}({n}) ? MPI_STATUS_IGNORE : &c_{n};",
                       "if (p_{n} != MPI_STATUS_IGNORE) PMPI_Status_f2c({n}, &c_{n});"],
               "arg": "p_{n}",
               "always": ["if (p_{n} != MPI_STATUS_IGNORE) PMPI_Status_c2f(&c_{n}, {n});"]},
    "statuses": {"pre": ["MPI_Status *c_{n} = {sts_ign}({n}) ? MPI_STATUSES_IGNORE : "
                         "malloc(sizeof(MPI_Status) * (size_t)({ln} > 0 ? {ln} : 1));"],
                 "arg": "c_{n}",
                 "post": ["if (c_{n} != MPI_STATUSES_IGNORE) {{ for (int i = 0; i < {cnt}; i++) "
                          "PMPI_Status_c2f(&c_{n}[i], {n} + (size_t)i * COMPI_F_STATUS_SIZE); }}"],
                 "cleanup": ["if (c_{n} != MPI_STATUSES_IGNORE) free(c_{n});"]},
    "req_out": {"pre": ["MPI_Request c_{n} = MPI_REQUEST_NULL;"], "arg": "&c_{n}",
                "post": ["*{n} = PMPI_Request_c2f(c_{n});"]},
    "req_inout": {"pre": ["MPI_Request c_{n} = PMPI_Request_f2c(*{n});"], "arg": "&c_{n}",
                  "post": ["*{n} = PMPI_Request_c2f(c_{n});"]},
    "req_in": {"arg": "PMPI_Request_f2c(*{n})"},
    "reqs": {"pre": ["MPI_Request *c_{n} = malloc(sizeof(MPI_Request) * (size_t)({ln} > 0 ? {ln} : 1));",
                     "for (int i = 0; i < {ln}; i++) c_{n}[i] = PMPI_Request_f2c({n}[i]);"],
             "arg": "c_{n}",
             "post": ["for (int i = 0; i < {ln}; i++) {n}[i] = PMPI_Request_c2f(c_{n}[i]);"],
             "cleanup": ["free(c_{n});"]},
    "flag": {"pre": ["int c_{n} = 0;"], "arg": "&c_{n}", "post": ["*{n} = c_{n} ? COMPI_F_TRUE : 0;"]},
    "iout": {"pre": ["int c_{n} = 0;"], "arg": "&c_{n}", "post": ["*{n} = (MPI_Fint)c_{n};"]},
    "index": {"pre": ["int c_{n} = MPI_UNDEFINED;"], "arg": "&c_{n}",
              "post": ["*{n} = c_{n} == MPI_UNDEFINED ? MPI_UNDEFINED : c_{n} + {base};"]},
    "indices": {"pre": ["int *c_{n} = malloc(sizeof(int) * (size_t)({ln} > 0 ? {ln} : 1));"], "arg": "c_{n}",
                "post": ["for (int i = 0; i < {cnt}; i++) {n}[i] = c_{n}[i] + {base};"],
                "cleanup": ["free(c_{n});"]},
    "file": {"arg": "PMPI_File_f2c(*{n})"},
    "file_out": {"pre": ["MPI_File c_{n} = MPI_FILE_NULL;"], "arg": "&c_{n}",
                 "post": ["*{n} = PMPI_File_c2f(c_{n});"]},
    "file_inout": {"pre": ["MPI_File c_{n} = PMPI_File_f2c(*{n});"], "arg": "&c_{n}",
                   "post": ["*{n} = PMPI_File_c2f(c_{n});"]},
    "info_out": {"pre": ["MPI_Info c_{n} = MPI_INFO_NULL;"], "arg": "&c_{n}",
                 "post": ["*{n} = PMPI_Info_c2f(c_{n});"]},
    "offset": {"fparam": "MPI_Offset *{n}", "arg": "*{n}"},   # INTEGER(KIND=MPI_OFFSET_KIND)
    "offset_out": {"fparam": "MPI_Offset *{n}", "arg": "{n}"},
    # CHARACTER(LEN=*): the length comes as a hidden argument after ierror
    # (gfortran >= 8: size_t); blanks trimmed as the MPIs do
    "str": {"fparam": "char *{n}", "hidden": ["size_t {n}_len"],
            "pre": ["char *c_{n} = compi_f_string({n}, {n}_len);"], "arg": "c_{n}",
            "cleanup": ["free(c_{n});"]},
    "msg_out": {"pre": ["MPI_Message c_{n} = MPI_MESSAGE_NULL;"], "arg": "&c_{n}",
                "post": ["*{n} = compi_message_c2f(c_{n});"]},
    "msg_inout": {"pre": ["MPI_Message c_{n} = compi_message_f2c(*{n});"], "arg": "&c_{n}",
                  "post": ["*{n} = compi_message_c2f(c_{n});"]},
}


class Param:
    def __init__(self, token):
        m = re.fullmatch(r"(\w+)(?:\[(\w+)\])?:(\w+)", token)
        if not m:
            raise SystemExit(f"wrapgen: bad parameter '{token}'")
        self.kind, self.length, self.name = m.group(1), m.group(2), m.group(3)
        if self.kind not in C_TYPES:
            raise SystemExit(f"wrapgen: unknown kind '{self.kind}' in '{token}'")

    def c_decl(self):
        return C_TYPES[self.kind].format(self.name)


class Call:
    def __init__(self, line, lineno):
        body, _, flags = line.partition("|")
        fields = body.split()
        self.name = fields[0]
        self.params = [Param(t) for t in fields[1:]]
        self.flags = set(flags.split())
        unknown = self.flags - {"nofortran", "nompich08", "coll", "mpi4", "lc", "lcpass", "pass"}
        if unknown:
            raise SystemExit(f"wrapgen: line {lineno}: unknown flags {sorted(unknown)}")
        if self.flags & {"lc", "lcpass"}:
            if not self.name.endswith("_c"):
                raise SystemExit(f"wrapgen: line {lineno}: a large-count row is named X_c")
            self.base = self.name[:-2]
        if "mpi4" in self.flags:
            self.flags.add("nofortran")   # MPICH's Fortran calls with a buffer reach the C entry points

    def guard(self, text):
        """MPI 4.0 rows exist only where mpi.h declares them."""
        return f"#if MPI_VERSION >= 4\n{text}#endif\n" if "mpi4" in self.flags else text

    def c_proto(self):
        params = ", ".join(p.c_decl() for p in self.params) or "void"
        return f"int MPI_{self.name}({params})"

    def arg_names(self):
        return ", ".join(p.name for p in self.params)


def parse(path):
    calls = []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if line:
                calls.append(Call(line, n))
    return calls


def gen_c(calls):
    """C entry points. compi_bypass (lib/wrappers/interpose.c) is set when another
    PMPI tool shadows some of compi's symbols: then every call goes straight
    to the MPI, so no message is ever compressed on one side only."""
    out = []
    for i, c in enumerate(calls):
        # MPI_Init/Init_thread decide (agree over WORLD) in compi_impl_Init*
        bypass = "" if c.name in ("Init", "Init_thread") else (
            f"    if (__builtin_expect(compi_bypass, 0)) return compi_bypass_call(), PMPI_{c.name}({c.arg_names()});\n")
        # a blocking collective first completes its communicator's schedules
        poke = "compi_nbc_poke()"
        if "coll" in c.flags:
            poke = f"compi_nbc_poke_coll({next(p.name for p in c.params if p.kind == 'comm')})"
        out.append(c.guard(f"COMPI_EXPORT {c.c_proto()}\n{{\n" + bypass +
                           f"    __atomic_fetch_add(&compi_call_counts[{i}], 1, __ATOMIC_RELAXED);\n"
                           f"    {poke};\n" + gen_body(c) + "}\n"))
    return "\n".join(out)


def count_pairs(call):
    """A large-count row's (count, datatype) parameter pairs: each count and
    the datatype that follows it."""
    pairs = []
    for k, p in enumerate(call.params):
        if p.kind == "count":
            dt = next(q for q in call.params[k + 1:] if q.kind == "dtype")
            pairs.append((p.name, dt.name))
    return pairs


def gen_body(c):
    """What an entry point does after counting the call.
      pass    the MPI's own call (a blocking collective first completes the
              communicator's schedules: the poke above);
      lcpass  counts that all fit an int: the int-count row's compi_impl_;
              else the MPI's own call;
      lc      the same; a count beyond an int becomes one element of a
              derived type of count elements (compi_count_type), so the
              int-count path carries it (point-to-point: any receive may
              match any send, whichever of the two forms each side used);
      else    compi_impl_X."""
    args = c.arg_names()
    if "pass" in c.flags:
        return f"    return PMPI_{c.name}({args});\n"
    if not c.flags & {"lc", "lcpass"}:
        return f"    return compi_impl_{c.name}({args});\n"
    pairs = count_pairs(c)
    fits = " && ".join(f"compi_count_fits({n})" for n, _ in pairs)
    small = ", ".join(f"(int){p.name}" if p.kind == "count" else p.name for p in c.params)
    body = f"    if ({fits}) return compi_impl_{c.base}({small});\n"
    if "lcpass" in c.flags:
        return body + f"    return PMPI_{c.name}({args});\n"
    # lc: every count beyond an int as one element of a type of its own
    body += "".join(f"    MPI_Datatype big_{n} = {d};\n    int int_{n} = (int){n};\n" for n, d in pairs)
    conds = " || ".join(f"compi_count_big({n}, {d}, &int_{n}, &big_{n}) != MPI_SUCCESS" for n, d in pairs)
    body += f"    if ({conds}) {{\n"
    body += "".join(f"        compi_count_type_free({d}, &big_{n});\n" for n, d in pairs)
    body += f"        return PMPI_{c.name}({args});\n    }}\n"
    count_of = {d: n for n, d in pairs}   # a datatype parameter -> the count it describes
    big = ", ".join(f"int_{p.name}" if p.kind == "count" else
                    f"big_{count_of[p.name]}" if p.name in count_of else p.name for p in c.params)
    body += f"    int rc = compi_impl_{c.base}({big});\n"
    body += "".join(f"    compi_count_type_free({d}, &big_{n});\n" for n, d in pairs)
    return body + "    return rc;\n"


def fortran_symbols(call, flavor):
    low = call.name.lower()
    if flavor == "f77":
        return [f"mpi_{low}_", f"mpi_{low}__", f"mpi_{low}", f"MPI_{call.name.upper()}", f"mpi_{low}_f08_"]
    return [f"mpi_{low}_f08_"]


def length_expr(call, p):
    """C expression for an array's length before the call (allocation size)."""
    ref = next(q for q in call.params if q.name == p.length)
    if ref.kind == "int":
        return f"(int)*{ref.name}"
    # Waitsome/Testsome: outputs are at most incount long
    first_array = next(q for q in call.params if q.kind == "reqs")
    return length_expr(call, first_array)


def count_after(call, p):
    """C expression for how many array entries hold results after the call."""
    ref = next(q for q in call.params if q.name == p.length)
    if ref.kind == "int":
        return f"(int)*{ref.name}"
    return f"(c_{ref.name} == MPI_UNDEFINED ? 0 : c_{ref.name})"


def has_buffer(call):
    return any(p.kind in ("cbuf", "buf") for p in call.params)


def gen_fortran_one(call, flavor="f77"):
    """The Fortran entry points of one row.

    flavor "f77": mpif.h / "use mpi" (Open MPI), symbols mpi_x_ mpi_x__ mpi_x MPI_X,
    plus the "use mpi_f08" symbol mpi_x_f08_ as an alias: Open MPI 4.1's f08
    handles are derived types holding the Fortran integer handle (passed by
    reference like an INTEGER), its TYPE(MPI_Status) has the mpif.h layout,
    choice buffers are plain addresses (ignore-TKR, no descriptors; Debian's
    build exports no _f08ts_ names), the sentinels are the same common blocks,
    and ierror is OPTIONAL (NULL when absent: every variant checks it).
    flavor "mpich08": MPICH 4.0's "use mpi_f08" entry points that call PMPI_
    directly (those without a choice buffer: the _f08ts_ ones go through
    MPIR_*_cdesc to the C MPI_ functions, which compi's C entry points catch);
    TYPE(MPI_Status) has the C layout, STATUS(ES)_IGNORE are MPICH's f08 objects."""
    st_ign = "compi_f_status_ignored" if flavor == "f77" else "compi_f08_status_ignored"
    sts_ign = "compi_f_statuses_ignored" if flavor == "f77" else "compi_f08_statuses_ignored"
    base = "1" if flavor == "f77" else "COMPI_F08_INDEX_BASE"
    fparams, pre, args, post, cleanup, always, hidden = [], [], [], [], [], [], []
    for p in call.params:
        k, n = p.kind, p.name
        if k in ("argc", "argv"):
            args.append("NULL")
            continue
        if k in ("cbuf", "buf"):
            fparams.append(f"void *{n}")
            args.append(f"compi_f2c_buf({n})")
            continue
        fparams.append(f"MPI_Fint *{n}")
        conv = F_CONVERSIONS.get(k)
        if conv is None:
            raise SystemExit(f"wrapgen: no Fortran mapping for kind {k}")
        ln = length_expr(call, p) if k in ("statuses", "reqs", "indices") else ""
        cnt = count_after(call, p) if k in ("statuses", "indices") else ""
        fill = dict(n=n, ln=ln, cnt=cnt, base=base, st_ign=st_ign, sts_ign=sts_ign)
        if "fparam" in conv:
            fparams[-1] = conv["fparam"].format(**fill)
        args.append(conv["arg"].format(**fill))
        for key, out in (("pre", pre), ("post", post), ("always", always), ("cleanup", cleanup),
                         ("hidden", hidden)):
            out += [t.format(**fill) for t in conv.get(key, ())]
    fparams.append("MPI_Fint *ierr")
    fparams += hidden
    sig = ", ".join(fparams)
    names = ", ".join(re.split(r"[ *]+", fp)[-1] for fp in fparams)
    fn = f"compi_f_{call.name}" if flavor == "f77" else f"compi_f08_{call.name}"
    lines = [f"static void {fn}({sig})", "{"]
    lines += ["    " + s for s in pre]
    lines.append(f"    int rc = MPI_{call.name}({', '.join(args)});")
    # Open MPI's binding converts outputs on success only; MPICH's f08 binding
    # hands its arrays to C, so MPI_ERR_IN_STATUS leaves statuses and the
    # completed requests' MPI_REQUEST_NULL visible to the caller
    ok = "rc == MPI_SUCCESS" if flavor == "f77" else "rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS"
    lines.append(f"    if ({ok}) {{")
    lines += ["        " + s for s in post]
    lines.append("    }")
    lines += ["    " + s for s in always]
    lines += ["    " + s for s in cleanup]
    lines.append("    if (ierr) *ierr = (MPI_Fint)rc;")
    lines.append("}")
    for sym in fortran_symbols(call, flavor):
        lines.append(f"void {sym}({sig});")
        lines.append(f"COMPI_EXPORT void {sym}({sig}) {{ {fn}({names}); }}")
    return "\n".join(lines) + "\n"


PRELUDE_C = """/* Generated by tools/wrapgen.py from lib/wrappers/mpi_calls.def. Do not edit. */
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "wrappers/impl.h"
#include "core/datatype.h"
#include "core/stash.h"

/* libcompi is built with hidden visibility: the MPI entry points below are
 * the only symbols it exports (lib/wrappers/exports.map, checked by
 * tests/install/test_exports.sh), so nothing of compi's own can clash with,
 * or be called by, the application. */
#define COMPI_EXPORT __attribute__((visibility("default")))

uint64_t compi_call_counts[{n}];
const int compi_call_count_n = {n};
const char *const compi_call_names[{n}] = {{ {names} }};

"""

PRELUDE_F = """
/* ---- Fortran entry points (Open MPI) ---------------------------------- */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "compi assumes default-kind Fortran INTEGER == C int");
#define COMPI_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
#define COMPI_F_TRUE 1   /* gfortran's .TRUE. */
/* Open MPI's Fortran sentinels are common blocks; weak so the library also
 * loads into C-only programs that never pull in the Fortran runtime. */
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));

static void *compi_f2c_buf(void *p)
{
    if (p && p == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
    if (p && p == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
    return p;
}
static int compi_f_status_ignored(MPI_Fint *s)
{
    return s && (void *)s == (void *)&mpi_fortran_status_ignore_;
}
/* A Fortran CHARACTER(LEN=n) argument as a C string, leading and trailing
 * blanks removed (as Open MPI's ompi_fortran_string_f2c does). */
static char *compi_f_string(const char *s, size_t n)
{
    while (n > 0 && s[0] == ' ') { s++; n--; }
    while (n > 0 && s[n - 1] == ' ') n--;
    char *c = malloc(n + 1);
    if (c) { memcpy(c, s, n); c[n] = 0; }
    return c;
}
static int compi_f_statuses_ignored(MPI_Fint *s)
{
    return s && (void *)s == (void *)&mpi_fortran_statuses_ignore_;
}

"""


PRELUDE_F08_MPICH = """
/* ---- "use mpi_f08" entry points (MPICH 4.0) --------------------------- */
/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1: gcc would warn that the
 * ignored-statuses branch passes a 0-byte region */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
/* MPICH 4.0's f08 binding returns Waitany/Testany/Waitsome/Testsome indices
 * as C gives them (0-based; converted since MPICH 4.1, commit 6dc8b9884b
 * "f08: convert INDEX on input/output"). compi keeps the MPI's convention:
 * a program must see the same values with and without compi. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define COMPI_F08_INDEX_BASE 0
#else
#define COMPI_F08_INDEX_BASE 1
#endif
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "compi assumes default-kind Fortran INTEGER == C int");
#define COMPI_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
#define COMPI_F_TRUE 1   /* gfortran's .TRUE. */
/* The f08 module's MPI_STATUS(ES)_IGNORE are the objects mpi.h declares
 * (MPIR_F08_MPI_STATUS(ES)_IGNORE_OBJ, defined by libmpichfort and libmpich;
 * MPI_F08_STATUS(ES)_IGNORE point at the one in use): both are compared. */
static int compi_f08_status_ignored(MPI_Fint *s)
{
    return s && ((void *)s == (void *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ ||
                 (void *)s == (void *)MPI_F08_STATUS_IGNORE);
}
static int compi_f08_statuses_ignored(MPI_Fint *s)
{
    return s && ((void *)s == (void *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ ||
                 (void *)s == (void *)MPI_F08_STATUSES_IGNORE);
}

"""


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--table", required=True)
    ap.add_argument("--mpi", choices=["openmpi", "mpich", "smpi"], required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    calls = parse(a.table)
    names = ", ".join(f'"MPI_{c.name}"' for c in calls)
    text = PRELUDE_C.format(n=len(calls), names=names) + gen_c(calls)
    syms = [f"MPI_{c.name}" for c in calls]
    if a.mpi == "smpi":
        pass   # SimGrid's Fortran bindings call the C MPI_ entry points, compi's
    elif a.mpi == "openmpi":
        fcalls = [c for c in calls if "nofortran" not in c.flags]
        text += PRELUDE_F + "\n".join(gen_fortran_one(c) for c in fcalls)
        syms += [s for c in fcalls for s in fortran_symbols(c, "f77")]
    else:
        fcalls = [c for c in calls if not ({"nofortran", "nompich08"} & c.flags) and not has_buffer(c)]
        text += PRELUDE_F08_MPICH + "\n".join(gen_fortran_one(c, "mpich08") for c in fcalls)
        syms += [s for c in fcalls for s in fortran_symbols(c, "mpich08")]
    # every symbol compi defines, for the interposition check at load time
    mpi4 = {f"MPI_{c.name}" for c in calls if "mpi4" in c.flags}
    text += ("\nconst char *const compi_symbols[] = {\n" +
             "".join(f'#if MPI_VERSION >= 4\n    "{s}",\n#endif\n' if s in mpi4 else f'    "{s}",\n'
                     for s in syms) + "    NULL\n};\n")
    with open(a.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
