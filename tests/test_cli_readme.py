"""Users' scripts keep working (issue 13): every command line of the README's sections
"Command line" to "Flexible arms by assumed modes" still runs.

Two checks: (1) every option those sections write is still an option of its verb (its
current spelling or an old one that answers with a note), read from the README itself;
(2) each command line, written out with the values the README gives (short windows where
it lets the user choose one), exits 0, prints one JSON document with --json, and prints
exactly the notes of the old spellings it uses. Runs are in-process (the entry point is
tested in test_cli.py); about 30 s in all, the KED Radau check (15 s) marked slow.
"""
import json
import re
from pathlib import Path

import pytest

from elastodyn.cli import build_parser, main

README = Path(__file__).resolve().parents[1] / "README.md"



def _cli_sections() -> str:
    text = README.read_text()
    start = text.index("## Command line")
    end = text.index("\n## ", text.index("### Flexible arms by assumed modes"))
    return text[start:end]


def _readme_commands() -> list[tuple[str, list[str]]]:
    """(verb, options) of every `elastodyn VERB ...` the sections write: in code blocks
    (with their continuation lines) and in inline code."""
    text = _cli_sections()
    chunks = re.findall(r"```\n(.*?)```", text, flags=re.S)
    chunks += re.findall(r"`(elastodyn [^`]+)`", text)
    out = []
    for chunk in chunks:
        for part in re.split(r"(?:^|\s)elastodyn ", " " + chunk.replace("\\\n", " "))[1:]:
            words = part.split()
            verb = words[0] if not words[0].startswith("-") else ""
            out.append((verb, re.findall(r"(?<![\w-])--[a-zA-Z][\w-]*", part)))
    return out


def test_readme_sections_found():
    commands = _readme_commands()
    verbs = {v for v, _ in commands}
    assert verbs >= {"", "beam-modes", "torques", "simulate", "modes", "map", "convergence",
                     "generate"}
    assert sum(len(opts) for _, opts in commands) > 80


def test_every_readme_option_is_still_an_option_of_its_verb():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    missing = []
    for verb, options in _readme_commands():
        p = sub[verb] if verb else parser
        for opt in options:
            if opt not in p._option_string_actions:
                missing.append((verb, opt))
    assert missing == []


