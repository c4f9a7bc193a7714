"""Shared fixture: a module's data-file loaders pointed at a throw-away package, so a test can
write damaged copies of its CSV files (their caches are cleared before each write and afterwards)."""

import sys

import pytest


@pytest.fixture
def data_package(tmp_path, monkeypatch):
    cleared, packages = [], []

    def point(module, loaders):
        name = f"{module.__name__.rsplit('.', 1)[-1]}_fixture"
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        monkeypatch.syspath_prepend(str(tmp_path))
        monkeypatch.setattr(module, "__package__", name)
        cleared.extend(loaders)
        packages.append(name)

        def write(**files: str) -> None:
            for loader in loaders:
                loader.cache_clear()
            for file, text in files.items():
                (tmp_path / name / f"{file}.csv").write_text(text, encoding="utf-8")

        return write

    yield point
    for loader in cleared:
        loader.cache_clear()
    for name in packages:
        sys.modules.pop(name, None)
