import sys

import pytest

from pipelines.datafiles import DataFileError, YamlFile, csv_records, unique

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
    package("t.csv", "# comment\n# more\nname,low\nHemoglobin,13.5\n\nSodium,\n")
    records = csv_records(PACKAGE, "t.csv", ("name", "low"))
    assert [(r.where, r.text("name"), r.number("low")) for r in records] == [
        ("line 4", "Hemoglobin", 13.5), ("line 6", "Sodium", None)]


def test_csv_errors_name_file_line_and_column(package):
    package("t.csv", "name,low\nHemoglobin,high\nHemoglobin,1\n")
    records = csv_records(PACKAGE, "t.csv", ("name", "low"))
    with pytest.raises(DataFileError, match=r"datafiles_fixture/t\.csv, line 2, field 'low': 'high' is not a number"):
        records[0].number("low")
    with pytest.raises(DataFileError, match=r"line 3, field 'name': 'Hemoglobin' repeats line 2"):
        unique(records, "name")
    with pytest.raises(DataFileError, match=r"line 2, field 'low': 'high' is not one of yes"):
        records[0].flag("low")
    package("p.csv", "name,pattern\nHemoglobin,h(a\n")
    with pytest.raises(DataFileError, match=r"p\.csv, line 2, field 'pattern': not a valid regular expression"):
        csv_records(PACKAGE, "p.csv", ("name", "pattern"))[0].pattern("pattern")


def test_csv_header_and_field_count_are_checked(package):
    package("h.csv", "name,high\nHemoglobin,1\n")
    with pytest.raises(DataFileError, match=r"h\.csv, line 1: header is \['name', 'high'\], expected \['name', 'low'\]"):
        csv_records(PACKAGE, "h.csv", ("name", "low"))
    package("n.csv", "name,low\nHemoglobin,1,2\n")
    with pytest.raises(DataFileError, match=r"n\.csv, line 2: 3 fields, expected 2"):
        csv_records(PACKAGE, "n.csv", ("name", "low"))


def test_yaml_scalars_stay_text_and_shapes_are_checked(package):
    package("w.yaml", "words: [no, 'on', 1.0]\nmap:\n  CP: chest pain\ngroups:\n  a: [x, y]\n")
    doc = YamlFile(PACKAGE, "w.yaml", ("words", "map", "groups"))
    assert doc.strings("words") == ("no", "on", "1.0")
    assert doc.mapping("map") == {"CP": "chest pain"} and doc.groups("groups") == {"a": ("x", "y")}
    with pytest.raises(DataFileError, match=r"w\.yaml, map: expected a list, found dict"):
        doc.strings("map")
    with pytest.raises(DataFileError, match=r"sections are \['groups', 'map', 'words'\], expected \['words'\]"):
        YamlFile(PACKAGE, "w.yaml", ("words",))


def test_yaml_repeated_keys_and_items_are_errors(package):
    package("d.yaml", "map:\n  CP: chest pain\n  CP: cerebral palsy\n")
    with pytest.raises(DataFileError, match=r"d\.yaml, line 3: key 'CP' repeats line 2"):
        YamlFile(PACKAGE, "d.yaml", ("map",))
    package("r.yaml", "words: [a, b, a]\n")
    with pytest.raises(DataFileError, match=r"r\.yaml, words\[2\]: 'a' is listed twice"):
        YamlFile(PACKAGE, "r.yaml", ("words",)).strings("words")
