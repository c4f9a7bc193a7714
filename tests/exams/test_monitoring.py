"""Results that monitor a treatment the stay began: when each case's monitoring treatment started."""

from datetime import datetime

import polars as pl
import pytest

from pipelines.datafiles import DataFileError
from pipelines.exams import monitoring
from pipelines.exams.monitoring import treatment_starts

CASES = pl.DataFrame({"case_id": ["c1", "c2", "c3"], "hadm_id": [1, 2, 3]})
LABITEMS = pl.DataFrame({"itemid": [51275, 51229, 50912], "label": ["PTT", "Heparin, LMW", "Creatinine"]})


def _orders(*rows):
    return pl.DataFrame(rows, schema={"hadm_id": pl.Int64, "drug": pl.Utf8, "route": pl.Utf8,
                                      "starttime": pl.Datetime("us")}, orient="row")


def test_an_intravenous_heparin_order_starts_the_ptt_s_monitoring_and_a_flush_or_an_injection_does_not():
    orders = _orders(
        (1, "Heparin Flush (10 units/ml)", "IV", datetime(2150, 1, 1, 1)),  # keeps a line open
        (1, "Heparin", "SC", datetime(2150, 1, 1, 2)),  # prophylaxis: the PTT stays the patient's
        (1, "Heparin Sodium", "IV", datetime(2150, 1, 1, 11)),
        (1, "Heparin", "IV", datetime(2150, 1, 1, 9)),  # the bolus, earlier
        (2, "Enoxaparin Sodium", "SC", datetime(2150, 1, 2, 8)),
        (3, "Heparin Dwell (1000 Units/mL)", "DWELL", datetime(2150, 1, 3, 8)),
    )
    starts = treatment_starts(CASES, LABITEMS, orders)
    assert starts.select("case_id", "itemid", "since").rows() == [
        ("c1", 51275, datetime(2150, 1, 1, 9)),
        ("c2", 51229, datetime(2150, 1, 2, 8)),
    ]
    assert "heparin" in starts["why"][0]


def test_an_ed_dispensation_has_no_route_and_counts_when_it_comes_first():
    orders = _orders((1, "Heparin Sodium", "IV", datetime(2150, 1, 1, 11)))
    dispensed = pl.DataFrame({"hadm_id": [1, 1], "drug": ["Heparin Sodium", "Heparin Flush 100 Unit / mL"],
                              "charttime": [datetime(2150, 1, 1, 7), datetime(2150, 1, 1, 5)]})
    starts = treatment_starts(CASES, LABITEMS, orders, dispensed)
    assert starts.select("case_id", "since").rows() == [("c1", datetime(2150, 1, 1, 7))]
    assert treatment_starts(CASES, LABITEMS, orders.clear()).is_empty()


@pytest.fixture
def rule_file(data_package):
    return data_package(monitoring, (monitoring.rules,))


def test_a_bad_rule_names_its_file_line_and_field(rule_file):
    header = "labels,drugs,not,routes,why\n"
    rule_file(treatment_monitoring=header + "PTT,Heparin!,,IV,why\n")
    with pytest.raises(DataFileError, match=r"treatment_monitoring\.csv: line 2, field 'drugs': expected lower-case"):
        monitoring.rules()
    rule_file(treatment_monitoring=header + "PTT,heparin,,,why\n")
    with pytest.raises(DataFileError, match=r"treatment_monitoring\.csv: line 2.*needs labels, drugs and routes"):
        monitoring.rules()
