"""One build of the real MIMIC-IV demo (every asset, the stress test and ClinLab's evaluation
included) for the whole session; the conformance tests read it and never write its tables."""

import pytest

from pipelines.cli import main
from pipelines.warehouse import Warehouse

OTHER_SOURCES = ("CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_SICDB_DIR", "CLINVERSE_MEDQA_PATH", "CLINVERSE_HOME")


@pytest.fixture(scope="session")
def real_demo_warehouse(mimic_demo_dir, tmp_path_factory) -> Warehouse:
    home = tmp_path_factory.mktemp("real-mimic")
    with pytest.MonkeyPatch.context() as mp:
        for name in OTHER_SOURCES:
            mp.delenv(name, raising=False)
        assert main(["build", "--mimic-iv", str(mimic_demo_dir), "--home", str(home)]) == 0
    return Warehouse(home)
