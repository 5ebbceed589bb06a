"""Kuo 2016, Fig. 4: the natural frequencies of the flexible Delta around the circle.

The first eight natural frequencies (KED, one cubic element per link, actuators locked)
at the points of the circle of centre (0, 0, 0.5) m and radius 0.1 m, against the
rotating angle: ``elastodyn map delta-kuo2016 --count 8``. Writes ``map.png``,
``map.csv``, ``map.json`` and ``summary.md``.
"""
import os
import sys
import tempfile

from elastodyn.cli import main

FAST = os.environ.get("ELASTODYN_EXAMPLES_FAST") == "1"    # the test suite's quick run
out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="elastodyn-")

points = 12 if FAST else 360                                 # Kuo: every degree
rc = main(["map", "delta-kuo2016", "--count", "8", "--points", str(points),
           "--out", os.path.join(out, "kuo2016-fig4")])
print(f"outputs in {out}")
if rc:
    raise SystemExit(rc)
