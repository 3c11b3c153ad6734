"""`Language`: the shape of one language's data (see `bot.core.lang`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Language:
    """What one language says its denials, statements and lists with.

    Patterns are regular-expression alternatives joined by `|`, searched case-insensitively
    (English ones carry their own `\\b`); word sets are lower-case words. Empty means the
    language has none of that kind.
    """

    code: str
    # Denials: "不支持", "is not", "しません". `negation_first` lists every character a
    # negation match can start with (the engine skips to them; a test holds it true).
    negation: str
    negation_first: str
    # Negator words of a script written with spaces: a cheap first test before the search.
    negator_words: frozenset[str] = frozenset()
    # Clause openers that deny what their clause says: "X instead of Y", "用 X 而不是 Y".
    negating_openers: tuple[str, ...] = ()
    # Connectives that open a new clause (a denial stops before them).
    clause_connectives: tuple[str, ...] = ()
    # Saying one does not know: neither states nor denies the claim.
    unsure: str = ""
    # Words that put a claim in the negative without a negator ("避免重复计算").
    avoiding: str = ""
    # Cues that a sentence says something of the terms it names: a pattern (verbs, copulas,
    # particles of scripts without spaces) or words (of scripts with them).
    predicates: str = ""
    predicate_words: frozenset[str] = frozenset()
    # The strongest of those: a phrase holding one is a statement, never a name.
    statement: str = ""
    statement_words: frozenset[str] = frozenset()
    # Advice opens with a verb ("lower max-num-seqs"); some of those name things as often.
    imperative_verbs: frozenset[str] = frozenset()
    noun_verbs: frozenset[str] = frozenset()
    # Words a question asks to name things with ("有哪些", "which").
    enumeration: str = ""
    # Which way a claim turns a quantity: up ("调大", "raise") or down.
    up: str = ""
    down: str = ""
    # The two poles of each scale a value is read on, by scale name (see SCALES in
    # bot.core.scoring.values): (scale, up pattern, down pattern).
    poles: tuple[tuple[str, str, str], ...] = ()
    # Characters that ask, not deny, between a character said twice: 是不是, 能没能.
    question_negators: str = ""
    # Degree adverbs ("比较", "很") and the adjectives they grade at the end of a phrase
    # ("多", "频繁"): "通信比较多" says the phrase "通信多".
    degree_adverbs: tuple[str, ...] = ()
    graded_adjectives: tuple[str, ...] = ()
    # Words that join the items of a list ("和", "and") and articles that may follow them.
    conjunctions: tuple[str, ...] = ()
    # Marks that set the items of a list side by side ("节点内 TP、跨节点 PP"): each item's
    # words are said of the subject in that item.
    item_separators: tuple[str, ...] = ()
    articles: tuple[str, ...] = ()
    # Words after a term that make it a clause of time ("OOM 之后不要重试"): a negator that
    # follows denies the main clause's verb, not the term.
    time_clause_after: str = ""
    # Words that close a negator's reach when they stand between it and a term: the negator
    # belongs to a condition or a clause of time ("分支不一致就会串行", "GPU 不够的时候加节点")
    # and the term to the main clause.
    negation_closers: str = ""
    # Words that open a condition or a clause of time before its negator, in a language that
    # puts them first and may leave out the comma ("when there aren't enough GPUs let the
    # cluster add nodes"): that negator denies the few words after it (the condition's own),
    # not the main clause that follows.
    condition_openers: str = ""
    # Words that open a clause of purpose or result ("so that an old SYN can't open a
    # connection"): a negator after them says what the claim's risk is kept from, so on an
    # answer's side it states the claim rather than denying it.
    purpose_clause_openers: str = ""
    # What follows a negator inside a modifier of the term ("没算完的小份": 算完的): the
    # negator denies the modifier, not the term.
    negated_modifier: str = ""
    # After a term, a denied verb it is the subject of ("<term> is not", "… isn't").
    denied_after: str = ""
    # Contractions and the words they stand for ("isn't" is "is not", "cannot" "can not"):
    # a phrase is matched in either form.
    contractions: tuple[tuple[str, str], ...] = ()
    # Words too slight to count toward an item's or a clause's length ("the", "of").
    filler_words: frozenset[str] = frozenset()
    # Words that open a sentence with its purpose ("to see the timeline, use nsys", "要看时间线
    # 就用 nsys"): what the purpose names is said of the subject the sentence goes on to name.
    purpose_openers: tuple[str, ...] = ()
    # Pronouns that open a sentence going on with the topic of the one before a ";" ("ncu is
    # for kernels; it shows …").
    pronouns: tuple[str, ...] = ()
    # Words that open a clause without naming its topic ("而", "but", "the").
    topic_openers: tuple[str, ...] = ()
    # Words that make what follows (`比 X`, `than X`) or what precedes (`X 相比`) a comparand.
    comparand_before: str = ""
    comparand_after: str = ""
    # Words after which a verb opens advice ("…, and lower X", "then raise Y").
    advice_openers: tuple[str, ...] = ()
    # Particles that make a verb phrasal ("slow down", "speed up"): read with the verb.
    phrasal_particles: tuple[str, ...] = ()
    # The particle that makes a word an attribute (大的, 低的): read through, named by nothing.
    attributive_particles: tuple[str, ...] = ()
    # Prefixes that make a name its opposite (`non-uniform` is not `uniform`).
    negating_prefixes: tuple[str, ...] = ()
    # Words that are never a short name of a subject (`small` of small model, 生成 of 生成阶段).
    not_names: frozenset[str] = frozenset()
    # Function words: no topic of an answer, no part of a name.
    stop_words: frozenset[str] = frozenset()
    stop_chars: frozenset[str] = frozenset()
    # Words that name nothing in particular (they fit any answer in any field): never a
    # key term of an imported claim.
    generic_words: frozenset[str] = frozenset()
    # Words that frame a question, not its topic ("有什么区别", "what is the difference"):
    # two questions asked in other words are told apart by what is left.
    question_words: frozenset[str] = frozenset()