# The README's command lines with its values. A template with alternatives
# (`--order cubic|quintic`) is written once per alternative somewhere in the list; where
# the README lets the user choose a window (--duration, --periods, --points) it is short.
# Notes: the old spellings the line uses (README "Command line" of issue 13).
Q1Q4 = "--q1/--q4 are now --actuated Q1 Q4"
END = "--end is now --duration, and the bang-bang's --duration is now --motion-time"
FREE = "--free-vibration is now --scenario free-vibration"
LINES = [
    # beam-modes
    ("beam-modes --ends clamped-free --length 0.6 --width 0.005 --height 0.005 --E 210e9 "
     "--G 80e9 --rho 7800 --elements 8 --order cubic --spatial --count 8 --tip-mass 0 "
     "--json --out {out}", [], ["modes.json", "modes.csv", "mode_shapes.png"]),
    ("beam-modes --area 2.5e-5 --iy 5.2e-11 --iz 5.2e-11 --j 8.8e-11 --ip 1.04e-10 "
     "--order quintic --planar --json", [], []),
    ("beam-modes --ends pinned-pinned --length 1 --width 0.01 --height 0.02 --planar --json",
     [], []),
    # rigid Delta: torques
    ("torques delta-kuo2016 --trajectory circle --centre 0 0 0.5 --radius 0.1 --period 1 "
     "--duration 1 --step 0.001 --formulation multipliers --json --out {out}", [],
     ["torques.json", "torques.csv", "torques.png"]),
    ("torques delta-asadi2020 --trajectory inverted-u --start -0.08 -0.02 0.5 --travel 0.16 "
     "0.04 0.2 --times 0 0.2 0.4 0.6 0.8 --duration 0.8 --step 0.01 --formulation explicit "
     "--json", [], []),
    ("torques delta-asadi2020 --json", [], []),
    # rigid Delta: simulate (ROBOT delta-asadi2020; delta-kuo2016 is modelled by KED, its
    # rigid model under control needs --formulation explicit: CHANGELOG)
    ("simulate delta-asadi2020 --controller pd --kp 200 --kd 10 --gravity-compensation "
     "--offset 0 0 0.001 --trajectory circle --centre 0 0 0.45 --radius 0.25 --period 6.3 "
     "--duration 1 --step 0.01 --json --out {out}", [], ["tracking.png"]),
    ("simulate delta-asadi2020 --controller computed-torque --kp 400 --kd 40 --trajectory "
     "inverted-u --start -0.08 -0.02 0.45 --travel 0.16 0.04 0.1 --times 0 0.2 0.4 0.6 0.8 "
     "--duration 0.8 --step 0.01 --json", [], []),
    ("simulate delta-kuo2016 --formulation explicit --controller pd --duration 0.5 --json",
     [], []),
    # flexible Delta (KED)
    ("modes delta-kuo2016 --at 0.1 0 0.5 --elements 1 --order cubic --count 8 --joint-b "
     "universal --joint-d universal --no-preload --json --out {out}", [],
     ["modes.json", "modes.csv"]),
    ("modes delta-kuo2016 --joint-b spherical --joint-d clamped --order quintic --elements 2 "
     "--json", [], []),
    ("map delta-kuo2016 --path circle --centre 0 0 0.5 --radius 0.1 --points 36 --count 4 "
     "--elements 1 --order cubic --json --out {out}", [], ["map.json", "map.csv", "map.png"]),
    ("convergence delta-kuo2016 --at 0.1 0 0.5 --max-elements 3 --order quintic --count 8 "
     "--json --out {out}", [], ["convergence.json", "convergence.csv", "convergence.png"]),
    ("simulate delta-kuo2016 --trajectory circle --periods 0.1 --step 0.001 --elements 1 "
     "--initial static --rayleigh 0 0 --method newmark --json --out {out}", [],
     ["simulation.json", "simulation.csv", "summary.md", "torques.png",
      "position_variation.png", "attitude_variation.png", "midspan.png"]),
    ("simulate delta-kuo2016 --trajectory inverted-u --step 0.004 --initial zero "
     "--no-preload --json", [], []),
    # five-bar (NE-PVP)
    ("modes prrrp-briot2013 --q1 0 --q4 0.25 --elements 1 --count 6 --json --out {out}",
     [Q1Q4], ["modes.json", "modes.csv"]),
    ("simulate prrrp-briot2013 --trajectory bang-bang --duration 0.75 --to 0.1 0.2 --end 1 "
     "--elements 1 --step 0.001 --initial static --method rk4 --out {out} --json", [END],
     ["simulation.json", "simulation.csv", "simulation.png"]),
    ("simulate prrrp-briot2013 --trajectory bang-bang --duration 0.05 --to 0.01 0.02 --end "
     "0.06 --initial zero --method dop853 --json", [END], []),
    ("generate prrrp-briot2013 --lang c --problem inverse --elements 1 --out {out} --json",
     [], ["prrrp_briot2013_inverse.c"]),
    ("generate prrrp-briot2013 --lang python --problem direct --json", [], []),
    ("generate prrrp-briot2013 --lang octave --problem model --json", [], []),
    ("generate prrrp-briot2013 --lang latex --json", [], []),
    # arms (assumed modes)
    ("generate arm --links 2 --modes 2 --basis sine --lang c --out {out} --json", [],
     ["amm_arm.c"]),
    ("generate arm-yu2019 --modes 2 --basis clamped-free --lang python --json", [], []),
    ("simulate arm-yu2019 --trajectory circle --controller pd --kp 125 --kd 25 --duration "
     "0.2 --step 0.001 --out {out} --json", [],
     ["simulation.json", "simulation.csv", "joints.png", "tip_acceleration.png"]),
    ("simulate arm-yu2019 --free-vibration --kp 125 --kd 25 --duration 0.2 --out {out} "
     "--json", [FREE], ["simulation.json", "spectrum.png"]),
]


def _check(line, notes, files, tmp_path, capsys):
    out = tmp_path / "out"
    argv = line.format(out=out).split()
    assert main(argv) == 0, capsys.readouterr().err
    stdout, stderr = capsys.readouterr()
    if "--json" in argv:
        doc = json.loads(stdout)
        assert doc["schema_version"] == 2 and doc["command"] == argv[0]
    err = [ln for ln in stderr.strip().splitlines() if not ln.startswith("outputs written")]
    assert [ln for ln in err if ln.startswith("elastodyn: note:")] == [
        f"elastodyn: note: {n}" for n in notes]
    assert not [ln for ln in err if "error" in ln]
    for name in files:   # the files the README lists for --out (among others now)
        assert (out / name).stat().st_size > 0, name


@pytest.mark.parametrize("line, notes, files", LINES, ids=[ln[0][:60] for ln in LINES])
def test_readme_command_line_runs(line, notes, files, tmp_path, capsys):
    _check(line, notes, files, tmp_path, capsys)


@pytest.mark.slow
def test_readme_ked_radau_runs(tmp_path, capsys):
    """--method radau of the KED simulation (the README's check of Newmark; its implicit
    steps are slow: 2 ms of simulated time take ~15 s)."""
    _check("simulate delta-kuo2016 --trajectory circle --periods 0.002 --method radau --json",
           [], [], tmp_path, capsys)


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0 and "simulate" in capsys.readouterr().out
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("elastodyn ")
