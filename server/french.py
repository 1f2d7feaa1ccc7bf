"""The French names of the standard map's provinces (the French Descartes map).

French players write orders with the Descartes map's abbreviations - ``A Par -
Bou``, ``F Man S A Lon - Bel`` - which differ from the international ones
for a third of the provinces, and some collide with them: ``MAR`` is
Marseilles internationally but Maroc-et-Algérie (North Africa) in French,
``TYR`` Tyrolia but the Tyrrhenian Sea, ``LIV`` Liverpool in both (Livonia
is ``LIT``).  So a reader is in one language at a time
(`server.notation.Context.lang`), and the web page writes the French names
when it is in French (``french`` of ``GET /api/map``).

Each standard province's DAIDE mnemonic -> (French abbreviation, French name).
"""

from __future__ import annotations

FRENCH = {
    "ADR": ("ADR", "Mer Adriatique"),
    "AEG": ("EGE", "Mer Egée"),
    "ALB": ("MON", "Monténégro-et-Albanie"),
    "ANK": ("ANK", "Ankara"),
    "APU": ("APU", "Apulie"),
    "ARM": ("CAU", "Caucase-et-Arménie"),
    "BAL": ("BAL", "Mer Baltique"),
    "BAR": ("BAR", "Mer de Barents"),
    "BEL": ("BEL", "Royaume de Belgique"),
    "BER": ("BER", "Berlin"),
    "BLA": ("NOI", "Mer Noire"),
    "BOH": ("BOH", "Bohème"),
    "GOB": ("BOT", "Golfe de Botnie"),
    "BRE": ("BRE", "Brest"),
    "BUD": ("BUD", "Budapest"),
    "BUL": ("BUL", "Royaume de Bulgarie"),
    "BUR": ("BOU", "Bourgogne"),
    "CLY": ("HIG", "Highlands"),
    "CON": ("CON", "Constantinople"),
    "DEN": ("DAN", "Royaume de Danemark"),
    "EAS": ("LEV", "Mer du Levant"),
    "EDI": ("EDI", "Edimbourg"),
    "ECH": ("MAN", "Manche"),
    "FIN": ("FIN", "Finlande"),
    "GAL": ("GAL", "Galicie"),
    "GAS": ("GAS", "Gascogne"),
    "GOL": ("LIO", "Golfe du Lion"),
    "GRE": ("GRE", "Royaume de Grèce"),
    "HEL": ("HEL", "Baie de Hélioland"),
    "HOL": ("PAY", "Pays-Bas"),
    "ION": ("ION", "Mer ionienne"),
    "IRI": ("STG", "Canal Saint-Georges"),
    "KIE": ("KIE", "Kiel"),
    "LON": ("LON", "Londres"),
    "LVN": ("LIT", "Lithuanie"),
    "LVP": ("LIV", "Liverpool"),
    "MAO": ("ATL", "Océan Atlantique"),
    "MAR": ("TOU", "Toulon"),
    "MOS": ("MOS", "Moscou"),
    "MUN": ("MUN", "Munich"),
    "NAF": ("MAR", "Maroc-et-Algérie"),
    "NAO": ("ISL", "Mer d'Islande"),
    "NAP": ("NAP", "Naples"),
    "NWG": ("GRO", "Mer de Groenland et de Norvège"),
    "NTH": ("NRD", "Mer du Nord"),
    "NWY": ("NGE", "Royaume de Norvège"),
    "PAR": ("PAR", "Paris"),
    "PIC": ("PIC", "Picardie"),
    "PIE": ("PIE", "Piémont"),
    "POR": ("POR", "Royaume du Portugal"),
    "PRU": ("PRU", "Prusse"),
    "ROM": ("ROM", "Rome"),
    "RUH": ("RHE", "Rhénanie"),
    "RUM": ("ROU", "Royaume de Roumanie"),
    "SER": ("SER", "Royaume de Serbie"),
    "SEV": ("ODE", "Odessa"),
    "SIL": ("SIL", "Silésie"),
    "SKA": ("SKA", "Skaggerak"),
    "SMY": ("SMY", "Smyrne"),
    "SPA": ("ESP", "Royaume d'Espagne"),
    "STP": ("STP", "Saint-Pétersbourg"),
    "SWE": ("SUE", "Royaume de Suède"),
    "SYR": ("SYR", "Syrie"),
    "TRI": ("TRI", "Trieste"),
    "TUN": ("TUN", "Tunisie"),
    "TUS": ("TOS", "Toscane"),
    "TYR": ("ALP", "Alpes tyroliennes"),
    "TYS": ("TYR", "Mer Tyrrhénienne"),
    "UKR": ("UKR", "Ukraine"),
    "VEN": ("VEN", "Venise"),
    "VIE": ("VIE", "Vienne"),
    "WAL": ("COR", "Cornouailles"),
    "WAR": ("VAR", "Varsovie"),
    "WES": ("MED", "Méditerranée occidentale"),
    "YOR": ("YOR", "Yorkshire"),
}

#: French order words -> the English ones the reader knows.
FRENCH_WORDS = {
    "t": "h", "tient": "h", "soutient": "s", "soutien": "s", "convoie": "c", "convoi": "c",
    "retraite": "r", "dissout": "d", "dissoudre": "d", "dissolution": "d",
    "construit": "build", "construire": "build", "construction": "build",
    "supprime": "remove", "supprimer": "remove", "renonce": "waive", "vers": "to",
    "nord": "north", "sud": "south", "est": "east", "ouest": "west", "côte": "coast", "cote": "coast",
}
