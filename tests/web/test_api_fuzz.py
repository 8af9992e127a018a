"""Property-based fuzzing of the whole API from its own OpenAPI document (schemathesis, pinned in the
dev group): every operation gets valid and invalid requests, logged in with the CSRF header, first
with generated ids, then on a real session of the user's; no answer is a 5xx, and every error is the
app's one JSON shape, ``{"detail": ...}`` (docs/architecture.md#how-we-test).

The budget is fixed (``EXAMPLES`` per operation, mode and pass on PostgreSQL, which refuses text
SQLite takes; ``SQLITE_EXAMPLES`` on SQLite, where the same requests meet the same routes; no
shrinking, no example database, derandomized), so a run is the same requests every time and stays
within a couple of minutes on two cores. The figures are printed at the end (``pytest -s``).
"""

import csv
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from chat_helpers import answer
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from sales_csv import ONLINE_RETAIL
from schemathesis import GenerationMode

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.web.routes.datasets import UPLOAD_PATH

EXAMPLES = 25
SQLITE_EXAMPLES = 10
PASSWORD = "correct horse battery"  # the conftest's users'
SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)
# Logging out ends the fuzzer's own login: that operation goes last.
LAST = ("POST", "/api/auth/logout")


def _budget(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


class Fuzzer:
    """Sends each generated case as the logged-in user and keeps what went wrong."""

    def __init__(self, base_url: str, examples: int) -> None:
        self.base_url = base_url
        self.budget = _budget(examples)
        self.http = requests.Session()
        login = self.http.post(f"{base_url}/api/auth/login", json={"username": "alice", "password": PASSWORD})
        login.raise_for_status()
        self.headers = {"X-CSRF-Token": login.json()["csrf_token"]}
        self.sent: Counter[str] = Counter()
        self.statuses: Counter[int] = Counter()
        self.failures: list[str] = []
        self.oversized = 0

    def send(self, case: schemathesis.Case) -> None:
        request = case.as_transport_kwargs(base_url=self.base_url, headers=self.headers)
        try:
            # Streamed: a live feed answers with its headers, then stays open; its status is enough.
            response = self.http.request(**request, stream=True, timeout=60)
        except requests.exceptions.InvalidHeader:
            return  # a header value no HTTP client may send
        self.sent[f"{case.method} {case.path}"] += 1
        self.statuses[response.status_code] += 1
        with response:
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                return
            problem = _problem(response)
        if problem:
            self.failures.append(f"{case.method} {case.path}: {problem}\n    {case.as_curl_command()}")

    def run(self, operation: Any, mode: GenerationMode, **fixed: Any) -> None:
        @self.budget
        @given(case=operation.as_strategy(generation_mode=mode, **fixed))
        def fuzz(case: schemathesis.Case) -> None:
            self.send(case)

        try:
            fuzz()
        except Unsatisfiable:  # nothing to make invalid (an operation without parameters or body)
            assert mode is GenerationMode.NEGATIVE

    def run_oversized(self, operation: Any) -> None:
        """The upload with a field past the CSV reader's limit on one of its first lines: one 422 that
        names that line (docs/architecture.md#the-data-page), never a 500."""

        @self.budget
        @given(
            case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
            upload=_oversized_csv(),
        )
        def fuzz(case: schemathesis.Case, upload: tuple[bytes, int]) -> None:
            case.body, line = upload
            request = case.as_transport_kwargs(base_url=self.base_url, headers=self.headers)
            response = self.http.request(**request, timeout=60)
            self.oversized += 1
            self.statuses[response.status_code] += 1
            problem = _problem(response)
            if problem is None and response.status_code == 422:
                detail = response.json()["detail"]
                if str(detail).startswith(f"line {line} of "):
                    return
                problem = f"422 not naming line {line}: {detail!r}"
            self.failures.append(
                f"{case.method} {case.path} with a field past the limit: {problem or response.status_code}"
            )

        fuzz()


@st.composite
def _oversized_csv(draw: st.DrawFn) -> tuple[bytes, int]:
    """A sales CSV (a header and eleven lines, within the preview's 256 KB) with one field longer than
    the CSV reader's limit, quoted or not, on a drawn line; and that line's number."""
    limit = csv.field_size_limit()
    line = draw(st.integers(1, 12))
    column = draw(st.integers(0, 7))
    field = "x" * draw(st.integers(limit + 1, limit + 60_000))
    if draw(st.booleans()):
        field = f'"{field}"'
    rows = [list(ONLINE_RETAIL)]
    rows += [
        [f"5{i}", "P1", "Mug", "2", f"2011-01-0{1 + i % 9} 10:00", "1.25", "12001", "France"]
        for i in range(11)
    ]
    rows[line - 1][column] = field
    return "".join(",".join(row) + "\n" for row in rows).encode(), line


def _problem(response: requests.Response) -> str | None:
    """What is wrong with an answer: a server error, or an error not in the one JSON shape."""
    if response.status_code >= 500:
        return f"{response.status_code} {response.text[:300]!r}"
    if response.status_code < 400:
        return None
    try:
        body = response.json()
    except ValueError:
        return f"{response.status_code} is not JSON: {response.text[:300]!r}"
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, str) and detail:
        return None
    if isinstance(detail, list) and detail and all(isinstance(d, dict) and "msg" in d for d in detail):
        return None  # a validation error: each item says what is wrong, and where
    return f"{response.status_code} is not {{'detail': ...}}: {json.dumps(body)[:300]}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def fuzzed_app(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Any, int]:
    """The app with the retail dataset, on each store, and the examples to send each operation."""
    generate_dataset(tmp_path / "retail.sqlite", SMALL_RETAIL)
    if request.param == "postgres":
        schema = request.getfixturevalue("postgres_schema")  # first, so that it outlives the app
        start_app = request.getfixturevalue("start_app")
        files = PostgresSessionFiles.from_url(schema.url)
        return start_app(schema.sqlalchemy_url, files, retail_dataset=True), EXAMPLES
    return request.getfixturevalue("start_app")(retail_dataset=True), SQLITE_EXAMPLES


