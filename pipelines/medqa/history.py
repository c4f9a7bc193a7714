"""Category and negation of a patient-history clause of a vignette.

Negation comes from medspaCy's ConText with its default English rules (the clause is the target
span: "She denies fever and headache" is negated).  ConText's family flag is not used: it fires
on any relative, and in vignettes relatives are mostly informants ("The mother has noticed that
the stools are pale" is the child's illness).  Categories come from cue words, checked in this
order because a clause often has several (a father's medication is family history; "takes
ibuprofen for knee pain since a fall" is a medication):
allergy, family, medication, social, psh (procedures), pmh (prior diagnoses, obstetric and
birth history, immunisations), ros (a denied symptom), hpi (everything else: the illness).
"""

from __future__ import annotations

import re
from functools import cache

CATEGORY_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("allergy", re.compile(r"\ballerg\w*|\banaphyla\w*|\bhives (?:after|with|when)\b", re.I)),
    ("family", re.compile(r"\bfamily history\b|\bfamily members?\b|\brelatives?\b|\b(?:her|his|their|the patient's|"
                          r"the child's|maternal|paternal)\s+(?:mother|father|sister|brother|"
                          r"sibling|parents?|grandmother|grandfather|grandparents?|uncle|aunt|cousin|twin|son|daughter)"
                          r"(?:'s)?\s+(?:also\s+)?(?:has|had|have|was diagnosed|were diagnosed|died|passed away|suffers|"
                          r"suffered|developed|underwent|required|is being treated)\b(?!\s+(?:noticed|noted|observed|"
                          r"seen|brought|reported|been worried|been concerned))", re.I)),
    ("medication", re.compile(r"\b(?:takes|took|taking|is on|was on|started on|was started|prescribed|medications?|"
                              r"drugs? (?:include|are)|therapy with|treated with|receiving|receives|uses an? "
                              r"(?:inhaler|patch|cream)|supplements?|vitamins?|over-the-counter|oral contracepti\w*|"
                              r"mg\b|insulin|inhaler)\b", re.I)),
    ("pmh", re.compile(r"\b(?:past medical history|medical history (?:is|was) (?:significant|notable|remarkable)|"
                       r"was diagnosed|diagnosed with)\b", re.I)),
    ("social", re.compile(r"\b(?:smok\w*|cigarettes?|tobacco|pack-years?|vap\w*|alcohol\w*|drinks?|beers?|wine|"
                          r"liquor|illicit|intravenous drugs?|cocaine|heroin|marijuana|cannabis|methamphetamine|"
                          r"recreational|works? (?:as|at|in|on)|worked|employ\w*|occupation|job|retired|student|"
                          r"lives?|lived|living|married|divorced|widow\w*|single|sexually active|"
                          r"sexual partners?|partners?|condoms?|men who have sex|travel\w*|trip|returned from|"
                          r"immigrat\w*|moved (?:from|to)|camping|hiking|farm\w*|pets?|dogs?|cats?|diet|vegan|"
                          r"vegetarian|exercis\w*|runs?|marathon|homeless|incarcerat\w*|prison|shelter|"
                          r"military|deployed)\b", re.I)),
    ("psh", re.compile(r"\b(?:underwent|undergone|surgery|surgeries|surgical|operation|\w+ectomy|\w+otomy|\w+plasty|"
                       r"\w+ostomy|repair|transplant\w*|amputation|bypass|stent\w*|replacement)\b", re.I)),
    ("hpi", re.compile(r"\b(?:\d+|a|an|one|two|three|four|five|six|several)[- ](?:hour|day|week|month|year)s?[- ]"
                       r"history of\b", re.I)),
    ("pmh", re.compile(r"\b(?:history of|medical history|diagnosed (?:with|as)|was diagnosed|known|previous|"
                       r"previously|prior|past medical|in the past(?! (?:\w+ )?(?:hours?|days?|weeks?|months?|years?))|chronic|since childhood|as a child|years ago|was hospitalized|"
                       r"was admitted|immuniz\w*|vaccin\w*|up-to-date|born|delivered|deliveries|gestation|"
                       r"pregnan\w*|gravida|para\b|menarche|last menstrual period|menopause|"
                       r"Pap smear|screening|birth|APGAR|milestones|growth|well-child)\b", re.I)),
]


def categorise(text: str, negated: bool = False) -> str:
    """The unit category of one history clause (see module doc)."""
    for category, cue in CATEGORY_CUES:
        if cue.search(text):
            return category
    return "ros" if negated else "hpi"


_LEAD = "Also"
_QUALIFYING = {"without", "w/o", "nor"}


@cache
def _context():
    import spacy
    from medspacy.context import ConText

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp, ConText(nlp, rules="default")


def negation_flags(texts: list[str]) -> list[bool]:
    """Whether each clause is negated, from medspaCy ConText over the whole clause.

    A trailing "without ..." qualifies a detail ("bruises without any trauma"), not the fact, so
    only cues other than "without" count unless the clause starts with it.
    """
    from spacy.tokens import Span

    nlp, context = _context()
    negated: list[bool] = []
    # ConText ignores a cue at the very start of the target span, so a lead word comes first.
    for doc in nlp.pipe(f"{_LEAD} {t}" for t in texts):
        if len(doc) < 2:
            negated.append(False)
            continue
        for token in doc[1:]:  # the clause is one sentence: ConText scopes by sentence
            token.is_sent_start = False
        doc.ents = [Span(doc, 0, len(doc), label="UNIT")]
        context(doc)
        negated.append(any(
            m.category == "NEGATED_EXISTENCE"
            and (doc[m.modifier_span[0]: m.modifier_span[1]].text.lower() not in _QUALIFYING or m.modifier_span[0] <= 2)
            for m in doc.ents[0]._.modifiers))
    return negated
