"""Whether a case id can be turned back into its source key: the build's id key, seen from its output.

A case id is ``c_`` + the first 16 hex digits of HMAC-SHA256 under ``CLINVERSE_ID_KEY`` of the source
and its source key (pipelines/ids.py; the key per source is identifiers.yaml ``case_keys``). Under a
secret key nobody without it can go back from a case id to the admission. Under the public demo key
(the default when CLINVERSE_ID_KEY is unset) anyone can: hashing every possible hadm_id takes seconds.
The warehouse does not record the key, so this recomputes each case id under the public key from
``case_provenance`` and compares.
"""

from __future__ import annotations

import polars as pl

from pipelines.config import DEMO_ID_KEY
from pipelines.ids import case_id
from pipelines.release.identifiers import IdentifierRules, identifier_rules
from pipelines.warehouse import Warehouse


def public_key_cases(warehouse: Warehouse, cases: pl.DataFrame, rules: IdentifierRules | None = None) -> pl.DataFrame:
    """The rows of ``cases`` (``case_id``, ``source``, ``dataset``) whose case id is the public demo
    key's hash of their source key."""
    rules = rules or identifier_rules()
    keys = list(dict.fromkeys(rules.case_keys.values()))
    provenance = warehouse.read(rules.case_links).select("case_id", *keys)
    joined = cases.select("case_id", "source", "dataset").join(provenance, on="case_id", how="inner")
    unknown = sorted(set(joined["source"]) - set(rules.case_keys))
    if unknown:
        raise ValueError(f"source(s) {', '.join(unknown)} have no entry in pipelines/release/data/identifiers.yaml "
                         "case_keys: add the column their case id hashes")
    public = [row["case_id"] == case_id(DEMO_ID_KEY, row["source"], row[rules.case_keys[row["source"]]])
              for row in joined.iter_rows(named=True)]
    return joined.filter(pl.Series(public, dtype=pl.Boolean)).select("case_id", "source", "dataset")
