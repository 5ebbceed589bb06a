"""Users' scripts keep working (issue 13): every command line the documentation writes
still runs.

The command-line manual is the Sphinx documentation (issue 30): one page per verb
(``docs/cli/VERB.rst``) with the options the verbs share (``docs/cli/index.rst``), the
errors and renamed options (``docs/results.rst``), the formulations' pages
(``docs/theory/*.rst``), the description files (``docs/describing-robots.rst``) and the
first commands (``docs/getting-started.rst``); the README keeps one example of each
kind. Checks: (1) every option those pages and the README write is still an option of
its verb (its current spelling or an old one that answers with a note), read from the
pages themselves; (2) each command line, written out with the values the pages give
(short windows where they let the user choose one), exits 0, prints one JSON document
with --json, and prints exactly the notes of the old spellings it uses; (3) the README's
command-line and Python examples run, and its tables of presets and formulations are
those of ``elastodyn robots`` and the registry. Runs are in-process (the entry point is
tested in test_cli.py); about 30 s in all, the KED Radau check (15 s) marked slow.
"""
import json
import re
from pathlib import Path

import pytest

from elastodyn.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
VERBS = ("robots", "describe", "beam-modes", "modes", "map", "sweep", "convergence",
         "torques", "simulate", "plan", "compensate", "sensitivity", "compare", "generate")
# the languages of literal blocks that hold command lines (not Python, C or YAML)
SHELL = {"", "text", "console", "sh", "shell", "bash", "none"}


def _pages() -> list[Path]:
    """The documentation pages that write command lines."""
    return (sorted((DOCS / "cli").glob("*.rst")) + sorted((DOCS / "theory").glob("*.rst"))
            + [DOCS / "results.rst", DOCS / "describing-robots.rst",
               DOCS / "getting-started.rst"])


def _rst_chunks(text: str) -> list[str]:
    """The literal blocks of a reST page that hold command lines (``::`` blocks and
    ``code-block`` directives of a shell language), dedented, and its inline literals
    that start with ``elastodyn``."""
    lines = text.splitlines()
    chunks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(\s*)\.\. (?:code-block|code|sourcecode)::\s*(\S*)\s*$", line)
        literal = m is None and line.rstrip().endswith("::") and not line.lstrip().startswith("..")
        if m is None and not literal:
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        language = m.group(2) if m else ""
        i += 1
        while i < len(lines) and (not lines[i].strip() or (
                lines[i].lstrip().startswith(":") and m is not None
                and len(lines[i]) - len(lines[i].lstrip()) > indent)):
            i += 1      # the directive's options and the blank line
        body = []
        while i < len(lines) and (not lines[i].strip()
                                  or len(lines[i]) - len(lines[i].lstrip()) > indent):
            body.append(lines[i])
            i += 1
        if language in SHELL:
            chunks.append("\n".join(body))
    chunks += re.findall(r"``(elastodyn [^`]+)``", text)
    return chunks


def _md_chunks(text: str) -> list[str]:
    """The README's fenced blocks of a shell language and its inline code that starts
    with ``elastodyn``."""
    chunks = [body for language, body in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.S)
              if language in SHELL]
    return chunks + re.findall(r"`(elastodyn [^`]+)`", text)


def _commands(chunks) -> list[tuple[str, list[str]]]:
    """(verb, options) of every ``elastodyn VERB ...`` the chunks write (with their
    continuation lines)."""
    out = []
    for chunk in chunks:
        for part in re.split(r"(?:^|\s)elastodyn ", " " + chunk.replace("\\\n", " "))[1:]:
            words = part.split()
            verb = words[0] if not words[0].startswith("-") else ""
            out.append((verb, re.findall(r"(?<![\w-])--[a-zA-Z][\w-]*", part)))
    return out


def _page_commands(page: Path) -> list[tuple[str, list[str]]]:
    return _commands(_rst_chunks(page.read_text(encoding="utf-8")))


def _readme_commands() -> list[tuple[str, list[str]]]:
    return _commands(_md_chunks(README.read_text(encoding="utf-8")))


def _documented_commands() -> list[tuple[str, list[str]]]:
    return [c for page in _pages() for c in _page_commands(page)] + _readme_commands()


def test_the_scan_reads_rst_blocks():
    """The reST scan finds commands in ``::`` blocks, code-block directives of a shell
    language (options skipped, continuation lines joined) and inline literals, and
    leaves Python blocks alone."""
    text = ("Run::\n\n   elastodyn modes X --count 2\n\nthen\n\n"
            ".. code-block:: text\n   :caption: c\n\n   elastodyn map X --points 3 \\\n"
            "       --count 1\n\n.. code-block:: python\n\n   elastodyn sweep X --bogus\n\n"
            "and ``elastodyn torques X\n--step 1``.\n")
    assert _commands(_rst_chunks(text)) == [("modes", ["--count"]),
                                            ("map", ["--points", "--count"]),
                                            ("torques", ["--step"])]


