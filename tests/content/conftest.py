"""A warehouse with the real MIMIC-IV demo staged and its case skeleton built (once per session,
about 3 seconds), for the content tests."""

import pytest

from pipelines.cases.skeleton import mimic_skeleton
from pipelines.config import DEMO_ID_KEY
from pipelines.sources.csv_tables import stage_csv
from pipelines.warehouse import Warehouse
from schemas.staging import MIMIC_IV


@pytest.fixture(scope="session")
def real_demo(mimic_demo_dir, tmp_path_factory):
    """The real MIMIC-IV demo staged into a fresh warehouse, with its case skeleton."""
    warehouse = Warehouse(tmp_path_factory.mktemp("real-demo"))
    for spec in MIMIC_IV:
        stage_csv(spec, mimic_demo_dir, warehouse)
    parts = mimic_skeleton(warehouse, DEMO_ID_KEY, "mimic-iv-2.2", 0.2)
    warehouse.write("case_skeleton", parts.skeleton)
    warehouse.write("case_provenance", parts.provenance)
    warehouse.write("skeleton_exclusions", parts.exclusions)
    return warehouse
