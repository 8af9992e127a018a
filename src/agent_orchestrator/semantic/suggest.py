"""A semantic model suggested from a file's profile: each column's role from its header and values,
and the metrics every sales table supports over those roles.

A suggestion, for an admin to confirm or change on the Data page: the words below are how exports
commonly name their columns (Shopify, WooCommerce, the Online Retail files, the Superstore sample,
spreadsheets), and the values decide what the words leave open (a numeric ``Postal Code`` is a
dimension, not a measure; a text column with a value per row is a key, not a dimension). Nothing here
knows a particular file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from pydantic import ValidationError

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic.english import is_english
from agent_orchestrator.semantic.model import (
    MAX_METRICS,
    MAX_SYNONYMS,
    Cancellation,
    Column,
    Entity,
    Kind,
    Metric,
    Role,
    SemanticModel,
    Unit,
    column_name,
)
from agent_orchestrator.semantic.profile import ColumnProfile, TableProfile
from agent_orchestrator.semantic.vocabulary import plurals, singular
from agent_orchestrator.semantic.written import CURRENCY_SYMBOLS

# Words of a header, by what they say about the column.
_ENTITY_WORDS: dict[Entity, tuple[str, ...]] = {
    Entity.order: ("order", "invoice", "transaction", "receipt", "basket", "deal", "opportunity"),
    Entity.customer: ("customer", "cust", "client", "buyer", "account", "member", "shopper"),
    Entity.product: ("product", "item", "sku", "stock", "article", "variant", "model"),
}
_ORDER_NOUNS = {"opportunity": ("deals", "opportunities"), "deal": ("deals", "opportunities")}
"""What a pipeline's opportunities are also called, counted: a deal is an opportunity."""
_KEY_WORDS = ("id", "key", "code", "no", "number", "num", "ref", "sku", "stockcode", "invoiceno")
_ID_WORDS = ("id", "key", "code", "ref", "sku")
"""The last word of a header that numbers things (a store, a sales team) rather than measures."""
_LABEL_WORDS = ("name", "description", "title", "desc")
_UNIT_WORDS = ("store", "shop", "branch", "outlet", "location", "site", "warehouse", "depot", "dept",
               "department", "region", "zone", "district", "territory", "team", "route", "machine",
               "terminal", "register", "till", "cluster", "area", "market")  # fmt: skip
"""A header that names a unit of the business: written as numbers ("Store" 1 to 45), it numbers them."""
_NUMBERED_MOST = 1000
"""The most distinct numbers a column of unit numbers has (a chain's stores, not its sales)."""
_SCORE_WORDS = ("rating", "score", "percentage", "percent", "pct", "rate", "ratio", "age", "stars",
                "temperature", "temp", "cpi", "unemployment", "humidity", "inflation")  # fmt: skip
"""A measure of each line that is a level, not an amount: its average means something, its sum not."""
_KIND_WORDS = ("type", "line", "category", "group", "segment", "class", "kind", "level", "tier", "status",
               "brand", "family", "range", "stage", "size", "outcome", "department", "dept", "division",
               "section", "aisle", "subcategory")  # fmt: skip
"""A kind of an entity, not the entity ("Customer type", "Product line"): something to group by."""
_TRAIT_WORDS = ("gender", "sex", "age", "city", "state", "country", "region", "postal", "zip", "postcode",
                "market", "territory", "area", "zone", "district", "province", "county",
                "continent")  # fmt: skip
"""What an entity is or where it is ("Customer_Gender", "Customer City"): a trait to group by, never
the entity's key."""
_PLACE_POINTS = frozenset(("lat", "lng", "lon", "long", "latitude", "longitude"))
"""Where a place is on a map: never summed, averaged or grouped by."""
_DATE_PARTS = frozenset(("day", "days", "month", "year", "quarter", "qtr", "week", "weekday", "dow"))
"""A part of a date written in a column of its own ("Month": November, "Year": 2015, "Day": 26)."""
_LINE_TOTAL_WORDS = ("sales", "revenue", "amount", "total", "subtotal", "turnover", "value", "gross", "net")
_PRICE_WORDS = ("price", "unitprice", "rate")
_QUANTITY_WORDS = ("quantity", "qty", "units", "count", "pieces")
_MONEY_WORDS = (
    *_LINE_TOTAL_WORDS,
    *_PRICE_WORDS,
    "profit",
    "cost",
    "margin",
    "tax",
    "shipping",
    "refund",
    "fee",
)
_PERCENT_WORDS = ("discount", "pct", "percent", "rate")
_LOSS_WORDS = frozenset(
    ("cost", "costs", "expense", "expenses", "refund", "refunds", "returns", "loss", "losses")
)
"""A measure of what is lost or spent: its best is its lowest."""
_NOT_MEASURE_WORDS = ("postal", "zip", "postcode", "phone", "year", "row", "index", "line")
_DIMENSION_SHARE = 0.5
"""A text column with distinct values for at most this share of the rows that write one is something to
group by (an export that writes an order's address on its first line only has few such rows)."""
_PROSE = 100
"""Characters a text column's values run to on average beyond which they are prose (notes, a log of
attributes), never a thing to group by: a list of ingredients runs to some 70."""
_UNIQUE_SHARE = 0.95
"""A column with (about) a value per row."""
_LISTED_SPELLINGS = 50
"""At most this many values written another way are listed in a column's model (``spellings``)."""
_FEW_ROWS = 100
"""Below this many rows the share says nothing: every text column is a dimension."""

SYNONYMS: dict[str, list[str]] = {
    "revenue": [
        "sales",
        "turnover",
        "takings",
        "income",
        "revenue",
        "money made",
        "how much we sold",
        "spent",
        "spend",
        "spending",
    ],
    "orders": ["orders", "purchases", "transactions", "invoices", "baskets", "receipts", "bills"],
    "lines": ["lines", "order lines", "line items", "rows", "records", "entries"],
    "customers": ["customers", "buyers", "clients", "shoppers"],
    "products": [
        "products",
        "items",
        "skus",
        "articles",
        "best seller",
        "best sellers",
        "bestseller",
        "bestsellers",
        "top seller",
        "top sellers",
        "worst seller",
        "worst sellers",
    ],
    "units": ["units", "quantity", "items sold", "pieces", "popular", "best selling", "best-selling"],
    "profit": ["profit", "earnings", "margin amount", "profitable", "profits", "make money", "made money"],
    "margin": ["margin", "profit margin", "profitability"],
    "average_order_value": [
        "aov",
        "average order value",
        "average basket",
        "basket size",
        "basket value",
        "order value",
        "average ticket",
        "ticket size",
        "average ticket size",
        "average basket size",
        "average order size",
        "order size",
        "avg ticket",
        "avg ticket size",
        "avg basket",
        "avg basket size",
        "avg order size",
        "average invoice",
        "average sale",
        "average transaction",
        "average deal size",
        "avg deal size",
        "average deal",
        "avg deal",
    ],
    "units_per_order": ["basket size in units"],
    "revenue_per_customer": ["revenue per customer", "spend per customer", "average spend"],
    "average_discount": ["discount", "average discount"],
    "gross_revenue": [
        "gross revenue",
        "gross sales",
        "sales before cancellations",
        "revenue before cancellations",
    ],
    "cancelled_revenue": [
        "cancelled revenue",
        "value of cancellations",
        "cancelled sales",
        "refunded amount",
    ],
    "cancelled_orders": [
        "cancellations",
        "cancelled orders",
        "canceled orders",
        "cancelled invoices",
        "refunds",
        "refunded orders",
        "returns",
    ],
    "cancellation_rate": ["cancellation rate", "cancel rate", "refund rate", "return rate"],
    "average_price": [
        "average price",
        "average unit price",
        "typical price",
        "usual price",
        "unit price",
        "price",
    ],
}


