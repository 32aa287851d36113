#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Parse per-rank unittest -v logs of two mpi4py test runs and compare them.

Usage: compare_results.py [--allow FILE] [--config NAME] [--max-rows N]
                          [--tsv FILE] BASE_DIR OTHER_DIR

Each DIR holds rank.<r>.log (one file per MPI rank, stdout+stderr of
runtests.py -v) and rc (exit status of the launcher, 124 = timeout).
Exit status: 0 = same outcomes, 1 = differences (or a run crashed/hung),
2 = usage error.  Only the standard library is used so that any python3
can run it.
"""
import argparse
import glob
import os
import re
import sys

# "testFoo (test_mod.Class.testFoo) ... ok" (py3.11 format); subtests add
# " (param=1)" after the id, and a docstring may put a line break before
# " ... ".  We match the head and then look for the outcome on the same or
# a following line because MPI warnings can be interleaved in between.
HEAD_RE = re.compile(r'^(?P<name>\w+) \((?P<id>[\w.]+)\)(?P<sub>(?: \(.*?\))?)')
OUTCOME_RE = re.compile(
    r' \.\.\. (?P<o>ok|FAIL|ERROR|skipped|expected failure|unexpected success)\b')
BARE_OUTCOME_RE = re.compile(
    r'^(?P<o>ok|FAIL|ERROR|skipped|expected failure|unexpected success)\b')
# Summary blocks ("FAIL: testFoo (mod.Class.testFoo)") are printed after
# the run and are the authoritative record of failures/errors.
SUMMARY_RE = re.compile(r'^(?P<o>FAIL|ERROR): (?P<name>\w+) \((?P<id>[\w.]+)\)(?P<sub>(?: \(.*?\))?)')
RAN_RE = re.compile(r'^Ran (\d+) tests? in')
# Written by mpi4py_runner.py after each test.
TIME_RE = re.compile(r'^\[foreign-time\] (?P<t>[\d.]+) (?P<id>\S+)')
FAILMSG_RE = re.compile(r'^\[foreign-fail\] (?P<id>\S+): (?P<msg>.*)')


def norm_id(m):
    tid = m.group('id')
    # py<3.11 prints "(mod.Class)" without the method name
    if not tid.endswith('.' + m.group('name')):
        tid = tid + '.' + m.group('name')
    return tid + m.group('sub')


def parse_log(path, times=None, msgs=None):
    """Return (outcomes dict id->outcome, ran_count or None); fill times
    and msgs (id -> failure message)."""
    outcomes = {}
    ran = None
    pending = None
    with open(path, errors='replace') as f:
        lines = f.read().splitlines()
    for line in lines:
        m = TIME_RE.match(line)
        if m:
            if times is not None:
                times[m.group('id')] = max(times.get(m.group('id'), 0.0),
                                           float(m.group('t')))
            continue
        m = FAILMSG_RE.match(line)
        if m:
            if msgs is not None:
                msgs.setdefault(m.group('id'), m.group('msg'))
            continue
        if line.startswith('Timeout (') and pending is not None:
            outcomes[pending] = 'HUNG'
            continue
        m = RAN_RE.match(line)
        if m:
            ran = int(m.group(1))
            pending = None
            continue
        m = SUMMARY_RE.match(line)
        if m:
            outcomes[norm_id(m)] = m.group('o')
            continue
        m = HEAD_RE.match(line)
        if m:
            pending = norm_id(m)
            rest = line[m.end():]
            o = OUTCOME_RE.search(rest)
            if 'Timeout (' in rest:
                # mpi4py_runner.py's watchdog fired inside this test
                outcomes[pending] = 'HUNG'
                pending = None
            elif o:
                outcomes[pending] = o.group('o')
                pending = None
            else:
                # Head printed, outcome not (yet): remember it so a hang or
                # crash inside this test is attributed to it.
                outcomes.setdefault(pending, 'INCOMPLETE')
            continue
        if pending is not None:
            o = OUTCOME_RE.search(line) or BARE_OUTCOME_RE.match(line)
            if o:
                outcomes[pending] = o.group('o')
                pending = None
    return outcomes, ran


def load_run(d):
    """Return (per-rank outcomes {(rank, id): outcome}, info dict)."""
    res = {}
    info = {'rc': None, 'ranks': 0, 'complete': True, 'ran': {}, 'times': {}, 'msgs': {}}
    try:
        with open(os.path.join(d, 'rc')) as f:
            info['rc'] = int(f.read().strip() or -1)
    except (OSError, ValueError):
        info['rc'] = -1
    files = sorted(glob.glob(os.path.join(d, 'rank.*.log')),
                   key=lambda p: int(p.rsplit('.', 2)[-2]))
    info['ranks'] = len(files)
    for p in files:
        rank = int(p.rsplit('.', 2)[-2])
        outs, ran = parse_log(p, info['times'], info['msgs'])
        info['ran'][rank] = ran
        if ran is None:
            info['complete'] = False
        for tid, o in outs.items():
            res[(rank, tid)] = o
    return res, info


def load_allow(path):
    """Allowlist lines: "[config:]test.id  # reason"; config may be a glob."""
    allow = []
    if not path or not os.path.exists(path):
        return allow
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            cfg, _, tid = line.rpartition(':')
            allow.append((cfg or '*', tid))
    return allow


def allowed(allow, config, tid):
    import fnmatch
    return any(fnmatch.fnmatchcase(config, c) and
               (tid == t or tid.startswith(t + ' ')) for c, t in allow)


def summarize(outs):
    """Count per-rank outcomes: {rank: {outcome: n}}."""
    s = {}
    for (rank, _), o in outs.items():
        s.setdefault(rank, {}).setdefault(o, 0)
        s[rank][o] += 1
    return s


def fmt_summary(outs, info):
    parts = []
    for rank, c in sorted(summarize(outs).items()):
        bad = c.get('FAIL', 0) + c.get('ERROR', 0)
        parts.append('r%d: ran=%s ok=%d skipped=%d failed=%d%s' % (
            rank, info['ran'].get(rank), c.get('ok', 0), c.get('skipped', 0),
            bad, (' incomplete=%d' % c['INCOMPLETE']) if 'INCOMPLETE' in c else ''))
    return '; '.join(parts) or 'no output'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--allow')
    ap.add_argument('--config', default='?')
    ap.add_argument('--max-rows', type=int, default=100)
    ap.add_argument('--tsv')
    ap.add_argument('--compi-report',
                    help="compi's COMPI_REPORT JSON of the compared run; "
                         "missing = compi was not active (a PROBLEM)")
    ap.add_argument('--slowest', type=int, default=5,
                    help='list the N slowest tests of the compared run')
    ap.add_argument('base')
    ap.add_argument('other')
    a = ap.parse_args()

    base, binfo = load_run(a.base)
    other, oinfo = load_run(a.other)
    allow = load_allow(a.allow)

    print('[%s] baseline: rc=%s %s' % (a.config, binfo['rc'], fmt_summary(base, binfo)))
    print('[%s] compared: rc=%s %s' % (a.config, oinfo['rc'], fmt_summary(other, oinfo)))

    if a.slowest > 0 and oinfo['times']:
        slow = sorted(oinfo['times'].items(), key=lambda kv: -kv[1])[:a.slowest]
        print('[%s] slowest (compared s / baseline s): %s' % (a.config, ', '.join(
            '%s %.1f/%s' % (t, d, ('%.1f' % binfo['times'][t]) if t in binfo['times'] else '-')
            for t, d in slow)))
        tb, to = sum(binfo['times'].values()), sum(oinfo['times'].values())
        print('[%s] sum of test times (max over ranks): baseline %.0f s, compared %.0f s'
              % (a.config, tb, to))

    problems = []
    if a.compi_report:
        import json
        try:
            with open(a.compi_report) as f:
                rep = json.load(f)
            t = rep.get('totals', {})
            codecs = t.get('codecs', {})
            print('[%s] compi report: %s ranks, %s nodes, codec %s, inter-node sends %s, '
                  'compressed %s, frames decoded %s (%s compressed)' % (
                      a.config, rep.get('world_size'), rep.get('nodes'), rep.get('codec'),
                      t.get('inter_node_messages'),
                      sum(c.get('messages', 0) for c in codecs.values()),
                      t.get('frames_decoded'), t.get('frames_decoded_compressed')))
        except (OSError, ValueError) as e:
            problems.append('no usable compi report (%s): library not active or run '
                            'did not reach MPI_Finalize' % e)
    # A run that crashed/hung (no "Ran N tests" on some rank, timeout, or a
    # different launcher status) is a difference even if no single test
    # outcome changed.
    for name, info in (('baseline', binfo), ('compared', oinfo)):
        if info['ranks'] == 0:
            problems.append('%s run produced no rank logs' % name)
        elif not info['complete']:
            problems.append('%s run did not finish on ranks %s (rc=%s%s)' % (
                name, [r for r, n in info['ran'].items() if n is None],
                info['rc'], ', timeout' if info['rc'] == 124 else ''))
    if binfo['rc'] != oinfo['rc']:
        problems.append('launcher exit status differs: baseline=%s compared=%s'
                        % (binfo['rc'], oinfo['rc']))
    if binfo['ranks'] != oinfo['ranks']:
        problems.append('rank log count differs: %d vs %d'
                        % (binfo['ranks'], oinfo['ranks']))
    if not base:
        problems.append('baseline has no parsed test outcomes')

    rows = []
    allowed_rows = []
    # Tests never reached because a run crashed or hung are counted, not
    # listed one by one (that would be the whole suite); the crash itself
    # is reported as a PROBLEM above, with the test that was running.
    not_reached = {}
    for key in sorted(set(base) | set(other)):
        b = base.get(key, 'NOT-RUN')
        o = other.get(key, 'NOT-RUN')
        if b == o:
            continue
        rank, tid = key
        if 'NOT-RUN' in (b, o):
            info = oinfo if o == 'NOT-RUN' else binfo
            if not info['complete']:
                name = 'compared' if o == 'NOT-RUN' else 'baseline'
                not_reached[(name, rank)] = not_reached.get((name, rank), 0) + 1
                continue
        if allowed(allow, a.config, tid):
            allowed_rows.append((rank, tid, b, o))
        else:
            rows.append((rank, tid, b, o))

    if a.tsv:
        with open(a.tsv, 'w') as f:
            f.write('config\trank\ttest\tbaseline\tcompared\tallowlisted\n')
            for r in rows:
                f.write('%s\t%d\t%s\t%s\t%s\tno\n' % ((a.config,) + r))
            for r in allowed_rows:
                f.write('%s\t%d\t%s\t%s\t%s\tyes\n' % ((a.config,) + r))

    if rows:
        w = max(len(r[1]) for r in rows[:a.max_rows])
        print('[%s] %d differing test outcome(s) (per rank):' % (a.config, len(rows)))
        print('  %-4s  %-*s  %-10s  %-10s  %s' % ('rank', w, 'test', 'baseline', 'compared', 'message'))
        for rank, tid, b, o in rows[:a.max_rows]:
            msg = (oinfo if o in ('FAIL', 'ERROR') else binfo)['msgs'].get(tid.split(' ')[0], '')
            print('  %-4d  %-*s  %-10s  %-10s  %s' % (rank, w, tid, b, o, msg[:120]))
        if len(rows) > a.max_rows:
            print('  ... %d more (full list: %s)' % (len(rows) - a.max_rows,
                                                    a.tsv or 'use --tsv'))
    for rank, tid, b, o in allowed_rows:
        print('[%s] allowlisted difference: r%d %s %s -> %s' % (a.config, rank, tid, b, o))
    for (name, rank), n in sorted(not_reached.items()):
        print('[%s] %s run, rank %d: %d tests not reached (crash/hang)' % (a.config, name, rank, n))
    for name, d, info in (('baseline', a.base, binfo), ('compared', a.other, oinfo)):
        if info['complete'] and info['rc'] == 0:
            continue
        # Show how a failed run ended: the last lines of each unfinished
        # rank's log (or the launcher's, when no rank log exists).
        logs = [os.path.join(d, 'rank.%d.log' % r) for r, n in sorted(info['ran'].items()) if n is None]
        logs = logs or [os.path.join(d, 'launcher.log')]
        for p in logs[:4]:
            try:
                with open(p, errors='replace') as f:
                    lines = [l for l in f.read().splitlines() if not l.startswith('[foreign-')]
                # the watchdog's dump starts "Timeout (h:mm:ss)!", innermost
                # frame first: show its top rather than the bottom
                hit = [i for i, l in enumerate(lines) if 'Timeout (' in l]
                tail = lines[hit[0]:hit[0] + 6] if hit else lines[-15:]
            except OSError:
                continue
            print('[%s] %s: tail of %s:' % (a.config, name, p))
            for l in tail:
                print('    ' + l[:200])
    for p in problems:
        print('[%s] PROBLEM: %s' % (a.config, p))

    same = not rows and not problems and not not_reached
    print('[%s] %s' % (a.config, 'IDENTICAL' if same else 'DIFFERENT'))
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
