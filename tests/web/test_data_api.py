"""The Data page's API over HTTP (docs/architecture.md#the-data-page, #roles): an admin uploads a CSV
file, confirms its mapping and imports it in the background, reads the report and the skipped rows,
restores a version and changes the settings; an analyst sees the facts and gets an audited 403 on
every management route; bad files, a second import and the size limit each get one clear answer and
change nothing."""

from __future__ import annotations

import codecs
import csv
import io
import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from chat_helpers import answer, events, send
from sales_csv import sales_csv

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.sessions.store import AuditLog, make_engine
from agent_orchestrator.testing.eventually import eventually
from agent_orchestrator.testing.scripted_model import Text, ToolCall
from agent_orchestrator.web.deps import ADMINS_ONLY
from agent_orchestrator.web.guard import too_large
from agent_orchestrator.web.uploads import UPLOAD_MAX_BYTES

SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)
UPLOADS = "/api/datasets/uploads"
ANALYZE = "retail-analytics-analyze_sales"
# Every route that manages the data, as an analyst would call it (ids need not exist: the role is
# checked first).
MANAGEMENT = [
    ("PATCH", "/api/datasets/settings", {"name": "Mine"}),
    ("POST", UPLOADS, None),
    ("DELETE", f"{UPLOADS}/some-upload", None),
    ("POST", f"{UPLOADS}/some-upload/read", {"format": {}}),
    ("POST", "/api/datasets/imports", {"upload_id": "x", "mapping": {}}),
    ("GET", "/api/datasets/imports/current", None),
    ("POST", "/api/datasets/imports/some-job/cancel", None),
    ("POST", "/api/datasets/versions/default/activate", None),
    ("GET", "/api/datasets/versions/default/skipped.csv", None),
]


@pytest.fixture
def data_app(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """The app with a small generated dataset as version zero; alice (the first account) is the
    admin, bob an analyst."""
    generate_dataset(tmp_path / "retail.sqlite", SMALL_RETAIL)
    return request.getfixturevalue("start_app")(retail_dataset=True)


def upload(client: httpx.Client, path: Path, name: str | None = None) -> httpx.Response:
    return client.post(
        UPLOADS,
        params={"name": name or path.name},
        content=path.read_bytes(),
        headers={"Content-Type": "text/csv"},
    )


def import_and_wait(client: httpx.Client, preview: dict[str, Any], **body: Any) -> dict[str, Any]:
    started = client.post(
        "/api/datasets/imports",
        json={
            "upload_id": preview["upload_id"],
            "mapping": preview["mapping"],
            "format": preview["format"],
            **body,
        },
    )
    assert started.status_code == 202, started.text
    return wait_for_end(client, started.json()["id"])


def wait_for_end(client: httpx.Client, job_id: str) -> dict[str, Any]:
    def ended() -> dict[str, Any]:
        job = client.get("/api/datasets/imports/current").json()["job"]
        assert job["id"] == job_id and job["state"] != "running"
        return job

    return eventually(ended, timeout=120)


def audit_actions(app: Any) -> Callable[[], list[str]]:
    def actions() -> list[str]:
        engine = make_engine(app.web.database_url)
        try:
            return [event.action for event in reversed(AuditLog(engine).recent(limit=1000))]
        finally:
            engine.dispose()

    return actions


def test_an_admin_uploads_maps_imports_downloads_the_skipped_rows_and_restores(
    data_app, tmp_path: Path
) -> None:
    alice = data_app.client("alice")
    assert alice.get("/api/auth/me").json()["user"]["role"] == "admin"
    before = alice.get("/api/datasets").json()
    assert (before["version_id"], before["rows"], before["importing"]) == ("default", 6_000, False)

    answered = upload(alice, sales_csv(tmp_path / "orders.csv", 500, without_customer={0, 8, 44}))
    assert answered.status_code == 201, answered.text
    preview = answered.json()
    assert preview["layout"] == "Online Retail" and preview["remembered"] is False
    assert preview["mapping"]["customer_id"] == "CustomerID" and len(preview["rows"]) == 10
    assert preview["format"]["delimiter"] == ","

    job = import_and_wait(alice, preview)
    assert job["state"] == "finished", job
    report = job["report"]
    assert (report["rows_read"], report["imported"], report["skipped"]) == (500, 497, 3)
    assert sum(report["skipped_by_reason"].values()) == 3
    assert (report["customers"], report["first_date"], report["last_date"]) == (
        20,
        "2011-01-01",
        "2011-01-22",
    )
    assert (report["products"], report["countries"], report["cancellations"]) == (30, 4, 0)
    assert job["progress"]["rows_read"] == 500

    skipped = alice.get(f"/api/datasets/versions/{report['version_id']}/skipped.csv")
    assert skipped.status_code == 200 and skipped.headers["content-type"].startswith("text/csv")
    assert "attachment" in skipped.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(skipped.text)))
    assert [row["line"] for row in rows] == ["2", "10", "46"]  # the header is line 1

    facts = alice.get("/api/datasets").json()
    assert (facts["version_id"], facts["rows"], facts["last_import_by"]) == (
        report["version_id"],
        497,
        "alice",
    )
    versions = alice.get("/api/datasets/versions").json()["items"]
    newest = versions[0]
    assert (newest["source_name"], newest["mode"], newest["active"]) == ("orders.csv", "replace", True)

    # The same source again: the mapping confirmed last time is pre-filled.
    again = upload(alice, sales_csv(tmp_path / "more.csv", 40)).json()
    assert again["remembered"] is True
    assert alice.delete(f"{UPLOADS}/{again['upload_id']}").status_code == 204

    restored = alice.post("/api/datasets/versions/default/activate")
    assert restored.status_code == 200 and restored.json()["active"] is True
    assert alice.get("/api/datasets").json()["rows"] == 6_000
    assert audit_actions(data_app)()[-6:] == [
        "data_upload",
        "data_import_start",
        "data_import_done",
        "data_switch",
        "data_upload",
        "data_restore",
    ]


