"""English: the words a claim is denied, stated, listed and turned with."""

from __future__ import annotations

from bot.core.lang.base import Language

LANGUAGE = Language(
    code="en",
    # `no-store`, `no-cache`, `non-blocking`-style names hold a negator and deny nothing;
    # "not only" adds, it does not deny.
    negation=(
        r"\b(?:not(?!\s+only)|no|never|none|neither|nor|without|cannot|nothing|nobody|nowhere"
        r"|lacks?|unable)\b(?!-[A-Za-z])|n[’']t\b"
    ),
    negation_first="nNwWcClLuU",
    negator_words=frozenset(
        "not no never none neither nor without cannot nothing nobody nowhere lack lacks unable "
        "instead rather".split()
    ),
    negating_openers=("instead", "rather"),
    clause_connectives=(
        *"because since but however although though whereas while so therefore thus hence "
        "which where otherwise unless instead rather then".split(),
        "and then",
    ),
    unsure=(
        r"\bnot (?:sure|certain)\b|\bno idea\b"
        r"|\bI (?:don[’']t|do not|can[’']t|cannot) (?:know|remember|recall|say)\b"
    ),
    avoiding=r"\b(?:avoid\w*|skip\w*|prevent\w*|eliminat\w*|forb[ia]d\w*|prohibit\w*|disallow\w*)\b",
    # Auxiliaries, copulas, connectives, and verbs in forms that are rarely nouns: "group",
    # "cache", "load" or "limits" name things in a term list as often as they say anything.
    # Subject pronouns and adverbs of frequency only come with a verb ("it scans", "they
    # usually shift"), whatever the verb is.
    predicate_words=frozenset(
        """
        is are was were be been being am isn aren wasn weren do does did doesn don didn done
        can could will would should must may might shall has have had need needs needed lets
        let allows allowed makes made gives keeps kept handles handled avoids avoided prevents
        reduces reduced increases increased improves improved decides depends uses used using
        takes took becomes became stays goes went comes came gets got puts turns fills waits
        causes caused leads affects supports provides requires required combines combined
        merges merged sends runs ran serves manages exposes moves stores holds frees saves
        lowers raises boosts hurts wastes matters happens splits reads writes loads means meant
        scans shifts compares rolls drains evicts replaces triggers retries verifies accepts
        rejects proposes generates computes predicts measures tracks skips ensures guarantees
        enables disables decreases grows shrinks fits fails breaks copies transfers passes
        hides overlaps stalls spreads assigns picks chooses matches reuses returns starts stops
        pulls replicates applies adds removes contains includes creates builds finishes completes
        produces consumes tells told preserves preserved signals signalled signaled notifies
        notified informs informed
        it they we you he she otherwise usually often always typically sometimes
        because since so if when while whereas although though unless until after before by
        via through into onto than instead rather therefore thus hence which who whose whom
        that where why how what also only just already still then even both either each per
        """.split()
    ),
    statement_words=frozenset(
        "is are was were be been am isn aren do does did doesn don can could will would "
        "should must may might has have had lets makes so because if when which".split()
    ),
    imperative_verbs=frozenset(
        "add lower raise reduce increase decrease set use enable disable turn tune check "
        "watch monitor avoid keep make split limit cap move put run give let look try switch "
        "scale cut drop shrink grow pin shard cache batch route prefer".split()
    ),
    # Imperatives that open a name as often as advice (`batch size`, `cache hit`).
    noun_verbs=frozenset(
        "set turn check watch split limit cap move run look switch scale cut drop pin shard "
        "cache batch route".split()
    ),
    enumeration=r"\bwhich\b|\bname\b|\blist\b|what are the",
    up=r"\b(?:increas\w*|rais(?:e|es|ed|ing)|enlarg\w*|higher|larger|bigger)\b",
    down=r"\b(?:decreas\w*|reduc\w*|lower(?:s|ed|ing)?|shrink\w*|smaller)\b",
    poles=(
        (
            "amount",
            r"\b(?:higher|high|larger|large|bigger|big|greater|longer|more|increas\w*"
            r"|rais(?:e|es|ed|ing)|grows?|grew|boosts?|boosted|lengthen\w*|exceed\w*)\b",
            r"\b(?:lower(?:s|ed|ing)?|low|smaller|small|shorter|less|fewer|decreas\w*|reduc\w*"
            r"|shrinks?|cuts?|saves?|saving|shorten\w*)\b",
        ),
        ("quality", r"\b(?:better|improv\w*)\b", r"\b(?:worse|degrad\w*|hurts?)\b"),
        (
            "speed",
            r"\b(?:faster|fast|speeds? up|accelerat\w*)\b",
            r"\b(?:slower|slow|slows? down)\b",
        ),
        (
            "bound",
            r"compute[- ]bound",
            r"memory[- ]bound|memory-bandwidth-bound|bandwidth[- ]bound",
        ),
    ),
    # Not "once": as often "only once" as a condition.
    condition_openers=r"\b(?:when|whenever|if|until|after|before|as long as)\b",
    purpose_clause_openers=r"\b(?:so that|so as|in order that)\b",
    conjunctions=("and", "or"),
    negating_prefixes=("non-",),
    advice_openers=("and", "then"),
    phrasal_particles=("down", "up"),
    articles=("the", "a", "an"),
    denied_after=(
        r"(?:\s+[A-Za-z]+)?\s+(?:(?:is|are|was|were|does|do|did|has|have|had|should|must|can"
        r"|could|will|would|may|might)\s+(?:not|never)\b|[A-Za-z]+n[’']t\b)"
    ),
    contractions=(
        ("isn't", "is not"),
        ("aren't", "are not"),
        ("wasn't", "was not"),
        ("weren't", "were not"),
        ("don't", "do not"),
        ("doesn't", "does not"),
        ("didn't", "did not"),
        ("can't", "can not"),
        ("cannot", "can not"),
        ("won't", "will not"),
        ("couldn't", "could not"),
        ("shouldn't", "should not"),
        ("wouldn't", "would not"),
        ("hasn't", "has not"),
        ("haven't", "have not"),
        ("hadn't", "had not"),
        ("mustn't", "must not"),
        ("needn't", "need not"),
    ),
    filler_words=frozenset(
        "a an the of in on at for to and or with its it this that as by from".split()
    ),
    purpose_openers=("to", "in order to"),
    pronouns=("it", "its", "they", "their", "this", "these"),
    topic_openers=tuple("and but while whereas so for with the a an".split()),
    comparand_before=r"than|compared\s+(?:to|with)|vs\.?|versus",
    # Word parts, common adjectives and verbs: what is left of `intra-layer`, `post-training`,
    # `small model` or `maximum batch size` names nothing.
    not_names=frozenset(
        """intra inter post multi non self over under small smaller smallest large larger largest
        big bigger main cheap cheaper fast faster slow slower high higher low lower maximum
        minimum max min default new old first last other single multiple simple full half total
        overall good better best basic general common normal special""".split()
    ),
    stop_words=frozenset(
        """
        a about also an and are as at be been being by can could did do does each etc for
        from had has have he her here his how i if in into is it its just may me might more
        most my no not of on or our over per she should so such than that the their them
        then there these they this those to under very via vs was we were what when which
        who why will with would you your
        """.split()
    ),
    generic_words=frozenset(
        """
        answer answers approach best better case cases common data default different example
        examples first general good important issue issues key kind level levels made main
        make makes method methods model models more need needs new number numbers old one
        other part parts problem problems question questions result results same second
        service services specific system systems that these thing things this those time two
        type types use used uses using usually value values way ways work works
        """.split()
    ),
    question_words=frozenset(
        """
        between compare compared comparison describe difference differences differ differs
        explain give happen happens how mean means tell what when where which why
        """.split()
    ),
)
