"""REST API of the retail data, for the web app to mount under ``/api/retail``::

    from agent_orchestrator.retail.api import create_retail_router

    app.include_router(create_retail_router(), prefix="/api/retail")
    app.state.retail_db = data_dir / "retail.sqlite"
    install_error_handler(app)  # agent_orchestrator.web.errors: 503 without a database, 409 if empty

All routes are GET and use a read-only connection. Layout: one module per resource
(``segments``, ``customers``, ``transactions``, ``analysis``) and ``deps`` for the database dependency.
"""

from fastapi import APIRouter

from agent_orchestrator.retail.api import analysis, customers, segments, transactions
from agent_orchestrator.retail.api.deps import RetailDb, get_retail_db, get_retail_db_path


def create_retail_router() -> APIRouter:
    """One router with every retail route (no prefix: the app chooses it)."""
    router = APIRouter()
    router.include_router(segments.router)
    router.include_router(customers.router)
    router.include_router(transactions.router)
    router.include_router(analysis.router)
    return router


__all__ = ["RetailDb", "create_retail_router", "get_retail_db", "get_retail_db_path"]
