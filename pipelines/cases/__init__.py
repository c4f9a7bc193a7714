"""Case skeleton: one candidate case per source record, with its ICD-10-CM diagnosis."""
