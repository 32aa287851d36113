#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The table, comparisons and RESULT lines of `compi bench apps`.

usage: bench_apps_summary.py RESULTS.tsv "MODES" "APP=CODEC ..." [CONFIRM.tsv]
       bench_apps_summary.py --flagged RESULTS.tsv

RESULTS.tsv has one line per run (app, mpi, rate, mode, rep, status, seconds,
checksum, codecs, log, why), as dev/cmd/bench.sh writes it.

Why paired ratios: the bench interleaves the modes, so rep r of every mode ran
in the same round, minutes apart at most. The machine's noise (other load, a
bimodal MPI) moves a whole round, so the ratio of two modes *within* a round is
far steadier than either time. Each comparison is therefore the median of the
per-round ratios, with a distribution-free confidence interval for that median
(order statistics of the binomial, no normality assumed). A difference counts
only when the interval excludes the threshold; otherwise it is reported as
within noise, never silently as a win or a loss.

Why a confirmation: a full bench makes some 60 comparisons, and at 90 %
coverage about 3 of them exclude an equality that holds, one way or the other.
So a BELOW from the first rounds is a suspect, not a verdict. --flagged lists
the cells with one (app, mpi, rate and the modes to rerun); the bench reruns
only those, in fresh rounds kept in CONFIRM.tsv, and the final verdict of a
suspect is the one of the fresh rounds alone. A real loss shows in both; a
chance one rarely twice (about 5 % x 5 % for each comparison).

Exit status 1 when a run failed (the notes say which), else 0.
"""
import math
import statistics
import sys

ALPHA = 0.10   # two-sided; the interval covers the median with >= 90 % when n allows
FLOOR = 0.97   # the goal: adaptive never slower than off beyond noise, i.e. >= 0.97x


def median_ci(xs, alpha=ALPHA):
    """(lo, hi, coverage) for the median of xs: [x(k), x(n+1-k)] with the
    largest k whose two-sided binomial tail 2*P(B <= k-1), B ~ Bin(n, 1/2),
    stays <= alpha. With too few values for that (n <= 4) the whole range is
    returned with its (lower) coverage."""
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None, None, 0.0
    tail = lambda k: 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n   # 2 P(B <= k-1)
    k = 1
    while k + 1 <= (n + 1) // 2 and tail(k + 1) <= alpha:
        k += 1
    return xs[k - 1], xs[n - k], 1 - tail(k)


def paired_ratios(num, den):
    """Per-round ratios num_time / den_time over the reps where both ran OK
    (> 1: den's mode is faster)."""
    a = {r["rep"]: float(r["t"]) for r in num if r["status"] == "OK"}
    b = {r["rep"]: float(r["t"]) for r in den if r["status"] == "OK"}
    return [a[k] / b[k] for k in sorted(a.keys() & b.keys(), key=int) if b[k] > 0]


def verdict(lo, hi, threshold):
    if lo is None:
        return "-"
    if lo > threshold:
        return "above"
    if hi < threshold:
        return "BELOW"
    return "within noise"


def load(path):
    runs, order = {}, []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) < 11:
            continue
        app, mpi, rate, mode, rep, status, t, cs, codecs, log, why = f[:11]
        if mode == "trace":
            continue
        key = (app, mpi, rate)
        if key not in order:
            order.append(key)
        runs.setdefault(key, {}).setdefault(mode, []).append(
            dict(rep=rep, status=status, t=t, cs=cs, codecs=codecs, log=log, why=why))
    return runs, order


def check_checksums(per, modes):
    # compression is lossless: every OK run of one configuration prints one checksum
    ref = next((r["cs"] for m in ("off", "plain") + tuple(modes) for r in per.get(m, [])
                if r["status"] == "OK" and r["cs"] != "-"), None)
    for rs in per.values():
        for r in rs:
            if r["status"] == "OK" and ref and r["cs"] != "-" and r["cs"] != ref:
                r["status"], r["why"] = "FAIL", "checksum %s differs from %s" % (r["cs"], ref)


def fmt_ci(lo, hi):
    return "%.2f-%.2f" % (lo, hi) if lo is not None else "-"


def table(rows, hdr, right):
    w = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    fmt = lambda r: "  ".join(str(c).rjust(w[i]) if i in right else str(c).ljust(w[i])
                              for i, c in enumerate(r)).rstrip()
    out = [fmt(hdr), fmt(["-" * x for x in w])]
    prev = None
    for r in rows:
        if prev and r[:3] != prev:
            out.append("")
        prev = r[:3]
        out.append(fmt(r))
    return out


