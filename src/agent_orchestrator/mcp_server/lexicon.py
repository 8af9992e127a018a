"""The retail tools' words for the embedded model's guided pipeline (``local_model.lexicon``).

The model server knows no domain; whoever starts it for sessions with these tools hands it this
lexicon (``runtime/factory.py``), beside the planner's guide. It holds only how people talk about a
shop, never what one shop holds: countries, segments and products come from the tools' schemas and
results, which are built from the data, so an imported dataset needs no change here
(docs/architecture.md#grounded-tool-turns). Words the tools' metadata already gives (each
``<kind>_id`` parameter's kind, the terms of names and descriptions) are not repeated.
"""

from __future__ import annotations

from agent_orchestrator.local_model.lexicon import Lexicon

RETAIL = Lexicon(
    greeting="Hello! Ask me about customers, segments, products, sales or trends in the retail data.",
    synonyms=(
        # Each group is led by the word our tools' fields and choices use; analysts say "best
        # sellers" and "biggest spenders", not "quantity" and "revenue".
        ("revenue", "spend", "spender", "sale", "money", "earn", "income", "turnover", "valuable"),
        ("quantity", "unit", "sell", "seller", "volume", "popular"),
        ("orders", "frequent", "often", "purchase"),
        ("recency", "recent", "recently", "lately", "since", "ago"),
        ("customer", "buyer"),
        ("retention", "retain"),
        ("avg order value", "aov"),
    ),
    # An id the user called a client's is a customer's, and fits no transaction_id (nor the other way).
    id_kinds={"client": "customer", "invoice": "transaction"},
)
