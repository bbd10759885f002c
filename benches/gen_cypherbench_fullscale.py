"""A seeded, full-scale stand-in for CypherBench's seven test graphs, laid out as CypherBench
publishes its benchmark directory (issue 38, "Full scale").

Output (``OUT`` is ``--out``)::

    OUT/graphs/simplekg/<graph>_simplekg.json   SimpleKG graph (SPEC.md §2), streamed to disk
    OUT/graphs/schemas/<graph>_schema.json      CypherBench schema JSON (what --schema-dir reads)
    OUT/neo4j_info.json                         CypherBench's host / port map of the graphs

No ``test.json`` is written: the test set is generated later by kgbench's own generator on the
deployed graphs.

Sources of the facts:

- sizes: CypherBench paper (``seeds/cypherbench.txt``) Table 6, with the exact relation
  counts of CypherBench's ``scripts/print_db_status.py`` (megagonlabs/cypherbench @9460518);
  the split of each total over labels and relation types is this script's choice;
- labels, relation types, property names and datatypes: the paper's Tables 8–9 (entity
  ``name`` is the SimpleKG ``name`` field, not a schema property, as in CypherBench's schema
  files, which ``PropertyGraphSchema.from_json`` completes with ``name: str``); the relation
  variants (subject and object labels): CypherBench's ``graph_info.json``. Table 6 counts 12
  properties for fictional_character, Tables 8–9 list 11; the 11 listed are generated;
- relation characteristics: ``graph_info.json`` (``subj_cardinality`` / ``obj_cardinality``:
  ``obj_cardinality == "one"`` means a subject has at most one object of that relation, over
  all its variants; ``is_mandatory_subj`` / ``is_mandatory_obj``: every entity of that side
  gets an edge as far as the relation's count allows; ``is_symmetric``: both directions are
  stored, as Wikidata states such relations on both items; time-sensitive relations carry
  ``start_year`` / ``end_year`` as the paper's Tables 8–9 give them);
- the layout and ``neo4j_info.json``: CypherBench's README, ``docker/docker-compose-test.yml``
  (``benchmark/graphs/simplekg/<graph>_simplekg.json``) and ``neo4j_info.json`` (ports
  15062–15068 of the ``full`` graphs, user ``neo4j``, password ``cypherbench``).

Data: entity ids ``<Label>#Q<n>``, relation ids a running index, names built from syllables
and word lists (persons from weighted first and last names, so common names repeat as in
Wikidata), aliases, descriptions, Wikipedia provenance for the share of entities that
Table 6's *Wikipedia* column gives, dates as ``YYYY-MM-DD`` strings, ``list[str]`` values,
and properties left out (missing values) at fixed rates. Objects and subjects of relations
are chosen with Zipf weights over a random ranking (heavy-tailed degrees).

Determinism: one ``random.Random`` per (seed, graph, part) stream; the same seed, scale and
graphs give byte-identical files. Memory: entities and relations are written one record at a
time; only index lists of one relation type are held (peak RSS well under 1 GB at scale 1).

Usage: ``python benches/gen_cypherbench_fullscale.py --out DIR [--scale F] [--graphs a,b]
[--seed N]``
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import hashlib
import itertools
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

# ---------------------------------------------------------------------------------------------
# Word material for names and values
# ---------------------------------------------------------------------------------------------


def words(text: str) -> tuple[str, ...]:
    """The whitespace-separated words of ``text``."""
    return tuple(text.split())


SYLLABLES = words(
    "ka ri to ma lo ne sa vi an el or un ber gar dun mil tor ven wick ston ham ley ford "
    "bor ash ril mon cas fel gre hal jor kel lin mar nor pel quin ros sel tal ul var wyn "
    "zar bel cor dra fen gil hor isk jun kor lum mer nik ost pra rud sor tum val yor zé ö"
)
FIRST_NAMES = words(
    "John Mary James Anna Robert Maria Michael Elena William Sofia David Laura Richard "
    "Emma Thomas Olga Charles Julia Joseph Marta Peter Clara Paul Ingrid George Helena "
    "Carlos Yuki Ahmed Fatima Wei Mei Ivan Nadia Pierre Chloé Hans Greta Luca Giulia Raj "
    "Priya Kenji Aiko Omar Leila Diego Lucía Sven Astrid Pavel Zofia Kwame Amara Jean "
    "Anne Li Ming"
)
LAST_NAMES = words(
    "Smith Johnson Müller García Rossi Silva Kim Wang Li Nguyen Kowalski Novak Andersson "
    "Dubois Martin Brown Jones Tanaka Sato Ivanov Petrov Khan Patel Singh Cohen Schmidt "
    "Fischer Weber Lopez Hernández Moreau Bernard Costa Santos Nielsen Hansen Larsen Berg "
    "Okafor Mensah Haddad Yilmaz Demir Kovács Horváth Popescu Murphy Kelly O'Brien Walsh"
)
LANGUAGES = words(
    "English French Spanish German Italian Japanese Mandarin Chinese Hindi Russian "
    "Portuguese Korean Arabic Turkish Swedish Polish Dutch Persian Bengali Tamil Telugu "
    "Greek Czech Hungarian Finnish Danish Norwegian Thai Indonesian Vietnamese Hebrew "
    "Ukrainian"
)
OCCUPATIONS = words(
    "warrior knight wizard detective soldier pilot scientist thief king queen princess "
    "prince journalist farmer student teacher spy assassin superhero mercenary priest "
    "sorcerer physician lawyer politician pirate hunter"
)
GENRE_BASES = (
    "drama",
    "comedy",
    "thriller",
    "horror",
    "romance",
    "documentary",
    "animated",
    "action",
    "adventure",
    "crime",
    "science fiction",
    "fantasy",
    "war",
    "western",
    "musical",
    "mystery",
    "biographical",
    "historical",
    "family",
    "sports",
    "teen",
    "superhero",
    "disaster",
    "martial arts",
)
GENRE_MODIFIERS = ("", "romantic ", "black ", "psychological ", "political ", "coming-of-age ")
CONTINENTS = (
    "Africa",
    "Antarctica",
    "Asia",
    "Europe",
    "North America",
    "Oceania",
    "South America",
    "Australian continent",
)
OCEANS = ("Pacific Ocean", "Atlantic Ocean", "Indian Ocean", "Arctic Ocean", "Southern Ocean")
POSITIONS_NBA = (
    "point guard",
    "shooting guard",
    "small forward",
    "power forward",
    "center",
    "guard",
    "forward",
    "guard-forward",
)
CONFERENCES = ("Eastern Conference", "Western Conference")
GENDERS = (("male", 0.74), ("female", 0.25), ("non-binary", 0.01))
HANDEDNESS = (("right-handedness", 0.88), ("left-handedness", 0.11), ("ambidexterity", 0.01))

#: The countries shared by every graph (names of Country entities and of country-valued
#: properties): this many syllable-built names.
N_COUNTRIES = 250

#: Zipf exponent for choosing among at most :data:`SMALL_POOL` entities (a few hubs take a large
#: share: genres, countries, industries), and among larger pools (a softer tail).
ZIPF_SMALL, ZIPF_LARGE, SMALL_POOL = 1.0, 0.6, 2_000
#: Zipf exponent of the extra out-degree of subjects beyond their first edge.
ZIPF_SUBJECT = 0.5

START_DATE, END_DATE = dt.date(1800, 1, 1), dt.date(2024, 4, 30)


def syllable_word(rng: random.Random, lo: int = 2, hi: int = 3) -> str:
    """A capitalised word of ``lo``..``hi`` syllables of :data:`SYLLABLES`."""
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(lo, hi))).capitalize()


def weighted(rng: random.Random, pairs: tuple[tuple[str, float], ...]) -> str:
    """One value of ``(value, weight)`` pairs."""
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def zipf_pick(rng: random.Random, words: tuple[str, ...] | list[str]) -> str:
    """A word of ``words`` with Zipf weights (s = 1) by position: early words are common."""
    return words[int(len(words) ** rng.random()) - 1]


def person_name(rng: random.Random) -> str:
    """A first name (Zipf weights) and a last name: a common one of :data:`LAST_NAMES` (Zipf
    weights) for 30 %, else syllable-built; sometimes a middle initial. Common names repeat
    (``John Smith``), most are rare."""
    first = zipf_pick(rng, FIRST_NAMES)
    last = zipf_pick(rng, LAST_NAMES) if rng.random() < 0.3 else syllable_word(rng, 2, 3)
    if rng.random() < 0.15:
        return f"{first} {chr(65 + rng.randrange(26))}. {last}"
    return f"{first} {last}"


def place_name(rng: random.Random) -> str:
    """A town-like name, sometimes of two words (``Port Kalo``)."""
    word = syllable_word(rng)
    r = rng.random()
    if r < 0.1:
        return f"{rng.choice(('Port', 'San', 'New', 'Saint', 'Upper', 'Lower'))} {word}"
    return word


def country_names(seed: int) -> list[str]:
    """The :data:`N_COUNTRIES` distinct country names of ``seed`` (index = Country entity)."""
    rng = random.Random(f"{seed}:countries")
    names: list[str] = []
    seen: set[str] = set()
    while len(names) < N_COUNTRIES:
        name = syllable_word(rng, 2, 3) + rng.choice(("ia", "land", "stan", "a", "or", ""))
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names


def random_date(rng: random.Random, lo: dt.date = START_DATE, hi: dt.date = END_DATE) -> str:
    """A ``YYYY-MM-DD`` day between ``lo`` and ``hi`` (SPEC.md §2 date form)."""
    return (lo + dt.timedelta(days=rng.randrange((hi - lo).days + 1))).isoformat()


# ---------------------------------------------------------------------------------------------
# Schema description: labels, properties, relations
# ---------------------------------------------------------------------------------------------
#: A property value maker: (rng, the record's properties made so far, context) -> value.
Maker = Callable[[random.Random, dict[str, Any], "Context"], Any]


@dataclass(frozen=True)
class Prop:
    """One schema property: name, SimpleKG datatype, the share of records that have it
    (the rest leave it out: a missing value) and its value maker."""

    name: str
    dtype: str
    presence: float
    make: Maker


@dataclass(frozen=True)
class Label:
    """An entity label: its count at scale 1 (``fixed``: not scaled), its name maker, its
    description (SimpleKG ``description`` of each entity) and its properties."""

    label: str
    count: int
    name: Callable[[random.Random, int, Context], str]
    description: str
    props: tuple[Prop, ...] = ()
    fixed: bool = False


@dataclass(frozen=True)
class Variant:
    """One (subject label, object label) of a relation type and its count at scale 1."""

    subj: str
    obj: str
    count: int


@dataclass(frozen=True)
class Relation:
    """A relation type with its variants and its characteristics (``graph_info.json``)."""

    label: str
    variants: tuple[Variant, ...]
    subj_card: str
    obj_card: str
    mandatory_subj: bool
    mandatory_obj: bool
    symmetric: bool = False
    time_sensitive: bool = False
    props: tuple[Prop, ...] = ()
    #: Every object entity gets an edge although the relation is not mandatory for it: the
    #: object label is fetched through this relation (seed App. B.6, selective fetching).
    fetches_obj: bool = False

    @property
    def cover_obj(self) -> bool:
        """Whether every object entity gets an edge (as far as the count allows)."""
        return self.mandatory_obj or self.fetches_obj


@dataclass(frozen=True)
class Graph:
    """A test graph: its Table 6 totals, Wikipedia share, labels and relations."""

    name: str
    entities: int
    relations: int
    wikipedia: float
    labels: tuple[Label, ...]
    rels: tuple[Relation, ...]


@dataclass
class Context:
    """What value makers may read: the shared country names."""

    countries: list[str]


# --- value makers ------------------------------------------------------------------------------
def m_gender(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """``male`` / ``female`` / ``non-binary`` (Wikidata's labels) at :data:`GENDERS` weights."""
    return weighted(rng, GENDERS)


def m_birth(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """A birth date between 1850 and 2005."""
    return random_date(rng, dt.date(1850, 1, 1), dt.date(2005, 12, 31))


def m_death(rng: random.Random, props: dict[str, Any], ctx: Context) -> str | None:
    """A death date 18–100 years after ``date_of_birth`` (none if that is after today)."""
    if "date_of_birth" not in props:
        return random_date(rng, dt.date(1870, 1, 1))
    born = dt.date.fromisoformat(props["date_of_birth"])
    lo = born + dt.timedelta(days=18 * 365)
    hi = min(born + dt.timedelta(days=100 * 365), END_DATE)
    return random_date(rng, lo, hi) if lo < hi else None


def m_place(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """A place name (:func:`place_name`)."""
    return place_name(rng)


def m_country(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """One of the shared country names (Zipf weights)."""
    return zipf_pick(rng, ctx.countries)


def m_countries(rng: random.Random, props: dict[str, Any], ctx: Context) -> list[str]:
    """One country name, or two (15 %), sorted."""
    n = 1 if rng.random() < 0.85 else 2
    return sorted({zipf_pick(rng, ctx.countries) for _ in range(n)})


def m_year(rng: random.Random, props: dict[str, Any], ctx: Context) -> int:
    """A year 1850–2023, recent years more likely."""
    return 1850 + int(174 * rng.random() ** 0.5)


def m_person(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """A person name (:func:`person_name`)."""
    return person_name(rng)


def m_persons(rng: random.Random, props: dict[str, Any], ctx: Context) -> list[str]:
    """One to three distinct person names, sorted."""
    return sorted({person_name(rng) for _ in range(rng.randint(1, 3))})


def m_languages(rng: random.Random, props: dict[str, Any], ctx: Context) -> list[str]:
    """One or two language names (Zipf weights), sorted."""
    return sorted({zipf_pick(rng, LANGUAGES) for _ in range(rng.randint(1, 2))})


def m_places(rng: random.Random, props: dict[str, Any], ctx: Context) -> list[str]:
    """One to three distinct place names, sorted."""
    return sorted({place_name(rng) for _ in range(rng.randint(1, 3))})


def m_occupations(rng: random.Random, props: dict[str, Any], ctx: Context) -> list[str]:
    """One or two occupations (Zipf weights), sorted."""
    return sorted({zipf_pick(rng, OCCUPATIONS) for _ in range(rng.randint(1, 2))})


def m_schools(rng: random.Random, props: dict[str, Any], ctx: Context) -> list[str]:
    """One or two school names, sorted."""
    return sorted(
        {
            rng.choice(("University of ", "", ""))
            + place_name(rng)
            + rng.choice((" High School", " College", " University", ""))
            for _ in range(rng.randint(1, 2))
        }
    )


def m_nicknames(rng: random.Random, props: dict[str, Any], ctx: Context) -> list[str]:
    """One or two nicknames (``The Kalo``), sorted."""
    return sorted({"The " + syllable_word(rng, 1, 2) for _ in range(rng.randint(1, 2))})


def m_handedness(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """Wikidata's handedness labels at :data:`HANDEDNESS` weights."""
    return weighted(rng, HANDEDNESS)


def m_code(length: int) -> Maker:
    """Upper-case letter codes of ``length`` (IATA 3, ICAO 4)."""

    def make(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
        return "".join(chr(65 + rng.randrange(26)) for _ in range(length))

    return make


def m_flight_number(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """A flight number: two letters, a space, 1–9999."""
    return f"{m_code(2)(rng, props, ctx)} {rng.randint(1, 9999)}"


def m_float(median: float, spread: float, digits: int) -> Maker:
    """Log-normal floats around ``median`` (``spread``: sigma of the log), rounded."""

    def make(rng: random.Random, props: dict[str, Any], ctx: Context) -> float:
        return round(rng.lognormvariate(0.0, spread) * median, digits)

    return make


def m_int(median: float, spread: float) -> Maker:
    """Non-negative log-normal integers around ``median`` (some zeros)."""

    def make(rng: random.Random, props: dict[str, Any], ctx: Context) -> int:
        return 0 if rng.random() < 0.15 else int(rng.lognormvariate(0.0, spread) * median)

    return make


def m_date(lo: int, hi: int) -> Maker:
    """A day between 1 January ``lo`` and 31 December ``hi``."""

    def make(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
        return random_date(rng, dt.date(lo, 1, 1), min(dt.date(hi, 12, 31), END_DATE))

    return make


def m_start_year(rng: random.Random, props: dict[str, Any], ctx: Context) -> int:
    """A year 1900–2023, recent years more likely."""
    return 1900 + int(124 * rng.random() ** 0.4)


def m_end_year(rng: random.Random, props: dict[str, Any], ctx: Context) -> int | None:
    """``start_year`` + 0..15 years (none when that is after 2024: still in office)."""
    end = props.get("start_year", 1990) + int(rng.expovariate(1 / 4.0))
    return end if end <= 2024 else None


def m_sport_number(rng: random.Random, props: dict[str, Any], ctx: Context) -> int:
    """A shirt number 0–99."""
    return rng.randint(0, 99)


def m_role(rng: random.Random, props: dict[str, Any], ctx: Context) -> str:
    """A character name, sometimes with a title."""
    return rng.choice(("", "", "Dr. ", "Captain ", "Officer ")) + person_name(rng)


# --- name makers -------------------------------------------------------------------------------
def n_person(rng: random.Random, i: int, ctx: Context) -> str:
    """A person name (:func:`person_name`)."""
    return person_name(rng)


def n_country(rng: random.Random, i: int, ctx: Context) -> str:
    """Country entity ``i``'s name of the shared list."""
    return ctx.countries[i]


def n_listed(words: tuple[str, ...]) -> Callable[[random.Random, int, Context], str]:
    """Names from a fixed list by index (the label's count is the list's length)."""

    def name(rng: random.Random, i: int, ctx: Context) -> str:
        return words[i % len(words)]

    return name


def n_pattern(*forms: str) -> Callable[[random.Random, int, Context], str]:
    """Names from forms with ``{w}`` (a syllable word), ``{p}`` (a person), ``{c}`` (a
    country) and ``{n}`` (a number)."""

    def name(rng: random.Random, i: int, ctx: Context) -> str:
        form = forms[int(len(forms) * rng.random() ** 1.5)]
        return form.format(
            w=syllable_word(rng),
            p=person_name(rng),
            c=zipf_pick(rng, ctx.countries),
            n=rng.randint(2, 9),
        )

    return name


def n_genre(rng: random.Random, i: int, ctx: Context) -> str:
    """``<modifier><base> film`` for entity ``i``, then ``television`` / ``series`` forms, then
    numbered ones (distinct names)."""
    b, m = len(GENRE_BASES), len(GENRE_MODIFIERS)
    kinds = ("film", "television", "series")
    name = f"{GENRE_MODIFIERS[(i // b) % m]}{GENRE_BASES[i % b]} {kinds[(i // (b * m)) % 3]}"
    return name if i < b * m * 3 else f"{name} {i // (b * m * 3)}"


def p(name: str, dtype: str, presence: float, make: Maker) -> Prop:
    """Shorthand for :class:`Prop`."""
    return Prop(name, dtype, presence, make)


PERSON_PROPS = (
    p("gender", "str", 0.97, m_gender),
    p("date_of_birth", "date", 0.75, m_birth),
    p("date_of_death", "date", 0.3, m_death),
    p("place_of_birth", "str", 0.6, m_place),
    p("country_of_citizenship", "list[str]", 0.8, m_countries),
)
SPAN_PROPS = (
    p("start_year", "int", 0.85, m_start_year),
    p("end_year", "int", 0.7, m_end_year),
)
COMPANY_NAME = n_pattern("{w}", "{w} {w}", "{w} Inc.", "{w} Group", "{w} & {w}", "{c} {w} Ltd")
ORG_NAME = n_pattern("{w} Order", "House of {w}", "{w} Guild", "The {w}s", "{w} Academy")
UNIVERSE_NAME = n_pattern("{w} universe", "{w} Saga", "World of {w}", "{w} Chronicles")
PARTY_NAME = n_pattern("{w} Party", "{c} {w} Party", "Democratic {w} Union", "{w} Front")
TITLE_NAME = n_pattern("{w}", "The {w}", "{w} {n}", "{w} of {w}", "Return of {w}", "{p}")

V = Variant  # shorthand in the tables below

GRAPHS: tuple[Graph, ...] = (
    Graph(
        "company",
        581_300,
        299_581,
        166.3 / 581.3,
        (
            Label(
                "Company",
                546_050,
                COMPANY_NAME,
                "business enterprise",
                (p("launch_year", "int", 0.45, m_year),),
            ),
            Label("Country", N_COUNTRIES, n_country, "sovereign state", fixed=True),
            Label(
                "Person",
                30_000,
                n_person,
                "human",
                PERSON_PROPS,
            ),
            Label("Industry", 5_000, n_pattern("{w} industry", "{w} manufacturing"), "industry"),
        ),
        (
            Relation("basedIn", (V("Company", "Country", 150_000),), "many", "many", True, True),
            Relation(
                "subsidiaryOf", (V("Company", "Company", 30_000),), "many", "one", False, False
            ),
            Relation("foundedBy", (V("Company", "Person", 20_000),), "many", "many", True, False),
            Relation("operatesIn", (V("Company", "Industry", 80_000),), "many", "many", True, True),
            Relation(
                "hasCEO",
                (V("Company", "Person", 9_000),),
                "many",
                "many",
                True,
                False,
                time_sensitive=True,
                props=SPAN_PROPS,
            ),
            Relation(
                "hasBoardMember",
                (V("Company", "Person", 10_581),),
                "many",
                "many",
                False,
                False,
                time_sensitive=True,
                props=SPAN_PROPS,
            ),
        ),
    ),
    Graph(
        "fictional_character",
        28_900,
        40_548,
        8.5 / 28.9,
        (
            Label("Organization", 2_200, ORG_NAME, "fictional organization"),
            Label(
                "Location", 2_000, n_pattern("{w}", "{w} Castle", "Mount {w}"), "fictional place"
            ),
            Label(
                "Character",
                24_000,
                n_person,
                "fictional character",
                (
                    p("occupation", "list[str]", 0.5, m_occupations),
                    p("gender", "str", 0.9, m_gender),
                    p("creator", "str", 0.5, m_person),
                    p("country_of_citizenship", "list[str]", 0.25, m_countries),
                    p("birth_name", "str", 0.1, m_person),
                ),
            ),
            Label(
                "FictionalUniverse",
                700,
                UNIVERSE_NAME,
                "fictional universe",
                (
                    p("inception_year", "int", 0.6, m_year),
                    p("creator", "str", 0.7, m_person),
                ),
            ),
        ),
        (
            Relation(
                "fromUniverse",
                (
                    V("Character", "FictionalUniverse", 14_000),
                    V("Organization", "FictionalUniverse", 1_548),
                ),
                "many",
                "one",
                True,
                True,
            ),
            Relation(
                "hasMother", (V("Character", "Character", 2_000),), "many", "one", False, False
            ),
            Relation(
                "hasFather", (V("Character", "Character", 3_000),), "many", "one", False, False
            ),
            Relation(
                "hasSpouse",
                (V("Character", "Character", 2_400),),
                "one",
                "one",
                False,
                False,
                symmetric=True,
            ),
            Relation(
                "memberOf", (V("Character", "Organization", 7_000),), "many", "many", False, True
            ),
            Relation("diedIn", (V("Character", "Location", 1_200),), "many", "one", False, False),
            Relation(
                "killedBy", (V("Character", "Character", 1_500),), "many", "one", False, False
            ),
            Relation("bornIn", (V("Character", "Location", 5_500),), "many", "one", True, False),
            Relation(
                "hasStudent", (V("Character", "Character", 1_400),), "many", "many", False, False
            ),
            Relation(
                "basedIn", (V("Organization", "Location", 1_000),), "many", "one", True, False
            ),
        ),
    ),
    Graph(
        "flight_accident",
        1_700,
        2_212,
        1.6 / 1.7,
        (
            Label(
                "FlightAccident",
                700,
                n_pattern("{w} Airlines Flight {n}", "{c} Air Flight {n}", "{n} {w} crash"),
                "aviation accident",
                (
                    p("number_of_survivors", "int", 0.6, m_int(5, 2.0)),
                    p("number_of_injuries", "int", 0.4, m_int(8, 1.5)),
                    p("number_of_deaths", "int", 0.9, m_int(20, 1.5)),
                    p("location", "str", 0.7, m_place),
                    p("flight_number", "str", 0.6, m_flight_number),
                    p("date", "date", 0.95, m_date(1920, 2024)),
                ),
            ),
            Label(
                "Airport",
                500,
                n_pattern("{w} International Airport", "{w} Airport", "{p} Airport"),
                "airport",
                (
                    p("location", "str", 0.8, m_place),
                    p("icao_code", "str", 0.9, m_code(4)),
                    p("iata_code", "str", 0.85, m_code(3)),
                    p("country", "str", 0.95, m_country),
                ),
            ),
            Label(
                "AircraftModel",
                220,
                n_pattern("{w} {n}00", "{w} {n}{n}", "{w}-{n}"),
                "aircraft model",
                (
                    p("wingspan_metre", "float", 0.7, m_float(30.0, 0.5, 2)),
                    p("service_entry", "date", 0.4, m_date(1930, 2020)),
                    p("range_km", "float", 0.5, m_float(3000.0, 0.7, 1)),
                    p("length_metre", "float", 0.7, m_float(30.0, 0.5, 2)),
                    p("height_metre", "float", 0.6, m_float(9.0, 0.4, 2)),
                    p("first_flight", "date", 0.7, m_date(1920, 2018)),
                ),
            ),
            Label(
                "AircraftManufacturer",
                80,
                n_pattern("{w} Aircraft", "{w} Aerospace", "{w}"),
                "aircraft manufacturer",
                (p("launch_year", "int", 0.7, m_year), p("country", "str", 0.9, m_country)),
            ),
            Label(
                "Operator",
                200,
                n_pattern("{w} Airlines", "{c} Airways", "Air {w}"),
                "airline",
                (p("launch_year", "int", 0.7, m_year), p("country", "str", 0.9, m_country)),
            ),
        ),
        (
            Relation(
                "destinedFor", (V("FlightAccident", "Airport", 380),), "many", "one", True, False
            ),
            Relation(
                "operatedBy", (V("FlightAccident", "Operator", 670),), "many", "one", True, True
            ),
            Relation(
                "involves", (V("FlightAccident", "AircraftModel", 680),), "many", "one", True, True
            ),
            Relation(
                "departsFrom", (V("FlightAccident", "Airport", 300),), "many", "one", True, False
            ),
            Relation(
                "manufacturedBy",
                (V("AircraftModel", "AircraftManufacturer", 182),),
                "many",
                "one",
                True,
                True,
            ),
        ),
    ),
    Graph(
        "geography",
        773_500,
        903_794,
        73.1 / 773.5,
        (
            Label(
                "River",
                250_000,
                n_pattern("{w} River", "{w}", "{w} Creek", "{w}bach"),
                "river",
                (
                    p("length_km", "float", 0.5, m_float(25.0, 1.2, 1)),
                    p("discharge_m3_s", "float", 0.1, m_float(15.0, 1.5, 2)),
                ),
            ),
            Label(
                "Lake",
                170_237,
                n_pattern("{w} Lake", "Lake {w}", "{w}sjön", "{w} Reservoir"),
                "lake",
                (
                    p("vertical_depth_m", "float", 0.05, m_float(12.0, 1.0, 1)),
                    p("area_km2", "float", 0.4, m_float(0.5, 1.8, 3)),
                ),
            ),
            Label(
                "Ocean",
                len(OCEANS),
                n_listed(OCEANS),
                "ocean",
                (
                    p("max_vertical_depth_m", "float", 1.0, m_float(8000.0, 0.2, 0)),
                    p("avg_vertical_depth_m", "float", 1.0, m_float(3500.0, 0.2, 0)),
                    p("area_km2", "float", 1.0, m_float(70_000_000.0, 0.8, 0)),
                ),
                fixed=True,
            ),
            Label(
                "Country",
                N_COUNTRIES,
                n_country,
                "sovereign state",
                (
                    p("capital", "str", 0.9, m_place),
                    p("area_km2", "float", 0.95, m_float(200_000.0, 1.5, 1)),
                ),
                fixed=True,
            ),
            Label("Continent", len(CONTINENTS), n_listed(CONTINENTS), "continent", fixed=True),
            Label(
                "DrainageBasin",
                3_000,
                n_pattern("{w} basin", "{w} River basin"),
                "drainage basin",
                (p("area_km2", "float", 0.6, m_float(5_000.0, 1.5, 1)),),
            ),
            Label(
                "Mountain",
                330_000,
                n_pattern("{w}", "Mount {w}", "{w} Peak", "{w}berg", "{w} Hill"),
                "mountain",
                (p("elevation_m", "float", 0.8, m_float(1200.0, 0.8, 0)),),
            ),
            Label(
                "MountainRange",
                20_000,
                n_pattern("{w} Mountains", "{w} Range", "{w} Hills"),
                "mountain range",
            ),
        ),
        (
            Relation(
                "flowsThrough", (V("River", "Country", 240_000),), "many", "many", True, False
            ),
            Relation(
                "flowsInto",
                (
                    V("River", "River", 100_000),
                    V("River", "Ocean", 8_000),
                    V("River", "Lake", 12_000),
                ),
                "many",
                "one",
                False,
                False,
            ),
            Relation(
                "partOf",
                (
                    V("River", "DrainageBasin", 40_000),
                    V("Lake", "DrainageBasin", 10_000),
                    V("Mountain", "MountainRange", 60_000),
                    V("MountainRange", "MountainRange", 8_000),
                ),
                "many",
                "one",
                True,
                True,
            ),
            Relation(
                "locatedIn",
                (
                    V("Lake", "Country", 150_000),
                    V("DrainageBasin", "Country", 3_500),
                    V("Mountain", "Country", 271_974),
                    V("Country", "Continent", 320),
                ),
                "many",
                "many",
                True,
                False,
            ),
        ),
    ),
    Graph(
        "movie",
        459_400,
        1_892_202,
        262.2 / 459.4,
        (
            Label(
                "Movie",
                279_550,
                TITLE_NAME,
                "film",
                (
                    p("runtime_minute", "float", 0.6, m_float(95.0, 0.25, 0)),
                    p("original_language", "list[str]", 0.8, m_languages),
                    p("global_box_office_usd", "float", 0.05, m_float(2e7, 2.0, 0)),
                    p("filming_location", "list[str]", 0.08, m_places),
                ),
            ),
            Label("Person", 170_000, n_person, "human", PERSON_PROPS),
            Label("Genre", 600, n_genre, "film genre"),
            Label("Country", N_COUNTRIES, n_country, "sovereign state", fixed=True),
            Label("FilmSeries", 5_000, n_pattern("{w} film series", "{w} trilogy"), "film series"),
            Label(
                "ProductionCompany",
                3_000,
                n_pattern("{w} Pictures", "{w} Films", "{w} Studios"),
                "film production company",
                (p("country", "str", 0.8, m_country),),
            ),
            Label(
                "Award",
                1_000,
                n_pattern("{w} Award for Best {w}", "{w} Film Festival Prize", "{w} Prize"),
                "film award",
            ),
        ),
        (
            Relation("hasGenre", (V("Movie", "Genre", 320_000),), "many", "many", True, True),
            Relation("directedBy", (V("Movie", "Person", 250_000),), "many", "many", True, False),
            Relation("writtenBy", (V("Movie", "Person", 110_000),), "many", "many", True, False),
            Relation(
                "hasCastMember",
                (V("Movie", "Person", 850_000),),
                "many",
                "many",
                True,
                False,
                props=(p("character_role", "str", 0.15, m_role),),
                fetches_obj=True,
            ),
            Relation(
                "receivesAward",
                (V("Movie", "Award", 20_202),),
                "many",
                "many",
                False,
                True,
                props=(
                    p("year", "int", 0.8, m_start_year),
                    p("winners", "list[str]", 0.3, m_persons),
                ),
            ),
            Relation(
                "producedBy", (V("Movie", "ProductionCompany", 40_000),), "many", "one", True, True
            ),
            Relation(
                "originatesFrom", (V("Movie", "Country", 230_000),), "many", "one", True, True
            ),
            Relation(
                "releasedIn",
                (V("Movie", "Country", 60_000),),
                "many",
                "many",
                True,
                True,
                props=(p("date", "date", 0.9, m_date(1900, 2024)),),
            ),
            Relation(
                "partOfSeries", (V("Movie", "FilmSeries", 12_000),), "many", "one", False, True
            ),
        ),
    ),
    Graph(
        "nba",
        4_300,
        18_991,
        4.3 / 4.3,
        (
            Label(
                "Player",
                3_968,
                n_person,
                "basketball player",
                (
                    p("schools_attended", "list[str]", 0.7, m_schools),
                    p("place_of_birth", "str", 0.8, m_place),
                    p("nicknames", "list[str]", 0.1, m_nicknames),
                    p("mass_kg", "float", 0.6, m_float(100.0, 0.1, 1)),
                    p("height_cm", "float", 0.7, m_float(200.0, 0.04, 0)),
                    p("handedness", "str", 0.2, m_handedness),
                    p("gender", "str", 1.0, lambda rng, props, ctx: "male"),
                    p("date_of_birth", "date", 0.95, m_birth),
                    p("date_of_death", "date", 0.1, m_death),
                    p("country_of_citizenship", "list[str]", 0.7, m_countries),
                ),
            ),
            Label(
                "Team",
                100,
                n_pattern("{w} {w}s", "{c} {w}s"),
                "basketball team",
                (
                    p("owners", "list[str]", 0.5, m_persons),
                    p("inception_year", "int", 0.9, m_year),
                    p("head_coach", "str", 0.4, m_person),
                ),
            ),
            Label("Venue", 150, n_pattern("{w} Arena", "{w} Center", "{w} Garden"), "arena"),
            Label("Division", 12, n_pattern("{w} Division", "{c} Division"), "sports division"),
            Label("Conference", len(CONFERENCES), n_listed(CONFERENCES), "conference", fixed=True),
            Label("Position", len(POSITIONS_NBA), n_listed(POSITIONS_NBA), "position", fixed=True),
            Label("Award", 60, n_pattern("NBA {w} Award", "{p} Trophy"), "sports award"),
        ),
        (
            Relation(
                "hasHomeVenue",
                (V("Team", "Venue", 150),),
                "one",
                "many",
                True,
                True,
                time_sensitive=True,
                props=SPAN_PROPS,
            ),
            Relation("partOfDivision", (V("Team", "Division", 90),), "many", "one", True, True),
            Relation(
                "playsFor",
                (V("Player", "Team", 10_000),),
                "many",
                "many",
                True,
                True,
                time_sensitive=True,
                props=(SPAN_PROPS[0], p("sport_number", "int", 0.5, m_sport_number), SPAN_PROPS[1]),
            ),
            Relation(
                "playsPosition", (V("Player", "Position", 5_200),), "many", "many", True, True
            ),
            Relation(
                "draftedBy",
                (V("Player", "Team", 2_300),),
                "many",
                "one",
                False,
                True,
                props=(p("year", "int", 0.9, m_start_year),),
            ),
            Relation(
                "receivesAward",
                (V("Player", "Award", 1_239),),
                "many",
                "many",
                False,
                True,
                props=(p("year", "int", 0.9, m_start_year),),
            ),
            Relation(
                "partOfConference", (V("Division", "Conference", 12),), "many", "one", True, True
            ),
        ),
    ),
    Graph(
        "politics",
        885_200,
        1_548_416,
        414.2 / 885.2,
        (
            Label(
                "GovernmentOrganization",
                15_000,
                n_pattern("Ministry of {w}", "{c} {w} Agency", "{w} Council"),
                "government agency",
            ),
            Label(
                "Country",
                N_COUNTRIES,
                n_country,
                "sovereign state",
                (
                    p("official_language", "list[str]", 0.85, m_languages),
                    p("founding_date", "date", 0.6, m_date(1800, 2011)),
                ),
                fixed=True,
            ),
            Label(
                "PoliticalParty",
                30_000,
                PARTY_NAME,
                "political party",
                (p("founding_date", "date", 0.5, m_date(1850, 2023)),),
            ),
            Label(
                "Politician",
                799_550,
                n_person,
                "politician",
                (
                    p("schools_attended", "list[str]", 0.3, m_schools),
                    p("place_of_death", "str", 0.2, m_place),
                    *PERSON_PROPS,
                ),
            ),
            Label(
                "Position",
                40_000,
                n_pattern("member of the {w} Parliament", "Mayor of {w}", "Minister of {w}"),
                "political office",
            ),
            Label(
                "InternationalOrganization",
                400,
                n_pattern("{w} Union", "Organization of {w} States", "{w} Pact"),
                "international organization",
                (p("founding_year", "int", 0.9, m_year),),
            ),
        ),
        (
            Relation(
                "holdsPosition",
                (V("Politician", "Position", 1_051_216),),
                "many",
                "many",
                True,
                True,
                time_sensitive=True,
                props=SPAN_PROPS,
            ),
            Relation(
                "memberOf",
                (
                    V("Politician", "PoliticalParty", 400_000),
                    V("Country", "InternationalOrganization", 200),
                ),
                "many",
                "one",
                False,
                True,
            ),
            Relation(
                "hasDiplomaticRelationWith",
                (V("Country", "Country", 12_000),),
                "many",
                "many",
                True,
                True,
                symmetric=True,
            ),
            Relation(
                "hasHeadOfState",
                (V("Country", "Politician", 6_000),),
                "one",
                "many",
                True,
                False,
                time_sensitive=True,
                props=SPAN_PROPS,
            ),
            Relation(
                "hasHeadOfGovernment",
                (V("Country", "Politician", 8_000),),
                "one",
                "many",
                True,
                False,
                time_sensitive=True,
                props=SPAN_PROPS,
            ),
            Relation(
                "operatesIn", (V("PoliticalParty", "Country", 28_000),), "many", "one", True, True
            ),
            Relation(
                "foundedBy", (V("PoliticalParty", "Politician", 6_000),), "one", "many", True, False
            ),
            Relation(
                "headedBy",
                (V("PoliticalParty", "Politician", 14_000),),
                "many",
                "many",
                True,
                False,
                time_sensitive=True,
                props=SPAN_PROPS,
            ),
            Relation(
                "leads",
                (V("Position", "GovernmentOrganization", 9_000),),
                "one",
                "one",
                False,
                True,
            ),
            Relation(
                "belongsTo",
                (V("GovernmentOrganization", "Country", 14_000),),
                "many",
                "one",
                True,
                True,
            ),
        ),
    ),
)

GRAPH_NAMES = tuple(g.name for g in GRAPHS)
#: CypherBench's ``neo4j_info.json`` ports of the ``full`` test graphs.
PORTS = {name: 15062 + i for i, name in enumerate(GRAPH_NAMES)}


def graph_spec(name: str) -> Graph:
    """The :class:`Graph` named ``name``; KeyError for an unknown name."""
    for g in GRAPHS:
        if g.name == name:
            return g
    raise KeyError(name)


# ---------------------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------------------
def scaled(count: int, scale: float, fixed: bool = False) -> int:
    """``count`` at ``scale`` (at least 1; unchanged when ``fixed``)."""
    return count if fixed else max(1, round(count * scale))


def label_counts(graph: Graph, scale: float) -> dict[str, int]:
    """Label -> entity count at ``scale``."""
    return {lab.label: scaled(lab.count, scale, lab.fixed) for lab in graph.labels}


def variant_counts(graph: Graph, rel: Relation, counts: dict[str, int], scale: float) -> list[int]:
    """Edge count of each variant of ``rel`` at ``scale``, capped by what its cardinality
    allows: a ``one`` side takes each of its entities at most once (shared by the variants
    with that subject label), a symmetric count is even, and a same-label many-to-many
    relation has no more pairs than there are."""
    out: list[int] = []
    used: dict[str, int] = {}
    for v in rel.variants:
        n = scaled(v.count, scale)
        n_subj, n_obj = counts[v.subj], counts[v.obj]
        same = v.subj == v.obj
        if rel.obj_card == "one":
            n = min(n, n_subj - used.get(v.subj, 0))
            used[v.subj] = used.get(v.subj, 0) + n
        if rel.subj_card == "one":
            n = min(n, n_obj)
        if rel.symmetric:
            n = min(n, n_subj * (n_subj - 1) if rel.obj_card == "many" else n_subj)
            n -= n % 2
        elif same and rel.obj_card == "one":
            n = min(n, n_subj - 1)
        out.append(max(0, n))
    return out


# ---------------------------------------------------------------------------------------------
# Edge structure
# ---------------------------------------------------------------------------------------------
def zipf_exponent(n: int) -> float:
    """The Zipf exponent for a pool of ``n`` entities (:data:`ZIPF_SMALL` / ``ZIPF_LARGE``)."""
    return ZIPF_SMALL if n <= SMALL_POOL else ZIPF_LARGE


class Picker:
    """Heavy-tailed choice among ``n`` entities: Zipf weights (exponent ``s``) over a random
    ranking. With ``cover``, the first ``n`` picks are every entity once in random order
    (mandatory participation), then the Zipf draws."""

    def __init__(self, rng: random.Random, n: int, s: float, cover: bool) -> None:
        self.rng = rng
        self.rank = list(range(n))
        rng.shuffle(self.rank)
        self.cum = list(itertools.accumulate((k + 1) ** -s for k in range(n)))
        self.cover = self.rank[::-1] if cover else []

    def pick(self) -> int:
        """One entity index."""
        if self.cover:
            return self.cover.pop()
        k = bisect.bisect_left(self.cum, self.rng.random() * self.cum[-1])
        return self.rank[min(k, len(self.rank) - 1)]


def pick_other(picker: Picker, avoid: int, same: bool, tries: int = 8) -> int | None:
    """A pick different from ``avoid`` when ``same`` (a same-label relation has no self
    loops); None after ``tries`` failures."""
    for _ in range(tries):
        j = picker.pick()
        if not (same and j == avoid):
            return j
    return None


def many_to_one(
    rng: random.Random, subjects: list[int], n_obj: int, cover_obj: bool, same: bool
) -> Iterator[tuple[int, int]]:
    """Each of ``subjects`` (distinct) with one object (Zipf, covered first if mandatory)."""
    picker = Picker(rng, n_obj, zipf_exponent(n_obj), cover_obj)
    for i in subjects:
        j = pick_other(picker, i, same)
        if j is not None:
            yield i, j


def one_to_many(
    rng: random.Random, n_subj: int, n_obj: int, count: int, cover_subj: bool, same: bool
) -> Iterator[tuple[int, int]]:
    """``count`` distinct objects, each with one subject (Zipf, covered first if mandatory)."""
    picker = Picker(rng, n_subj, zipf_exponent(n_subj), cover_subj)
    for j in sorted(rng.sample(range(n_obj), count)):
        i = pick_other(picker, j, same)
        if i is not None:
            yield i, j


def one_to_one(
    rng: random.Random, subjects: list[int], n_obj: int, same: bool
) -> Iterator[tuple[int, int]]:
    """``subjects`` paired with as many distinct objects (no self pairs when ``same``)."""
    objects = rng.sample(range(n_obj), len(subjects))
    for i, j in zip(subjects, objects, strict=True):
        if not (same and i == j):
            yield i, j


def subject_degrees(rng: random.Random, n_subj: int, count: int, cover: bool) -> list[int]:
    """Out-degree of each of ``n_subj`` subjects summing to ``count``: one edge for each
    subject first when ``cover`` (as far as ``count`` allows), the rest by Zipf
    (:data:`ZIPF_SUBJECT`)."""
    degrees = [0] * n_subj
    if cover:
        for i in rng.sample(range(n_subj), min(n_subj, count)):
            degrees[i] = 1
    picker = Picker(rng, n_subj, ZIPF_SUBJECT, False)
    for _ in range(count - sum(degrees)):
        degrees[picker.pick()] += 1
    return degrees


def many_to_many(
    rng: random.Random,
    n_subj: int,
    n_obj: int,
    count: int,
    cover: tuple[bool, bool],
    same: bool,
    repeat: bool,
) -> Iterator[tuple[int, int]]:
    """``count`` edges (fewer when a subject's distinct objects run out): heavy-tailed
    subject degrees, Zipf objects, objects covered first when mandatory; a subject's objects
    are distinct unless ``repeat`` (a time-sensitive relation may hold twice, in two
    periods)."""
    degrees = subject_degrees(rng, n_subj, count, cover[0])
    picker = Picker(rng, n_obj, zipf_exponent(n_obj), cover[1])
    for i, degree in enumerate(degrees):
        seen: set[int] = set()
        for _ in range(degree):
            for _try in range(8):
                j = pick_other(picker, i, same)
                if j is not None and (repeat or j not in seen):
                    seen.add(j)
                    yield i, j
                    break


def symmetric_pairs(
    rng: random.Random, n: int, count: int, one_to_one_: bool, cover: bool
) -> Iterator[tuple[int, int]]:
    """``count`` edges of a symmetric same-label relation as ``count // 2`` unordered pairs,
    each stored in both directions (sorted by subject): a matching when ``one_to_one_``,
    else heavy-tailed pairs, every entity in one first when ``cover``. The pairs are held in
    memory (CypherBench's symmetric relations are small)."""
    pairs: set[tuple[int, int]] = set()
    if one_to_one_:
        people = rng.sample(range(n), count)
        pairs = {(min(a, b), max(a, b)) for a, b in zip(people[::2], people[1::2], strict=True)}
    else:
        picker = Picker(rng, n, zipf_exponent(n), cover)
        while len(pairs) < count // 2:
            a, b = picker.pick(), picker.pick()
            if a != b:
                pairs.add((min(a, b), max(a, b)))
    yield from sorted([*pairs, *((b, a) for a, b in pairs)])


def variant_edges(
    rng: random.Random,
    rel: Relation,
    variant: Variant,
    count: int,
    counts: dict[str, int],
    subject_pool: list[int],
) -> Iterator[tuple[int, int]]:
    """The (subject index, object index) edges of one variant of ``rel`` following its
    characteristics; ``subject_pool`` (shuffled subject indices of the variant's subject
    label, shared by the variants of a many-to-one relation) gives up the subjects a
    ``one``-object variant takes."""
    n_subj, n_obj = counts[variant.subj], counts[variant.obj]
    same = variant.subj == variant.obj
    if count == 0:
        return iter(())
    if rel.symmetric:
        return symmetric_pairs(rng, n_subj, count, rel.obj_card == "one", rel.mandatory_subj)
    if rel.obj_card == "one":
        subjects = sorted(subject_pool[-count:])
        del subject_pool[-count:]
        if rel.subj_card == "one":
            return one_to_one(rng, subjects, n_obj, same)
        return many_to_one(rng, subjects, n_obj, rel.cover_obj, same)
    if rel.subj_card == "one":
        return one_to_many(rng, n_subj, n_obj, count, rel.mandatory_subj, same)
    return many_to_many(
        rng,
        n_subj,
        n_obj,
        count,
        (rel.mandatory_subj, rel.cover_obj),
        same,
        rel.time_sensitive,
    )


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------
def make_props(
    rng: random.Random, props: tuple[Prop, ...], ctx: Context, complete: bool
) -> dict[str, Any]:
    """A record's properties: each present with its ``presence`` share (all when
    ``complete``: the first record of each label or variant, so every schema property occurs
    in the graph); a maker's None leaves the property out."""
    out: dict[str, Any] = {}
    for prop in props:
        if complete or rng.random() < prop.presence:
            value = prop.make(rng, out, ctx)
            if value is not None:
                out[prop.name] = value
    return out


def qid_base(graph: Graph, counts: dict[str, int]) -> dict[str, int]:
    """Label -> the QID number of its first entity (labels take consecutive QID ranges
    from Q100)."""
    base, out = 100, {}
    for lab in graph.labels:
        out[lab.label] = base
        base += counts[lab.label]
    return out


def eid(label: str, index: int, bases: dict[str, int]) -> str:
    """The entity id ``<label>#Q<n>`` of entity ``index`` of ``label``."""
    return f"{label}#Q{bases[label] + index}"


def entity_record(
    rng: random.Random, lab: Label, index: int, ctx: Context, bases: dict[str, int], wiki: float
) -> dict[str, Any]:
    """One SimpleKG entity of ``lab`` (SPEC.md §2 field order)."""
    name = lab.name(rng, index, ctx)
    aliases: list[str] = []
    if rng.random() < 0.2:
        aliases = sorted({name.split()[0] + " " + syllable_word(rng, 1, 2), name.upper()})
    props = make_props(rng, lab.props, ctx, complete=index == 0)
    provenance = []
    if rng.random() < wiki:
        provenance = ["https://en.wikipedia.org/wiki/" + name.replace(" ", "_")]
    return {
        "eid": eid(lab.label, index, bases),
        "label": lab.label,
        "name": name,
        "aliases": aliases,
        "description": lab.description if rng.random() < 0.8 else None,
        "properties": props,
        "provenance": provenance,
    }


def relation_record(
    rid: int, label: str, subj: str, obj: str, props: dict[str, Any]
) -> dict[str, Any]:
    """One SimpleKG relation (SPEC.md §2 field order)."""
    return {
        "rid": str(rid),
        "label": label,
        "subj_id": subj,
        "obj_id": obj,
        "properties": props,
        "provenance": [],
    }


def schema_json(graph: Graph) -> dict[str, Any]:
    """The graph's CypherBench schema JSON: ``{"name", "entities": [{"label",
    "description", "properties": {name: datatype}}], "relations": [{"label", "subj_label",
    "obj_label", "properties"}]}``; ``name`` is not listed (CypherBench adds it on reading)."""
    return {
        "name": graph.name,
        "entities": [
            {
                "label": lab.label,
                "description": lab.description,
                "properties": {q.name: q.dtype for q in lab.props},
            }
            for lab in graph.labels
        ],
        "relations": [
            {
                "label": rel.label,
                "subj_label": v.subj,
                "obj_label": v.obj,
                "properties": {q.name: q.dtype for q in rel.props},
            }
            for rel in graph.rels
            for v in rel.variants
        ],
    }


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------
def stream(seed: int, graph: str, part: str) -> random.Random:
    """The random stream of one part of one graph (independent of the other graphs chosen)."""
    digest = hashlib.sha256(f"{seed}:{graph}:{part}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def write_array(out: TextIO, key: str, records: Iterator[dict[str, Any]], last: bool) -> int:
    """Write ``"key": [record, ...]`` one record at a time; returns the record count."""
    out.write(f'"{key}": [')
    n = 0
    for rec in records:
        out.write(",\n" if n else "\n")
        out.write(json.dumps(rec, ensure_ascii=False))
        n += 1
    out.write("\n]" + ("" if last else ", "))
    return n


def entity_stream(
    graph: Graph, counts: dict[str, int], ctx: Context, bases: dict[str, int], seed: int
) -> Iterator[dict[str, Any]]:
    """Every entity of ``graph``, label by label."""
    for lab in graph.labels:
        rng = stream(seed, graph.name, f"entities:{lab.label}")
        for i in range(counts[lab.label]):
            yield entity_record(rng, lab, i, ctx, bases, graph.wikipedia)


def relation_stream(
    graph: Graph,
    counts: dict[str, int],
    ctx: Context,
    bases: dict[str, int],
    seed: int,
    scale: float,
) -> Iterator[dict[str, Any]]:
    """Every relation of ``graph``, variant by variant, with running ``rid``."""
    rid = 0
    for rel in graph.rels:
        rng = stream(seed, graph.name, f"relations:{rel.label}")
        pools: dict[str, list[int]] = {}
        for variant, count in zip(
            rel.variants, variant_counts(graph, rel, counts, scale), strict=True
        ):
            if variant.subj not in pools:
                pools[variant.subj] = list(range(counts[variant.subj]))
                rng.shuffle(pools[variant.subj])
            first = True
            for i, j in variant_edges(rng, rel, variant, count, counts, pools[variant.subj]):
                props = make_props(rng, rel.props, ctx, complete=first)
                first = False
                subj, obj = eid(variant.subj, i, bases), eid(variant.obj, j, bases)
                yield relation_record(rid, rel.label, subj, obj, props)
                rid += 1


@dataclass(frozen=True)
class Written:
    """What :func:`write_graph` wrote for one graph."""

    graph: str
    entities: int
    relations: int
    seconds: float
    bytes: int


def write_graph(graph: Graph, out_dir: Path, scale: float, seed: int) -> Written:
    """Write ``graph``'s SimpleKG file and schema file under ``out_dir`` (the layout of the
    module docstring). Raises OSError when a file cannot be written."""
    t0 = time.perf_counter()
    counts = label_counts(graph, scale)
    ctx = Context(country_names(seed))
    bases = qid_base(graph, counts)
    schema = schema_json(graph)
    kg_path = out_dir / "graphs" / "simplekg" / f"{graph.name}_simplekg.json"
    schema_path = out_dir / "graphs" / "schemas" / f"{graph.name}_schema.json"
    kg_path.parent.mkdir(parents=True, exist_ok=True)
    schema_path.parent.mkdir(parents=True, exist_ok=True)
    schema_path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    tmp = kg_path.with_suffix(".json.part")
    with tmp.open("w", encoding="utf-8", newline="\n") as out:
        out.write('{"schema": ' + json.dumps(schema, ensure_ascii=False) + ", ")
        n_ent = write_array(out, "entities", entity_stream(graph, counts, ctx, bases, seed), False)
        rels = relation_stream(graph, counts, ctx, bases, seed, scale)
        n_rel = write_array(out, "relations", rels, True)
        out.write("}\n")
    tmp.replace(kg_path)
    return Written(graph.name, n_ent, n_rel, time.perf_counter() - t0, kg_path.stat().st_size)


def neo4j_info(graphs: list[str]) -> dict[str, Any]:
    """CypherBench's ``neo4j_info.json`` for ``graphs``: ``train_domains`` (none here),
    ``test_domains`` and ``full`` (graph -> ``host``, ``port``, ``username``, ``password``)."""
    return {
        "train_domains": [],
        "test_domains": graphs,
        "full": {
            g: {
                "host": "localhost",
                "port": PORTS[g],
                "username": "neo4j",
                "password": "cypherbench",
            }
            for g in graphs
        },
    }


def generate(
    out_dir: Path, graphs: list[str], scale: float = 1.0, seed: int = 0, quiet: bool = False
) -> list[Written]:
    """Write the chosen ``graphs`` (names of :data:`GRAPH_NAMES`) and ``neo4j_info.json``
    under ``out_dir``; prints one line per graph unless ``quiet``.

    Raises:
        KeyError: an unknown graph name.
        ValueError: a scale that is not positive.
        OSError: a file cannot be written."""
    if not scale > 0:
        raise ValueError(f"scale must be positive, got {scale}")
    specs = [graph_spec(g) for g in graphs]
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in specs:
        w = write_graph(spec, out_dir, scale, seed)
        written.append(w)
        if not quiet:
            print(
                f"{w.graph:20s} entities {w.entities:>9,} (target {spec.entities * scale:>11,.0f})"
                f"  relations {w.relations:>9,} (target {spec.relations * scale:>11,.0f})"
                f"  {w.seconds:7.1f} s  {w.bytes:>13,} bytes",
                flush=True,
            )
    info = json.dumps(neo4j_info([s.name for s in specs]), indent=2) + "\n"
    (out_dir / "neo4j_info.json").write_text(info, encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    """The command line (``--help``); returns the exit status (2 on a usage error)."""
    parser = argparse.ArgumentParser(
        description=(
            "Write a seeded full-scale stand-in for CypherBench's seven test graphs in "
            "CypherBench's benchmark layout: OUT/graphs/simplekg/<graph>_simplekg.json, "
            "OUT/graphs/schemas/<graph>_schema.json and OUT/neo4j_info.json. No test.json is "
            "written: the test set comes from kgbench's own generator after deployment."
        )
    )
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="size factor (1: the paper's sizes; default 1)"
    )
    parser.add_argument(
        "--graphs",
        default=",".join(GRAPH_NAMES),
        help=f"comma-separated graphs (default all: {','.join(GRAPH_NAMES)})",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    graphs = [g for g in args.graphs.split(",") if g]
    unknown = sorted(set(graphs) - set(GRAPH_NAMES))
    if unknown:
        parser.error(f"unknown graph(s) {', '.join(unknown)}; choose from {', '.join(GRAPH_NAMES)}")
    if not args.scale > 0:
        parser.error("--scale must be positive")
    t0 = time.perf_counter()
    written = generate(args.out, graphs, args.scale, args.seed)
    total = sum(w.bytes for w in written)
    print(f"total {time.perf_counter() - t0:.1f} s, {total:,} bytes in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
