"""Model output to HTML that cannot carry script.

Model text is untrusted (a prompt injection can make it emit ``<script>`` or ``javascript:`` links).
markdown-it with ``html`` disabled escapes every raw tag, and its link validator refuses
``javascript:``, ``vbscript:``, ``file:`` and non-image ``data:`` URLs; the page's Content Security
Policy (no inline script) is the second wall. Customer ids become links to the customer's page
(``customer_links``), added as tokens, so they go through the same escaping.
"""

from functools import lru_cache

from markdown_it import MarkdownIt

from agent_orchestrator.web.customer_links import ENV_KEY, customer_links_plugin


@lru_cache(maxsize=1)
def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")
    return md.use(customer_links_plugin)


@lru_cache(maxsize=8192)
def render_markdown(text: str, customer_ids: frozenset[int] = frozenset()) -> str:
    """Safe HTML for an assistant message; ``customer_ids`` are the ids the turn's tools returned.

    Cached: rendering costs ~80 µs a message, a long transcript is re-read on every reload and device
    switch (and polled while another device's turn runs), and the same text always renders the same.
    """
    return _renderer().render(text, {ENV_KEY: customer_ids})
