"""One build of the real MIMIC-IV demo (every asset, the stress test and ClinLab's evaluation
included) for the whole session; the conformance tests read it and never write its tables."""

import pytest

from pipelines.cli import main
from pipelines.warehouse import Warehouse

OTHER_SOURCES = ("CLINVERSE_MIMIC_NOTE_DIR", "CLINVERSE_MIMIC_ED_DIR", "CLINVERSE_SICDB_DIR", "CLINVERSE_MEDQA_PATH",
                 "CLINVERSE_HOME")


@pytest.fixture(scope="session")
def real_demo_warehouse(mimic_demo_dir, tmp_path_factory) -> Warehouse:
    home = tmp_path_factory.mktemp("real-mimic")
    with pytest.MonkeyPatch.context() as mp:
        for name in OTHER_SOURCES:
            mp.delenv(name, raising=False)
        assert main(["build", "--mimic-iv", str(mimic_demo_dir), "--home", str(home)]) == 0
    return Warehouse(home)


@pytest.fixture(scope="session")
def real_ed_demo_warehouse(mimic_demo_dir, mimic_ed_demo_dir, tmp_path_factory) -> Warehouse:
    """The real MIMIC-IV demo built with the real MIMIC-IV-ED demo (profiles from a one-patient pool
    per stratum; no episode evaluation)."""
    home = tmp_path_factory.mktemp("real-mimic-ed")
    with pytest.MonkeyPatch.context() as mp:
        for name in OTHER_SOURCES:
            mp.delenv(name, raising=False)
        mp.setenv("CLINVERSE_SYNTHEA_POOL_SIZE", "1")
        assert main(["build", "--mimic-iv", str(mimic_demo_dir), "--mimic-ed", str(mimic_ed_demo_dir),
                     "--home", str(home), "--select", "not group:evaluation"]) == 0
    return Warehouse(home)
