"""Reading a text file a person saved: UTF-8, or a plain reason why it cannot be read.

Packs and documents to import are text. What people have at hand is often not UTF-8: Excel
saves "Unicode text" as UTF-16 and CSV on a Chinese Windows as GBK (GB18030's subset), and
some files are not text at all (a spreadsheet, a PDF). `read_text` reads UTF-8 (with or
without a BOM) and, when asked to, UTF-16 with a BOM or one without whose NUL bytes give it
away, and GB18030 text with Chinese in it; anything else raises `UnreadableFile` with one
plain sentence: what the file is, and what to do.
"""

from __future__ import annotations

import re
from pathlib import Path


class UnreadableFile(ValueError):
    """The file is not text this program can read; the message says why, for a person."""


# What a binary file usually is, by its first bytes.
_MAGIC = (
    (b"PK\x03\x04", "a ZIP archive (an .xlsx, .docx or .zip file)"),
    (b"%PDF", "a PDF file"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls or .doc)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"\x1f\x8b", "a gzip archive"),
)
_BOMS = (
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32"),
    (b"\xef\xbb\xbf", "utf-8", "UTF-8"),
    (b"\xff\xfe", "utf-16-le", "UTF-16"),
    (b"\xfe\xff", "utf-16-be", "UTF-16"),
)
# Control characters no text file has (tab, line feed, form feed and carriage return are fine).
_CONTROL_RE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_CJK_RE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
SAVE_AS_UTF8 = "save it as UTF-8"


def _utf16_without_bom(data: bytes) -> str | None:
    """UTF-16 without a BOM: most ASCII text then has a NUL in every other byte."""
    sample = data[:4000]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) >= len(odd) * 0.4 and even.count(0) == 0:
        return "utf-16-le"
    if even.count(0) >= len(even) * 0.4 and odd.count(0) == 0:
        return "utf-16-be"
    return None


def decode(data: bytes, *, other_encodings: bool = False) -> tuple[str, str]:
    """The text of a file's bytes and the encoding it was read as ('UTF-8', 'GB18030', …).

    Without `other_encodings` only UTF-8 is read; the message of a file in another encoding
    names it.
    """
    if not data.strip():
        raise UnreadableFile("the file is empty")
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            if name != "UTF-8" and not other_encodings:
                raise UnreadableFile(f"the file is {name}, not UTF-8: {SAVE_AS_UTF8}")
            try:
                text = data[len(bom) :].decode(codec)
            except UnicodeDecodeError:
                raise UnreadableFile(
                    f"the file starts as {name} but is not valid {name}: {SAVE_AS_UTF8}"
                ) from None
            return _checked(text), name
    for magic, what in _MAGIC:
        if data.startswith(magic):
            raise UnreadableFile(
                f"the file is {what}, not text: export it as text ({SAVE_AS_UTF8})"
            )
    if b"\x00" in data:
        utf16 = _utf16_without_bom(data)
        if utf16 is None:
            raise UnreadableFile(f"the file is binary, not text: {SAVE_AS_UTF8}")
        if not other_encodings:
            raise UnreadableFile(f"the file is UTF-16, not UTF-8: {SAVE_AS_UTF8}")
        try:
            return _checked(data.decode(utf16)), "UTF-16"
        except UnicodeDecodeError:
            raise UnreadableFile(f"the file is binary, not text: {SAVE_AS_UTF8}") from None
    try:
        return _checked(data.decode("utf-8")), "UTF-8"
    except UnicodeDecodeError as exc:
        where = f"byte {exc.start + 1}"
    chinese = _gb18030(data)
    if chinese is not None and other_encodings:
        return _checked(chinese), "GB18030"
    if chinese is not None:
        raise UnreadableFile(
            f"the file is not UTF-8 (it looks like GBK/GB18030, Chinese Windows' encoding):"
            f" {SAVE_AS_UTF8}"
        )
    raise UnreadableFile(f"the file is not UTF-8 (at {where}): {SAVE_AS_UTF8}")


def _gb18030(data: bytes) -> str | None:
    """The text, if the bytes are GB18030 with Chinese in it (GBK is a subset)."""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return None
    non_ascii = [c for c in text if ord(c) > 127]
    # Bytes of another 8-bit encoding decode as GB18030 too, to rare characters and symbols:
    # Chinese text is mostly common ideographs and full-width punctuation.
    if not non_ascii or sum(bool(_CJK_RE.match(c)) for c in non_ascii) < len(non_ascii) * 0.9:
        return None
    return text


def _checked(text: str) -> str:
    if len(_CONTROL_RE.findall(text[:10000])) > 2:
        raise UnreadableFile(f"the file is binary, not text: {SAVE_AS_UTF8}")
    if not text.strip("\ufeff \t\r\n\x0c"):
        raise UnreadableFile("the file is empty")
    return text


def read_text(path: Path, *, other_encodings: bool = False) -> tuple[str, str]:
    """Read a text file: its text and encoding, or UnreadableFile with a plain reason."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise UnreadableFile("no such file") from None
    except IsADirectoryError:
        raise UnreadableFile("a folder, not a file") from None
    except PermissionError:
        raise UnreadableFile("not allowed to read the file (permissions)") from None
    except OSError as exc:
        raise UnreadableFile(f"cannot read the file ({exc.strerror or exc})") from None
    return decode(data, other_encodings=other_encodings)
