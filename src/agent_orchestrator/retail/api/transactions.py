"""``/transactions``: filtered pages of invoice lines (newest first) and single lines by id."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, status
from pydantic import Field

from agent_orchestrator.retail import queries
from agent_orchestrator.retail.api.deps import RetailDb
from agent_orchestrator.retail.models import MAX_ID, MAX_PAGE, Page, Transaction, TransactionFilter

router = APIRouter(prefix="/transactions", tags=["retail: transactions"])


class TransactionQuery(TransactionFilter):
    """The filters plus paging; unknown parameters and reversed ranges are rejected (422)."""

    limit: int = Field(default=50, ge=1, le=MAX_PAGE)
    offset: int = Field(default=0, ge=0, le=10_000_000)


@router.get(
    "",
    response_model=Page[Transaction],
    summary="List transactions",
    description="Invoice lines matching all given filters, newest first. Dates are inclusive; "
    "amounts compare the line amount (negative for cancellations).",
)
def list_transactions(db: RetailDb, query: Annotated[TransactionQuery, Query()]) -> Page[Transaction]:
    filters = TransactionFilter(**query.model_dump(exclude={"limit", "offset"}))
    return queries.list_transactions(db, filters, limit=query.limit, offset=query.offset)


@router.get(
    "/{transaction_id}",
    response_model=Transaction,
    summary="One transaction",
    responses={404: {"description": "No transaction has this id."}},
)
def get_transaction(db: RetailDb, transaction_id: Annotated[int, Path(ge=1, le=MAX_ID)]) -> Transaction:
    transaction = queries.get_transaction(db, transaction_id)
    if transaction is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"transaction {transaction_id} not found")
    return transaction
