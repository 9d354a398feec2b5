#!/usr/bin/env python3
"""Writes the held-out unknown-caller evaluation set: holdout.fixture.json and
holdout.cases.json, in the format of the development set (README.md), but with other clients,
other names and other phrasings. It is never tuned on: the matcher is developed against the
development set, and this one only measures it.

Deterministic (seeded). Cases come from templates written here, one list per kind and language,
none of them shared with the development set; a few hand-written cases are at the end.
usage: eval/unknown-caller/generate-holdout.py [SEED PREFIX]
  (default: seed 2611, writing holdout.fixture.json and holdout.cases.json next to itself; another
  seed draws other clients and cases from the same templates, for a fresh look)
"""
import json
import os
import random
import sys

SEED, PREFIX = (int(sys.argv[1]), sys.argv[2]) if len(sys.argv) == 3 else (2611, "holdout")
R = random.Random(SEED)
HERE = os.path.dirname(os.path.abspath(__file__))

ORGANISATION, OTHER_ORGANISATION = 7, 8
PORTALS = [
    (31, "Hemtjänst Väster", "+4619200100", ORGANISATION),
    (32, "Hemtjänst Öster", "+4619200200", ORGANISATION),
    (33, "Trygghetsboendet Linden", "+4619200300", ORGANISATION),
    (41, "Omsorg Fjällen", "+4698000400", OTHER_ORGANISATION),
]
LOGIN = "+46700000031"

# Given names not used by the development set, and names whose short forms the cases use.
MEN = [
    "Alvar", "Birger", "Curt", "Einar", "Folke", "Harald", "Ivar", "Jarl", "Konrad", "Malte",
    "Osvald", "Rudolf", "Sune", "Tage", "Yngve", "Hjalmar", "Ture", "Vilgot", "Edvard", "Gideon",
    "Assar", "Helge", "Ragnvald", "Algot",
]
WOMEN = [
    "Alfhild", "Dagmar", "Edit", "Frida", "Gerda", "Hedvig", "Ines", "Judit", "Klara", "Lilian",
    "Märit", "Naemi", "Oddny", "Rakel", "Saga", "Tyra", "Vera", "Ylva", "Ebba", "Hulda",
    "Agda", "Signe", "Selma", "Asta",
]
# (name, short form as people say it): Wiktionary's Swedish short forms, and forms made the
# usual Swedish way (first syllable, doubled consonant, -e / -an / -is / -ie).
NICKNAMED = [
    ("Gustav", "Gurra"), ("Magnus", "Mange"), ("Rolf", "Roffe"), ("Henrik", "Henke"),
    ("Stefan", "Steffe"), ("Knut", "Knutte"), ("Georg", "Jojje"), ("Pernilla", "Nilla"),
    ("Charlotta", "Lotten"), ("Oskar", "Ogge"), ("Vilhelm", "Ville"), ("Kristina", "Kia"),
    ("Robert", "Robban"), ("Katarina", "Kattis"), ("Susanne", "Sussie"), ("Markus", "Mackan"),
    ("Tobias", "Tobbe"), ("William", "Bill"),
]
SURNAMES = [
    "Alm", "Ahlgren", "Backman", "Bergkvist", "Boström", "Carlberg", "Dahlgren", "Edlund",
    "Ekdahl", "Falkenberg", "Fors", "Grahn", "Hagström", "Hedberg", "Holmqvist", "Jernberg",
    "Kjellberg", "Lagerkvist", "Lindahl", "Ljungberg", "Malmberg", "Mellberg", "Norén",
    "Nordqvist", "Palm", "Rosén", "Rydberg", "Sjöstedt", "Skoglund", "Stenberg", "Sundqvist",
    "Tornberg", "Vallin", "Wahlberg", "Westerlund", "Zetterberg", "Åström", "Östlund",
    "Engdahl", "Frisk", "Gren", "Hammar", "Kvist", "Lilja", "Myrberg", "Nyqvist", "Pettersén",
    "Sjölund", "Söderlund", "Törnqvist",
]
DOUBLE_FIRST = ["Ann-Sofi", "Eva-Britt", "Gun-Marie", "Karl-Erik", "Lars-Göran", "Maj-Lis"]
STREETS = [
    "Björkallén", "Kvarngatan", "Lärkvägen", "Mossgatan", "Nygatan", "Prästgårdsvägen",
    "Rönnvägen", "Skolgatan", "Tallstigen", "Vattugatan", "Älvgatan", "Ekbacken", "Hagvägen",
    "Sjövägen", "Bruksgatan",
]
CITIES = ["Nora", "Lindesberg", "Kumla", "Askersund", "Hallsberg", "Karlskoga", "Degerfors"]
OTHER_CITIES = ["Gällivare", "Jokkmokk"]
# A note for the client's `memory`, and the word a caller uses for it. Rare ones are given to
# one client each; common ones to many.
RARE_TOPICS = [
    ("Keeps two budgerigars in the kitchen.", "budgerigars",
     "Har två undulater i köket.", "undulaterna"),
    ("Plays the accordion every evening.", "accordion",
     "Spelar dragspel varje kväll.", "dragspelet"),
    ("Has a pacemaker checked every spring.", "pacemaker",
     "Pacemakern kontrolleras varje vår.", "pacemakern"),
    ("Collects stamps from the Faroe Islands.", "stamps",
     "Samlar på frimärken från Färöarna.", "frimärkena"),
    ("Uses an oxygen concentrator at night.", "oxygen",
     "Använder syrgas på natten.", "syrgasen"),
    ("Feeds the hedgehogs in the garden.", "hedgehogs",
     "Matar igelkottarna i trädgården.", "igelkottarna"),
    ("Knits socks for the church bazaar.", "socks",
     "Stickar sockor till kyrkans basar.", "sockorna"),
    ("Has a guide dog named Bruno.", "guide dog",
     "Har en ledarhund som heter Bruno.", "ledarhunden"),
]
COMMON_TOPICS = [
    ("Receives meal deliveries on weekdays.", "meals", "matlådorna"),
    ("Walks with a walker.", "walker", "rollatorn"),
    ("Has a safety alarm.", "alarm", "trygghetslarmet"),
]


