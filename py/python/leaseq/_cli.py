"""The ``leaseq`` console script: the command of the Rust crate cli/, inside the native module."""

from __future__ import annotations

import signal
import sys

from leaseq import _native


def main() -> None:
    # Python's own SIGINT handler only sets a flag that Python code would check; the command runs
    # in Rust, so Ctrl-C gets its default action back (or the command's: `clean` and `dashboard`
    # stop gracefully).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(_native.cli_main(["leaseq", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
