import os

import numpy as np
import pytest

from elastodyn.description import Material, Section


@pytest.fixture
def steel():
    return Material(E=210e9, G=80e9, rho=7800.0)


@pytest.fixture
def rect():
    """A non-square section so that the two bending planes differ."""
    return Section.rectangle(6e-3, 4e-3)


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


@pytest.fixture(autouse=True, scope="session")
def _compiled_code_cache(tmp_path_factory):
    """Compiled models go to one cache folder of this test session, never to the user's:
    set for the whole session (session fixtures come first, so module-scoped fixtures
    that build compiled models use it too). Under pytest-xdist each worker has its own
    base folder (``.../popen-gwN``) inside the session's: the cache is the session's, so
    the workers share it (the cache's build lock makes the second worker needing a model
    load the first one's build). Tests that change ELASTODYN_CACHE use monkeypatch."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    old = os.environ.get("ELASTODYN_CACHE")
    os.environ["ELASTODYN_CACHE"] = str(base / "cache")
    yield
    if old is None:
        os.environ.pop("ELASTODYN_CACHE", None)
    else:
        os.environ["ELASTODYN_CACHE"] = old


@pytest.fixture
def register_formulation(tmp_path, monkeypatch):
    """Register formulations the way a third-party package does: a distribution on
    ``sys.path`` whose metadata declares entry points of ``elastodyn.formulations``.

    ``register_formulation(module_name, source, {entry_name: "attr", ...})`` writes the
    module ``module_name`` (its ``source``) and a ``module_name-0.1.dist-info`` beside it
    into a temporary folder, puts that folder first on ``sys.path`` and makes the
    registry discover again; undone after the test. Returns the folder (for
    subprocesses: ``PYTHONPATH``)."""
    from elastodyn.formulations import registry

    def register(module_name, source, entries, folder=None):
        folder = tmp_path / "site" if folder is None else folder
        folder.mkdir(exist_ok=True)
        (folder / f"{module_name}.py").write_text(source)
        info = folder / f"{module_name}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module_name}\n"
                                       "Version: 0.1\n")
        (info / "entry_points.txt").write_text(
            "[elastodyn.formulations]\n"
            + "".join(f"{name} = {module_name}:{attr}\n" for name, attr in entries.items()))
        monkeypatch.syspath_prepend(str(folder))
        registry.refresh()
        return folder

    yield register
    registry.refresh()