def luhn(digits):
    total = 0
    for i, d in enumerate(int(c) for c in digits):
        d *= 2 - i % 2
        total += d - 9 if d > 9 else d
    return str((10 - total % 10) % 10)


def personnummer(n):
    year, month, day = 1928 + n % 18, 1 + n % 12, 1 + n % 28
    serial = 100 + n % 800
    nine = f"{year % 100:02}{month:02}{day:02}{serial:03}"
    return f"{year // 100}{nine[:6]}-{nine[6:]}{luhn(nine)}"


used_numbers = set()


def phone_number():
    while True:
        number = f"+4673{R.randrange(1000000, 9999999)}"
        if number not in used_numbers:
            used_numbers.add(number)
            return number


clients = []


def add_client(name, portal, memory=None, city=None, street=None):
    n = len(clients)
    number = phone_number()
    street = street or f"{R.choice(STREETS)} {R.randrange(1, 60)}"
    city = city or R.choice(OTHER_CITIES if portal == 41 else CITIES)
    client = {
        "id": 3001 + n, "name": name, "phone": number, "city": city, "street": street,
        "country": "Sweden", "zipCode": f"7{R.randrange(10, 99)} {R.randrange(10, 99)}",
        "about": f"Client of {dict((p[0], p[1]) for p in PORTALS)[portal]}.",
        "primaryNumber": number, "portalId": portal, "email": None,
        "nationalId": personnummer(7000 + n), "acceptedTermsAt": "2024-05-01T10:00:00Z",
        "totalCalls": 0, "lastCallAt": None, "callLengthInSeconds": 0, "callsLast7Days": 0,
        "isUnknown": False, "memory": memory or R.choice(COMMON_TOPICS)[0],
        "isInactive": False, "isDeleted": False, "language": "sv", "extECareDetails": None,
        "isCustomerService": False,
    }
    clients.append(client)
    return client


own_portals = [31, 32, 33]
# The population: every first name with a few surnames, so that first names and surnames
# repeat the way they do in a real organisation.
for first in MEN + WOMEN:
    for surname in R.sample(SURNAMES, 4):
        add_client(f"{first} {surname}", R.choice(own_portals))
nicknamed = {}
for name, short in NICKNAMED:
    surname, other = R.sample(SURNAMES, 2)
    nicknamed[short] = add_client(f"{name} {surname}", R.choice(own_portals))
    # A namesake by given name only: the surname still tells them apart.
    add_client(f"{name} {other}", R.choice(own_portals))
doubles = {}
for double in DOUBLE_FIRST:
    doubles[double] = add_client(f"{double} {R.choice(SURNAMES)}", R.choice(own_portals))
