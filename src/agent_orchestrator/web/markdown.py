"""Model output to HTML that cannot carry script.

Model text is untrusted (a prompt injection can make it emit ``<script>`` or ``javascript:`` links).
markdown-it with ``html`` disabled escapes every raw tag, and its link validator refuses
``javascript:``, ``vbscript:``, ``file:`` and non-image ``data:`` URLs; the page's Content Security
Policy (no inline script) is the second wall.
"""

from functools import lru_cache

from markdown_it import MarkdownIt


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def render_markdown(text: str) -> str:
    """Safe HTML for an assistant message."""
    return _renderer().render(text)