# Yen prices with a thousands comma ("1,250": detected as a decimal comma, 1.25) and dates no
# known format reads: the admin corrects both.
YEN = "Order;SKU;Item;Qty;Date;Price;Customer;Country\n" + "".join(
    f"T{100 + i // 2};K{i % 3};Teacup {i};{1 + i % 2};{1 + i:02d} Mar 2024 10:{i:02d};"
    f"{'1,250' if i % 3 else '12,000'};{7 + i % 4};Japan\n"
    for i in range(12)
)


def test_an_admin_corrects_how_the_file_is_read_and_it_is_remembered(data_app, tmp_path: Path) -> None:
    """Decimal mark, thousands separator, delimiter and a typed date format: the preview is read again
    with them; a reading that cannot be is one 422 and the upload stays as it was read before; the
    import uses the correction, and the next file of the source comes read that way."""
    alice = data_app.client("alice")
    (tmp_path / "yen.csv").write_text(YEN)
    preview = upload(alice, tmp_path / "yen.csv").json()
    assert (preview["format"]["delimiter"], preview["format"]["decimal"]) == (";", ",")
    assert preview["problems"] == ["the dates in 'Date' fit no known format (e.g. '01 Mar 2024 10:00')"]
    read = f"{UPLOADS}/{preview['upload_id']}/read"

    fmt = {**preview["format"], "decimal": ".", "thousands": ","}
    for body, detail in [
        (
            {"format": {**fmt, "date_format": "%Y-%m-%d"}},
            "the date format '%Y-%m-%d' reads none of the dates in 'Date' (e.g. '01 Mar 2024 10:00')",
        ),
        ({"format": {**fmt, "date_format": "%d %b %Y"}}, "the date format '%d %b %Y' reads none"),
        ({"format": {**fmt, "date_format": "dd.mm.yyyy"}}, "A date format is a strptime pattern"),
        ({"format": {**fmt, "thousands": "."}}, "The decimal mark must differ"),
        ({"format": {**fmt, "delimiter": "|"}}, "yen.csv is not a CSV file with a header"),
        ({"format": {**fmt, "encoding": "rot13"}}, "Unknown encoding 'rot13'."),
        ({"format": {**fmt, "encoding": "idna"}}, "Unknown encoding 'idna'."),
    ]:
        refused = alice.post(read, json=body)
        assert refused.status_code == 422 and refused.json()["detail"].startswith(detail), refused.text
    reread = alice.post(
        read, json={"format": {**fmt, "date_format": "%d %b %Y %H:%M"}, "date_column": "Date"}
    )
    assert reread.status_code == 200, reread.text
    again = reread.json()
    assert again["format"] == {**fmt, "date_format": "%d %b %Y %H:%M"}
    assert (again["problems"], again["header"], again["upload_id"]) == (
        [],
        preview["header"],
        preview["upload_id"],
    )
    # The delimiter: a comma reads the header as one column (refused above); a semicolon as before.
    assert alice.post(read, json={"format": {**fmt, "delimiter": ","}}).status_code == 422

    job = import_and_wait(alice, again)
    assert job["state"] == "finished", job
    report = job["report"]
    assert (report["imported"], report["first_date"], report["last_date"]) == (12, "2024-03-01", "2024-03-12")
    assert (report["customers"], report["products"], report["cancellations"]) == (4, 3, 0)
    lines = alice.get("/api/retail/transactions", params={"limit": 50}).json()["items"]
    assert sorted({line["unit_price"] for line in lines}) == [1250.0, 12000.0]
    remembered = upload(alice, tmp_path / "yen.csv").json()
    assert remembered["remembered"] is True
    assert remembered["format"] == again["format"] and remembered["problems"] == []