# Rare topics: one client with an English note and one with a Swedish note each, whose first
# names other clients share.
rare = []
for memory_en, word_en, memory_sv, word_sv in RARE_TOPICS:
    for memory, word, lang in [(memory_en, word_en, "en"), (memory_sv, word_sv, "sv")]:
        first = R.choice(MEN + WOMEN)
        client = add_client(f"{first} {R.choice(SURNAMES)}", R.choice(own_portals),
                            memory=memory)
        rare.append((client, word, lang))
# The other organisation's clients.
others = [add_client(f"{R.choice(MEN + WOMEN)} {R.choice(SURNAMES)}", 41) for _ in range(30)]

by_name = {}
for client in clients:
    if client["portalId"] != 41:
        by_name.setdefault(client["name"], []).append(client)
unique = [c for c in clients if c["portalId"] != 41 and len(by_name[c["name"]]) == 1]


def first_of(client):
    return client["name"].rsplit(" ", 1)[0]


def last_of(client):
    return client["name"].rsplit(" ", 1)[1]


def he(client):
    return "she" if first_of(client) in WOMEN + ["Pernilla", "Charlotta", "Kristina",
                                                  "Katarina", "Susanne"] else "he"


cases = []


def case(kind, lang, summary, expected, from_number=None, portal=31):
    n = len(cases)
    call = {
        "id": 70001 + n, "startDate": f"2026-10-{1 + n // 40:02}T{8 + n % 10:02}:{n % 60:02}:00Z",
        "endDate": f"2026-10-{1 + n // 40:02}T{8 + n % 10:02}:{n % 60:02}:40Z",
        "fromNumber": from_number or phone_number(),
        "toNumber": dict((p[0], p[2]) for p in PORTALS)[portal],
        "summary": summary, "uuid": f"call-{70001 + n}", "clientId": 0, "confidence": 0,
        "confidenceReason": None, "satisfaction": 0, "satisfactionReason": None,
        "purpose": None, "dynamicVariables": None, "connectedTo": None,
        "conversationUuid": f"conv-{70001 + n}",
    }
    cases.append({
        "name": f"{kind}-{n + 1:03}", "kind": kind, "lang": lang, "call": call,
        "expectedClientId": expected,
    })


# Full names, said in other ways than the development set says them.
FULL = {
    "sv": ["Det var {name} som ringde och undrade om tvättiden på torsdag.",
           "Samtal från {name}, som ville ändra tiden för dusch.",
           "{name} hörde av sig och bad att få prata med sjuksköterskan.",
           "Hej, {name} här, ringde angående nyckeln till porten."],
    "en": ["Spoke with {name}, who wants the Thursday visit moved.",
           "Message left by {name} about a broken lamp in the hallway.",
           "{name} rang asking whether the podiatrist is still coming.",
           "This is {name}; asked that someone check the smoke detector."],
}
for lang, templates in FULL.items():
    for client in R.sample(unique, 17):
        case("full", lang, R.choice(templates).format(name=client["name"]), client["id"])

# Short forms: a client's given name said as people say it, with the surname.
NICK = {
    "sv": ["{short} {last} ringde och frågade när hemtjänsten kommer i morgon.",
           "Det var {short} {last} i telefon, {pron} ville ha hjälp med handlingen."],
    "en": ["{short} {last} called about the shopping list.",
           "Caller said it was {short} {last}, asking about the laundry."],
}
for i, (short, client) in enumerate(nicknamed.items()):
    lang = "sv" if i % 2 == 0 else "en"
    pron = "hon" if he(client) == "she" else "han"
    case("nickname", lang, R.choice(NICK[lang]).format(short=short, last=last_of(client),
                                                        pron=pron), client["id"])


# Speech-to-text spellings of surnames: what a transcription writes for the sound.
def misheard(surname):
    rules = [("berg", "bärj"), ("sson", "sen"), ("ström", "strom"), ("qvist", "kvist"),
             ("kvist", "qvist"), ("ck", "k"), ("ll", "l"), ("rr", "r"), ("tt", "t"),
             ("mm", "m"), ("nn", "n"), ("ö", "o"), ("å", "a"), ("ä", "a"), ("é", "e"),
             ("dahl", "dal"), ("gren", "grén"), ("lund", "lunn"), ("sj", "sh"), ("w", "v")]
    R.shuffle(rules)
    for old, new in rules:
        if old in surname.lower():
            lower = surname.lower().replace(old, new, 1)
            return lower[0].upper() + lower[1:]
    return surname[:-1] if len(surname) > 5 else surname


