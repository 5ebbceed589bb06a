"""Motion design (docs/cli/plan.rst, docs/cli/compensate.rst): a time law that leaves
less vibration, and commands that put the deflected end-effector on its path.

``elastodyn plan prrrp-briot2013``: the five-bar's short rest-to-rest move re-designed
along its path against the residual vibration, compared with ZV, ZVD and EI input shapers
at the same cycle time; ``elastodyn compensate delta-kuo2016``: the actuator commands of
the slow circle corrected for the gravity sag (quasi-static), with the path error with and
without.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")


def run(*args: str) -> None:
    """Run one command; stop at the first failure with its exit code."""
    print("$ elastodyn", " ".join(args))
    rc = main(list(args))
    if rc:
        raise SystemExit(rc)


# --step 0.001: the default (2 ms) is refused on this move (20 steps per period of the
# 31.45 Hz lowest mode ask for at most 1.59 ms), although the command of docs/cli/plan.rst omits it.
run("plan", "prrrp-briot2013", "--trajectory", "rest-to-rest", "--to", "0.05", "-0.05",
    "--motion-time", "0.2", "--step", "0.001",
    *(["--evaluations", "9", "--coefficients", "4"] if FAST else []),
    "--out", os.path.join(out, "plan"))
run("compensate", "delta-kuo2016", "--trajectory", "circle", "--period", "8",
    *(["--duration", "1"] if FAST else []), "--out", os.path.join(out, "compensate"))
print(f"outputs in {out}")
