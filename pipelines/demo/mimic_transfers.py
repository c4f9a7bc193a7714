"""MIMIC-IV ``hosp/transfers`` rows: ED, ward and ICU segments of one admission."""

from __future__ import annotations

from .records import Disease
from .writer import MINUTE, scramble, ts


class TransfersMixin:
    """Transfer rows of :class:`~.mimic.MimicWriter` (uses its ``w`` and ``transfer_n``)."""

    def _transfers(self, rng, sid, hadm, d: Disease, has_ed, ed_reg, ed_out, admittime, dischtime, icu, icu_in,
                   icu_out) -> None:
        rows = []

        def tid() -> int:
            self.transfer_n += 1
            return scramble(self.transfer_n, 30_000_000, 9_999_991, 3_141_593)  # < 625k admissions

        t = admittime
        if has_ed:
            rows.append((sid, hadm, tid(), "ED", "Emergency Department", ts(ed_reg), ts(ed_out)))
            t = ed_out
        segments = []
        if icu:
            if icu_in > t + 30 * MINUTE:
                segments.append((d.careunit, t, icu_in))
            segments.append((d.icu_unit, icu_in, icu_out))
            if dischtime > icu_out + 30 * MINUTE:
                segments.append((d.careunit, icu_out, dischtime))
        else:
            segments.append((d.careunit, t, dischtime))
        for k, (unit, a, b) in enumerate(segments):
            rows.append((sid, hadm, tid(), "admit" if k == 0 else "transfer", unit, ts(a), ts(b)))
        rows.append((sid, hadm, tid(), "discharge", "", ts(dischtime), ""))
        self.w["mimic-iv/hosp/transfers.csv.gz"].write_many(rows)