STT = {
    "sv": ["{first} {last} ringde, {pron} har ont i knät och vill att någon kommer förbi.",
           "Transkribering: {first} {last} frågade om fotvården."],
    "en": ["{first} {last} phoned to say the heating is off.",
           "Transcript says {first} {last} wants to cancel Friday's visit."],
}
stt_pool = [c for c in unique if misheard(last_of(c)) != last_of(c)]
for lang, templates in STT.items():
    for client in R.sample(stt_pool, 15):
        heard = misheard(last_of(client))
        pron = "hon" if he(client) == "she" else "han"
        summary = R.choice(templates).format(first=first_of(client), last=heard, pron=pron)
        # Only when no other client's surname is spelled the same way.
        case("stt_spelling", lang, summary, client["id"])

# Nouns for the person are not names: with only a surname, nobody is suggested; with the
# street too, the client is.
ROLE_NOUNS = {
    "sv": ["Brukaren", "Vårdtagaren", "Kunden", "Omsorgstagaren", "Patienten", "Hyresgästen"],
    "en": ["The customer", "The client", "The patient", "The service user", "The resident"],
}
for lang, nouns in ROLE_NOUNS.items():
    for noun in nouns:
        client = R.choice(unique)
        surname = last_of(client)
        if lang == "sv":
            summary = f"{noun} {surname} ringde och var orolig över medicinen."
        else:
            summary = f"{noun} {surname} called, worried about the medicine."
        case("role_noun", lang, summary, None)
        street = client["street"]
        if lang == "sv":
            summary = f"{noun} {surname} på {street} ringde om trasig spis."
        else:
            summary = f"{noun} {surname} of {street} called about a broken stove."
        case("role_noun_street", lang, summary, client["id"])

# Double first names are one name.
for i, (double, client) in enumerate(doubles.items()):
    lang = "sv" if i % 2 == 0 else "en"
    surname = last_of(client)
    said = {"sv": f"{double} {surname} ringde om matleveransen.",
            "en": f"{double} {surname} called about the meal delivery."}[lang]
    case("double_first", lang, said, client["id"])
    # A stranger with another double name and the same surname.
    other_double = {"Ann-Sofi": "Ulla-Sofi", "Eva-Britt": "Ann-Britt", "Gun-Marie": "Eva-Marie",
                    "Karl-Erik": "Per-Erik", "Lars-Göran": "Jan-Göran", "Maj-Lis": "Ann-Lis"}
    said = {"sv": f"{other_double[double]} {surname} ringde och frågade om trygghetslarm.",
            "en": f"{other_double[double]} {surname} called to ask about safety alarms."}[lang]
    case("double_stranger", lang, said, None)
# A stranger whose double name's second half is a short form of a client's given name, with
# that client's surname: a double name is one name.
for i, (client_first, stranger_first) in enumerate(
        [("Birgitta", "Ann-Britt"), ("Elisabet", "Ann-Lis"), ("Maria", "Eva-Maj"),
         ("Kristina", "Ulla-Stina"), ("Margareta", "Anna-Greta"), ("Nils", "Per-Nisse")]):
    client = add_client(f"{client_first} {SURNAMES[i * 7]}", 31)
    lang = "sv" if i % 2 == 0 else "en"
    said = {"sv": f"{stranger_first} {last_of(client)} ringde, {'hon' if i != 5 else 'han'} "
                  f"ville veta mer om dagverksamheten.",
            "en": f"{stranger_first} {last_of(client)} called to hear about the day centre."}
    case("double_stranger", lang, said[lang], None)

# A first name and what the call was about, when one client with that name has it in notes.
for client, word, lang in rare:
    first = first_of(client)
    said = {"en": f"{first} called; something about the {word} again.",
            "sv": f"{first} ringde, det gällde {word} igen."}[lang]
    case("topic_first", lang, said, client["id"])
    # The same topic with another client's surname: the surname wins, never the topic.
    other = R.choice([c for c in unique if first_of(c) != first])
    said = f"{first} {last_of(other)}"
    exact = [c["id"] for c in clients if c["portalId"] != 41 and c["name"] == said]
    case("topic_conflict", lang, {"en": f"{said} called about the {word}.",
                                  "sv": f"{said} ringde om {word}."}[lang],
         exact[0] if len(exact) == 1 else None)

