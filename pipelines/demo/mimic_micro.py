"""MIMIC-IV ``hosp/microbiologyevents`` rows: cultures, organisms and susceptibilities of one admission."""

from __future__ import annotations

from .records import Disease
from .reference import ORGANISMS, SPECIMENS, SUSCEPTIBILITY
from .writer import DAY, HOUR, MINUTE, scramble, ts, ts_midnight


class MicroMixin:
    """Microbiology of :class:`~.mimic.MimicWriter` (uses its ``w``, ``providers``, ``specimen_n``,
    ``microevent_id``)."""

    def _micro(self, rng, sid, hadm_s, d: Disease, t: int, died: bool) -> str:
        if not d.micro:
            return ""
        rows = []
        summary = []
        provider = rng.choice(self.providers) if rng.random() < 0.4 else ""
        for spec, org, p_pos in d.micro:
            spec_itemid, spec_desc, test_itemid, test_name = SPECIMENS[spec]
            n_sets = 2 if spec == "blood" else 1
            positive = rng.random() < p_pos
            for s in range(n_sets):
                self.specimen_n += 1
                mspec = scramble(self.specimen_n, 1_000_000, 98_000_000, 4_242_421)
                ct = t + rng.randint(0, 90) * MINUTE + s * 5 * MINUTE
                store = ct + (rng.randint(2, 5) if spec == "blood" else rng.randint(1, 3)) * DAY
                store = store - store % DAY + rng.randint(7 * HOUR, 15 * HOUR)
                common = [sid, hadm_s, mspec, provider, ts_midnight(ct), ts(ct), spec_itemid, spec_desc, 1,
                          ts_midnight(store), ts(store), test_itemid, test_name]
                if positive and org and org in SUSCEPTIBILITY:
                    org_id, org_name = ORGANISMS[org]
                    self.microevent_id += 1
                    rows.append([self.microevent_id, *common, org_id, org_name, 1, "", "", "", "", "", "", "", ""])
                    for ab_id, ab_name, dil, interp in SUSCEPTIBILITY[org]:
                        self.microevent_id += 1
                        comp = dil[:2] if dil[:2] in ("<=", "=>") else "="
                        dval = dil.lstrip("<=>")
                        rows.append([self.microevent_id, *common, org_id, org_name, 1, "", ab_id, ab_name, dil,
                                     comp.ljust(10), dval, interp, ""])
                    if s == 0:
                        what = {"blood": "blood cultures (2/2)", "urine": "urine culture"}.get(spec, spec_desc.lower())
                        summary.append(f"{what} grew {org_name.lower()}")
                else:
                    if spec == "stool":
                        comment = ("Positive for toxigenic C. difficile by the Illumigene DNA amplification.  "
                                   if positive else "Negative for toxigenic C. difficile by the Illumigene DNA "
                                                    "amplification assay.            (Reference Range-Negative).  ")
                        if positive and s == 0:
                            summary.append("stool C. diff PCR positive")
                    elif spec == "mrsa":
                        comment = "No MRSA isolated.  "
                    elif spec == "sputum":
                        comment = rng.choice(("SPARSE GROWTH Commensal Respiratory Flora.  ",
                                              "MODERATE GROWTH Commensal Respiratory Flora.  "))
                    elif spec == "wound" and positive:
                        comment = "STAPH AUREUS COAG +.  MODERATE GROWTH.  "
                    else:
                        comment = "NO GROWTH.  "
                    self.microevent_id += 1
                    rows.append([self.microevent_id, *common, "", "", "", "", "", "", "", "", "", "", comment])
        if rows:
            self.w["mimic-iv/hosp/microbiologyevents.csv.gz"].write_many(rows)
        if not summary:
            return rng.choice(("", "Blood cultures no growth to date at discharge.", ""))
        return "Micro: " + "; ".join(summary) + "."
