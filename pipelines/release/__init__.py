"""Release export (`clinverse release`): the curated case tables as Parquet files with a dataset card,
without source identifiers, dates or raw note text, checked by an independent scan before they are
published. Plain Python over polars and DuckDB, no Dagster.

* ``spec``: what is released (``data/tables.yaml``); ``writer``: the released frames;
* ``identifiers``: where the build's source identifiers live (``data/identifiers.yaml``);
  ``scan``: the detector that looks for them in an export; ``keys``: whether case ids are reversible;
* ``card``: the dataset card (``data/card.md``); ``release``: the steps, refusals and atomic publish.
"""
