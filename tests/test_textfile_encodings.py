"""Reading files saved in other encodings: the edges of UTF-16 and GB18030 detection.

Each case is a file a person could have saved; the expected text and encoding (or refusal)
are written out by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.textfile import UnreadableFile, decode, read_text

BINARY = "the file is binary, not text: save it as UTF-8"


def test_utf16_without_bom_big_endian_is_read() -> None:
    data = b"\x00H\x00e\x00l\x00l\x00o"  # "Hello", UTF-16-BE, no byte order mark
    assert decode(data, other_encodings=True) == ("Hello", "UTF-16")


def test_utf16_without_bom_big_endian_needs_asking() -> None:
    with pytest.raises(UnreadableFile, match=r"^the file is UTF-16, not UTF-8: save it as UTF-8$"):
        decode(b"\x00H\x00e\x00l\x00l\x00o")


def test_a_two_letter_utf16_file_is_read() -> None:
    # Four bytes: the smallest sample the NUL pattern is read from.
    assert decode(b"h\x00i\x00", other_encodings=True) == ("hi", "UTF-16")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(bytes.fromhex("610062002d4e8765575b"), id="little-endian"),
        pytest.param(bytes.fromhex("006100624e2d65875b57"), id="big-endian"),
    ],
)
def test_utf16_with_two_ascii_letters_in_five_is_read(data: bytes) -> None:
    # "ab中文字": 2 of its 5 high (or low) bytes are NUL, exactly the 40% asked for.
    assert decode(data, other_encodings=True) == ("ab中文字", "UTF-16")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"M\x00\x01\x01o\x00r\x00i\x00", id="little-endian"),
        pytest.param(b"\x00M\x01\x01\x00o\x00r\x00i", id="big-endian"),
    ],
)
def test_utf16_with_a_byte_one_in_it_is_read(data: bytes) -> None:
    # "Māori": ā is U+0101, bytes 01 01; only NUL bytes tell the byte order.
    assert decode(data, other_encodings=True) == ("Māori", "UTF-16")


def test_only_the_first_4000_bytes_decide_utf16() -> None:
    # 2,000 characters of ASCII, then 一 (U+4E00, bytes 00 4E): its NUL is byte 4,001.
    text = "x" * 1999 + "\n" + "一"
    data = text.encode("utf-16-le")
    assert len(data) == 4002
    assert decode(data, other_encodings=True) == (text, "UTF-16")


def test_a_nul_byte_in_other_text_is_binary() -> None:
    # One NUL among letters: not the pattern of UTF-16 (every other byte NUL).
    with pytest.raises(UnreadableFile, match=f"^{BINARY}$"):
        decode(b"Answer:\x00 a store", other_encodings=True)


def test_gbk_text_nine_tenths_chinese_is_read() -> None:
    # 9 ideographs and é (GB18030 A8A6): exactly 90% of the non-ASCII characters are Chinese.
    data = bytes.fromhex("bbbab4e6cac7d2bbd6d6b3a3bcfbbcbcc7c9a8a6")
    assert decode(data, other_encodings=True) == ("缓存是一种常见技巧é", "GB18030")


def test_gbk_text_less_than_nine_tenths_chinese_is_refused() -> None:
    data = bytes.fromhex("bbbab4e6cac7d2bbd6d6b3a3bcfbbcbca8a6")  # 8 ideographs and é
    with pytest.raises(
        UnreadableFile, match=r"^the file is not UTF-8 \(at byte 1\): save it as UTF-8$"
    ):
        decode(data, other_encodings=True)


def test_gbk_text_with_a_delete_character_is_read() -> None:
    # DEL (0x7F) is ASCII: it does not count against the Chinese share.
    data = bytes.fromhex("bbbab4e6cac7d2bbd6d6b3a3bcfbbcbc7f")
    assert decode(data, other_encodings=True) == ("缓存是一种常见技\x7f", "GB18030")


def test_gb18030_text_with_u0080_is_not_chinese_enough() -> None:
    # U+0080 (GB18030 81308130) is not ASCII: one in nine non-ASCII characters is not Chinese.
    data = bytes.fromhex("bbbab4e6cac7d2bbd6d6b3a3bcfbbcbc81308130")
    with pytest.raises(
        UnreadableFile, match=r"^the file is not UTF-8 \(at byte 1\): save it as UTF-8$"
    ):
        decode(data, other_encodings=True)


def test_two_stray_control_characters_are_tolerated() -> None:
    # A pasted escape sequence or two (ESC, backspace) does not make a file binary.
    assert decode(b"Q: what is a cache?\x1b\nA: a store.\x08\n") == (
        "Q: what is a cache?\x1b\nA: a store.\x08\n",
        "UTF-8",
    )


def test_three_control_characters_make_a_file_binary() -> None:
    with pytest.raises(UnreadableFile, match=f"^{BINARY}$"):
        decode(b"Q: what is a cache?\x1b\x01\nA: a store.\x08\n")


def test_a_file_of_byte_order_marks_is_empty() -> None:
    with pytest.raises(UnreadableFile, match=r"^the file is empty$"):
        decode(b"\xef\xbb\xbf\xef\xbb\xbf\r\n")


def test_a_file_with_only_a_placeholder_is_not_empty() -> None:
    assert decode(b"XXX\n") == ("XXX\n", "UTF-8")


def test_utf8_with_a_byte_order_mark_is_read_without_asking() -> None:
    assert decode(b"\xef\xbb\xbfWhat is a cache?\n") == ("What is a cache?\n", "UTF-8")


def test_a_broken_utf16_file_with_a_bom_is_named() -> None:
    # A high surrogate with no low one after it: not valid UTF-16.
    with pytest.raises(
        UnreadableFile,
        match=r"^the file starts as UTF-16 but is not valid UTF-16: save it as UTF-8$",
    ):
        decode(b"\xff\xfe\x00\xd8a\x00", other_encodings=True)


def test_what_looks_like_utf16_but_is_not_valid_is_binary() -> None:
    # "ab", then half of an emoji (the surrogate D83D alone), then "c", with no BOM.
    with pytest.raises(UnreadableFile, match=f"^{BINARY}$"):
        decode(b"a\x00b\x00=\xd8c\x00", other_encodings=True)


def test_a_utf16_file_is_read_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "bank.txt"
    path.write_bytes(b"\xff\xfeh\x00i\x00")  # "hi", UTF-16 with its BOM
    assert read_text(path, other_encodings=True) == ("hi", "UTF-16")
    with pytest.raises(UnreadableFile, match=r"^the file is UTF-16, not UTF-8: save it as UTF-8$"):
        read_text(path)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        pytest.param(
            PermissionError(13, "Permission denied"),
            "not allowed to read the file (permissions)",
            id="permissions",
        ),
        pytest.param(
            OSError(5, "Input/output error"),
            "cannot read the file (Input/output error)",
            id="io-error",
        ),
        pytest.param(OSError("disk gone"), "cannot read the file (disk gone)", id="no-strerror"),
    ],
)
def test_a_file_that_cannot_be_read_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, message: str
) -> None:
    def refuse(self: Path) -> bytes:
        raise error

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(UnreadableFile) as caught:
        read_text(tmp_path / "bank.txt")
    assert str(caught.value) == message