def test_no_operation_answers_a_server_error_or_another_error_shape(fuzzed_app: tuple[Any, int]) -> None:
    app, examples = fuzzed_app
    schema = schemathesis.openapi.from_url(f"{app.url}/openapi.json")
    operations = sorted(
        (result.ok() for result in schema.get_all_operations()),
        key=lambda op: (op.method.upper(), op.path) == LAST,
    )
    fuzzer = Fuzzer(app.url, examples)
    owner = app.client("alice")
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            fuzzer.run(operation, mode)
        if (operation.method.upper(), operation.path) == ("POST", UPLOAD_PATH):
            fuzzer.run_oversized(operation)
        names = {parameter.name for parameter in operation.path_parameters}
        if "session_id" in names:  # the same again on a real session (a fresh one: it may be deleted)
            session_id = owner.post("/api/sessions", json={}).json()["id"]
            assert answer(owner, session_id, "Which segments are there?")
            fixed = {"session_id": session_id}
            if "event_id" in names:
                first = owner.get(f"/api/sessions/{session_id}/messages").json()["messages"][0]
                fixed["event_id"] = first["event_id"]
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                fuzzer.run(operation, mode, path_parameters=fixed)
    named = {f"{op.method.upper()} {op.path}" for op in operations}
    print(
        f"\nfuzzed {sum(fuzzer.sent.values())} requests over {len(fuzzer.sent)} of {len(named)} operations; "
        f"statuses {dict(sorted(fuzzer.statuses.items()))}"
    )
    assert set(fuzzer.sent) == named, f"never sent: {named - set(fuzzer.sent)}"
    assert fuzzer.oversized == examples  # the uploads with a field past the CSV reader's limit
    assert not fuzzer.failures, "\n".join(fuzzer.failures)