SYNONYMS["units_per_order"] += [  # "items per receipt", "pieces per transaction"
    f"{pieces} per {order.removesuffix('s')}"
    for pieces in ("items", "units", "pieces")
    for order in SYNONYMS["orders"]
]


KNOWN: dict[str, tuple[Role, Entity | None, str | None]] = {
    "order": (Role.key, Entity.order, None),
    "product": (Role.key, Entity.product, None),
    "product_name": (Role.label, Entity.product, None),
    "customer": (Role.key, Entity.customer, None),
    "time": (Role.time, None, None),
    "quantity": (Role.measure, None, "number"),
    "unit_price": (Role.measure, None, "money"),
    "line_total": (Role.measure, None, "money"),
    "country": (Role.dimension, None, None),
    "segment": (Role.dimension, None, None),
}
"""What a column an admin has already named is (an import's mapping: this header holds the order
number, that one the line total): it overrides what the header's words suggest."""


COLUMN_SYNONYMS: dict[str, list[str]] = {
    "postal code": ["zip", "zip code", "zipcode", "postcode"],
    "zip": ["postal code", "postcode"],
    "ship mode": ["shipping method", "shipping mode", "delivery method", "shipping"],
    "sub category": ["subcategory"],
    "state": ["province"],
    "city": ["town"],
    "region": ["area"],
    "segment": ["customer segment", "customer type"],
    "payment": ["payment method", "payment type", "method of payment", "paid with", "paid by"],
    "category": ["product category"],
    "company": ["brand", "manufacturer", "maker", "car make"],
    "brand": ["manufacturer", "maker"],
    "manufacturer": ["brand", "maker"],
    "body style": ["body type", "body", "style"],
    "product line": ["line", "product range", "range"],
    "territory": ["sales territory", "area"],
    "deal size": ["deal", "deal band"],
    "store": ["shop", "outlet", "branch", "location"],
    "branch": ["store", "shop", "outlet", "location"],
    "outlet": ["store", "shop", "branch", "location"],
    "mall": ["store", "shop", "shopping centre", "shopping center"],
    "salesperson": ["sales rep", "rep", "seller", "agent"],
    "sales person": ["salesperson", "sales rep", "rep", "seller", "agent"],
    "sales rep": ["salesperson", "sales person", "rep", "seller", "agent"],
    "sales agent": ["salesperson", "sales person", "sales rep", "rep", "seller", "agent"],
    "agent": ["salesperson", "sales rep", "rep", "seller"],
    "channel": ["sales channel", "sales method"],
    "sales method": ["channel", "sales channel", "method"],
    "retailer": ["retail partner", "account", "stockist", "dealer", "reseller"],
    "shop": ["store", "dealer", "retailer", "reseller", "stockist"],
    "dealer": ["dealership", "shop", "retailer", "reseller", "stockist"],
    "reseller": ["dealer", "retailer", "partner"],
    "province": ["state"],
    "place": ["location", "neighbourhood", "neighborhood", "district", "area"],
    "neighbourhood": ["neighborhood", "district", "area", "place"],
    "district": ["neighbourhood", "neighborhood", "area", "place"],
    "source": ["channel", "sales channel", "order source"],
}
"""Other words people use for a column, by its header's words: a suggestion, edited on the Data page."""
_QUALIFIERS = {
    "shipping": ["ship to", "shipped to", "delivery"],
    "ship": ["shipping", "ship to", "shipped to"],
    "billing": ["bill to", "billed to"],
}
"""Other words for what a column's head noun is of ("Shipping Province": the ship-to state)."""


def _levels(words: list[str], headers: set[str]) -> list[str]:
    """Levels of one hierarchy numbered in their headers ("category_1", "category_2", …): the first
    is the category itself, the second its sub-category."""
    if len(words) < 2 or not words[-1].isdigit():
        return []
    stem = " ".join(words[:-1])
    numbers = sorted(
        int(w[-1])
        for h in headers
        if len(w := header_words(h)) == len(words) and w[-1].isdigit() and " ".join(w[:-1]) == stem
    )
    if len(numbers) < 2:
        return []
    at = numbers.index(int(words[-1]))
    joined = stem.replace(" ", "")
    return (
        [[stem, f"main {stem}", f"top level {stem}"], [f"sub {stem}", f"sub{joined}"]][at] if at < 2 else []
    )


def _column_synonyms(words: list[str], headers: set[str]) -> list[str]:
    """Other words for a column with a header of ``words``: :data:`COLUMN_SYNONYMS`' for the whole
    header, or for its head noun after a qualifier ("Shipping Province Name": the shipping state, the
    ship-to state). A code beside a column of its names ("Shipping Province" beside "… Name") leaves
    the words to the names."""
    spoken = " ".join(words)
    if spoken in COLUMN_SYNONYMS:
        return COLUMN_SYNONYMS[spoken]
    levels = _levels(words, headers)
    if levels:
        return levels
    if any(" ".join(header_words(h)) == f"{spoken} name" for h in headers):
        return []
    head = words[:-1] if len(words) > 2 and words[-1] == "name" else words  # a qualifier, a noun, "name"
    for cut in range(1, len(head)):
        qualifier, noun = " ".join(head[:cut]), " ".join(head[cut:])
        if noun in COLUMN_SYNONYMS:
            leads = [qualifier, *_QUALIFIERS.get(qualifier, [])]
            nouns = [n for n in (noun, *COLUMN_SYNONYMS[noun]) if not set(head[:cut]) & set(n.split())]
            said = [f"{lead} {n}" for lead in leads for n in nouns if f"{lead} {n}" != spoken]
            return said[:MAX_SYNONYMS]
    return []


_PLANNED = {
    "budget": "budgeted",
    "plan": "planned",
    "target": "targeted",
    "forecast": "forecast",
    "goal": "goal",
    "quota": "quota",
}
"""What a file calls the figure it meant to reach ("BudgetSales", "Sales Target", "Forecast Profit"),
and how a figure planned so is said ("budgeted sales")."""
PLAN_WORDS = tuple(_PLANNED)


def _plans(metrics: list[Metric], columns: dict[str, Column]) -> list[tuple[Metric, Metric, str]]:
    """Each sum of a planned figure with the sum of the figure it plans and the word the file plans it
    with: "BudgetSales" and "Sales" (the revenue), "Profit Target" and "Profit"."""
    sums = {m.over: m for m in metrics if m.kind is Kind.sum and m.over and not m.times and not m.less}
    found = []
    for over, plan in sums.items():
        words = header_words(columns[over].source) if over in columns else []
        said = [w for w in words if w in PLAN_WORDS or w in _PLANNED.values()]
        rest = [w for w in words if w not in said]
        if len(said) != 1 or not rest:
            continue
        actual = next(
            (
                m
                for o, m in sums.items()
                if o != over and o in columns and header_words(columns[o].source) == rest
            ),
            None,
        )
        if actual is not None:
            found.append((plan, actual, next(p for p, ed in _PLANNED.items() if said[0] in (p, ed))))
    return found


