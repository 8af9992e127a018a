"""The fresh-schema helper: any common URL form in, the form each consumer needs out, nothing left over."""

import psycopg
import pytest

from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.testing.postgres import fresh_schema, libpq_url, sqlalchemy_url


@pytest.mark.parametrize(
    "given",
    [
        "postgresql://postgres@db.example:5432/test",
        "postgres://postgres@db.example:5432/test",
        "postgresql+psycopg://postgres@db.example:5432/test",
        "postgresql+psycopg2://postgres@db.example:5432/test",
    ],
)
def test_every_common_url_form_is_accepted(given: str) -> None:
    assert libpq_url(given) == "postgresql://postgres@db.example:5432/test"
    assert sqlalchemy_url(given) == "postgresql+psycopg://postgres@db.example:5432/test"


@pytest.mark.parametrize("given", ["mysql://u@h/db", "not a url", ""])
def test_anything_else_is_one_clear_error(given: str) -> None:
    with pytest.raises(ValueError, match="Not a PostgreSQL URL"):
        libpq_url(given)


def _schema_exists(url: str, name: str) -> bool:
    with psycopg.connect(libpq_url(url)) as conn:
        query = "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = %s)"
        return conn.execute(query, (name,)).fetchone() == (True,)


@pytest.mark.postgres
@pytest.mark.parametrize("form", [libpq_url, sqlalchemy_url])
def test_a_fresh_schema_is_used_by_both_url_forms_and_dropped_even_while_connected(
    postgres_url, form
) -> None:
    with fresh_schema("helper", url=form(postgres_url)) as schema:
        assert _schema_exists(postgres_url, schema.name)
        with psycopg.connect(schema.url) as conn:
            assert conn.execute("SHOW search_path").fetchone() == (schema.name,)
        engine = make_engine(schema.sqlalchemy_url)
        with engine.connect() as conn:  # left checked in: the pool keeps it open past the block
            assert conn.exec_driver_sql("SHOW search_path").scalar_one() == schema.name
        with psycopg.connect(schema.server_url) as conn:
            assert conn.execute("SHOW application_name").fetchone() == (schema.name,)
    engine.dispose()
    assert not _schema_exists(postgres_url, schema.name)


@pytest.mark.postgres
def test_an_uncreated_schema_is_reserved_and_whatever_appears_is_dropped(postgres_url) -> None:
    with fresh_schema("helper", url=postgres_url, create=False) as schema:
        assert not _schema_exists(postgres_url, schema.name)
        with psycopg.connect(schema.server_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema.name}"')
    assert not _schema_exists(postgres_url, schema.name)