# The comparisons issue 3's criteria are about: (label, numerator mode, denominator mode, threshold).
# A ratio is numerator time / denominator time, so > 1 means the denominator's mode is faster.
COMPARISONS = (
    ("adaptive vs off", "off", "adaptive", FLOOR),
    ("adaptive vs fixed", "fixed", "adaptive", 1.0),
    ("guided vs adaptive", "adaptive", "guided", 1.0),
)


def run_notes(key, mode, rs, stage=""):
    """One note per cause of the failed or unavailable runs in rs, naming the
    reps it hit (stage: "" or "confirmation ")."""
    seen = {}
    for r in rs:
        if r["status"] in ("FAIL", "NA"):
            seen.setdefault((r["status"], r["why"]), []).append(r)
    notes = []
    for (st, why), rr in seen.items():
        logs = [r["log"] for r in rr if r["log"] not in ("", "-")]
        if st == "FAIL":
            notes.append("FAIL %s %s %s %s %srep %s: %s%s" % (
                key + (mode, stage, ",".join(r["rep"] for r in rr), why,
                       (" (log %s)" % " ".join(logs)) if logs else "")))
        else:
            notes.append("n/a  %s %s %s %s: %s" % (key + (mode, why)))
    return notes


def compare(per):
    """The COMPARISONS this cell's modes allow: dicts with label, thr, ratio,
    lo, hi, cov, n and verdict."""
    out = []
    for label, num, den, thr in COMPARISONS:
        if num not in per or den not in per:
            continue
        ratios = paired_ratios(per[num], per[den])
        if not ratios:
            continue
        lo, hi, cov = median_ci(ratios)
        out.append(dict(label=label, num=num, den=den, thr=thr, ratio=statistics.median(ratios), lo=lo, hi=hi,
                        cov=cov, n=len(ratios), verdict=verdict(lo, hi, thr)))
    return out


def comparison_row(key, c):
    return key + (c["label"], "%.2f" % c["ratio"], fmt_ci(c["lo"], c["hi"]), "%.2f" % c["thr"], c["verdict"],
                  str(c["n"]))


def compare_line(kind, key, c):
    return "%s app=%s mpi=%s rate=%s what=%s ratio=%.3f ci=%.3f:%.3f threshold=%.2f verdict=%s n=%d" % (
        kind, key[0], key[1], key[2], c["label"].replace(" ", "_"), c["ratio"], c["lo"], c["hi"], c["thr"],
        c["verdict"].replace(" ", "_"), c["n"])