def suggest_model(
    profile: TableProfile,
    dataset: str,
    *,
    currency: str | None = None,
    known: Mapping[str, str] | None = None,
) -> SemanticModel:
    """The model suggested for a file with ``profile``; ``known`` is :data:`KNOWN`'s field -> header
    for the columns someone has confirmed."""
    known = dict(known or {})
    by_header = {header: field for field, header in known.items()}
    columns = []
    for found in profile.columns:
        column = _column(found, profile.rows)
        if (field := by_header.get(found.header)) is not None:
            role, entity, unit = KNOWN[field]
            date_format = found.date_format if role is Role.time else None
            update = {
                "role": role,
                "entity": entity,
                "unit": unit,
                "date_format": date_format,
                "mapped": field,
            }
            column = column.model_copy(update=update)
        said = _column_synonyms(header_words(found.header), {p.header for p in profile.columns})
        if said and column.role is not Role.ignore:
            column = column.model_copy(update={"synonyms": said})
        if column.role is Role.time and (done := _done_on(column)):
            column = column.model_copy(update={"synonyms": [*column.synonyms, *done]})
        columns.append(column)
    columns = _row_key(_one_key_per_entity(_unique_names(_date_parts(columns))), profile)
    names = {column.source: column.name for column in columns}
    chosen = {field: names[header] for field, header in known.items() if header in names}
    cancellation = _cancellation(profile, columns)
    distinct = {found.header: found.distinct for found in profile.columns}
    orders = [c for c in columns if c.role is Role.key and c.entity is Entity.order]
    one_line_each = all(distinct.get(c.source, 0) >= profile.rows for c in orders)
    try:
        return SemanticModel(
            dataset=dataset,
            currency=currency or _currency_of(profile),
            columns=columns,
            metrics=default_metrics(
                columns,
                chosen,
                cancellation,
                one_line_per_order=one_line_each,
                things=_file_nouns(dataset, profile),
            ),
            cancellation=cancellation,
        )
    except ValidationError as error:  # never expected: said in one line, not as a server error
        first = error.errors()[0]["msg"] if error.errors() else str(error)
        raise InvalidInputError(f"The file's columns could not be modelled: {first}.") from error


_DATE_WORDS = frozenset({"date", "day", "time", "timestamp", "datetime", "at", "on", "dt"})


def _done_on(column: Column) -> list[str]:
    """What was done on a date, as a question says it ("close_date": close, closed; "engage_date":
    engaged; "Ship Date": shipped), so that "deals engaged in 2016" is of that date, not the
    model's time. None of an event's own noun ("Order Date": "ordered" is what every line was)."""
    words = [w for w in header_words(column.source) if w not in _DATE_WORDS]
    if len(words) != 1 or not words[0].isalpha() or len(words[0]) < 3:
        return []
    word = words[0]
    if _entity([word]) is not None or word in {"sale", "sales", "purchase", "payment", "transaction"}:
        return []
    done = [f"{word}d"] if word.endswith("e") else [f"{word}{word[-1]}ed", f"{word}ed"]
    return [w for w in [word, *done] if is_english(w)][:2]


def _date_parts(columns: list[Column]) -> list[Column]:
    """A column holding only a part of a file's date ("Month", "Year", "Day" beside "Date"; "Order
    Year" beside "Order Date") says nothing the date does not: months and years are asked of the
    date (with their year, "December 2015", never every December summed), and a day of the month is
    no amount to add up."""
    dates = [c for c in columns if c.role is Role.time and c.day_time != "time"]
    if not dates:
        return columns
    owners = {w for c in dates for w in header_words(c.source)} - _DATE_WORDS  # "order", "shipment"
    parted = []
    for column in columns:
        words = [
            w
            for w in header_words(column.source)
            if w not in ("name", "of", "the", "number", "no", "id") and w not in owners
        ]
        if column.role is not Role.time and words and set(words) <= _DATE_PARTS:
            column = column.model_copy(update={"role": Role.ignore, "entity": None})
        parted.append(column)
    return parted


_CANCELLED = frozenset({"cancelled", "canceled", "refunded", "returned", "voided", "void"})
"""A status that undoes an order ("refunded" in a web shop's export)."""
_CALLED_OFF = frozenset({"cancelled", "canceled", "voided", "void"})


def _cancellation(profile: TableProfile, columns: list[Column]) -> Cancellation | None:
    """What marks a cancellation in this file: a letter before some order numbers (the Online Retail
    layout's "C536379"), a date of cancelling, or a status column's "cancelled" or "refunded"."""
    found = dict(zip((p.header for p in profile.columns), profile.columns, strict=True))
    for column in columns:  # "Cancelled at": the date an order was cancelled, blank for the others
        words = header_words(column.source)
        if column.role is Role.time and words and words[0] in _CANCEL_WORDS:
            return Cancellation(column=column.name, written=True)
    for column in columns:
        seen = found.get(column.source)
        if seen is None:
            continue
        if column.role is Role.key and column.entity is Entity.order and seen.marked:
            return Cancellation(column=column.name, prefix=seen.marked)
        if column.role is Role.dimension and "status" in header_words(column.source):
            undone = [v for v in seen.samples if v.strip().lower() in _CANCELLED]
            # beside a "Cancelled", a "Returned" or "Refunded" is a status of its own, asked by its name
            values = [v for v in undone if v.strip().lower() in _CALLED_OFF] or undone
            if values:
                return Cancellation(column=column.name, values=values)
    return None


_CANCEL_WORDS = frozenset({"cancelled", "canceled", "cancellation", "cancel"})


def _gerund(word: str) -> str:
    """ "ship" -> "shipping", "deliver" -> "delivering": a date's word as people say the wait for it."""
    vowels = sum(1 for c in word if c in "aeiou")
    if vowels == 1 and len(word) >= 3 and word[-1] not in "aeiouwxy" and word[-2] in "aeiou":
        return word + word[-1] + "ing"
    return word.removesuffix("e") + "ing"


def _currency_of(profile: TableProfile) -> str | None:
    """The currency a file names in a column of its own ("Currency": "EUR" on every line), if one;
    else the one its amounts are written with ("$600,000 "), when they all carry the same symbol."""
    for column in profile.columns:
        if "currency" in header_words(column.header) and column.distinct == 1 and column.samples:
            code = column.samples[0].strip().upper()
            if re.fullmatch(r"[A-Z]{3}", code):
                return code
    symbols = {column.symbol for column in profile.columns if column.symbol}
    return CURRENCY_SYMBOLS[symbols.pop()] if len(symbols) == 1 else None


_FILE_WORDS = frozenset(("sales", "sale", "data", "dataset", "orders", "order", "orderlines", "lines", "line",
                         "report", "export", "transactions", "transaction", "retail", "sample", "store",
                         "shop", "online", "file", "final", "clean", "cleaned", "raw", "all", "full", "list",
                         "history", "records", "items", "products", "product", "customers", "customer",
                         "invoices", "invoice", "analysis", "details", "summary", "daily",
                         "monthly"))  # fmt: skip
"""Words of a file's name that say what it is a file of, never what it sells."""


def _file_nouns(dataset: str, profile: TableProfile) -> list[str]:
    """What the products are called, from the file's name when its values say it too
    ("bike_orderlines" of a shop whose categories are "E-Bikes", "Triathlon Bike": bikes), so "how
    many bikes did we sell" counts them."""
    found: list[str] = []
    written = {
        word
        for column in profile.columns
        if not column.numeric
        for value in column.samples
        for word in re.split(r"[^a-z]+", value.lower())
    }
    for word in header_words(dataset):
        one = singular(word)
        if len(one) < 3 or not one.isalpha() or word in _FILE_WORDS or one in _FILE_WORDS:
            continue
        if one in written or plurals(one)[0] in written:
            found += [plurals(one)[0], one]
    return found


def _own_nouns(label: Column | None, plural: str) -> list[str]:
    """What a shop calls the things it sells, from its name column's header ("pizza_name": pizzas,
    "Model Name": models): the products by their own noun ("how many Veggie pizzas")."""
    if label is None:
        return []
    nouns = [w for w in header_words(label.source) if w not in ("name", "title", "description", "desc")]
    if len(nouns) != 1 or f"{nouns[0]}s" == plural or nouns[0] in ("product", "item"):
        return []
    return [f"{nouns[0]}s", nouns[0]]


