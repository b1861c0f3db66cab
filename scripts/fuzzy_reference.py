#!/usr/bin/env python3
"""Reference outputs of the original compat scorer's string matching, for
tests/fixtures/qa/fuzzy_reference.json.

Runs fuzzywuzzy 0.18.0 and Python's difflib as black boxes on seeded random inputs
and records what they return; src/qa/fuzzy.rs is tested against the file. The
original evaluator ran fuzzywuzzy without python-Levenshtein (pure difflib), so
this script refuses to run with it installed.

    python3 -m venv /tmp/fz && /tmp/fz/bin/pip install fuzzywuzzy==0.18.0
    /tmp/fz/bin/python scripts/fuzzy_reference.py > tests/fixtures/qa/fuzzy_reference.json
"""

import difflib
import importlib.util
import json
import logging
import platform
import random
import sys
import warnings

if importlib.util.find_spec("Levenshtein") is not None:
    sys.exit("python-Levenshtein is installed; the original used pure difflib")

warnings.filterwarnings("ignore")  # fuzzywuzzy warns about the slow pure-Python matcher
logging.disable(logging.WARNING)  # ... and about queries that normalise to nothing
import fuzzywuzzy  # noqa: E402
from fuzzywuzzy import fuzz, process, utils  # noqa: E402

WORDS = (
    "pick up onion from o0 o1 place in pot p0 p1 deliver soup to serving s0 wait fill dish d0 "
    "reveal bob's red blue green color rank cards card play discard alice the a of 1 2 3 4 5 "
    "tomato counter c0 c1 player hold nothing cooking ready plan action answer"
).split()
ODD = ["é", "ß", "Σ", "ΟΔΟΣ", "İ", "ñ", "中文", "😀", "\u00a0", "\t", "_", "-", ",", ".", "!", "(", ")", "'", "\u00e7a", "Ⅻ", "²"]


def text(rng, lo, hi):
    """A phrase of lo..hi tokens, with capitals, punctuation and the odd character."""
    out = []
    for _ in range(rng.randint(lo, hi)):
        w = rng.choice(WORDS)
        r = rng.random()
        if r < 0.1:
            w = w.upper()
        elif r < 0.2:
            w = w.capitalize()
        elif r < 0.27:
            w = w + rng.choice(ODD)
        elif r < 0.3:
            w = rng.choice(ODD)
        out.append(w)
    sep = rng.choice([" ", " ", " ", "  ", ", "])
    return sep.join(out) + rng.choice(["", "", ".", "!", " "])


def chars(rng, alphabet, lo, hi):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))


def mutate(rng, s):
    s = list(s)
    for _ in range(rng.randint(0, 4)):
        op = rng.random()
        i = rng.randint(0, len(s)) if s else 0
        if op < 0.4 and s:
            del s[min(i, len(s) - 1)]
        elif op < 0.8:
            s.insert(i, rng.choice("abcdefg 0123"))
        elif s:
            s[min(i, len(s) - 1)] = rng.choice("xyz ")
    return "".join(s)


def main():
    rng = random.Random(20240611)
    blocks = []
    for n in range(400):
        if n < 300:
            alphabet = rng.choice(["ab", "abc", "abcd ", "abcdefghij"])
            left, right = chars(rng, alphabet, 0, 40), chars(rng, alphabet, 0, 40)
        else:
            # Long right sequences: the popular-character rule applies.
            alphabet = rng.choice(["ab", "abc", "aaaaab", "abcdefghijklmnop  "])
            left, right = chars(rng, alphabet, 0, 260), chars(rng, alphabet, 200, 320)
        got = difflib.SequenceMatcher(None, left, right).get_matching_blocks()
        blocks.append({"left": left, "right": right, "blocks": [list(b) for b in got[:-1]]})

    weighted = []
    for n in range(800):
        kind = n % 4
        if kind == 0:
            a, b = text(rng, 1, 12), text(rng, 1, 12)
        elif kind == 1:
            a = text(rng, 1, 10)
            b = mutate(rng, a)
        elif kind == 2:
            # Length ratios past 1.5 and past 8.
            a, b = text(rng, 1, 3), text(rng, 4, 30)
        else:
            # Right texts of 200+ characters: the popular-character rule applies.
            a, b = text(rng, 3, 30), mutate(rng, text(rng, 1, 8)) + " " + text(rng, 30, 50)
        if rng.random() < 0.5:
            a, b = b, a
        weighted.append({"a": a, "b": b, "score": fuzz.WRatio(a, b)})

    extract = []
    for n in range(300):
        options = [text(rng, 1, 8) for _ in range(rng.randint(1, 12))]
        if rng.random() < 0.3:
            options.append(rng.choice(options))  # duplicates: the first one must win
        r = rng.random()
        if r < 0.4:
            query = mutate(rng, rng.choice(options))
        elif r < 0.8:
            query = text(rng, 1, 15)
        elif r < 0.9:
            query = rng.choice(["", " ", "!!", "é", "A", "a."])
        else:
            query = text(rng, 30, 50)
        choice, score, key = process.extractOne(query, dict(enumerate(options)))
        extract.append({"query": query, "choices": options, "index": key, "score": score})

    normalised = []
    for n in range(150):
        t = text(rng, 0, 10) if n % 3 else "".join(rng.choice(ODD + WORDS) for _ in range(rng.randint(0, 6)))
        normalised.append({"text": t, "plain": utils.full_process(t, force_ascii=False), "ascii": utils.full_process(t, force_ascii=True)})

    json.dump(
        {
            "generator": f"scripts/fuzzy_reference.py: fuzzywuzzy {fuzzywuzzy.__version__} (pure difflib), "
            f"Python {platform.python_version()}",
            "blocks": blocks,
            "weighted": weighted,
            "extract": extract,
            "normalised": normalised,
        },
        sys.stdout,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    print()


main()
