"""The importer's concept suggestions for a Chinese list of duties (bot/core/suggest.py).

Written for a survivor of the mutation run; the items are read off the sentence by eye.
"""

from __future__ import annotations

from bot.core.suggest import _enumeration


def test_the_items_of_a_chinese_list_are_the_terms_it_names() -> None:
    # 推理服务 is a term of the answer, but not one of the list's items.
    terms = ["模型管理", "请求路由", "动态批处理", "推理服务"]
    assert _enumeration("负责模型管理、请求路由、动态批处理", terms) == [
        "模型管理",
        "请求路由",
        "动态批处理",
    ]
