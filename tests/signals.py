"""Running the command line as a terminal does, for the tests that send it Ctrl-C."""

from __future__ import annotations

#: ``python -c AS_FROM_A_TERMINAL ARGS`` runs ``python -m mathhammer ARGS`` with SIGINT as a terminal gives it
#: (default action, not blocked), whatever the test runner's own signal state: a child inherits an ignored or
#: blocked SIGINT (a test run started in the background by a non-interactive shell has it so) and Python then
#: leaves it so. Exec'd in place, so the pid and process group stay those of ``Popen``.
AS_FROM_A_TERMINAL = (
    "import os, signal, sys\n"
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})\n"
    "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'mathhammer', *sys.argv[1:]])\n"
)
