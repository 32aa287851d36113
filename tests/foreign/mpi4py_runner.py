# SPDX-License-Identifier: BSD-3-Clause
"""Run mpi4py's test/runtests.py with two additions used by mpi4py.sh.

Usage: python mpi4py_runner.py [--skip REGEX=REASON]... -- runtests.py ARGS...

* --skip: tests whose id (module.Class.method) matches REGEX are reported as
  "skipped 'foreign-skip: REASON'" instead of being run (runtests.py can only
  exclude whole modules).  The decision depends only on the id, so every rank
  skips the same tests and collectives stay matched.
* Watchdog: a test running longer than FOREIGN_MPI4PY_TEST_TIMEOUT seconds
  (default 120; the slowest kept test takes ~20 s) dumps all Python
  tracebacks and exits the rank, so a hang costs minutes, not the whole
  run timeout, and shows where it hung.
* Failures/errors are also written at once as "[foreign-fail] ID: message"
  because unittest prints details only at the end, which a crash or the
  watchdog never reaches.
* After each test a line "[foreign-time] SECONDS ID" goes to stderr so that
  mpi4py.sh can list the slowest tests; the result parser ignores it.
"""
import faulthandler
import os
import re
import runpy
import sys
import time
import unittest


def main():
    argv = sys.argv[1:]
    if '--' not in argv:
        sys.exit('usage: mpi4py_runner.py [--skip REGEX=REASON]... -- runtests.py ARGS')
    sep = argv.index('--')
    opts, rest = argv[:sep], argv[sep + 1:]
    skips = []
    it = iter(opts)
    for o in it:
        if o != '--skip':
            sys.exit('unknown option %s' % o)
        rx, _, reason = next(it).partition('=')
        skips.append((re.compile(rx), reason or 'excluded'))

    watchdog = float(os.environ.get('FOREIGN_MPI4PY_TEST_TIMEOUT', '120'))
    orig_run = unittest.TestCase.run

    def run(self, result=None):
        tid = self.id()
        for rx, reason in skips:
            if rx.search(tid):
                if result is None:
                    result = self.defaultTestResult()
                result.startTest(self)
                result.addSkip(self, 'foreign-skip: ' + reason)
                result.stopTest(self)
                return result
        t0 = time.time()
        if watchdog > 0:
            faulthandler.dump_traceback_later(watchdog, exit=True)
        try:
            return orig_run(self, result)
        finally:
            if watchdog > 0:
                faulthandler.cancel_dump_traceback_later()
            sys.stderr.write('[foreign-time] %.3f %s\n' % (time.time() - t0, tid))
            sys.stderr.flush()

    unittest.TestCase.run = run

    def note(orig):
        def add(self, test, err):
            orig(self, test, err)
            msg = str(err[1]).strip().splitlines()
            sys.stderr.write('[foreign-fail] %s: %s: %s\n' % (
                test.id(), err[0].__name__, msg[0][:200] if msg else ''))
            sys.stderr.flush()
        return add
    unittest.TextTestResult.addFailure = note(unittest.TextTestResult.addFailure)
    unittest.TextTestResult.addError = note(unittest.TextTestResult.addError)
    script = rest[0]
    sys.argv = rest
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name='__main__')


if __name__ == '__main__':
    main()