def header_words(header: str) -> list[str]:
    """A header's words: "CustomerID", "customer_id", "Customer ID" and "CUSTOMERID" are two each;
    "MQty" (a machine's quantity) is "m" and "qty"."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", header)  # CustomerID -> Customer ID
    spaced = re.sub(r"(?<![A-Za-z])([A-Z])(?=[A-Z][a-z])", r"\1 ", spaced)  # MQty -> M Qty
    return [part for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w for part in run_together(w)]


_PART = 3
"""The shortest word a run-together header is split into ("priceeach": price, each; never "pr", "ice")."""


def run_together(word: str) -> list[str]:
    """A header written as one word ("PRODUCTLINE", "QUANTITYORDERED", "contactlastname", an
    export's habit) in the English words it runs together, fewest first; the word itself when it is
    one, or when no split into two to four words of English reads it whole. Digits after it stay
    a word of their own ("ADDRESSLINE1")."""
    letters = word.rstrip("0123456789")
    digits = word[len(letters) :]
    if len(letters) < 2 * _PART + 2 or not letters.isalpha() or is_english(letters):
        return [word]
    best: dict[int, list[str]] = {0: []}
    for end in range(_PART, len(letters) + 1):
        for start in range(0, end - _PART + 1):
            if start in best and is_english(letters[start:end]):
                split = [*best[start], letters[start:end]]
                if end not in best or len(split) < len(best[end]):
                    best[end] = split
    parts = best.get(len(letters))
    if parts is None or not 2 <= len(parts) <= 4:
        return [word]
    return [*parts, *([digits] if digits else [])]


def _entity(words: list[str]) -> Entity | None:
    if _DATE_PARTS & set(words):  # "model_year": the year a model is of, no model
        return None
    for entity, names in _ENTITY_WORDS.items():
        if any(word in names or word.rstrip("s") in names for word in words):
            return entity
    return None


def _column(profile: ColumnProfile, rows: int) -> Column:
    column = _flag(profile) or _role(profile, rows)
    if column.role in (Role.label, Role.dimension) and (
        profile.respelled > _LISTED_SPELLINGS or (profile.respelled and not profile.spellings)
    ):  # "BENGALURU", "Bengaluru", … among thousands of cities: all folded, too many to list
        column = column.model_copy(update={"folded": True})
    elif profile.spellings and column.role in (Role.key, Role.label, Role.dimension):
        column = column.model_copy(update={"spellings": dict(profile.spellings)})
    header = profile.header.strip().strip("_")  # "_ProductID": an export's mark, not a word
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", header)
    if spaced != profile.header.strip():  # "StockCode" is said "stock code", "CustomerID" "customer ID"
        first, *rest = spaced.split()
        label = " ".join([first.capitalize(), *(w if w.isupper() else w.lower() for w in rest)])
        column = column.model_copy(update={"label": label[:80]})
    elif len(parts := run_together(header.lower())) > 1:  # "PRODUCTLINE": "Product line"
        column = column.model_copy(update={"label": " ".join(parts).capitalize()[:80]})
    return column


_FLAG_WORDS = ("flag", "is", "has", "indicator", "ind", "yn", "bool", "was", "did")
_YES_AND_NO = 2


def _flag(profile: ColumnProfile) -> Column | None:
    """A column of yes and no written 1 and 0 ("Holiday_Flag"): a dimension whose two values are
    said as people say them, "Holiday" and "Non-holiday", so that "holiday weeks", "excluding the
    holiday weeks" and "holiday vs non-holiday" name them. (One written TRUE and FALSE keeps its
    words: the vocabulary's ``flags`` read "B2B orders" as its TRUE.)"""
    if not (profile.whole and profile.distinct == _YES_AND_NO and profile.maximum == 1):
        return None
    name, words = column_name(profile.header), header_words(profile.header)
    thing = " ".join(w for w in words if w not in _FLAG_WORDS)
    if not thing:
        return Column(name=name, source=profile.header, role=Role.dimension)
    no = f"Not {thing}" if thing.endswith("ed") else f"Non-{thing}"
    return Column(
        name=name, source=profile.header, role=Role.dimension, spellings={"1": thing.capitalize(), "0": no}
    )


def role_of(profile: ColumnProfile, rows: int) -> tuple[Role, Entity | None]:
    """The role a column is suggested on its own, and the entity it names."""
    column = _role(profile, rows)
    return column.role, column.entity


def _role(profile: ColumnProfile, rows: int) -> Column:
    words = header_words(profile.header)
    name, source = column_name(profile.header), profile.header
    entity = _entity(words)
    if any(w in (*_KIND_WORDS, *_TRAIT_WORDS) for w in words) and not any(
        w in (*_KEY_WORDS, *_LABEL_WORDS) for w in words
    ):
        entity = None  # "Customer type" (Member, Normal) groups customers; it names none of them
    if profile.temporal:
        day_time = "time" if profile.type == "TIME" else "date_time" if profile.times_of_day else "date"
        return Column(
            name=name,
            source=source,
            role=Role.time,
            date_format=profile.date_format,
            day_time=day_time,
            monthly=profile.monthly,
            weekly=profile.weekly,
        )
    if profile.distinct >= rows * _UNIQUE_SHARE and any(w in ("row", "index") for w in words):
        return Column(name=name, source=source, role=Role.ignore)
    if words and (words[-1] in _PLACE_POINTS or words[-1] in ("url", "link", "website", "uri")):
        return Column(name=name, source=source, role=Role.ignore)  # a map's point, a web page: no figure
    if entity is None and any(w in ("description", "desc") for w in words) and not profile.numeric:
        entity = Entity.product  # "Description" beside a stock code: what the product is called
    if entity is not None and any(w in _LABEL_WORDS for w in words):
        return Column(name=name, source=source, role=Role.label, entity=entity)
    keyish = any(w in _KEY_WORDS for w in words) or not profile.numeric
    if entity is not None and keyish and not any(w in (*_MONEY_WORDS, *_QUANTITY_WORDS) for w in words):
        # "Invoice ID" is also said "invoice", "transaction_id" "transaction": an order's own noun (a
        # product's is no such name: "in stock" asks about inventory, not the "StockCode")
        own = " ".join(w for w in words if w not in _KEY_WORDS)
        synonyms = [own] if entity is Entity.order and own and own != entity.value else []
        return Column(name=name, source=source, role=Role.key, entity=entity, synonyms=synonyms)
    if profile.numeric and words and words[-1] in _ID_WORDS:  # "_StoreID", "Branch code": a thing's number
        return Column(name=name, source=source, role=Role.dimension)
    if profile.numeric and words and words[-1] in _UNIT_WORDS and _numbered(profile, rows):
        return Column(name=name, source=source, role=Role.dimension)  # "Store" 1 to 45: the store's number
    if profile.numeric and not any(w in _NOT_MEASURE_WORDS for w in words):
        unit = _measure_unit(words, profile)
        return Column(name=name, source=source, role=Role.measure, unit=unit)
    written = rows - profile.nulls
    coded = bool(words) and words[-1] in _ID_WORDS  # "Discount Code": many codes, each a thing to count
    lengths = [len(s) for s in profile.samples]
    if not profile.numeric and lengths and sum(lengths) / len(lengths) > _PROSE:
        return Column(name=name, source=source, role=Role.ignore)  # a note, a log of attributes
    if (
        profile.numeric
        or rows < _FEW_ROWS
        or profile.distinct <= (rows if coded else written) * _DIMENSION_SHARE
    ):
        return Column(name=name, source=source, role=Role.dimension)
    return Column(name=name, source=source, role=Role.ignore)  # free text: a value per row


def _numbered(profile: ColumnProfile, rows: int) -> bool:
    """Whether a numeric column holds few whole numbers, each on many rows: things' numbers."""
    return profile.whole and profile.distinct <= min(_NUMBERED_MOST, rows * _DIMENSION_SHARE)


def _measure_unit(words: list[str], profile: ColumnProfile) -> str:
    if any(w in _PERCENT_WORDS for w in words) and profile.maximum is not None and profile.maximum <= 1:
        return "percent"
    if any(w in _MONEY_WORDS for w in words):
        return "money"
    return "number"


def _row_key(columns: list[Column], profile: TableProfile) -> list[Column]:
    """Without an order number, a key of something no entity word names, with a value per row
    ("Car_id": C_CND_000001, ...), is what each line is: a sale of a car, its key the order's and its
    noun said for it ("how many cars were sold?"). A key a few rows share is a dimension already."""
    if any(c.role is Role.key and c.entity is Entity.order for c in columns):
        return columns
    found = {p.header: p for p in profile.columns}
    for at, column in enumerate(columns):
        words = header_words(column.source)
        seen = found.get(column.source)
        noun = [w for w in words if w not in _KEY_WORDS]
        if (
            column.role in (Role.ignore, Role.dimension)  # a small file's text columns are dimensions
            and seen is not None
            and seen.distinct >= profile.rows * _UNIQUE_SHARE
            and len(words) > len(noun) >= 1
            and not any(w in (*_LABEL_WORDS, "row", "index") for w in words)
        ):
            key = column.model_copy(
                update={"role": Role.key, "entity": Entity.order, "synonyms": [" ".join(noun)]}
            )
            return [*columns[:at], key, *columns[at + 1 :]]
    return columns


def _unique_names(columns: list[Column]) -> list[Column]:
    seen: dict[str, int] = {}
    unique = []
    for column in columns:
        count = seen.get(column.name, 0)
        seen[column.name] = count + 1
        unique.append(
            column if not count else column.model_copy(update={"name": f"{column.name}_{count + 1}"})
        )
    return unique


def _one_key_per_entity(columns: list[Column]) -> list[Column]:
    """A second key for an entity (a product's SKU beside its id) is a dimension of its own."""
    keyed: set[Entity] = set()
    kept = []
    for column in columns:
        if column.role is Role.key and column.entity is not None:
            if column.entity in keyed:
                column = column.model_copy(update={"role": Role.dimension, "entity": None})
            keyed.add(column.entity or Entity.order)
        kept.append(column)
    return kept


def _find(columns: list[Column], words: tuple[str, ...], unit: str | None = None) -> Column | None:
    for column in columns:
        fits = column.role is Role.measure and (unit is None or column.unit == unit)
        if fits and any(w in words for w in header_words(column.source)):
            return column
    return None


MOVED_WORDS = frozenset({"sold", "shipped", "ordered", "purchased", "bought", "delivered"})
"""A header's words for things that went ("Boxes Shipped", "Cases Sold"): its quantity."""
_EVENTS = {"shipped": "shipments", "delivered": "deliveries"}
"""What a line is, by the verb of its quantity's header ("Boxes Shipped": each line a shipment)."""


def _events(quantity: Column | None) -> list[str]:
    """What each line is, by its quantity's header ("Boxes Shipped": shipments)."""
    return [_EVENTS[w] for w in header_words(quantity.title) if w in _EVENTS] if quantity else []


def _counted_nouns(quantity: Column) -> list[str]:
    """What a quantity counts, by its header's own noun ("Boxes Shipped": "boxes", "boxes shipped")."""
    words = header_words(quantity.title)
    nouns = [w for w in words if w not in MOVED_WORDS and w not in _QUANTITY_WORDS and len(w) > 2]
    if len(nouns) != 1 or not nouns[0].endswith("s") or not set(words) & MOVED_WORDS:
        return []
    return [nouns[0], singular(nouns[0]), " ".join(words)]


_MOST = ("highest", "largest", "biggest", "max", "maximum")
_LEAST = ("lowest", "smallest", "min", "minimum")
_PLAIN_EXTREMES = ("max", "maximum", "min", "minimum")
"""Words for the largest or smallest value of one line: "highest" alone ranks the sum of a measure
that is summed ("the region with the highest profit"), "max" never does."""
_SUPERLATIVES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "age": (("oldest",), ("youngest",)),
    "price": (("most expensive", "priciest", "dearest"), ("cheapest", "least expensive")),
}
"""A measure's own words for its largest and smallest value, by a word of its header."""
_SOLD = ("sale", "transaction", "purchase", "order", "invoice", "receipt", "deal", "ticket")
"""What one line is, in a file whose every line is an order: "the biggest single sale"."""


