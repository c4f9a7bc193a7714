import polars as pl

from pipelines.exams import sicdb
from pipelines.warehouse import Warehouse


def test_first_value_per_laboratory_id_named_through_d_references(tmp_path, staging_frame):
    warehouse = Warehouse(tmp_path)
    warehouse.write("sicdb_laboratory", staging_frame("sicdb_laboratory", pl.DataFrame({
        "CaseID": [11, 11, 11, 99], "LaboratoryID": [658, 658, 367, 658], "Offset": [7200, -1800, 3600, 0],
        "LaboratoryValue": [11.0, 9.5, 1.4, 13.0], "LaboratoryType": [1, 1, 1, 1]})))
    warehouse.write("sicdb_d_references", staging_frame("sicdb_d_references", pl.DataFrame({
        "ReferenceGlobalID": [658, 367, 735], "ReferenceValue": ["Hämoglobin", "Kreatinin", "männlich"],
        "ReferenceName": ["Laboratory", "Laboratory", "Sex"], "ReferenceUnit": ["g/dl", "mg/dl", None],
        "LOINC_code": ["718-7", "2160-0", None]})))
    cases = pl.DataFrame({"case_id": ["c_0000000000000001"], "sicdb_case_id": [11]})
    assert sicdb.write_labs(warehouse, cases).rows == 2
    rows = {r["exam_name"]: r for r in warehouse.read("exam_candidates").iter_rows(named=True)}
    assert rows["Hämoglobin"]["value_num"] == 9.5 and rows["Hämoglobin"]["offset_hours"] == -0.5
    assert rows["Kreatinin"]["loinc"] == "2160-0" and rows["Kreatinin"]["unit"] == "mg/dl"
    assert rows["Kreatinin"]["abnormal"] is None  # SICdb ships no reference ranges