def test_each_file_of_a_source_is_read_in_its_own_encoding(data_app, tmp_path: Path) -> None:
    """A remembered reading keeps the mapping and the admin's choices, never the last file's encoding:
    ASCII, then cp1252 with "Crème £5", then UTF-8, then Excel's UTF-16 "Unicode text", all of one
    source; each preview says which encoding it detected, and each import stores "Crème £5"."""
    alice = data_app.client("alice")
    plain = sales_csv(tmp_path / "plain.csv", 40).read_text()
    accented = plain.replace("Product P001", "Crème £5")

    def descriptions() -> set[str]:
        lines = alice.get("/api/retail/transactions", params={"limit": 100}).json()["items"]
        return {line["description"] for line in lines}

    first = upload(alice, tmp_path / "plain.csv").json()
    assert first["format"]["encoding"] == "utf-8"
    assert import_and_wait(alice, first)["state"] == "finished"

    for name, data, encoding in [
        ("windows.csv", accented.encode("cp1252"), "cp1252"),
        ("unix.csv", accented.encode("utf-8"), "utf-8"),
        ("windows-again.csv", accented.encode("cp1252"), "cp1252"),
        ("unicode.txt", codecs.BOM_UTF16_LE + accented.replace(",", "\t").encode("utf-16-le"), "utf-16"),
    ]:
        (tmp_path / name).write_bytes(data)
        answered = upload(alice, tmp_path / name)
        assert answered.status_code == 201, answered.text
        preview = answered.json()
        # The tab-separated file cannot be read with the source's remembered comma: read as detected.
        remembered = encoding != "utf-16"
        assert (preview["remembered"], preview["format"]["encoding"]) == (remembered, encoding), name
        assert "Crème £5" in {row[2] for row in preview["rows"]}, preview["rows"]
        job = import_and_wait(alice, preview)
        assert job["state"] == "finished", job
        assert "Crème £5" in descriptions(), name
        assert not {text for text in descriptions() if "\ufffd" in text or "Ã" in text}, name


