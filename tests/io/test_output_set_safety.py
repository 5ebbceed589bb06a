"""Nothing a user wrote is lost (issues 32 and 35): an output set is refused where its
swap would delete a file the user added, an empty --out, the working folder, a parent of
it, the home folder or the root; each refusal is exit 2 and one line naming --out."""
from __future__ import annotations

import os

import pytest

from elastodyn.cli import main
from elastodyn.exceptions import InputError
from elastodyn.io.output_set import MARKER, check_output_folder, write_output_set


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line]


def test_a_rerun_keeps_nothing_but_refuses_when_the_user_added_files(tmp_path):
    out = tmp_path / "res"
    write_output_set(out, {"a.json": "{}", "b.csv": "x"}, marker="modes X")
    assert (out / MARKER).read_text().splitlines() == ["modes X", "file a.json", "file b.csv"]
    write_output_set(out, {"c.json": "{}"})           # our own set: replaced whole
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "c.json"]
    (out / "notes.txt").write_text("mine")
    (out / "mine").mkdir()
    with pytest.raises(InputError, match=r"holds mine, notes.txt \(they are not in the set"):
        write_output_set(out, {"c.json": "{}"})
    assert (out / "notes.txt").read_text() == "mine" and (out / "mine").is_dir()


def test_a_marker_without_the_list_of_names_protects_the_folder(tmp_path):
    # an output set of an earlier elastodyn version: its marker holds only the command,
    # so which files it wrote is unknown and none is deleted
    out = tmp_path / "old"
    out.mkdir()
    (out / MARKER).write_text("modes\n")
    (out / "modes.json").write_text("{}")
    with pytest.raises(InputError, match="does not list what it wrote"):
        check_output_folder(out)
    (out / "modes.json").unlink()
    check_output_folder(out)                            # only the marker: fine


@pytest.mark.parametrize("where", ["", ".", "cwd", "parent", "home", "root"])
def test_folders_a_set_must_not_replace(tmp_path, monkeypatch, where):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    folder = {"": "", ".": ".", "cwd": str(work), "parent": "..",
              "home": str(tmp_path / "home"), "root": os.path.abspath(os.sep)}[where]
    with pytest.raises(InputError, match="--out"):
        check_output_folder(folder)
    assert work.is_dir()


def test_command_line_refusals_are_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for out in ("", str(tmp_path)):
        code, stdout, err = _run(capsys, ["modes", "delta-kuo2016", "--count", "2",
                                          "--out", out])
        assert code == 2 and stdout == "" and len(err) == 1, err
        assert err[0].startswith("elastodyn: error: invalid --out:")
    res = tmp_path / "res"
    assert _run(capsys, ["modes", "delta-kuo2016", "--count", "2", "--out", "res"])[0] == 0
    (res / "notes.txt").write_text("mine")
    code, _, err = _run(capsys, ["modes", "delta-kuo2016", "--count", "2", "--out", "res"])
    assert code == 2 and len(err) == 1 and "notes.txt" in err[0]
    assert (res / "notes.txt").read_text() == "mine"


def test_a_result_asked_on_a_closed_stdout_is_a_failure_not_silence(tmp_path):
    """Started with standard output closed (``>&-``), Python drops every print: the JSON
    asked for would be lost with exit 0 (issue 35). It is exit 1 and one line."""
    import subprocess
    import sys
    env = dict(os.environ, ELASTODYN_CACHE=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "elastodyn", "robots", "--json"],
                       stderr=subprocess.PIPE, text=True, env=env, timeout=120,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        "elastodyn: error: cannot write outputs: [Errno 9] standard output is closed"]