def flagged(path):
    """'app mpi rate mode...' per cell with a BELOW comparison: the modes to
    rerun for its confirmation, in the order of COMPARISONS."""
    runs, order = load(path)
    for key in order:
        modes = []
        for c in compare(runs[key]):
            if c["verdict"] == "BELOW":
                modes += [m for m in (c["num"], c["den"]) if m not in modes]
        if modes:
            print(" ".join(key + tuple(modes)))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--flagged":
        return flagged(argv[2])
    path, modes = argv[1], argv[2].split()
    fixed = dict(kv.split("=", 1) for kv in argv[3].split()) if len(argv) > 3 else {}
    runs, order = load(path)
    confirm = load(argv[4])[0] if len(argv) > 4 else None
    for key, per in (confirm or {}).items():
        # confirmation runs are runs of the same configuration: lossless, so the same checksum
        both = {m: runs.get(key, {}).get(m, []) + rs for m, rs in per.items()}
        check_checksums(both, modes)
    rows, results, notes, comps, confirmed = [], [], [], [], []
    coverages = set()
    for key in order:
        app, mpi, rate = key
        per = runs[key]
        check_checksums(per, modes)
        base_mode = "off" if "off" in per else ("plain" if "plain" in per else None)
        for m in modes + [m for m in per if m not in modes]:
            rs = per.get(m)
            if not rs:
                continue
            na = all(r["status"] == "NA" for r in rs)
            nok = sum(r["status"] == "OK" for r in rs)
            nrun = sum(r["status"] != "NA" for r in rs)
            status = "not_available" if na else ("OK" if nok == nrun else "FAIL")
            ts = sorted(float(r["t"]) for r in rs if r["status"] == "OK")
            mt = statistics.median(ts) if ts else None
            ratios = paired_ratios(per[base_mode], rs) if base_mode and m != base_mode and not na else []
            sp = statistics.median(ratios) if ratios else None
            lo, hi, cov = median_ci(ratios)
            if ratios:
                coverages.add((len(ratios), cov))
            # per distinct outcome of the reps; "raw" = the report shows nothing compressed
            cods = sorted({("raw" if r["codecs"] == "-" else r["codecs"]) for r in rs
                           if r["status"] == "OK" and r["codecs"] not in ("", "?")})
            label = m + ("(%s)" % fixed.get(app, "?") if m == "fixed" else "")
            stat_s = "OK" if status == "OK" else ("n/a" if na else "FAIL %d/%d" % (nrun - nok, nrun))
            spread = ("%.2f-%.2f" % (ts[0], ts[-1])) if len(ts) > 1 else ""
            rows.append((app, mpi, rate, label, "%.3f" % mt if mt is not None else "-", spread,
                         "%.2f" % sp if sp else "-", fmt_ci(lo, hi) if len(ratios) > 1 else "", stat_s,
                         " | ".join(cods) if m in ("adaptive", "guided", "fixed") else ""))
            results.append("RESULT app=%s mpi=%s rate=%s mode=%s median_s=%s speedup=%s ci=%s status=%s runs=%d/%d%s" % (
                app, mpi, rate, m, "%.6f" % mt if mt is not None else "NA", "%.3f" % sp if sp else "NA",
                "%.3f:%.3f" % (lo, hi) if lo is not None else "NA", status, nok, nrun,
                (" codecs=%s" % ";".join(c.replace(" ", ":") for c in cods)) if cods and m != "off" else ""))
            notes += run_notes(key, m, rs)
        for c in compare(per):
            coverages.add((c["n"], c["cov"]))
            comps.append(comparison_row(key, c))
            results.append(compare_line("COMPARE", key, c))
            if c["verdict"] == "BELOW" and confirm is not None:
                again = [x for x in compare(confirm.get(key, {})) if x["label"] == c["label"]]
                if again:
                    coverages.add((again[0]["n"], again[0]["cov"]))
                    confirmed.append(comparison_row(key, again[0]))
                    results.append(compare_line("CONFIRM", key, again[0]))
                else:
                    confirmed.append((app, mpi, rate, c["label"], "-", "-", "%.2f" % c["thr"], "not rerun", "0"))

    for key, per in (confirm or {}).items():
        for m, rs in per.items():
            notes += run_notes(key, m, rs, "confirmation ")
    if not rows:
        print("=== compi bench apps: no runs in %s ===" % path)
        return 0
    cov_s = ", ".join("%d rounds %.0f %%" % (n, 100 * c) for n, c in sorted(coverages))
    print("=== compi bench apps: median of the apps' timed phase; vs off = median over rounds of off time / mode "
          "time (> 1: faster) ===")
    if cov_s:
        print("    CI = distribution-free interval for that median (coverage: %s)" % cov_s)
    print("\n".join(table(rows, ("app", "mpi", "rate", "mode", "median s", "min-max s", "vs off", "CI", "status",
                                 "codecs used (by bytes)"), {4, 5, 6, 7})))
    if comps:
        print()
        print("=== comparisons (per-round ratio, > 1: the first-named mode is faster); BELOW = below the threshold "
              "beyond noise ===")
        print("\n".join(table(comps, ("app", "mpi", "rate", "comparison", "ratio", "CI", "threshold", "verdict",
                                      "rounds"), {4, 5, 6, 8})))
        below = [c for c in comps if c[7] == "BELOW"]
        if confirm is None:
            print("%d of %d comparisons below their threshold beyond noise%s" % (
                len(below), len(comps), (": " + "; ".join("%s %s %s %s" % c[:4] for c in below)) if below else ""))
        else:
            print()
            print("=== confirmation: each BELOW above rerun in fresh rounds of its modes alone; the verdict of "
                  "those rounds is final ===")
            if confirmed:
                print("\n".join(table(confirmed, ("app", "mpi", "rate", "comparison", "ratio", "CI", "threshold",
                                                  "verdict", "rounds"), {4, 5, 6, 8})))
            else:
                print("(nothing to confirm)")
            final = [c for c in confirmed if c[7] in ("BELOW", "not rerun")]
            print("%d of %d comparisons below their threshold beyond noise (%d suspect(s) in the first rounds: %d "
                  "confirmed, %d not rerun)%s" % (
                      len(final), len(comps), len(below), sum(c[7] == "BELOW" for c in final),
                      sum(c[7] == "not rerun" for c in final),
                      (": " + "; ".join("%s %s %s %s" % c[:4] for c in final)) if final else ""))
    if notes:
        print()
        for n in notes:
            print(n)
    print()
    for line in results:
        print(line)
    return 1 if any(n.startswith("FAIL") for n in notes) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
