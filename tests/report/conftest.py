"""Report fixtures: the session's demo warehouse, copied, with three small scored runs (report_runs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_runs import report_warehouse


@pytest.fixture(scope="session")
def report_home(demo_home, tmp_path_factory) -> Path:
    return report_warehouse(demo_home, tmp_path_factory.mktemp("report"))