def test_an_admin_changes_the_settings_and_the_segments_are_recomputed(data_app) -> None:
    alice = data_app.client("alice")

    def at_risk() -> int:
        overview = alice.get("/api/retail/segments").json()
        return next(s["customers"] for s in overview["segments"] if s["segment"] == "At Risk")

    before = at_risk()
    assert alice.get("/api/datasets").json()["money"] == {"prefix": "", "suffix": ""}  # none named
    changed = alice.patch(
        "/api/datasets/settings",
        json={
            "name": "Corner shop",
            "currency": "EUR",
            "segment_rules": {"active_days": 30, "high_value_quintile": 4},
        },
    )
    assert changed.status_code == 200, changed.text
    facts = changed.json()
    assert (facts["name"], facts["currency"], facts["segment_rules"]) == (
        "Corner shop",
        "EUR",
        {"active_days": 30, "high_value_quintile": 4},
    )
    bad = alice.patch(
        "/api/datasets/settings", json={"segment_rules": {"active_days": 30, "high_value_quintile": 9}}
    )
    assert bad.status_code == 422
    assert alice.get("/api/datasets").json()["name"] == "Corner shop"
    assert audit_actions(data_app)()[-1] == "data_settings"
    assert at_risk() > before  # the pages read the new version: a 30-day window puts more At Risk

    # The pages write every amount with the facts' money format, the answers' convention.
    assert alice.get("/api/datasets").json()["money"] == {"prefix": "€", "suffix": ""}
    assert alice.patch("/api/datasets/settings", json={"currency": "CHF"}).json()["money"] == {
        "prefix": "",
        "suffix": " CHF",
    }
    cleared = alice.patch("/api/datasets/settings", json={"currency": None}).json()
    assert (cleared["currency"], cleared["money"]) == (None, {"prefix": "", "suffix": ""})


def test_an_analyst_sees_the_facts_and_every_management_route_refuses_them_audited(
    data_app, tmp_path: Path
) -> None:
    bob = data_app.client("bob")
    assert bob.get("/api/auth/me").json()["user"]["role"] == "analyst"
    assert bob.get("/api/datasets").status_code == 200
    assert bob.get("/api/datasets/versions").status_code == 200
    for method, path, body in MANAGEMENT:
        response = (
            bob.request(method, path, json=body) if body else bob.request(method, path, content=b"a,b\n")
        )
        assert (response.status_code, response.json()) == (403, {"detail": ADMINS_ONLY}), (method, path)
    assert audit_actions(data_app)().count("forbidden") == len(MANAGEMENT)
    # Without a login, or without the CSRF token, nothing is reached either (the admin's own client).
    anonymous = httpx.Client(base_url=data_app.url)
    assert anonymous.get("/api/datasets").status_code == 401
    alice = data_app.client("alice")
    del alice.headers["X-CSRF-Token"]
    refused = upload(alice, sales_csv(tmp_path / "x.csv", 5))
    assert (refused.status_code, refused.json()["detail"]) == (403, "Missing or wrong CSRF token.")


def test_bad_files_and_mappings_get_one_message_and_change_nothing(data_app, tmp_path: Path) -> None:
    alice = data_app.client("alice")
    (tmp_path / "photo.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" * 1000)
    (tmp_path / "empty.csv").write_bytes(b"")
    for name, detail in [
        ("photo.csv", "photo.csv is not a CSV file: it holds binary data"),
        ("empty.csv", "empty.csv is empty: expected a CSV file with a header"),
    ]:
        refused = upload(alice, tmp_path / name)
        assert refused.status_code == 422 and refused.json()["detail"].startswith(detail), refused.text
    preview = upload(alice, sales_csv(tmp_path / "ok.csv", 20)).json()
    for mapping, detail in [
        ({**preview["mapping"], "quantity": "Nope"}, "The file has no column 'Nope'."),
        ({**preview["mapping"], "invoiced_at": None}, "Choose a column for invoiced_at."),
    ]:
        refused = alice.post(
            "/api/datasets/imports", json={"upload_id": preview["upload_id"], "mapping": mapping}
        )
        assert (refused.status_code, refused.json()) == (422, {"detail": detail})
    unknown = alice.post("/api/datasets/imports", json={"upload_id": "nope", "mapping": preview["mapping"]})
    assert unknown.status_code == 404
    assert alice.get("/api/datasets/versions/nope/skipped.csv").status_code == 404
    assert alice.get("/api/datasets/versions/default/skipped.csv").status_code == 404
    assert alice.post("/api/datasets/versions/..%2F..%2Fetc/activate").status_code == 404
    assert alice.get("/api/datasets").json()["version_id"] == "default"
    assert list((data_app.web.data_dir / "uploads").iterdir()) != []  # only ok.csv's upload waits