_NET = ("net revenue", "net sales", "revenue net of discounts", "revenue after discounts", "net")
_GROSS = ("gross revenue", "gross sales", "revenue before discount", "sales before discounts",
          "list price revenue", "gross", "revenue at list price")  # fmt: skip
_DISCOUNTED = ("discount amount", "discount value", "amount discounted", "money discounted", "discount given",
               "discounts given", "give away in discounts", "gave away in discounts",
               "given away in discounts", "give away", "gave away", "given away", "discounts cost",
               "discount cost", "cost of discounts", "cost of the discounts",
               "lost to discounts")  # fmt: skip
_AMOUNT_WORDS = frozenset({"amount", "amt", "total", "value", "sum"})
_REFUND_WORDS = ("refunds", "refund", "refund amount", "refunded amount", "amount refunded", "money refunded")


def _refunds(word: str, refunded: Column | None) -> bool:
    """Whether ``word`` speaks of refunds ("refunded orders") in a file that records its own refunded
    amount: then they are that amount's, never the cancellations' a status or a date marks."""
    return refunded is not None and "refund" in word


def _amount_words(column: Column) -> list[str]:
    """How people name an amount of money a file records on its own ("Refunded Amount": what was
    refunded, the refunds; "Discount Amount": the discounts given), beyond its title."""
    words = [w for w in header_words(column.title) if w not in _AMOUNT_WORDS]
    if len(words) != 1 or len(words) == len(header_words(column.title)):
        return []
    (core,) = words
    if core.startswith("refund"):
        done = [
            "refunded",
            "we refunded",
            "was refunded",
            "been refunded",
            "total refunded",
            "refunded in total",
        ]
        return [*_REFUND_WORDS, *done]
    if core.startswith("discount"):
        return [*_DISCOUNTED, "discounts", "total discount", "discounts given"]
    if core.endswith("ed"):  # "Paid Amount": what was paid
        return [f"amount {core}", f"total {core}", f"{core} in total", f"was {core}"]
    return [f"{plurals(core)[0]}", f"total {core}"]


_ORDER_TOTAL_HEADERS = {("total",), ("order", "total"), ("grand", "total"), ("order", "amount")}
_ORDER_TOTAL = ("order total", "order totals", "order amount", "order amounts", "order dollars", "totals",
                "order money")  # fmt: skip
"""An order's total, said ("order $" is said too, but a question's words drop the "$": "order")."""
_COST = ("cost", "costs", "total cost", "cost of goods", "cost of goods sold", "cogs", "cost of sales")


def _is_unit_cost(column: Column) -> bool:
    """A cost of each unit ("Unit Cost", "cost_per_unit", "Cost Price"), not of the line."""
    words = header_words(column.title)
    return "cost" in words and bool({"unit", "each", "per", "price"} & set(words))


