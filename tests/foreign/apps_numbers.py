#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The numbers two runs of a real application print (tests/foreign/apps.sh),
equal or close: the text around them, and every integer, must be the same;
each floating-point number must be equal, or (TOL > 0) agree to TOL relative
or to 2 units of the last digit printed.
  lammps  the thermo output (Step ... Loop time blocks)
  petsc   the -ksp_monitor/-snes_monitor norms and the converged reasons;
          a norm is held to TOL relative to the first norm of its solve (of
          its iteration 0): a Krylov method's rounding errors scale with it
  mumps   the solution simpletest prints (real, or complex as (re,im):
          compared as complex numbers)
usage: apps_numbers.py KIND PLAIN_LOG LOG TOL
Prints how many numbers are identical; exit 1 when they differ beyond TOL."""
import re
import sys

NUM = re.compile(r"(?<![\w.])-?\d+(?:\.(\d*))?(?:[eEdD]([-+]?\d+))?(?![\w.])")
CPLX = re.compile(r"\(\s*([^,()\s]+)\s*,\s*([^,()\s]+)\s*\)")


def lammps_lines(text):
    for block in re.findall(r"(?ms)^ *(?:Step|-+ Step).*?^Loop time", text):
        for line in block.splitlines():
            if "CPU" not in line and not line.startswith("Loop"):
                yield line


def petsc_lines(text):
    for line in text.splitlines():
        if re.search(r"(Residual|Function) norm|(converged|diverged) due to", line, re.I):
            yield line


def value(m, scale=None):
    """(number, unit of its last printed digit, is it an integer, the
    magnitude a tolerance is relative to)"""
    frac, exp = m.group(1), m.group(2)
    ulp = 10.0 ** (int(exp or 0) - len(frac or ""))
    x = float(m.group(0).replace("D", "E").replace("d", "e"))
    return x, ulp, frac is None and exp is None, abs(x) if scale is None else scale


MONITOR = re.compile(r"^\s*(\d+) (KSP|SNES) (?:Residual|Function) norm")


def petsc_values(line, first):
    """a monitor line's numbers, its norm scaled by the first of its solve"""
    vals = [value(m) for m in NUM.finditer(line)]
    mon = MONITOR.match(line)
    if mon and len(vals) == 2:
        if int(mon.group(1)) == 0:
            first[mon.group(2)] = vals[1][0]
        vals[1] = vals[1][:3] + (abs(first.get(mon.group(2), vals[1][0])),)
    return vals


def numbers(kind, path):
    """the text with the numbers masked, and the numbers"""
    text = open(path, errors="replace").read()
    if kind == "mumps":
        sol = text.split("Solution is", 1)[1].split("Entering", 1)[0] if "Solution is" in text else ""
        pairs = CPLX.findall(sol)
        if pairs:
            vals = [complex(float(a.replace("D", "E")), float(b.replace("D", "E"))) for a, b in pairs]
            return "complex", [(z, 0.0, False, abs(z)) for z in vals]
        return "real", [value(m) for m in NUM.finditer(sol)]
    lines = lammps_lines(text) if kind == "lammps" else petsc_lines(text)
    shape, out, first = [], [], {}
    for line in lines:
        shape.append(NUM.sub("#", line.strip()))
        out += petsc_values(line, first) if kind == "petsc" else [value(m) for m in NUM.finditer(line)]
    return "\n".join(shape), out


def close(a, b, tol):
    (x, u, xint, xs), (y, _, yint, ys) = a, b
    if x == y:
        return True
    if xint or yint or tol == 0:
        return False
    return abs(x - y) <= max(tol * max(xs, ys), 2 * u)


def main(kind, plain, log, tol):
    tol = float(tol)
    sa, a = numbers(kind, plain)
    sb, b = numbers(kind, log)
    if not a or len(a) != len(b) or sa != sb:
        print(f"{kind}: {len(a)} numbers plainly, {len(b)} with compi" +
              ("" if sa == sb else ", and the text around them differs"))
        return 1
    bad = [(x[0], y[0]) for x, y in zip(a, b) if not close(x, y, tol)]
    same = sum(x[0] == y[0] for x, y in zip(a, b))
    worst = max((abs(x[0] - y[0]) / max(x[3], y[3]) for x, y in zip(a, b) if x[0] != y[0]), default=0)
    print(f"{kind}: {same}/{len(a)} numbers identical" + (f", largest relative difference {worst:.1e}" if worst else "") +
          (f", {len(bad)} differ beyond tolerance: {bad[:3]}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("lammps", "petsc", "mumps"):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
