"""No documentation link points outside the repository (issue 18 item 6).

The README, CHANGELOG, BENCHMARKS, the Sphinx sources in docs/ (the manual since issue 30:
getting started, one page per verb, describing a robot, results, the models, the
library, development), the examples shown in the gallery and the docstrings the API
reference and the generated schema are built from must not send a reader to an
address outside the repository: cite a paper by authors, year and title (a DOI written
as text), refer to a file of the repository by its path. Links rot, and a reader
offline (or of a copy of the repository) cannot follow them.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
URL = re.compile(r"\b(?:https?|ftp)://[^\s)>\]`'\"]+", re.IGNORECASE)
# Addresses allowed anyway, each with its reason. None: the project's own addresses are
# in pyproject.toml ([project.urls], package metadata, not documentation), and the
# papers are cited as text.
ALLOWED: dict[str, str] = {}


def _documents():
    files = [ROOT / name for name in ("README.md", "CHANGELOG.md", "BENCHMARKS.md")]
    docs = ROOT / "docs"
    files += [p for p in docs.rglob("*") if p.is_file() and p.suffix in {".rst", ".md", ".py",
                                                                            ".txt", ".html"}
              and not {"_build", "generated"} & set(p.relative_to(docs).parts)]
    files += sorted((ROOT / "examples").glob("*.py"))
    files += sorted((ROOT / "src" / "elastodyn").rglob("*.py"))
    return [p for p in files if p.exists()]


def _external_links(path: Path):
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for url in URL.findall(line):
            if not any(url.startswith(prefix) for prefix in ALLOWED):
                yield f"{path.relative_to(ROOT)}:{n}: {url}"


def test_the_scan_finds_a_link():
    """The pattern catches the usual spellings (and so the test below can fail)."""
    text = "see <https://example.org/a>, [x](http://example.org/b) and `ftp://h/c`"
    assert URL.findall(text) == ["https://example.org/a", "http://example.org/b", "ftp://h/c"]


def test_no_external_link():
    documents = _documents()
    assert ROOT / "README.md" in documents and len(documents) > 10
    pages = [p for p in documents if p.suffix == ".rst"]
    for sub in ("cli", "theory"):   # the manual's pages are scanned, every one
        assert sorted((ROOT / "docs" / sub).glob("*.rst")) and \
            set((ROOT / "docs" / sub).glob("*.rst")) <= set(pages)
    assert len(pages) >= 25
    found = [hit for path in documents for hit in _external_links(path)]
    assert not found, "links outside the repository:\n" + "\n".join(found)
