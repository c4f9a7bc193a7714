import sys

import pytest

from pipelines.datafiles import DataFileError, csv_patterns, csv_records, unique, yaml_record, yaml_records

PACKAGE = "datafiles_fixture"


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """A throw-away package whose files the loaders read through importlib.resources."""
    home = tmp_path_factory.mktemp("package")
    (home / PACKAGE).mkdir()
    (home / PACKAGE / "__init__.py").write_text("")

    def write(name: str, text: str) -> None:
        (home / PACKAGE / name).write_text(text, encoding="utf-8")

    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(home))
        yield write
    sys.modules.pop(PACKAGE, None)


def test_csv_comments_are_skipped_and_records_name_their_line(package):
    package("t.csv", "# comment\n# more\nname,low\nHemoglobin,13.5\n\n# between\nSodium,\nPotassium,4\n")
    records = csv_records(PACKAGE, "t.csv", ("name", "low"))
    assert [(r.where, r.line, r.text("name"), r.number("low", None)) for r in records] == [
        ("line 4", 4, "Hemoglobin", 13.5), ("line 7", 7, "Sodium", None), ("line 8", 8, "Potassium", 4)]
    assert isinstance(records[2].number("low"), int)  # a number keeps the type it is written in
    keyed = csv_records(PACKAGE, "t.csv", ("name", "low"), key="name")
    assert [(r.where, r.key) for r in keyed][:1] == [("name 'Hemoglobin' (line 4)", "Hemoglobin")]


def test_csv_patterns_compile_and_say_why(package):
    package("p.csv", "pattern,why\n^hold$,tube holds\n\\bheld\\b,held specimens\n")
    assert csv_patterns(PACKAGE, "p.csv") == ("^hold$", r"\bheld\b")
    for body, problem in [("(unclosed,a bad pattern\n", "line 2"), ("^ok$,\n", "why")]:
        package("q.csv", "pattern,why\n" + body)
        with pytest.raises(DataFileError, match=problem):
            csv_patterns(PACKAGE, "q.csv")


def test_csv_errors_name_file_line_and_column(package):
    package("t.csv", "name,low,adult\nHemoglobin,high,maybe\nHemoglobin,1,\n")
    records = csv_records(PACKAGE, "t.csv", ("name", "low", "adult"))
    with pytest.raises(DataFileError, match=r"datafiles_fixture/t\.csv: line 2, field 'low': expected a number, "
                                            r"got 'high'") as err:
        records[0].number("low")
    assert err.value.file.endswith("datafiles_fixture/t.csv") and (err.value.record, err.value.field) == (
        "line 2", "low")
    with pytest.raises(DataFileError, match=r"line 3, field 'name': 'Hemoglobin' repeats line 2"):
        unique(records, "name")
    with pytest.raises(DataFileError, match=r"line 2, field 'adult': 'maybe' is not one of yes, no"):
        records[0].flag("adult")
    assert records[1].flag("adult", False) is False
    with pytest.raises(DataFileError, match=r"line 3, field 'adult': missing; it is required"):
        records[1].text("adult")
    package("p.csv", "name,pattern\nHemoglobin,h(a\n")
    with pytest.raises(DataFileError, match=r"p\.csv: line 2, field 'pattern': not a valid regular expression"):
        csv_records(PACKAGE, "p.csv", ("name", "pattern"))[0].regex("pattern")


def test_csv_header_and_cell_count_are_checked(package):
    package("h.csv", "name,high\nHemoglobin,1\n")
    with pytest.raises(DataFileError, match=r"h\.csv: line 1: the header row is \['name', 'high'\]; "
                                            r"expected the columns \['name', 'low'\]"):
        csv_records(PACKAGE, "h.csv", ("name", "low"))
    package("n.csv", "name,low\nHemoglobin,1,2\n")
    with pytest.raises(DataFileError, match=r"n\.csv: name 'Hemoglobin' \(line 2\): 3 cells, expected 2 \(name, low\)"):
        csv_records(PACKAGE, "n.csv", ("name", "low"), key="name")


def test_text_yaml_keeps_scalars_as_text_and_checks_shapes(package):
    package("w.yaml", "words: [no, 'on', 1.0]\nmap:\n  CP: chest pain\ngroups:\n  a: [x, y]\n")
    doc = yaml_record(PACKAGE, "w.yaml", ("words", "map", "groups"), text=True)
    assert doc.texts("words") == ("no", "on", "1.0")
    assert doc.text_mapping("map") == {"CP": "chest pain"} and doc.text_groups("groups") == {"a": ("x", "y")}
    with pytest.raises(DataFileError, match=r"w\.yaml: field 'map': expected a non-empty list of texts"):
        doc.texts("map")
    with pytest.raises(DataFileError, match=r"w\.yaml: field 'map': unknown field; the fields are words"):
        yaml_record(PACKAGE, "w.yaml", ("words",), text=True)


def test_typed_yaml_records_name_entry_and_field(package):
    package("c.yaml", "stemi:\n  weight: 3\n  code: {icd9: 410.11}\n")
    (r,) = yaml_records(PACKAGE, "c.yaml", "disease")
    assert (r.key, r.where, r.number("weight")) == ("stemi", "disease 'stemi'", 3)
    with pytest.raises(DataFileError, match=r"c\.yaml: disease 'stemi', field 'code\.icd9': expected a non-empty "
                                            r"text, got 410\.11 \(quote it in YAML\)") as err:
        r.sub("code").text("icd9")
    assert (err.value.record, err.value.field) == ("disease 'stemi'", "code.icd9")


@pytest.mark.parametrize("text", [True, False], ids=["text", "typed"])
def test_yaml_repeated_keys_and_items_are_errors(package, text):
    package("d.yaml", "map:\n  CP: chest pain\n  CP: cerebral palsy\n")
    with pytest.raises(DataFileError, match=r"d\.yaml: line 3: not valid YAML: duplicate key 'CP' \(first at line 2"):
        yaml_record(PACKAGE, "d.yaml", ("map",), text=text)
    package("r.yaml", "words: [a, b, a]\n")
    with pytest.raises(DataFileError, match=r"r\.yaml: field 'words\[2\]': 'a' is listed twice"):
        yaml_record(PACKAGE, "r.yaml", ("words",), text=text).texts("words", distinct=True)


def test_a_directory_root_names_the_file_by_its_path(tmp_path):
    (tmp_path / "x.csv").write_text("# c\nkey\n\n", encoding="utf-8")
    assert csv_records(tmp_path, "x.csv", ("key",)) == []
    (tmp_path / "bad.yaml").write_text("a: [1\n", encoding="utf-8")
    with pytest.raises(DataFileError) as err:
        yaml_records(tmp_path, "bad.yaml", "entry")
    assert err.value.file == str(tmp_path / "bad.yaml") and err.value.record.startswith("line ")
