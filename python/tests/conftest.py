"""Where the golden files are, and the server the live tests run against (the Java IT passes its URL)."""

import os
import pathlib

import pytest


@pytest.fixture(scope="session")
def golden() -> pathlib.Path:
    """The golden files the Java conformance tests pin: SUBGRAPH_EXPORT_GOLDEN (set by PythonClientIT, which unpacks
    them from the conformance module's test jar), or point it at conformance/src/test/resources/golden."""
    path = os.environ.get("SUBGRAPH_EXPORT_GOLDEN")
    if not path:
        pytest.skip("no golden files: SUBGRAPH_EXPORT_GOLDEN is set by PythonClientIT (mvn verify), or point it at "
                    "conformance/src/test/resources/golden")
    golden = pathlib.Path(path)
    if not (golden / "fixture.arrow").is_file():
        raise FileNotFoundError(f"SUBGRAPH_EXPORT_GOLDEN={path} holds no fixture.arrow")
    return golden


@pytest.fixture(scope="session")
def server() -> str:
    """The base URL of a real Neo4j with the plugin: SUBGRAPH_EXPORT_URL (set by PythonClientIT)."""
    url = os.environ.get("SUBGRAPH_EXPORT_URL")
    if not url:
        pytest.skip("no server: SUBGRAPH_EXPORT_URL is set by PythonClientIT (mvn verify), or point it at one")
    return url


@pytest.fixture(scope="session")
def demo() -> str:
    """The base URL of a server holding a small demo graph (no auth): SUBGRAPH_EXPORT_DEMO_URL (PythonClientIT)."""
    url = os.environ.get("SUBGRAPH_EXPORT_DEMO_URL")
    if not url:
        pytest.skip("no demo server: SUBGRAPH_EXPORT_DEMO_URL is set by PythonClientIT, or point it at scripts/demo")
    return url
