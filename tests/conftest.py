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
