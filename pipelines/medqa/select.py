"""Which MedQA questions are diagnosis cases.

A question becomes a case when its stem (the final question sentence) asks for the diagnosis
and its answer is a disease or condition:

* **direct** stems ask for the diagnosis itself ("What is the most likely diagnosis?",
  "This patient most likely has which of the following?").  The answer is a diagnosis by
  construction and is kept even when it maps to no ICD-10-CM code.
* **cause** stems ask what causes the patient's condition ("most likely cause of this
  patient's symptoms", "best explains these findings", "most likely underlying condition").
  Such answers are often a mechanism, drug, organism or antibody, so the answer must also be
  a recognisable disease: a synonym-table or ICD-10-CM title match, or a credible token match
  that does not read as a mechanism (``"Impaired migration of GnRH neurons"``), an organism
  (``"Salmonella typhi"``) or a drug.

Everything else is excluded with a reason naming what the question asks for (next step,
treatment/drug, test or finding, mechanism, ...), which the lead records in ``excluded_cases``.
"""

from __future__ import annotations

import re

from pipelines.medqa.answer_icd import CREDIBLE, clean_name, map_answer
from pipelines.medqa.text import ascii_fold

_EXACT_CONFIDENCE = 0.9  # synonym-table or exact ICD title/inclusion matches score at least this

_DIRECT = re.compile(
    r"most (?:likely|probable) (?:clinical |underlying |working |correct )?diagnos[ie]s"
    r"|diagnosis (?:is|in this \w+ is|of this \w+ is) most likely"
    r"|(?:what|which) is the (?:most likely |likely |probable |correct )?diagnosis"
    r"|which of the following is the (?:most likely |likely |probable |correct )?diagnosis"
    r"|(?:is|are) most likely (?:suffering|affected) (?:from|by)"
    r"|most likely (?:has|have|suffers from|developed|is experiencing)\b"
    r"|which of the following (?:conditions|diseases|disorders|diagnoses|syndromes) (?:does|did|is|has) "
    r"(?:this|the) (?:\w+ )?(?:most likely|likely)",
    re.I,
)
# A direct pattern inside a question about the diagnosis rather than for it.
_ABOUT_DIAGNOSIS = re.compile(
    r"underl|given the|associated with|treat|manag|confirm|establish|mechanism|pathogen|"
    r"complication|prognos|risk|feature|finding|expected|responsible|caused? by|because of|"
    r"next step|test|agent|drug|medication|organism|inherit",
    re.I,
)
_CAUSE = re.compile(
    r"(?:most|more) (?:likely|probable) (?:underlying |primary |direct |precipitating |predisposing )?"
    r"(?:cause|etiology|aetiology|explanation|reason|source|precipitating factor)\b"
    r"|(?:most likely|best) explains? (?:the|this|these|his|her|their) (?:\w+'?s? ){0,2}"
    r"(?:condition|symptoms|findings|presentation|illness|disease|signs|complaints?|problem)"
    r"|(?:symptoms|condition|findings|presentation|illness|signs) (?:are|is) most (?:likely|probably) "
    r"(?:due|caused|secondary|attributable|related|explained) (?:to|by)"
    r"|most likely (?:underlying )?(?:condition|disorder|disease|illness)\b"
    r"|most likely (?:affected|afflicted) by",
    re.I,
)
# Cause stems that ask for something other than a condition.
_CAUSE_NOT_CONDITION = re.compile(
    r"mechanism|pathophysiolog|pathogenesis|inheritance|gene\b|genetic|mutation|enzyme|receptor|"
    r"drug|medication|organism|pathogen|microb|vaccine|location|structure|nerve\b|vessel|artery|"
    r"cell type|substance|factor released|risk factor|exposure|electrolyte|laboratory|lab values|"
    r"osmolality|vital sign|side effect|adverse effect|contribut|histolog|biopsy|cytokine|"
    r"antibod|toxin|infectious agent|type of|hormone",
    re.I,
)

_ASKS = (
    ("next step", re.compile(r"next (?:best )?step|most appropriate (?:next|initial|action|response|course)|"
                             r"best (?:next|initial) (?:step|action)|what should|management", re.I)),
    ("mechanism", re.compile(r"mechanism|pathophysiolog|pathogenesis", re.I)),
    ("treatment or drug", re.compile(r"treat|therap|drug|medication|pharmaco|prescri|dose|dosage|"
                                     r"antibiotic|vaccin|interven|surgery|procedure", re.I)),
    ("test or finding", re.compile(r"\btest|study|studies|finding|show|reveal|expected|seen|found|"
                                   r"laboratory|imaging|biopsy|screen|confirm|evaluat|measure", re.I)),
    ("cause or explanation", re.compile(r"underl|explain|cause|responsible|etiolog|gene|inherit|enzyme|"
                                        r"receptor|protein", re.I)),
    ("organism", re.compile(r"organism|pathogen|microb|bacteri|virus|fung|parasite", re.I)),
    ("ethics or communication", re.compile(r"respon|tell|say|ethic|consent|disclos|report", re.I)),
    ("statistics or study design", re.compile(r"study|probabil|risk|sensitiv|specific|bias|p-value|"
                                              r"power|value|rate|ratio", re.I)),
)

