"""``elastodyn robots``: the presets, their families, formulations (with their actuated
coordinates and units), verbs and scenarios."""
from __future__ import annotations

import json
import sys


def register(sub):
    p = sub.add_parser("robots", help="list the preset robots, their formulations and verbs",
                       description="The preset robots (each paper's), the formulations that "
                                   "can model them (the default first) with their actuated "
                                   "coordinates, the verbs that apply and the paper "
                                   "scenarios. A description file "
                                   "(elastodyn describe PRESET > robot.yaml) works wherever "
                                   "a preset does.")
    p.add_argument("--json", action="store_true", default=None,
                   help="print one JSON document on standard output")
    p.set_defaults(func="robots")


def verbs(form) -> list[str]:
    """The verbs of the command line that answer for formulation ``form`` (a registry
    entry): describe, then the registry's; a rigid model simulates under a controller
    only."""
    return ["describe"] + [v + " (--controller)" if v == "simulate" and form.rigid else v
                           for v in form.verbs]


def actuated(model) -> dict:
    """The actuated coordinates of a model: names and units, in the order --actuated,
    --from, --to and --hold take them."""
    c = model.coordinates
    units = [u for u, k in zip(c.units, c.kinds) if k == "actuated"]
    return {"names": list(c.actuated), "units": units}


def table() -> list[dict]:
    from ..description.files import load_description
    from ..description.presets import PRESETS
    from ..description.scenarios import scenario_names
    from ..formulations.registry import build_model, formulations_for, get
    rows = []
    for name in PRESETS:
        spec = load_description(name)
        forms = formulations_for(spec)
        rows.append({"name": name, "family": spec.family, "formulations": forms,
                     "descriptions": {f: get(f).description for f in forms},
                     "actuated": {f: actuated(build_model(spec, f)) for f in forms},
                     "verbs": {f: verbs(get(f)) for f in forms},
                     "scenarios": scenario_names(name)})
    return rows


def run(a) -> int:
    rows = table()
    if a.json:
        from ..analysis.results import SCHEMA_VERSION
        print(json.dumps({"schema_version": SCHEMA_VERSION, "command": "robots",
                          "robots": rows}))
        return 0
    for r in rows:
        print(f"{r['name']} ({r['family']})", file=sys.stderr)
        for f in r["formulations"]:
            tag = " (default)" if f == r["formulations"][0] else ""
            act = r["actuated"][f]
            coords = ", ".join(f"{n} [{u}]" for n, u in zip(act["names"], act["units"]))
            print(f"  {f}{tag}: {r['descriptions'][f]}; actuated: {coords}; verbs: "
                  f"{', '.join(r['verbs'][f])}", file=sys.stderr)
        if r["scenarios"]:
            print(f"  scenarios: {', '.join(r['scenarios'])}", file=sys.stderr)
    print("arm (generate only): an N-link arm with symbolic parameters "
          "(elastodyn generate arm --links N)", file=sys.stderr)
    return 0
