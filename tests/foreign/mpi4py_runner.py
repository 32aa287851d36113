"""Run mpi4py's test/runtests.py with two additions used by mpi4py.sh.

Usage: python mpi4py_runner.py [--skip REGEX=REASON]... -- runtests.py ARGS...

* --skip: tests whose id (module.Class.method) matches REGEX are reported as
  "skipped 'foreign-skip: REASON'" instead of being run (runtests.py can only
  exclude whole modules).  The decision depends only on the id, so every rank
  skips the same tests and collectives stay matched.
* After each test a line "[foreign-time] SECONDS ID" goes to stderr so that
  mpi4py.sh can list the slowest tests; the result parser ignores it.
"""
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
        try:
            return orig_run(self, result)
        finally:
            sys.stderr.write('[foreign-time] %.3f %s\n' % (time.time() - t0, tid))
            sys.stderr.flush()

    unittest.TestCase.run = run
    script = rest[0]
    sys.argv = rest
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name='__main__')


if __name__ == '__main__':
    main()