def _extremes(
    columns: list[Column], summed: set[str | None], sold: str | None, events: list[str] | None
) -> list[Metric]:
    """The largest and the smallest value of each measure on one line ("the oldest customer's age",
    "the most expensive unit price", "the biggest single sale"): metrics like any other, so they can
    be grouped, filtered and compared; the answer names the line that holds one. ``sold``: the
    line total's column, what a single sale came to; ``events``: what each line is besides a sale
    ("shipment"), when every line is an order (else ``None``: "the biggest single order" is the
    order whose lines come to most, a ranking of orders)."""
    found = []
    for column in (c for c in columns if c.role is Role.measure):
        said = list(dict.fromkeys([column.title.lower(), *column.synonyms]))
        words = header_words(column.title)
        most, least = (_PLAIN_EXTREMES[:2], _PLAIN_EXTREMES[2:]) if column.name in summed else (_MOST, _LEAST)
        ups = [f"{w} {s}" for s in said for w in most]
        downs = [f"{w} {s}" for s in said for w in least]
        for word, (high, low) in _SUPERLATIVES.items():
            if word in words:
                ups += [*high, *(f"{h} {s}" for h in high for s in said)]
                downs += [*low, *(f"{lo} {s}" for lo in low for s in said)]
        if column.name == sold:  # the line total: "the biggest single sale"
            nouns = [*_SOLD, *events] if events is not None else ["line", "item", "sale"]
            for noun in nouns:
                ups += [f"{w} single {noun}" for w in _MOST[:3]] + [f"most expensive {noun}"]
                downs += [f"{w} single {noun}" for w in _LEAST[:2]] + [f"cheapest {noun}"]
            if events is not None:  # every line an order: "the smallest deal we won" is one line's
                ups += [f"{w} {noun}" for noun in _SOLD[:-1] for w in _MOST[1:3]]
                downs += [f"smallest {noun}" for noun in _SOLD[:-1]]
        unit: Unit = "money" if column.unit == "money" else "ratio" if column.unit == "percent" else "number"
        # a summed measure's title is no "Highest profit" either: that names the region with most
        top, bottom = ("Max", "Min") if column.name in summed else ("Highest", "Lowest")
        for name, kind, title, also in (
            (f"max_{column.name}", Kind.maximum, top, ups),
            (f"min_{column.name}", Kind.minimum, bottom, downs),
        ):
            found.append(
                Metric(
                    name=name[:64],
                    kind=kind,
                    unit=unit,
                    label=f"{title} {column.title.lower()}",
                    over=column.name,
                    synonyms=list(dict.fromkeys(also))[:MAX_SYNONYMS],
                )
            )
    return found


_CORRELATIONS = 8
"""The most measures held against the rows' amount: one correlation metric each."""


def _spread(amount: Column, others: list[Column], period: str, add: Callable[..., None]) -> None:
    """Of a file whose rows are a ``period``'s figures (a store's week): the rows' average amount
    ("a typical week"), its standard deviation and its coefficient of variation ("which store has the
    most volatile weekly sales?"), and each other measure's correlation with it ("does temperature
    go with sales?")."""
    title = amount.title.lower()
    average, deviation = f"average_{amount.name}"[:64], f"deviation_{amount.name}"[:64]
    typical = [f"{w} {period}" for w in ("average", "avg", "typical", "normal", "usual")]
    add(average, Kind.average, "money", f"Average {title}", also=typical, over=amount.name)
    spread = [*(f"{w} of {title}" for w in _SPREAD), *_SPREAD]
    add(deviation, Kind.deviation, "money", f"Standard deviation of {title}", also=spread, over=amount.name)
    varied = f"Coefficient of variation of {title} (percent)"
    add(f"variation_{amount.name}"[:64], Kind.ratio, "ratio", varied, also=_VARIATION, numerator=deviation,
        denominator=average)  # fmt: skip
    for other in others[:_CORRELATIONS]:
        said = other.title.lower()
        add(f"correlation_{other.name}"[:64], Kind.correlation, "ratio",
            f"Correlation of {said} with {title}", also=[f"{said} correlation", f"correlation with {said}"],
            over=other.name, against=amount.name)  # fmt: skip


_SPREAD = ("standard deviation", "std dev", "stdev", "std deviation", "volatility", "variability", "volatile")
_VARIATION = ("coefficient of variation", "relative volatility", "relative variability", "cv")


def _days_between(first: Column, later: Column, cycle: bool = False) -> Metric:
    """The average days from a row's ``first`` date to a ``later`` one ("days to ship"); a
    ``cycle`` ends with the sale: the days from a deal's first contact to its close."""
    word = header_words(later.source)[0] if header_words(later.source) else later.name
    return Metric(
        name=column_name(f"days to {word}") if word != "days" else f"days_to_{later.name}",
        kind=Kind.days_between,
        unit="number",
        better="lower",  # the best days to ship are the fewest
        label=f"Days from {first.title.lower()} to {later.title.lower()}",
        over=later.name,
        since=first.name,
        synonyms=[
            f"days to {word}",
            f"time to {word}",
            f"{word} time",
            f"{_gerund(word)} time",
            f"days until {word}",
            *(["sales cycle", "cycle time", "cycle"] if cycle else ["lead time"]),
        ],
    )