# The standard kinds, said differently.
for client in R.sample(unique, 8):
    digits = client["primaryNumber"][3:]
    spaced = f"0{digits[:2]}-{digits[2:5]} {digits[5:7]} {digits[7:]}"
    case("phone", "sv", f"Vill bli uppringd på {spaced}, sa inget namn.", client["id"])
for client in R.sample(unique, 6):
    case("pnr", "en", f"Gave personal number {client['nationalId']} and asked about the bill.",
         client["id"])
for client in R.sample(unique, 8):
    son = R.random() < 0.5
    relative = f"{R.choice(MEN if son else WOMEN)} {last_of(client)}"
    parent = "mamma" if he(client) == "she" else "pappa"
    case("relative", "sv",
         f"{relative} ringde för sin {parent} {client['name']} på {client['street']}; "
         f"{'sonen' if son else 'dottern'} undrade över medicinlistan.", client["id"])
for _ in range(8):
    name = f"{R.choice(['Tore', 'Barbro', 'Leo', 'Stella', 'Nore', 'Ella'])} " \
           f"{R.choice(['Grönlund', 'Hjort', 'Kronberg', 'Lövgren', 'Sandell'])}"
    case("stranger", "en", f"{name} called asking how to become a client.", None)
for text in ["Bara brus på linjen, ingen sa något.", "Wrong number, the caller hung up.",
             "Någon andades i luren och lade på.", "Automated message, no person on the line."]:
    case("none", "sv" if "på" in text or "luren" in text else "en", text, None)
for client in R.sample(others, 6):
    case("other_org", "sv", f"{client['name']} från {client['city']} ringde om snöröjningen.",
         None)
# Namesakes in the organisation that nothing tells apart.
dupes = [name for name, found in by_name.items() if len(found) > 1]
for name in dupes[:6]:
    case("dupe", "en", f"{name} called to ask about the bus service.", None)

# Written by hand: harder phrasings of the kinds above.
def named(name):
    found = [c for c in clients if c["name"] == name and c["portalId"] != 41]
    return found[0] if len(found) == 1 else None


hand = [
    ("nickname", "sv", "Gurra ringde igen, det är {last} alltså, om hissen som står still.",
     "Gurra"),
    ("nickname", "en", "Said his name was Robban, Robban {last}, and asked for a new key.",
     "Robban"),
    ("stt_spelling", "sv", "Uppringaren sa att hon heter {first} {last_misheard} och att "
     "matlådan inte kom.", None),
    ("role_noun", "sv", "Vårdtagaren ringde själv och ville ha tid hos frisören.", None),
    ("role_noun", "en", "The client's neighbour called; the client was not named.", None),
    ("none", "en", "Hello? Hello? The line went quiet and the call dropped.", None),
]
for kind, lang, text, short in hand:
    if short:
        client = nicknamed[short]
        case(kind, lang, text.format(last=last_of(client)), client["id"])
    elif "{first}" in text:
        client = R.choice(stt_pool)
        case(kind, lang, text.format(first=first_of(client),
                                     last_misheard=misheard(last_of(client))), client["id"])
    else:
        case(kind, lang, text, None)

fixture = {
    "portals": [{"id": p, "createdAt": "2024-02-01T08:00:00Z", "status": 1, "name": name,
                 "customerServicePhone": number, "supplierPhone": number[:-2] + "99",
                 "provider": "vonage", "extECareCompanyCode": f"H{p}",
                 "organisationId": org} for p, name, number, org in PORTALS],
    "accounts": [{"id": 200 + p, "name": f"Staff {name}", "phoneNumber": f"+467000000{p}",
                  "portalId": p} for p, name, _, _ in PORTALS],
    "clients": clients,
    "phoneCalls": [dict(c["call"], name=None, transcript=[], isUnknown=True, portalId=31)
                   for c in cases],
}
with open(os.path.join(HERE, f"{PREFIX}.fixture.json"), "w", encoding="utf-8") as f:
    json.dump(fixture, f, ensure_ascii=False, indent=1)
    f.write("\n")
with open(os.path.join(HERE, f"{PREFIX}.cases.json"), "w", encoding="utf-8") as f:
    json.dump({"organisationId": ORGANISATION, "loginPhoneNumber": LOGIN, "cases": cases}, f,
              ensure_ascii=False, indent=1)
    f.write("\n")
print(f"{len(clients)} clients, {len(cases)} cases")
