"""MIMIC-IV-Note rows: radiology reports (+ addenda) and discharge summaries of one admission.

The texts come from :mod:`.notes`; this module picks their content (studies, PMH, medications,
pertinent labs, the placeholders of disease phrasings) and writes the note and detail rows.
"""

from __future__ import annotations

from . import notes
from .diseases import COMORBIDITIES, CXR_NORMAL
from .mimic_labs import AG, CR, GLU, HCO3, HGB, NA, TROP, LabDraw
from .mimic_patient import Patient
from .records import Disease
from .reference import DAILY_PANELS, DRUGS, LAB_ITEMS
from .writer import DAY, HOUR, MINUTE, SafeDict, clock_12h, fmt_num, ts, ts_midnight

ACTIVITIES = ("walking his dog", "shoveling snow", "at rest watching TV", "climbing stairs", "at work", "asleep")


class NotesMixin:
    """Note methods of :class:`~.mimic.MimicWriter` (uses its ``w``)."""

    def _radiology(self, rng, p: Patient, hadm_s, d: Disease, side: str, t_first: int, admittime: int,
                   fmt: SafeDict) -> list:
        impressions = []
        w = self.w["mimic-iv-note/note/radiology.csv.gz"]
        wd = self.w["mimic-iv-note/note/radiology_detail.csv.gz"]
        studies = [img for img in d.imaging if rng.random() < 0.92]
        outpatient = rng.random() < 0.06
        if outpatient:
            studies.insert(0, CXR_NORMAL)
        indication = d.chief_complaints[0].format_map(fmt).lower()
        for n, img in enumerate(studies):
            p.rr_seq += rng.randint(1, 4)
            note_id = f"{p.subject_id}-RR-{p.rr_seq}"
            is_out = outpatient and n == 0
            t = (admittime - rng.randint(30, 300) * DAY) if is_out else t_first + rng.randint(20, 240) * MINUTE
            store = t + rng.randint(25, 300) * MINUTE
            text, exam_name, impression = notes.radiology_report(
                rng, img, p.sex, "routine screening" if is_out else indication, side, comparison=bool(p.prior))
            hid = "" if is_out else hadm_s
            w.write((note_id, p.subject_id, hid, "RR", p.rr_seq, ts(t), ts(store), text))
            wd.write((note_id, p.subject_id, "exam_name", exam_name, 1))
            wd.write((note_id, p.subject_id, "exam_code", img.exam_code, 1))
            wd.write((note_id, p.subject_id, "cpt_code", img.cpt, 1))
            if not is_out:
                impressions.append((exam_name, impression))
            if rng.random() < 0.04:  # addendum
                p.rr_seq += 1
                ar_id = f"{p.subject_id}-AR-{p.rr_seq}"
                w.write((ar_id, p.subject_id, hid, "AR", p.rr_seq, ts(t), ts(store + rng.randint(1, 48) * HOUR),
                         notes.addendum(rng, text)))
                wd.write((ar_id, p.subject_id, "exam_name", exam_name, 1))
                wd.write((ar_id, p.subject_id, "cpt_code", img.cpt, 1))
                wd.write((ar_id, p.subject_id, "parent_note_id", note_id, 1))
                wd.write((note_id, p.subject_id, "addendum_note_id", ar_id, 1))
        return impressions

    def _fmt(self, rng, d: Disease, draws: list[LabDraw], first: dict, age: int, side: str, p: Patient,
             los_days: float) -> SafeDict:
        def peak(itemid, fn=max):
            vals = [dr.values[itemid] for dr in draws if itemid in dr.values and not isinstance(dr.values[itemid],
                                                                                                 str)]
            return fn(vals) if vals else None

        def f(itemid, value):
            if value is None:
                return "___"
            return fmt_num(min(LAB_ITEMS[itemid].vmax, max(LAB_ITEMS[itemid].vmin, value)),
                           LAB_ITEMS[itemid].decimals)

        last = {}
        for dr in draws:
            last.update({k: v for k, v in dr.values.items() if not isinstance(v, str)})
        h_m = p.height_in * 0.0254
        deficit = "left" if side == "right" else "right"  # hemispheric lesion -> contralateral deficit
        fmt = SafeDict(
            dur=rng.choice(("2 days", "3 days", "1 day", "several hours", "1 week", "4 days", "12 hours", "2 hours")),
            activity=rng.choice(ACTIVITIES), side=side, Side=side.capitalize(), side_cap=side.capitalize(),
            deficit=deficit, Deficit=deficit.capitalize(),
            time="___", nihss=str(rng.randint(3, 18)), day=str(rng.randint(2, 3)), chads=str(rng.randint(1, 5)),
            pesi=str(rng.randint(0, 2)), curb=str(rng.randint(0, 3)), meld=str(rng.randint(14, 30)),
            hours=str(rng.randint(10, 24)), benzo=str(rng.choice((40, 60, 80, 120))),
            etiology=rng.choice(("alcohol", "gallstones", "alcohol", "unclear (TGs normal, no stones)")),
            weight=f"{p.bmi * h_m * h_m * 0.97:.1f}",
            trop_peak=f(TROP, peak(TROP)), lipase_peak=f(50956, peak(50956)), wbc_peak=f(51301, peak(51301)),
            cr_peak=f(CR, peak(CR)), cr_dc=f(CR, last.get(CR)), cr=f(CR, first.get(CR)),
            lactate=f(50813, first.get(50813)), glu=f(GLU, first.get(GLU)), ag=f(AG, first.get(AG)),
            hco3=f(HCO3, first.get(HCO3)), na=f(NA, first.get(NA)), na_dc=f(NA, last.get(NA)),
            una=f(51100, first.get(51100)), ft4=f(50995, first.get(50995)), ferritin=f(50924, first.get(50924)),
            hgb=f(HGB, first.get(HGB)), hgb_nadir=f(HGB, peak(HGB, min)), uric=f(51007, first.get(51007)),
            apap=f(50856, first.get(50856)), ast_peak=f(50878, peak(50878)), csf_prot=f(51802, first.get(51802)),
            csf_glu=f(51790, first.get(51790)),
        )
        return fmt

    def _pertinent(self, rng, draws: list[LabDraw], sex: str, which: str) -> list[str]:
        if not draws:
            return []
        if which == "admission":
            t0 = draws[0].time
            sel = [dr for dr in draws if dr.time - t0 < 2 * HOUR]
        else:
            t_last = draws[-1].time
            if t_last - draws[0].time < 12 * HOUR:
                return []
            sel = [dr for dr in draws if t_last - dr.time < 2 * HOUR and dr.panel in DAILY_PANELS]
        lines = []
        for dr in sel:
            parts = []
            fluid = "BLOOD"
            for itemid, value in dr.values.items():
                item = LAB_ITEMS[itemid]
                if itemid == 50920:
                    continue
                if item.fluid == "Urine":
                    fluid = "URINE"
                elif item.fluid == "Cerebrospinal Fluid":
                    fluid = "CEREBROSPINAL FLUID (CSF)"
                if isinstance(value, str):
                    parts.append(f"{item.short}-{value}")
                    continue
                v = min(item.vmax, max(item.vmin, value))
                sval = fmt_num(v, item.decimals)
                ref = item.ref_for(sex)
                star = "*" if ref and not (float(ref[0]) <= float(sval) <= float(ref[1])) else ""
                if itemid in (51274, 51237) and rng.random() < 0.5:
                    parts.append("___")
                elif itemid == TROP and v < 0.01:
                    parts.append(f"{item.short}-<0.01")
                else:
                    parts.append(f"{item.short}-{sval}{star}")
            if parts:
                lines.append(f"___ {clock_12h(dr.time)} {fluid} " + " ".join(parts))
        return lines

    def _discharge_note(self, rng, p: Patient, hadm, d: Disease, chronic, pmh_only, v_adm, v_dc, home_meds,
                        secondary, proc_lines, draws, impressions, fmt, disch_loc, dischtime, micro_summary):
        pmh = []
        for key in pmh_only + chronic:
            c = COMORBIDITIES[key]
            pmh.append(c.pmh[0] if rng.random() < 0.5 else rng.choice(c.pmh))
        for prev in p.prior:
            pmh.append(prev.history_phrase or prev.name)
        rng.shuffle(pmh)
        dc_meds = []
        for key in list(home_meds) + [m for m in d.discharge_meds if m not in home_meds]:
            dc_meds.append(DRUGS[key].sig)
        chronic_course = []
        for key in chronic:
            course = COMORBIDITIES[key].course
            if course and rng.random() < 0.7:
                chronic_course.append(rng.choice(course))
        ctx = notes.NoteContext(
            disease=d, sex=p.sex, service=d.service, cc=rng.choice(d.chief_complaints).format_map(fmt), vitals=v_adm,
            vitals_dc=v_dc,
            pmh=pmh, prior_dx=list(p.prior), home_meds=[DRUGS[k].sig for k in home_meds], discharge_meds=dc_meds,
            secondary_dx=[s for s in secondary if rng.random() < 0.7], procedures=proc_lines,
            admission_labs=self._pertinent(rng, draws, p.sex, "admission"),
            discharge_labs=self._pertinent(rng, draws, p.sex, "discharge"),
            imaging_impressions=impressions, fmt=fmt, discharge_location=disch_loc, smoker=p.smoker, etoh=p.etoh,
            micro_summary=micro_summary, chronic_course=chronic_course,
        )
        text = notes.discharge_summary(rng, ctx)
        p.ds_seq += rng.randint(1, 6)
        note_id = f"{p.subject_id}-DS-{p.ds_seq}"
        store = dischtime + rng.randint(1 * HOUR, 60 * HOUR)
        self.w["mimic-iv-note/note/discharge.csv.gz"].write(
            (note_id, p.subject_id, hadm, "DS", p.ds_seq, ts_midnight(dischtime), ts(store), text))
        self.w["mimic-iv-note/note/discharge_detail.csv.gz"].write((note_id, p.subject_id, "author", "___", 1))