def default_metrics(
    columns: list[Column],
    chosen: Mapping[str, str] | None = None,
    cancellation: Cancellation | None = None,
    *,
    one_line_per_order: bool = False,
    things: Sequence[str] = (),
) -> list[Metric]:
    """The metrics a sales table supports with these columns: revenue from a line total or from
    quantity x unit price, counts of its entities, units, profit and margin, averages, the largest
    and smallest value of each measure, and the first and last of each time column. ``chosen``:
    :data:`KNOWN`'s field -> column name, for the columns confirmed to be the quantity, the unit
    price or the line total (a header's words only guess); ``one_line_per_order``: the file's order
    numbers are one per line (a file without any has an order per line anyway); ``things``: what
    the products are also called (:func:`_file_nouns`)."""
    chosen = chosen or {}
    by_name = {column.name: column for column in columns}
    metrics: list[Metric] = []

    # A reversal line (the Online Retail layout's "C" invoice) is no order: orders, customers, units
    # and revenue before cancellations count the other lines. A status ("cancelled", "refunded")
    # marks an order that was placed: it counts as the file records it, as its revenue does.
    reversal = cancellation is not None and cancellation.prefix is not None
    kept = {"only": "kept"} if reversal else {}

    def add(
        name: str, kind: Kind, unit: str, label: str = "", also: Sequence[str] = (), **fields: str
    ) -> None:
        # a loss is better low: cancellations, and a measure of what is lost or spent ("Cost")
        lost = (
            fields.get("only") == "cancelled"
            or name == "cancellation_rate"
            or bool(_LOSS_WORDS & {*name.split("_")})
        )
        metrics.append(
            Metric(
                name=name,
                kind=kind,
                unit=unit,
                label=label,
                synonyms=[*SYNONYMS.get(name, []), *also],
                better="lower" if lost else "higher",
                **fields,
            )
        )

    if chosen:
        quantity, price, line_total = (
            by_name.get(chosen.get(field, "")) for field in ("quantity", "unit_price", "line_total")
        )
    else:
        quantity = _find(columns, _QUANTITY_WORDS)
        price = _find(columns, _PRICE_WORDS)
        line_total = _find(columns, _LINE_TOTAL_WORDS, "money")
    discount = next(  # "Discount Applied" 0.075: what each line sold for is its list price less that
        (c for c in columns if c.role is Role.measure and c.unit == "percent" and
         "discount" in header_words(c.title)), None)  # fmt: skip
    if line_total is not None:
        add("revenue", Kind.sum, "money", "Revenue", over=line_total.name)
        if discount is not None and {"gross", "list"} & set(header_words(line_total.source)):
            # "Gross Sales" beside a "Discount %": the file's own total stays the revenue, and what
            # the lines sold for after their discount is a figure of its own
            add("net_revenue", Kind.sum, "money", "Net revenue", also=_NET[1:], over=line_total.name,
                less=discount.name)  # fmt: skip
            add("amount_discounted", Kind.difference, "money", "Amount discounted", also=_DISCOUNTED,
                numerator="revenue", denominator="net_revenue")  # fmt: skip
    elif quantity is not None and price is not None:
        less = {"less": discount.name} if discount is not None else {}
        add("revenue", Kind.sum, "money", "Revenue", also=_NET if less else (), over=quantity.name,
            times=price.name, **less)  # fmt: skip
        if less:  # named apart from "discount", which stays the discount's own column
            add("list_revenue", Kind.sum, "money", "Revenue at list price", also=_GROSS,
                over=quantity.name, times=price.name)  # fmt: skip
            add("amount_discounted", Kind.difference, "money", "Amount discounted", also=_DISCOUNTED,
                numerator="list_revenue", denominator="revenue")  # fmt: skip
    elif price is not None and price.unit == "money":  # no quantity: a line is a unit sold (a car, a ticket)
        add("revenue", Kind.sum, "money", "Revenue", over=price.name)
    keys = {c.entity: c for c in columns if c.role is Role.key and c.entity is not None}
    labels = {c.entity: c for c in columns if c.role is Role.label and c.entity is not None}
    for entity, plural in (
        (Entity.order, "orders"),
        (Entity.customer, "customers"),
        (Entity.product, "products"),
    ):
        counted = keys.get(entity) or labels.get(entity)
        if counted is not None:
            # what was bought: a cancelled order is no order, its customer no buyer, its units none sold
            nouns = (
                [*_own_nouns(labels.get(entity) or keys.get(entity), plural), *things]
                if entity is Entity.product
                else []
            )
            add(
                plural,
                Kind.count_distinct,
                "count",
                plural.capitalize(),
                also=nouns,
                over=counted.name,
                **kept,
            )
            if entity is Entity.order and counted.synonyms:  # "receipts", "tickets", "cars": counted
                said = [
                    said
                    for noun in counted.synonyms
                    for said in (plurals(noun)[0], *_ORDER_NOUNS.get(noun, ()))
                    if said not in metrics[-1].synonyms
                ]
                metrics[-1] = metrics[-1].model_copy(update={"synonyms": [*metrics[-1].synonyms, *said]})
    order = keys.get(Entity.order) or labels.get(Entity.order)
    # a month's or a week's figures a row (dated on the 1st of each month, on each Friday): its rows
    # are no orders, no units
    totals = order is None and any(c.role is Role.time and c.each_row for c in columns)
    if totals:
        add("rows", Kind.rows, "count", "Rows", also=SYNONYMS["lines"])
    elif order is None:  # no order number: each line is an order (a file of one line per purchase)
        add("orders", Kind.rows, "count", "Orders", **kept)
        rows = metrics[-1]  # its lines are its rows: "how many rows?"; "shipments" of "Boxes Shipped"
        events = [e for event in _events(quantity) for e in (event, singular(event))]
        metrics[-1] = rows.model_copy(update={"synonyms": [*rows.synonyms, *SYNONYMS["lines"], *events]})
    else:
        add("lines", Kind.rows, "count", "Order lines")
    if quantity is not None:  # "Boxes Shipped": the units are boxes
        add("units", Kind.sum, "number", "Units", also=_counted_nouns(quantity), over=quantity.name, **kept)
    elif not totals and _find(columns, _QUANTITY_WORDS) is None and any(m.name == "revenue" for m in metrics):
        add("units", Kind.rows, "count", "Units", **kept)  # no quantity at all: a line is a unit sold
    if price is not None and price.role is Role.measure:
        # "what does it usually sell at?": the price of a line, averaged over the lines sold
        add("average_price", Kind.average, "money", f"Average {price.title.lower()}", over=price.name, **kept)
    revenue = next((m for m in metrics if m.name == "revenue"), None)
    if cancellation is not None and revenue is not None:
        sums = {"over": str(revenue.over), **({"times": revenue.times} if revenue.times else {})}
        orders = {"over": order.name} if order else {}  # without an order number, its lines
        kind = Kind.count_distinct if order else Kind.rows
        if reversal:
            add("gross_revenue", Kind.sum, "money", "Gross revenue", **sums, **kept)
        add("cancelled_revenue", Kind.sum, "money", "Cancelled revenue", **sums, only="cancelled")
        add("cancelled_orders", kind, "count", "Cancelled orders", **orders, only="cancelled")
        if reversal:
            add("all_orders", kind, "count", "Orders placed and cancelled", **orders)
        add("cancellation_rate", Kind.ratio, "ratio", "Cancellation rate", numerator="cancelled_orders",
            denominator="all_orders" if reversal else "orders")  # fmt: skip
    measures = [c for c in columns if c.role is Role.measure and c not in (quantity, price, line_total)]
    # a web shop's "Total" beside its lines' prices: what each order came to with its shipping, taxes
    # and discounts (written on the order's first line), the amount an order's value is of
    order_total = next(
        (c for c in measures if c.unit == "money" and tuple(header_words(c.title)) in _ORDER_TOTAL_HEADERS),
        None,
    )
    if order is None or line_total is not None:
        order_total = None
    # "Operating Profit", "Gross Profit": the file's profit, when no column is called so; a "Margin"
    # column is a rate of it, recomputed from the profit and the sales, never summed
    profit = by_name.get("profit") or next(
        (c for c in measures if "profit" in (w := header_words(c.title)) and "margin" not in w), None
    )
    margins = [c for c in measures if "margin" in header_words(c.title)]
    # "Unit Cost" beside a quantity: what the units sold cost, and the profit is what is left of revenue
    unit_cost = next((c for c in measures if c.unit == "money" and _is_unit_cost(c)), None)
    line_cost = any("cost" in header_words(c.title) and c is not unit_cost for c in measures)
    owned: set[str] = set()  # the words of an amount the file records itself
    refunded: Column | None = None  # a "Refunded Amount": refunds are its
    for column in measures:
        if column is unit_cost:  # a cost of each unit is averaged, never summed
            if quantity is not None and not line_cost:  # a "Cost" of its own is the cost
                add("cost", Kind.sum, "money", "Cost", also=_COST, over=quantity.name, times=column.name)
            add(f"average_{column.name}", Kind.average, "money", f"Average {column.title.lower()}",
                over=column.name)  # fmt: skip
        elif column is profit and column.name != "profit":
            also = [*SYNONYMS["profit"], column.title.lower()]
            add(column.name, Kind.sum, "money", column.title, also=also, over=column.name)
        elif column in margins and profit is not None:
            continue  # the margin is the profit's over the sales (below)
        elif column.unit == "percent":
            add(f"average_{column.name}", Kind.average, "ratio", f"Average {column.title.lower()}",
                over=column.name)  # fmt: skip
        elif any(w in _SCORE_WORDS for w in header_words(column.title)):  # "Rating": averaged, never summed
            level = column.title.lower()  # "the unemployment rate", "CPI level": the level itself
            also = [f"{level} {w}" for w in ("rate", "level", "index") if w not in level.split()]
            add(column.name, Kind.average, "number", f"Average {level}", also=also, over=column.name)
        elif column is order_total:
            add(column.name, Kind.sum, "money", column.title, also=_ORDER_TOTAL, over=column.name)
        elif column.unit == "money" and (said := _amount_words(column)):
            add(column.name, Kind.sum, "money", column.title, also=said, over=column.name)
            owned.update(said)
            refunded = column if _REFUND_WORDS[0] in said else refunded
        elif column.unit == "money" or column.unit == "number":
            costs = _COST if set(header_words(column.title)) & {"cost", "costs", "cogs"} else ()  # "of goods"
            add(column.name, Kind.sum, column.unit or "number", column.title, also=costs, over=column.name)
    for typical in (order_total, line_total, price):  # "the median order total": skewed figures' middle
        if typical is not None and typical.role is Role.measure:
            said = [typical.title.lower(), *(_ORDER_TOTAL[:2] if typical is order_total else ())]
            add(f"median_{typical.name}"[:64], Kind.median, typical.unit or "number",
                f"Median {typical.title.lower()}", also=[f"median {w}" for w in said],
                over=typical.name)  # fmt: skip
    if refunded is not None and any(m.name == "revenue" for m in metrics):
        # what share of the money taken was given back: of the orders' totals where the file has them
        rate = ("refund rate", "refund %", "% refunded", "share refunded", "refunded share")
        add("refund_rate", Kind.ratio, "ratio", "Refund rate", also=rate, numerator=refunded.name,
            denominator=order_total.name if order_total is not None else "revenue")  # fmt: skip
        owned.update(rate)
    metrics = [  # "refunds" of a file with a "Refunded Amount" are that amount, not its cancellations
        m
        if m.over in {c.name for c in measures}
        else m.model_copy(
            update={"synonyms": [w for w in m.synonyms if w not in owned and not _refunds(w, refunded)]}
        )
        for m in metrics
    ]
    names = {m.name for m in metrics}
    if profit is None and {"revenue", "cost"} <= names and "profit" not in names:
        add("profit", Kind.difference, "money", "Profit", numerator="revenue", denominator="cost")
        names.add("profit")
    for plan, actual, word in _plans(metrics, by_name):  # "BudgetSales" beside "Sales": plan and actual
        base = actual.label.lower() if actual.name != "revenue" else "sales"
        said = [
            f"{base} {word}",
            f"{word} {base}",
            f"{base} {word}s",
            f"{_PLANNED[word]} {base}",
            f"{base} {word} figure",
        ]
        at = metrics.index(plan)
        metrics[at] = plan.model_copy(update={"synonyms": [*plan.synonyms, *said]})
        variance = [f"{base} vs {word}", f"{base} versus {word}", f"{base} against {word}"]
        variance += [f"{base} variance", f"{base} {word} variance", f"variance to {base} {word}"]
        add(f"{actual.name}_vs_{plan.name}"[:64], Kind.difference, actual.unit, f"{actual.title} vs {word}",
            also=variance, numerator=actual.name, denominator=plan.name)  # fmt: skip
    if "units" in names and "products" not in names:  # no product counted: "items" are the units
        at = next(i for i, m in enumerate(metrics) if m.name == "units")
        metrics[at] = metrics[at].model_copy(update={"synonyms": [*metrics[at].synonyms, "items"]})
    if "revenue" in names and "profit" not in names:  # no profit: the money a shop makes is its takings
        at = next(i for i, m in enumerate(metrics) if m.name == "revenue")
        money = ["money", "make money", "made money", "makes money"]
        metrics[at] = metrics[at].model_copy(update={"synonyms": [*metrics[at].synonyms, *money]})
    if "revenue" in names:
        earned = profit.name if profit is not None else "profit"
        if earned in names:
            also = [c.title.lower() for c in margins]  # "operating margin": total profit over total sales
            add("margin", Kind.ratio, "ratio", "Profit margin", also=also, numerator=earned,
                denominator="revenue")  # fmt: skip
        order_value = "gross_revenue" if "gross_revenue" in names else "revenue"
        if order_total is not None:  # what each order came to, as the shop totals it
            order_value = order_total.name
        if "orders" in names:
            add(
                "average_order_value",
                Kind.ratio,
                "money",
                "Average order value",
                numerator=order_value,
                denominator="orders",
            )
        if "customers" in names:
            add(
                "revenue_per_customer",
                Kind.ratio,
                "money",
                "Revenue per customer",
                numerator="revenue",
                denominator="customers",
            )
    if "units" in names and "revenue" in names and price is None:
        # no price column: what a unit sold for, on average ("revenue per box" of "Boxes Shipped")
        nouns = _counted_nouns(quantity)[:2] if quantity is not None else []
        per = [f"{lead} per {noun}" for noun in ["unit", *nouns] for lead in ("revenue", "price", "sales")]
        per += [f"per {noun}" for noun in nouns]  # "the best $ per box"
        add("revenue_per_unit", Kind.ratio, "money", "Revenue per unit", also=[*per, "average price"],
            numerator="revenue", denominator="units")  # fmt: skip
    if "units" in names and "orders" in names:
        add(
            "units_per_order",
            Kind.ratio,
            "number",
            "Units per order",
            numerator="units",
            denominator="orders",
        )
    summed = {m.over for m in metrics if m.kind is Kind.sum} | {m.times for m in metrics if m.times}
    events = [singular(event) for event in _events(quantity)]
    sold = revenue.over if revenue is not None and revenue.times is None else None
    if sold is not None and totals:  # a row is a store's week: how its weeks swing, what they go with
        period = next(str(c.each_row) for c in columns if c.role is Role.time and c.each_row)
        _spread(by_name[sold], [c for c in columns if c.role is Role.measure and c.name != sold], period, add)
    lines = [c for c in columns if c not in margins or profit is None]  # a rate of the profit: not a line's
    extremes = _extremes(lines, summed, sold, events if order is None or one_line_per_order else None)
    times = [c for c in columns if c.role is Role.time and c.day_time != "time"]
    main = next((c for c in times if c.mapped == "time"), times[0] if times else None)
    # "days to ship": from the order date (else the row's first) to each date after it in the file;
    # from each date before it to the sale ("engage_date" of a deal closed on "close_date"): a cycle
    if main is not None:
        metrics += [_days_between(main, later) for later in times[times.index(main) + 1 :]]
        metrics += [_days_between(earlier, main, cycle=True) for earlier in times[: times.index(main)]]
    for column in times:
        # "when did they last order?", "their most recent purchase": the event the date is of
        event = column.title.lower().removesuffix(" date").removesuffix(" day").strip()
        events = [event] if event != column.title.lower() else []
        if event == "order" or column is main:  # a sales table's own date is its orders'
            events = list(dict.fromkeys([*events, "order", "purchase", "date", "day", "sale"]))
        for name, kind, title, words in (
            ("first", Kind.minimum, "First", ("first", "earliest")),
            ("last", Kind.maximum, "Last", ("last", "latest", "most recent")),
        ):
            metrics.append(
                Metric(
                    name=f"{name}_{column.name}",
                    kind=kind,
                    unit="date",
                    label=f"{title} {column.title.lower()}",
                    over=column.name,
                    synonyms=[f"{word} {e}" for e in events for word in words],
                    **kept,  # a cancellation is no order: the last order is the last one kept
                )
            )
    first: dict[str, Metric] = {}  # of two of one name, the first ("cost" of a "Cost" column)
    for metric in [*metrics, *extremes]:
        first.setdefault(metric.name, metric)
    unique = {id(m) for m in first.values()}
    metrics, extremes = [m for m in metrics if id(m) in unique], [m for m in extremes if id(m) in unique]
    return [*metrics, *extremes[: max(0, MAX_METRICS - len(metrics))]]  # a wide file: those that fit
