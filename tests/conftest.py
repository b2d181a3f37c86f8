import pytest


@pytest.fixture
def sim():
    """A simulated Crossref/OpenAlex/Unpaywall/PDF host on 127.0.0.1 (tests/simserver.py)."""
    from simserver import SimRegistry

    with SimRegistry() as server:
        yield server