def test_a_field_past_the_csv_readers_limit_is_one_422_naming_its_line(data_app, tmp_path: Path) -> None:
    """Not a 500: a field over 128 KB in the preview's lines is the admin's to know, with its line."""
    alice = data_app.client("alice")
    lines = sales_csv(tmp_path / "ok.csv", 20).read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace("Product", "x" * 200_000, 1)  # line 3's description
    (tmp_path / "huge-field.csv").write_text("".join(lines))
    refused = upload(alice, tmp_path / "huge-field.csv")
    assert (refused.status_code, refused.json()) == (
        422,
        {
            "detail": "line 3 of huge-field.csv has a field longer than 128 KB: not a CSV file of sales "
            'lines, or a quote (") left open there'
        },
    )
    assert alice.get("/api/datasets").json()["version_id"] == "default"


def test_a_file_past_the_limit_is_refused_as_it_arrives(data_app) -> None:
    alice = data_app.client("alice")
    # A declared length past the limit: answered from the headers alone (no client sends the body
    # after a lie about its length, so the request is written by hand).
    host, port = httpx.URL(data_app.url).host, httpx.URL(data_app.url).port
    with socket.create_connection((host, port)) as conn:
        conn.sendall(
            f"POST {UPLOADS} HTTP/1.1\r\nHost: {host}\r\nContent-Type: text/csv\r\n"
            f"Content-Length: {UPLOAD_MAX_BYTES + 1}\r\n\r\n".encode()
        )
        conn.settimeout(30)
        answer = b""  # the head and the body may arrive in separate packets: read until the server closes
        while chunk := conn.recv(65536):
            answer += chunk
        head = answer.decode()
    assert head.startswith("HTTP/1.1 413 ") and json.dumps(too_large(UPLOAD_MAX_BYTES)) in head

    def chunks() -> Iterator[bytes]:
        yield b"InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country\n"
        line = b"536365,85123A,WHITE HANGING HEART,6,2010-12-01 08:26:00,2.55,17850,United Kingdom\n" * 12_000
        for _ in range(UPLOAD_MAX_BYTES // len(line) + 2):
            yield line

    chunked = alice.post(UPLOADS, content=chunks(), headers={"Content-Type": "text/csv"})
    assert (chunked.status_code, chunked.json()) == (413, {"detail": too_large(UPLOAD_MAX_BYTES)})
    assert eventually(lambda: list((data_app.web.data_dir / "uploads").iterdir()) == [] or None)


def test_a_second_import_is_409_cancel_changes_nothing_and_chats_go_on(data_app, tmp_path: Path) -> None:
    alice = data_app.client("alice")
    big = sales_csv(tmp_path / "big.csv", 300_000, customers=2_000)
    first, second = upload(alice, big).json(), upload(alice, big).json()
    body = {"mapping": first["mapping"], "format": first["format"]}
    started = alice.post("/api/datasets/imports", json={"upload_id": first["upload_id"], **body})
    assert started.status_code == 202
    busy = alice.post("/api/datasets/imports", json={"upload_id": second["upload_id"], **body})
    assert busy.status_code == 409 and busy.json()["detail"].startswith("An import is already running")
    assert alice.post("/api/datasets/versions/default/activate").status_code == 409
    cancelled = alice.post(f"/api/datasets/imports/{started.json()['id']}/cancel")
    assert cancelled.status_code == 202
    job = wait_for_end(alice, started.json()["id"])
    assert (job["state"], job["error"]) == ("cancelled", None)
    assert alice.get("/api/datasets").json()["version_id"] == "default"
    assert audit_actions(data_app)()[-1] == "data_import_cancel"

    # The second upload now imports; a chat meanwhile reads the active version, as before.
    started = alice.post("/api/datasets/imports", json={"upload_id": second["upload_id"], **body})
    assert started.status_code == 202
    assert alice.get("/api/datasets").json()["importing"] is True
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert answer(alice, session_id, "Which segments are there?")
    job = wait_for_end(alice, started.json()["id"])
    assert job["state"] == "finished" and job["report"]["imported"] == 300_000


def test_a_chat_answers_on_the_new_data_from_its_next_turn(data_app, tmp_path: Path) -> None:
    """docs/architecture.md#dataset-versions: the switch refreshes the tools' schemas (a country the
    old data did not have is a choice now) and the warm sessions, so the next turn reads the new file."""
    alice = data_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    data_app.model.script(ToolCall(ANALYZE, {"measure": "customers"}), Text("Counted."))
    (before,) = events(send(alice, session_id, "How many customers do we have?"))[-1][1]["readings"]
    assert before["answer"].startswith("Customers, all time: ") and "Narnia" not in before["answer"]
    lines = [f"70000{i},A{i},CANDLE {i},2,2011-03-0{i + 1} 10:00:00,3.50,9000{i},Narnia" for i in range(3)]
    new_data = tmp_path / "narnia.csv"
    new_data.write_text(
        "InvoiceNo,StockCode,Description,Quantity,InvoiceDate,UnitPrice,CustomerID,Country\n"
        + "\n".join(lines)
        + "\n"
    )
    job = import_and_wait(alice, upload(alice, new_data).json(), mode="replace")
    assert job["state"] == "finished", job
    data_app.model.script(
        ToolCall(ANALYZE, {"measure": "customers", "countries": ["Narnia"]}), Text("Counted again.")
    )
    (after,) = events(send(alice, session_id, "And in Narnia?"))[-1][1]["readings"]
    assert after["answer"] == "Customers, Narnia, all time: 3 customers."


SHOP = "Order,SKU,Item,Qty,Date,Price,Customer,Country,Region\n" + "".join(
    f"T{100 + i // 2},K{i % 9},{('Red', 'Blue', 'Green', 'Plain')[i % 4]} mug no. {i},{1 + i % 3},"
    f"2024-03-{1 + i % 28:02d},{3 + i % 5}.50,{7 + i % 6},France,{('North', 'South')[i % 2]}\n"
    for i in range(60)
)


def test_the_preview_profiles_each_column_and_says_what_it_looks_like(data_app, tmp_path: Path) -> None:
    """The mapping step's evidence: each column's type, distinct values and samples, and whether it
    looks like names, categories or amounts, so one left unused is pointed out before the import."""
    alice = data_app.client("alice")
    path = tmp_path / "shop.csv"
    path.write_text(SHOP)
    answered = upload(alice, path)
    assert answered.status_code == 201, answered.text
    columns = {column["header"]: column for column in answered.json()["columns"]}
    assert list(columns) == SHOP.splitlines()[0].split(",")
    assert (columns["Item"]["type"], columns["Item"]["distinct"], columns["Item"]["looks_like"]) == (
        "VARCHAR",
        60,
        "names",
    )
    assert columns["Region"]["looks_like"] == "categories" and columns["Region"]["distinct"] == 2
    assert columns["Price"]["looks_like"] == "amounts" and columns["Date"]["looks_like"] == "dates"
    assert 0 < len(columns["Item"]["samples"]) <= 5 and all("mug" in s for s in columns["Item"]["samples"])


SPLIT_DATES = (
    " Order ID ,Order Year,Order Month,Order Day,Order Time,Customer ID,Product Name,Qty,Gross Sales,"
    "Ship Year,Ship Month,Ship Day\n"
) + "".join(
    f"{500 + i // 2},2024,{1 + i % 3},{1 + i % 28},{8 + i % 10}:{i % 60:02d},C{i % 7},Tent {i % 5},1,"
    f"{40 + i},2024,{1 + i % 3},{2 + i % 27}\n"
    for i in range(60)
)  # fmt: skip


def test_a_date_written_in_parts_is_a_date_of_its_own(data_app, tmp_path: Path) -> None:
    """An export that writes each date as year, month and day columns (a supply chain's extract)
    imports as exported: the preview shows each date as a column of its own, the order's is the
    date of sale, and the data then spans its days."""
    alice = data_app.client("alice")
    path = tmp_path / "orders.csv"
    path.write_text(SPLIT_DATES)
    preview = upload(alice, path).json()
    assert preview["header"][-2:] == ["Order Date", "Ship Date"]
    assert preview["rows"][0][-2:] == ["2024-01-01 08:00", "2024-01-02"]
    assert preview["mapping"]["invoiced_at"] == "Order Date" and preview["problems"] == []
    report = import_and_wait(alice, preview)["report"]
    assert (report["imported"], report["first_date"], report["last_date"]) == (60, "2024-01-01", "2024-03-27")