# Answers that read as a process, not a disease.
_MECHANISM = re.compile(
    r"^(?:increased|decreased|reduced|elevated|impaired|defective|abnormal|excess(?:ive)?|"
    r"loss of|lack of|absence of|deficiency of|accumulation|deposition|release|activation|"
    r"inhibition|inhibitory|production|formation|destruction|degeneration|infiltration|"
    r"proliferation|translocation|migration|leakage|dilation|constriction|compression|"
    r"binding|blockade|block of|antibod|anti-|autoantibod|mutation|overproduction|"
    r"underproduction|hypersecretion|hyposecretion|failure of|defect in|damage to|injury to|"
    r"insufficient|inadequate|direct|indirect|cross-reactiv|type [iv]+ hypersensitivity)",
    re.I,
)
_MECHANISM_TAIL = re.compile(
    r"\b(?:degeneration|deposition|accumulation|infiltration|proliferation|translocation|migration|leakage|"
    r"dysfunction|activation|inhibition|release|production|formation|destruction|compression|resistance|"
    r"deficiency of \w+|antibodies|antibody|toxin|exposure|effect|reaction)$",
    re.I,
)
_DRUG = re.compile(
    r"(?:mab|nib|pril|sartan|olol|statin|cillin|mycin|micin|cycline|floxacin|azole|vir|dipine|"
    r"zepam|zolam|tidine|prazole|parin|platin|taxel|rubicin|setron|triptan|terol|sone|olone|"
    r"ine|ide|ate|one|fen|pam|lol|xaban|gatran)$",
    re.I,
)
_BINOMIAL = re.compile(
    r"^[A-Z][a-z]+(?:ella|coccus|cocci|bacter|bacterium|monas|ia|us|a|ium|ma|ema|yces|es|is|ii|um)"
    r"\s+[a-z]+(?:i|ii|us|um|is|ae|a|es|ans|ens|ensis|ica|ici|oides|ella)$"
)
_ORGANISM_WORD = re.compile(r"\b(?:virus|bacterium|bacteria|coccus|cocci|bacillus|fungus|parasite|spp?\.)(?:\s|$)", re.I)


def question_stem(question: str) -> str:
    """The final question sentence (the text after the last sentence or line break before it)."""
    text = ascii_fold(question).strip().strip('"').strip()
    end = text.rfind("?")
    if end < 0:
        end = len(text) - 1
    head = text[: end + 1]
    starts = [m.end() for m in re.finditer(r"(?:[.!?]\s+|\n)(?=[A-Z0-9\"'(])", head[:-1])]
    start = starts[-1] if starts else 0
    return head[start:].strip()


def answer_kind(answer: str, options: dict[str, str] | None = None) -> tuple[bool, str]:
    """(is a disease or condition, what it looks like otherwise).

    An answer no ICD-10-CM title credibly matches still counts as a disease when it reads like
    one (not a mechanism, organism or drug) and most other options are diseases: the question is
    then a differential diagnosis whose answer is a rare name ("Parinaud syndrome").
    """
    name = clean_name(answer)
    mapping = map_answer(answer)
    exact = mapping.icd10 is not None and mapping.confidence >= _EXACT_CONFIDENCE
    if exact:
        return True, f"answer maps to {mapping.icd10} ({mapping.reason})"
    if _BINOMIAL.match(name) or _ORGANISM_WORD.search(name):
        return False, f"answer {name!r} is an organism, not a disease"
    if _MECHANISM.match(name) or _MECHANISM_TAIL.search(name):
        return False, f"answer {name!r} is a mechanism or substance, not a disease"
    words = name.split()
    if len(words) <= 2 and _DRUG.search(words[-1]) and mapping.icd10 is None:
        return False, f"answer {name!r} is a drug or substance, not a disease"
    if mapping.icd10 is not None and mapping.confidence >= CREDIBLE:
        return True, f"answer maps to {mapping.icd10} ({mapping.reason})"
    others = [o for o in (options or {}).values() if o and o.strip() != answer.strip()]
    diseases = sum(1 for o in others if (m := map_answer(o)).icd10 is not None and m.confidence >= _EXACT_CONFIDENCE)
    if others and diseases >= max(2, (len(others) + 1) // 2):
        return True, f"answer {name!r} has no credible ICD-10-CM code but {diseases} of {len(others)} other options are diseases"
    return False, f"answer {name!r} is not a recognisable disease ({mapping.reason})"


def classify_question(question: str, options: dict[str, str], answer: str) -> tuple[bool, str]:
    """(is a diagnosis case, reason) for one MedQA question (see module doc)."""
    stem = question_stem(question)
    if _DIRECT.search(stem) and not _ABOUT_DIAGNOSIS.search(_DIRECT.sub(" ", stem)):
        return True, f"diagnosis question: {stem!r}"
    if _CAUSE.search(stem) and not _CAUSE_NOT_CONDITION.search(stem):
        is_disease, why = answer_kind(answer, options)
        if is_disease:
            return True, f"cause-of-condition question with a disease answer: {stem!r}; {why}"
        return False, f"cause-of-condition question but {why}"
    asks = next((kind for kind, pattern in _ASKS if pattern.search(stem)), "something other than the diagnosis")
    return False, f"not a diagnosis question: asks for {asks}: {stem!r}"
