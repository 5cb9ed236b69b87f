"""What splade-lab handed off, read without torch: the settings (splade_lab.json) and the triplet TSV.

The TSV is parsed exactly as splade-lab parses it (src/io/triplets.ts): strict UTF-8, a leading byte-order mark
dropped, lines ending in \n, \r\n or a lone \r, blank lines skipped, a first line of field names taken as a header
(query or anchor, positive, then negative, negative1 or negative_1, in any case, spaces around them ignored; then
optionally the teacher labels of distillation: one column named label, labels, score or scores (sentence-transformers'
names), a number or a JSON list per row, or label_1..label_m), and every
other line exactly three non-empty tab-separated fields (the query, the positive, the negative), kept as they are (no
trimming), then the labels the header names.
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
LABEL_NAME = re.compile(r"label(_[0-9]+)?|labels|scores?")
# sentence-transformers' names of the one teacher-label column (src/contract/teacher-labels.ts)
LABEL_COLUMNS = ("label", "labels", "score", "scores")
# A JSON number, as sentence-transformers writes a score (no NaN, Infinity, hex or empty text).
JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")

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


def _header_labels(fields: list[str], name: str) -> int | str | None:
    """The header rule of src/io/triplets.ts: None when the first line is a row; else the label fields it names after
    query (or anchor), positive and one negative name: 0, the one label column's name (label, labels, score or scores:
    a number or a JSON list per row) or m (label_1..m)."""
    words = [f.strip(_JS_SPACE).lower() for f in fields]
    if len(words) < 3 or words[0] not in ("query", "anchor") or words[1] != "positive":
        return None
    end = 2
    while end < len(words) and NEGATIVE_NAME.fullmatch(words[end]):
        end += 1
    labels = words[end:]
    if end == 2 or not all(LABEL_NAME.fullmatch(w) for w in labels):
        return None
    if end > 3:
        raise TripletFormatError(f"{name} line 1: the header names {end - 2} negatives; the hand-off takes one per row")
    if len(labels) == 1 and labels[0] in LABEL_COLUMNS:
        return labels[0]
    if labels == [f"label_{i + 1}" for i in range(len(labels))]:
        return len(labels)
    raise TripletFormatError(
        f"{name} line 1: the header names the labels {', '.join(labels)}: name one \"label\" (or \"labels\", \"score\", "
        "\"scores\") column or label_1, label_2, ... in order"
    )


def _label_number(text: str) -> float | None:
    """A label field as a finite number (JSON's number syntax), or None."""
    text = text.strip(_JS_SPACE)
    if not JSON_NUMBER.fullmatch(text):
        return None
    number = float(text)
    return number if number not in (float("inf"), float("-inf")) else None


def _labels(fields: list[str], columns: int | str, name: str, line: int) -> list[float]:
    """A row's label fields (after query, positive and negative) as teacher labels, as src/io/triplets.ts reads them."""
    one = isinstance(columns, str)

    def refuse(j: int, what: str):
        label = columns if one else f"label_{j + 1}"
        raise TripletFormatError(f"{name} line {line}: the {label} (field {4 + j}) is {_preview(fields[j])}, not {what}")

    if one and fields[0].strip(_JS_SPACE).startswith("["):
        what = "a JSON list of finite numbers (teacher scores) such as [1.5, -2]"
        try:
            values = json.loads(fields[0])
        except ValueError:
            refuse(0, what)
        good = isinstance(values, list) and values and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) != float("inf") for x in values
        )
        return [float(x) for x in values] if good else refuse(0, what)
    what = "a finite number (a teacher score)" + (" or a JSON list of them" if one else "")
    numbers = [_label_number(field) for field in fields]
    for j, number in enumerate(numbers):
        if number is None:
            refuse(j, what)
    return numbers


def _preview(text: str) -> str:
    return json.dumps(text[:60] + ("\u2026" if len(text) > 60 else ""), ensure_ascii=False)


def parse_triplets(data: bytes, name: str) -> list[tuple[str, str, str]]:
    """(query, positive, negative) per line, as splade-lab reads the file."""
    return parse_rows(data, name)[0]


def parse_rows(data: bytes, name: str) -> tuple[list[tuple[str, str, str]], list[list[float]] | None]:
    """The triplets, and each row's teacher labels when the header names label columns (else None)."""
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as error:
        line = len(LINE_BREAK_BYTES.findall(data[: error.start])) + 1
        raise TripletFormatError(f"{name} line {line}: not UTF-8 (byte {error.start} of the file)") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    triplets = []
    labels: list[list[float]] | None = None
    columns: int | str = 0
    for i, line in enumerate(LINE_BREAK.split(text)):
        if line.strip(_JS_SPACE) == "":
            continue
        fields = line.split("\t")
        if i == 0:
            header = _header_labels(fields, name)
            if header is not None:
                columns = header
                labels = [] if header else None
                continue
        expected = 3 + (0 if not columns else 1 if isinstance(columns, str) else columns)
        if len(fields) != expected:
            what = "query, positive, negative" + (", then the labels the header names" if columns else "")
            raise TripletFormatError(
                f"{name} line {i + 1}: {len(fields)} tab-separated field{'' if len(fields) == 1 else 's'}, "
                f"expected {expected} ({what}): {_preview(line)}"
            )
        for j, field in enumerate(fields[:3]):
            if field.strip(_JS_SPACE) == "":
                raise TripletFormatError(f"{name} line {i + 1}: the {FIELDS[j]} (field {j + 1}) is empty")
        triplets.append((fields[0], fields[1], fields[2]))
        if labels is not None:
            labels.append(_labels(fields[3:], columns, name, i + 1))
    if not triplets:
        raise TripletFormatError(f"{name}: no triplets (a line is query<TAB>positive<TAB>negative)")
    return triplets, labels


def read_triplets(path: str | Path, expected: dict | None = None) -> list[tuple[str, str, str]]:
    """The file's triplets; with expected = settings["data"], refuses another file (count or CRC-32 differ)."""
    return read_rows(path, expected)[0]


def read_rows(path: str | Path, expected: dict | None = None) -> tuple[list[tuple[str, str, str]], list[list[float]] | None]:
    """The file's triplets and teacher labels (None without label columns), checked as read_triplets checks them."""
    data = Path(path).read_bytes()
    triplets, labels = parse_rows(data, str(path))
    if expected is not None:
        crc = zlib.crc32(data) & 0xFFFFFFFF
        if len(triplets) != expected["triplets"] or crc != expected["crc32"]:
            raise ValueError(
                f"{path}: {len(triplets)} triplets, CRC-32 {crc:08x}; splade-lab handed off {expected['triplets']} "
                f"triplets with CRC-32 {expected['crc32']:08x} ({expected['file']}). Use that file, or pass "
                "--allow-other-data to train on this one (expected_step1.json then no longer describes your data)."
            )
    return triplets, labels