def test_documented_sections_found():
    commands = _documented_commands()
    verbs = {v for v, _ in commands}
    assert verbs >= {"", *VERBS}
    # README 1.x (before issue 30) wrote 29 command lines with 126 options in these
    # sections; the pages hold all of them and more
    assert len(commands) > 100
    assert sum(len(opts) for _, opts in commands) > 400


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_has_its_page(verb):
    """docs/cli/VERB.rst writes the verb's command lines, and the command-line index
    lists the page."""
    page = DOCS / "cli" / f"{verb}.rst"
    assert verb in {v for v, _ in _page_commands(page)}
    toctree = (DOCS / "cli" / "index.rst").read_text()
    assert re.search(rf"^   {re.escape(verb)}$", toctree, flags=re.M)


def test_every_verb_of_the_parser_is_documented():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    assert set(sub) == set(VERBS)


def test_every_documented_option_is_still_an_option_of_its_verb():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    missing = []
    for verb, options in _documented_commands():
        p = sub[verb] if verb else parser
        for opt in options:
            if opt not in p._option_string_actions:
                missing.append((verb, opt))
    assert missing == []


# The documented command lines with their values (the verb pages, docs/cli/*.rst, and
# the README's example). A template with alternatives (`--order cubic|quintic`) is
# written once per alternative somewhere in the list; where the pages let the user choose
# a window (--duration, --periods, --points) it is short. Notes: the old spellings the
# line uses (docs/results.rst, "Renamed options", of issue 13).
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
    # the README's example, the results page's JSON example, getting started
    ("modes delta-kuo2016 --at 0.1 0 0.5 --count 6 --json --out {out}", [],
     ["modes.json", "modes.csv", "modes.png", "summary.md"]),
    ("modes prrrp-briot2013 --actuated 0 0.25 --count 2 --json", [], []),
    ("modes delta-kuo2016 --set links.lower.section.width=0.008 --json", [], []),
    ("robots --json", [], []),
    # sensitivity and compare (their pages' examples, the short ones)
    ("sensitivity 3prr-rosyid2020 --scenario sine --parameters E,rho --method both "
     "--duration 0.02 --json --out {out}", [], ["sensitivity.json"]),
    ("sensitivity 3prr-rosyid2020 --efforts pulse --peak 10 -2 -2 --peak-time 0.1 "
     "--end-time 0.2 --duration 0.02 --json", [], []),
    ("compare arm-yu2019 --modes 2 --count 4 --json", [], []),
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
    for name in files:   # the files the pages list for --out (among others)
        assert (out / name).stat().st_size > 0, name


@pytest.mark.parametrize("line, notes, files", LINES, ids=[ln[0][:60] for ln in LINES])
def test_readme_command_line_runs(line, notes, files, tmp_path, capsys):
    _check(line, notes, files, tmp_path, capsys)


@pytest.mark.slow
def test_readme_ked_radau_runs(tmp_path, capsys):
    """--method radau of the KED simulation (the simulate page's check of Newmark; its
    implicit steps are slow: 2 ms of simulated time take ~15 s)."""
    _check("simulate delta-kuo2016 --trajectory circle --periods 0.002 --method radau --json",
           [], [], tmp_path, capsys)


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0 and "simulate" in capsys.readouterr().out
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("elastodyn ")


# ------------------------------------------------------------------ the README itself
def test_readme_is_a_landing_page():
    """At most 200 lines, its figure committed, its links to the documentation pages
    pointing at files of the repository."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    targets = re.findall(r"\]\(([^)]+)\)", text)
    assert any(t.startswith("docs/images/") for t in targets)
    assert sum(t.startswith("docs/") and t.endswith(".rst") for t in targets) >= 20
    for target in targets:
        assert (ROOT / target).is_file(), target


def test_readme_python_example_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"),
                        flags=re.S)
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    freqs = namespace["modes"](namespace["ked"], namespace["ked"].state(pose=[0.1, 0.0, 0.5]),
                               count=3)["frequencies_hz"]
    # as the README's comment says (read from it: the README and the code agree)
    said = re.search(r'count=3\)\["frequencies_hz"\]\s*#\s*([0-9., ]+)', blocks[0])
    assert said, "the README's modes line lost its comment"
    assert [round(f, 3) for f in freqs] == [float(x) for x in said.group(1).split(",")]
    assert (tmp_path / "circle" / "summary.md").is_file()


def _readme_table(header: str) -> list[list[str]]:
    text = README.read_text(encoding="utf-8")
    start = text.index(header)
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip().strip("`") for c in line.strip("|").split("|")])
    return rows


def test_readme_presets_are_those_of_robots(capsys):
    assert main(["robots", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)["robots"]
    rows = _readme_table("| ROBOT | family |")
    assert [r[0] for r in rows] == [r["name"] for r in listing]
    for row, robot in zip(rows, listing):
        assert row[1] == robot["family"]
        assert row[2] == ", ".join(robot["formulations"])
        assert row[3] == ", ".join(robot["scenarios"])


def test_readme_formulations_are_those_of_the_registry():
    from elastodyn.formulations.registry import FORMULATIONS
    rows = _readme_table("| formulation | takes the family |")
    assert [r[0] for r in rows] == list(FORMULATIONS)
    for row in rows:
        families = re.findall(r"\b(delta|tree|arm)\b", row[1])
        assert sorted(set(families)) == sorted(FORMULATIONS[row[0]].families), row
