"""What splade-lab handed off, read without torch: the settings (splade_lab.json) and the triplet TSV.

The TSV is parsed exactly as splade-lab parses it (src/io/triplets.ts): strict UTF-8, a leading byte-order mark
dropped, lines ending in \n, \r\n or a lone \r, blank lines skipped, a first line of field names taken as a header
(query, positive, then negative, negative1 or negative_1, in any case, spaces around them ignored), and every other
line exactly three non-empty tab-separated fields, kept as they are (no trimming).
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIELDS = ("query", "positive", "negative")
LINE_BREAK = re.compile(r"\r\n|\r|\n")
LINE_BREAK_BYTES = re.compile(rb"\r\n|\r|\n")
NEGATIVE_NAME = re.compile(r"negative(_?[0-9]+)?")

# JavaScript's String.prototype.trim() removes these (WhiteSpace and LineTerminator); Python's str.strip() differs.
_JS_SPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


class TripletFormatError(ValueError):
    """A line that is not a triplet: the message names the file and the 1-based line."""


def load_settings(path: str | Path | None = None) -> dict:
    """The hand-off's settings: backbone, k, recipe, data fingerprint (written by splade-lab)."""
    with open(path or HERE / "splade_lab.json", encoding="utf-8") as f:
        return json.load(f)


def backbone_ref(settings: dict) -> str:
    """What from_pretrained takes: the Hub id, or the backbone folder copied into the project."""
    backbone = settings["backbone"]
    if backbone.get("hub_id"):
        return backbone["hub_id"]
    return str(HERE / backbone["path"])


def _is_header(fields: list[str]) -> bool:
    """The header rule of src/io/triplets.ts: query (or anchor), positive, then negative names (negative, negative_1)."""
    words = [f.strip(_JS_SPACE).lower() for f in fields]
    return words[0] in ("query", "anchor") and words[1] == "positive" and all(NEGATIVE_NAME.fullmatch(w) for w in words[2:])


def _preview(text: str) -> str:
    return json.dumps(text[:60] + ("\u2026" if len(text) > 60 else ""), ensure_ascii=False)


def parse_triplets(data: bytes, name: str) -> list[tuple[str, str, str]]:
    """(query, positive, negative) per line, as splade-lab reads the file."""
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        line = len(LINE_BREAK_BYTES.findall(data[: error.start])) + 1
        raise TripletFormatError(f"{name} line {line}: not UTF-8 (byte {error.start} of the file)") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    triplets = []
    for i, line in enumerate(LINE_BREAK.split(text)):
        if line.strip(_JS_SPACE) == "":
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            raise TripletFormatError(
                f"{name} line {i + 1}: {len(fields)} tab-separated field{'' if len(fields) == 1 else 's'}, "
                f"expected 3 (query, positive, negative): {_preview(line)}"
            )
        if i == 0 and _is_header(fields):
            continue
        for j, field in enumerate(fields):
            if field.strip(_JS_SPACE) == "":
                raise TripletFormatError(f"{name} line {i + 1}: the {FIELDS[j]} (field {j + 1}) is empty")
        triplets.append((fields[0], fields[1], fields[2]))
    if not triplets:
        raise TripletFormatError(f"{name}: no triplets (a line is query<TAB>positive<TAB>negative)")
    return triplets


def read_triplets(path: str | Path, expected: dict | None = None) -> list[tuple[str, str, str]]:
    """The file's triplets; with expected = settings["data"], refuses another file (count or CRC-32 differ)."""
    data = Path(path).read_bytes()
    triplets = parse_triplets(data, str(path))
    if expected is not None:
        crc = zlib.crc32(data) & 0xFFFFFFFF
        if len(triplets) != expected["triplets"] or crc != expected["crc32"]:
            raise ValueError(
                f"{path}: {len(triplets)} triplets, CRC-32 {crc:08x}; splade-lab handed off {expected['triplets']} "
                f"triplets with CRC-32 {expected['crc32']:08x} ({expected['file']}). Use that file, or pass "
                "--allow-other-data to train on this one (expected_step1.json then no longer describes your data)."
            )
    return triplets
