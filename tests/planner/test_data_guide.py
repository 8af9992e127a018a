"""The data guide on a store export with columns of its own, driving the real tools as the runtime
would: a question on such a column goes to ``query_data`` and its follow-up patches it; a question
every sales table answers stays the retail reader's; a text customer key is found; a refusal says
what this dataset can answer."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from agent_orchestrator.local_model.guide import GuidedAnswer, GuidedCall
from agent_orchestrator.mcp_server.server import RetailMCPServer, build_server
from agent_orchestrator.planner.data_guide import DataGuide
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.retail.datasets import DatasetLibrary, inspect_csv

STORE = Path(__file__).parents[1] / "semantic" / "data" / "store.csv"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatasetLibrary]:
    found = DatasetLibrary(tmp_path_factory.mktemp("guide") / "data")
    preview = inspect_csv(STORE)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    found.import_csv(STORE, mapping, preview.format, mode="replace", actor="admin", source_name="store.csv")
    yield found
    found.close()


@pytest.fixture(scope="module")
def server(library: DatasetLibrary) -> RetailMCPServer:
    return build_server(library.current_path)


class Chat:
    def __init__(self, guide: DataGuide, server: RetailMCPServer) -> None:
        self.guide, self.server = guide, server
        listed = asyncio.run(server.list_tools())
        self.tools = [
            {
                "type": "function",
                "function": {"name": f"retail-analytics-{t.name}", "parameters": t.input_schema},
            }
            for t in listed
        ]
        self.messages: list[dict[str, Any]] = []

    def ask(self, question: str) -> tuple[str | None, dict[str, Any] | None, str | None]:
        """The tool called (short name), its arguments and the answer shown."""
        self.messages.append({"role": "user", "content": question})
        step = self.guide.step(self.messages, self.tools)
        if not isinstance(step, GuidedCall):
            text = step.text if isinstance(step, GuidedAnswer) else None
            self.messages.append({"role": "assistant", "content": text or "(the model's own answer)"})
            return None, None, text
        name = step.name.removeprefix("retail-analytics-")
        result = asyncio.run(self.server.call_tool(name, step.arguments))
        call = {
            "id": f"c{len(self.messages)}",
            "type": "function",
            "function": {"name": step.name, "arguments": json.dumps(step.arguments)},
        }
        self.messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": result.content[0].text})  # type: ignore[union-attr]
        answer = self.guide.step(self.messages, self.tools)
        assert isinstance(answer, GuidedAnswer)
        self.messages.append({"role": "assistant", "content": answer.text})
        return name, step.arguments, answer.text


@contextlib.contextmanager
def _chat_on(home: Path, rows: str) -> Iterator[Chat]:
    """A chat on a till export with ``rows`` (a CSV text), imported with the suggested mapping."""
    till = home / "till.csv"
    till.write_text(rows)
    library = DatasetLibrary(home / "data")
    preview = inspect_csv(till)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    library.import_csv(till, mapping, preview.format, mode="replace", actor="admin", source_name=till.name)
    try:
        yield Chat(DataGuide(library.current_path), build_server(library.current_path))
    finally:
        library.close()


@pytest.fixture
def chat(library: DatasetLibrary, server: RetailMCPServer) -> Chat:
    return Chat(DataGuide(library.current_path), server)


def test_a_column_only_this_file_has_and_its_follow_up(chat: Chat) -> None:
    tool, _, answer = chat.ask("What was our profit in the South region?")
    assert tool == "query_data" and answer == "Profit, Region South, all time: 51.07."
    tool, _, answer = chat.ask("and in the West?")
    assert tool == "query_data" and answer == "Profit, Region West, all time: 97.59."
    tool, _, answer = chat.ask("how many orders was that?")
    assert tool == "query_data" and answer == "Orders, Region West, all time: 2."


def test_what_every_sales_table_answers_stays_the_retail_readers(chat: Chat) -> None:
    tool, arguments, _ = chat.ask("What was our revenue in 2016?")
    assert tool == "analyze_sales" and arguments == {"measure": "revenue", "period": "2016"}


def test_a_text_customer_key_and_names_are_the_files(chat: Chat) -> None:
    tool, _, answer = chat.ask("How many orders has customer CG-12520 placed?")
    assert tool == "query_data" and answer == "Orders, Customer id CG-12520 (Claire Gute), all time: 2."
    tool, _, answer = chat.ask("who are our top 2 customers?")
    assert tool == "query_data" and "1. Claire Gute (CG-12520): 1,674.26" in answer


def test_a_refusal_says_what_this_dataset_answers(chat: Chat) -> None:
    tool, _, answer = chat.ask("Which region has the happiest staff?")
    assert tool is None and answer is not None and "I can't answer that from this data" in answer
    assert "region" in answer and "profit" in answer


def test_words_the_reading_does_without_are_said_with_the_answer(chat: Chat) -> None:
    tool, _, answer = chat.ask("how's 2016 shaping up in profit for the South region?")
    assert tool == "query_data" and answer is not None
    assert answer.startswith("Profit, Region South, 2016")
    assert answer.endswith("\n\n(Read without 'shaping': not a word the data has.)")


def test_a_reason_given_is_no_condition_unless_it_names_the_data(chat: Chat) -> None:
    tool, _, answer = chat.ask("What was our profit in the West? leave out 2017 since it's only partial")
    assert tool == "query_data" and answer == "Profit, Region West, not in 2017, all time: 6.87."
    tool, _, answer = chat.ask("profit in the South - those were one-off bulk orders mind you")
    assert tool == "query_data" and answer == "Profit, Region South, all time: 51.07."
    _, _, answer = chat.ask("profit, since those were in the West")  # a reason that narrows is read
    assert answer is not None and "Region West" in answer


def test_part_of_a_name_is_looked_up_and_several_are_offered(chat: Chat) -> None:
    tool, _, answer = chat.ask("how much has Claire spent with us?")
    assert tool == "query_data" and answer == "Revenue, Customer name Claire Gute, all time: 1,674.26."
    tool, _, answer = chat.ask("how many orders did Sean place?")
    assert tool == "query_data" and answer == "Which customer do you mean: Sean Miller or Sean O'Donnell?"


def test_a_follow_up_keeps_the_breakdown_and_steps_back_a_year(chat: Chat) -> None:
    chat.ask("profit by region this year")
    tool, arguments, _ = chat.ask("which one had the lowest profit?")
    assert tool == "query_data" and arguments["group_by"] == [{"column": "region"}]
    tool, arguments, _ = chat.ask("and last year?")
    assert tool == "query_data" and arguments["window"] == {"start": "2016-01-01", "end": "2016-12-31"}


def test_a_lead_in_a_threshold_and_a_column_by_another_name(chat: Chat) -> None:
    tool, _, answer = chat.ask("Hi - I look after the West. What was the West's profit?")
    assert tool == "query_data" and answer == "Profit, Region West, all time: 97.59."
    tool, _, answer = chat.ask("total profit on lines with a discount above 30%?")
    assert tool == "query_data" and answer == "Profit, Discount over 30%, all time: -383.03."
    tool, _, answer = chat.ask("total sales for zip 42420?")
    assert tool == "query_data" and answer.startswith("Revenue, Postal code 42420, all time: ")


def test_which_of_those_and_a_choice_named(chat: Chat) -> None:
    chat.ask("top 2 states by revenue")
    tool, arguments, _ = chat.ask("which of those is the most profitable?")
    assert (
        tool == "query_data"
        and {"column": "state", "op": "in", "values": ["Kentucky", "Florida"]} in arguments["filters"]
    )
    chat.ask("how many orders did Sean place?")  # Sean Miller or Sean O'Donnell
    tool, _, answer = chat.ask("Miller")
    assert tool == "query_data" and answer == "Orders, Customer name Sean Miller, all time: 1."


def test_a_refusal_never_says_the_file_lacks_what_it_has(chat: Chat) -> None:
    """The retail reader knows no profit; this file has it: what was not read is said instead."""
    tool, _, text = chat.ask("what profit did we make from the weather?")
    assert tool is None and text is not None
    assert "no figures on profit" not in text
    assert "'weather'" in text and "profit" in text.split("You can ask for", 1)[1]


def test_a_question_naming_what_only_this_file_has_is_never_read_by_the_retail_reader(chat: Chat) -> None:
    """Kentucky is a state here: the retail tables, which have no states, would read it as a product."""
    tool, _, text = chat.ask("how many sales reps do we have working in Kentucky?")
    assert tool is None and text is not None
    assert text.startswith("I can't answer that from this data: I don't know what 'reps' or 'working'")


def test_what_the_file_does_not_record_is_declined_never_answered_unspecified_or_zero(chat: Chat) -> None:
    """The store file has no country, no returns and no store column: the retail tables would
    answer "Unspecified", 0 cancelled orders and the total of all stores."""
    for question, lacking in (
        ("revenue by country", "it records no countries."),
        ("how many orders were returned?", "it records no returns or cancellations."),
        ("what's our return rate in 2016?", "it records no returns or cancellations."),
        ("which store sold the most?", "it records no stores."),
        ("units per shop", "it records no stores."),
    ):
        tool, _, text = chat.ask(question)
        assert tool is None and text is not None, question
        assert text.startswith(f"I can't answer that from this data: {lacking} You can ask for"), question
    tool, _, text = chat.ask("what was our store's revenue in 2016?")  # ours: no grouping
    assert tool is not None and text is not None and "1,008.52" in text


def test_the_retail_tools_a_model_may_call_refuse_countries_a_file_does_not_record(chat: Chat) -> None:
    """The model may call them itself: a breakdown of one "Unspecified" country is no answer."""
    for name, arguments in (("country_breakdown", {}), ("top_customers", {"country": "Germany"})):
        with pytest.raises(ToolError, match="it records no countries"):
            asyncio.run(chat.server.call_tool(name, arguments))
    found = asyncio.run(chat.server.call_tool("analyze_sales", {"group_by": "country", "measure": "revenue"}))
    assert '"answered":false' in found.content[0].text  # type: ignore[union-attr]


def test_a_word_grouped_by_is_never_set_aside(chat: Chat) -> None:
    tool, _, text = chat.ask("revenue by brand")
    assert tool != "query_data" and text is not None and text.startswith("I can't answer that from this data")
    assert "Read without" not in text


def test_a_period_outside_the_data_is_said_never_answered_with_zeros(chat: Chat) -> None:
    tool, _, text = chat.ask("can you predict how much we'll sell in January 2030?")
    assert tool is None
    assert text == (
        "I can't answer that from this data: it runs from October 11, 2015 to December 30, 2017, "
        "and January 2030 is outside it."
    )
    tool, _, text = chat.ask("how does 2017 stack up against 2014?")  # compared with a year it lacks
    assert tool is None and text is not None and text.endswith("and 2014 is outside it.")


def test_a_file_with_guest_checkouts_is_answered_from_its_own_rows(tmp_path: Path) -> None:
    """The retail tables leave out the lines without a customer; the shop's totals hold them."""
    shop = DatasetLibrary(tmp_path / "data")
    source = STORE.with_name("online_retail.csv")
    preview = inspect_csv(source)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    shop.import_csv(source, mapping, preview.format, mode="replace", actor="admin", source_name=source.name)
    try:
        guests = Chat(DataGuide(shop.current_path), build_server(shop.current_path))
        tool, _, text = guests.ask("what was our total revenue and how many orders?")
        assert tool == "query_data" and text is not None
        assert "Revenue 100.82" in text and "Orders 3" in text  # with the guest order (6 x 1.85)
    finally:
        shop.close()


def test_a_question_neither_reader_reads_is_not_left_to_the_model_on_a_file_of_its_own(chat: Chat) -> None:
    """The retail reader leaves it to the model; over tables that lack this file's columns the model
    would improvise (a forecast answered with a month's revenue): what was not read is said."""
    tool, _, text = chat.ask("what will the full month of December end up at?")
    assert tool is None and text is not None
    assert text.startswith("I can't answer that from this data: I don't know what 'end' means here.")


def test_a_file_without_customers_or_products_is_answered_from_its_own_rows(tmp_path: Path) -> None:
    till = (
        "Invoice ID,Branch,City,Customer type,Product line,Unit price,Quantity,Date\n"
        "750-67-8428,A,Yangon,Member,Health and beauty,10.00,2,1/25/2019\n"
        "226-31-3081,C,Naypyitaw,Normal,Electronic accessories,5.00,3,3/8/2019\n"
    )
    with _chat_on(tmp_path, till) as chat:
        tool, _, answer = chat.ask("what was total revenue?")
        assert tool == "query_data" and answer == "Revenue, all time: 35.00."  # not the empty retail tables
        tool, _, answer = chat.ask("revenue for members only")
        assert tool == "query_data" and answer == "Revenue, Customer type Member, all time: 20.00."
        tool, _, answer = chat.ask("and for Yangon?")  # the retail reader, with no products, reads it too
        assert tool == "query_data" and answer is not None and answer.endswith("all time: 20.00.")
        tool, _, answer = chat.ask("how much did we sell in January, my gut says little")
        assert tool is None and answer is not None  # read in part: what was not read is said, never
        assert answer.startswith("I can't answer that from this data: I don't know what")  # "no sales"


EXTRACT = (
    "Order ID,Order Item ID,Order Date,Order Year,Order Month,Order Day,Product Department,"
    "Product Name,Customer ID,Customer Market,Customer Country,Order Quantity,Gross Sales,"
    "Discount %,Profit,Warehouse Country\n"
    "1,11,2015-02-21,2015,2,21,Fan Shop,Fire Safe,7840,LATAM,Per\ufffd,1,400,0.25,200,USA\n"
    "1,12,2015-02-21,2015,2,21,Apparel,Rip Deck,7840,LATAM,Per\ufffd,2,100,  -  ,40,USA\n"
    "2,13,2015-03-02,2015,3,2,Apparel,Rip Deck,1203,Europe,France,1,50,0.1,20,Puerto Rico\n"
    "3,14,2015-03-05,2015,3,5,Golf,Putter Grip,1203,USCA,USA,3,30,  -  ,9,Puerto Rico\n"
)
"""A supply chain's order lines, as its warehouse extract writes them."""


def test_a_supply_chains_extract_its_departments_markets_and_date_parts(tmp_path: Path) -> None:
    """A warehouse extract: a product's department and a customer's market are groupings (not the
    product's or the customer's key), the date's parts beside it are no figures to add up, "dept" is
    the department, an average of a column's sum per order is the model's ratio, a country a broken
    export wrote "Per\ufffd" is no "per"; a discount rate that writes "  -  " for none is a measure,
    and beside a "Gross Sales" the net of it is a figure of its own."""
    with _chat_on(tmp_path, EXTRACT) as chat:
        model = chat.guide._dataset().model  # what the guide reads the file as
        assert {
            c.name: c.role.value for c in model.columns if c.role.value in ("key", "label", "measure")
        } == {
            "order_id": "key",
            "product_name": "label",
            "customer_id": "key",
            "order_quantity": "measure",
            "gross_sales": "measure",
            "discount": "measure",
            "profit": "measure",
        }
        asked = {
            "which dept is the smallest?": "Revenue by product department, all time (bottom 1 of 3):\n1. G",
            "avg gross sales per order": "Average order value, all time: 193.33.",
            "how many order lines per customer market?": "Order lines by customer market, all time:\n1. L",
            "how many order lines had no discount?": "Order lines, Discount at most 0%, all time: 2.",
            "net sales after discounts?": "Net revenue, all time: 475.00.",
            "how much did discounts cost us?": "Amount discounted, all time: 105.00.",
            "total gross sales": "Revenue, all time: 580.00.",
        }
        for question, start in asked.items():
            tool, _, answer = chat.ask(question)
            assert tool == "query_data" and answer is not None, question
            assert answer.startswith(start), (question, answer)


def test_what_the_answer_before_listed_tells_two_columns_apart(tmp_path: Path) -> None:
    """After revenue by customer country, "the USA" is the customer's (not the warehouse's) and "those
    countries" the customer countries; a breakdown asked after one value's share is of every value;
    a cost the data does not record is declined, never answered with revenue."""
    with _chat_on(tmp_path, EXTRACT) as chat:
        chat.ask("revenue by customer country")
        _, _, answer = chat.ask("whats total gross excluding the USA?")
        assert answer is not None and "Customer country not USA" in answer and "550.00" in answer, answer
        _, _, answer = chat.ask("of those countries, which has the best profit margin?")
        assert answer is not None and answer.startswith("Profit margin by customer country"), answer
        chat.ask("what share of total gross is fan shop?")
        _, _, answer = chat.ask("and which dept is the smallest?")
        assert answer is not None and answer.startswith(
            "Revenue by product department, all time (bottom 1 of 3)"
        )
        tool, _, answer = chat.ask("what did we spend on freight in 2015?")
        assert answer is not None and "can't answer" in answer and "580" not in answer, (tool, answer)


def test_a_row_of_a_list_answered_turns_ago_by_its_place(tmp_path: Path) -> None:
    """ "3rd on that top 5 list" after a question of one figure is the third of the list before it;
    "#2 on the top list" after the bottom of the ranking is the top list's second."""
    rows = "Order,Customer,Total,Date\n" + "".join(
        f"{i},C{i % 6},{10 * (i % 6) + 1},2024-01-{1 + i:02d}\n" for i in range(12)
    )
    with _chat_on(tmp_path, rows) as chat:
        chat.ask("top 5 customers by revenue")
        chat.ask("how much did C1 spend?")
        _, _, answer = chat.ask("what was 3rd on that top 5 list?")
        assert answer is not None and "Customer C3" in answer, answer
        chat.ask("top 3 customers by revenue")
        chat.ask("bottom 3?")
        _, _, answer = chat.ask("who was #2 on the top list again?")
        assert answer is not None and "Customer C4" in answer, answer
        chat.ask("top 3 customers by revenue")
        chat.ask("C2?")  # the ranking kept to one of its values: a figure, no list
        _, _, answer = chat.ask("who did you say was #1?")
        assert answer is not None and "Customer C5" in answer, answer


def test_full_months_and_lines_left_out_for_a_blank(tmp_path: Path) -> None:
    """ "the weakest full month" of data that ends mid-month ranks the months it holds whole; "exclude
    the rows with no item" keeps those that have one (never counts the rows)."""
    rows = "Invoice,Item,Total,Date\n" + "".join(
        f"{i},{'' if i % 5 == 0 else f'Mug {i % 3}'},{10 + i},{d}\n"
        for i, d in enumerate(["2024-01-05", "2024-01-20", "2024-02-03", "2024-02-25", "2024-03-02"] * 2)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, _, answer = chat.ask("which was the weakest full month?")
        assert answer is not None and "until February 29, 2024 (bottom 1 of 2)" in answer, answer
        _, _, answer = chat.ask("what's revenue if I exclude the rows with no item?")
        assert answer == "Revenue, with an Item, all time: 120.00.", answer


def test_customers_who_never_bought_from_a_department(tmp_path: Path) -> None:
    """ "never bought anything from Apparel" is the customers with no Apparel line (an anti-join),
    never the customers with no orders at all (every customer of a sales file has one)."""
    with _chat_on(tmp_path, EXTRACT) as chat:
        _, _, answer = chat.ask("how many customers never bought anything from fan shop?")
        assert answer == "Customers, never Product department Fan Shop (by customer), all time: 1.", answer
        _, _, answer = chat.ask("how many customers bought Apparel but never anything from Golf?")
        assert answer is not None and answer.endswith("all time: 1."), answer


def test_a_column_compared_with_another_row_by_row(tmp_path: Path) -> None:
    """ "a ship date before the order date" compares the two dates of each line (as days: an order
    at 14:07 shipped that day is not before it); "profit greater than sales" two figures, and "sales
    before discount" none."""
    rows = (
        "Order ID,Order Date,Ship Date,Sales,Profit,Discount\n"
        "1,2024-01-02 14:07,2024-01-02,10,2,1\n2,2024-01-05 09:00,2024-01-03,20,25,1\n"
        "3,2024-01-06 10:00,2024-01-09,30,3,1\n"
    )
    with _chat_on(tmp_path, rows) as chat:
        _, _, answer = chat.ask("how many orders have a ship date before the order date?")
        assert answer == "Orders, Ship date before order date, all time: 1.", answer
        _, _, answer = chat.ask("how many orders had profit greater than sales?")
        assert answer == "Orders, Profit over sales, all time: 1.", answer
        _, _, answer = chat.ask("what were sales before discount?")  # no two figures compared
        assert answer is not None and " over " not in answer and " under " not in answer, answer


def test_a_tills_words_in_other_forms_thresholds_and_exclusions(tmp_path: Path) -> None:
    """What a header says is found in the forms people say it ("paid" for Payment, "tax" for
    "Tax 5%", "branches", "women" for Female), amounts are ranges ("invoices over 100": each
    invoice's revenue; "a quantity of 3": exactly), and "ignore" leaves a value out."""
    till = (
        "Invoice ID,Branch,Gender,Payment,Unit price,Quantity,Tax 5%,Total,Date,Rating\n"
        "750-67-8428,A,Female,Cash,10.00,2,1.00,21.00,1/25/2019,9.1\n"
        "226-31-3081,B,Male,Ewallet,50.00,3,7.50,157.50,3/8/2019,4.5\n"
        "631-41-3108,A,Female,Ewallet,40.00,3,6.00,126.00,3/9/2019,7.0\n"
    )
    with _chat_on(tmp_path, till) as chat:
        asked = {
            "how many invoices were paid in cash?": "1",
            "how much tax did we collect?": "14.50",
            "how many units did we sell to women?": "5",
            "how many units did branch A sell?": "5",
            "how many invoices were over 100?": "2 orders",
            "how many invoices had a quantity of 3?": "2",
            "how many invoices got a rating of 7 or above?": "2",
            "if we ignore Ewallet payments, what was revenue?": "21.00",
            "total revenue across all 2 branches for the whole file?": "304.50",
            "what was the revenue from invoices over 100?": "283.50 (2 orders)",  # those invoices, together
            "how many units were sold on invoices over 100?": "6 (2 orders)",
            "on average how many items does someone put in a basket?": "2.67",  # units per order
            # one line per invoice: its largest line total, and the line that holds it
            "what was the biggest single invoice?": "157.50, on March 8, 2019 (Invoice id 226-31-3081",
        }
        for question, figure in asked.items():
            tool, _, answer = chat.ask(question)
            assert tool == "query_data" and answer is not None, question
            assert f": {figure}" in answer, (question, answer)


def test_a_share_leaves_out_of_the_whole_what_the_question_ignores_and_a_span_compares_with_its_own(
    tmp_path: Path,
) -> None:
    till = (
        "Invoice ID,Branch,Payment,Total,Date\n"
        "1,A,Cash,20.00,3/2/2019\n2,B,Ewallet,60.00,3/9/2019\n3,A,Card,20.00,3/16/2019\n"
        "4,B,Cash,30.00,3/20/2019\n"
    )
    with _chat_on(tmp_path, till) as chat:
        _, _, answer = chat.ask("if we ignore Ewallet payments, what share of revenue is Cash?")
        assert answer is not None and "50.00 (71.43% of 70.00" in answer  # not of all 130.00
        _, _, answer = chat.ask("revenue from March 17 to March 23, 2019")
        _, _, answer = chat.ask("how does that compare with the week before that?")
        assert (
            answer is not None
            and "vs March 10, 2019 to March 16, 2019" in answer
            and "30.00 vs 20.00" in answer
        )
        tool, _, answer = chat.ask("who are our top 5 customers by name?")  # no customers in a till's rows
        assert tool is None and answer is not None and "I don't know what 'customers'" in answer
        tool, _, answer = chat.ask("how many customers do we have?")  # a count of what the file lacks
        assert answer is not None and "it holds no figures on customers." in answer, answer


def test_hours_of_the_day_a_busiest_hour_and_that_hour_again(tmp_path: Path) -> None:
    """A till that writes each sale's time beside its date: "busiest hour", clock times ("from 6pm
    onwards", "between 10am and 2pm", "in the evening") and "that hour" after the hour named."""
    till = (
        "Invoice ID,City,Total,Date,Time\n"
        "750-1,Yangon,100.50,1/25/2019,13:08\n750-2,Yangon,20,1/25/2019,19:10\n"
        "750-3,Mandalay,30,1/26/2019,19:45\n750-4,Mandalay,5.25,2/16/2019,10:29\n"
    )
    with _chat_on(tmp_path, till) as chat:
        tool, _, busiest = chat.ask("what hour of the day is busiest by number of invoices?")
        assert tool == "query_data" and busiest is not None and "1. 19:00: 2" in busiest, busiest
        _, _, that = chat.ask("how much revenue came in during that hour over the whole period")
        assert that == "Revenue, at 19:00-19:59, all time: 50.00.", that
        asked = {
            "what share of sales happens from 6pm onwards?": "from 18:00, all time: 50.00 (32.10% of 155.75",
            "how many invoices between 10am and 2pm?": "10:00 to 13:59, all time: 2",
            "revenue in the evening in Yangon": "City Yangon, from 17:00, all time: 20.00",
            "which city is quietest?": "Orders by city",  # busy: how many orders, not their revenue
        }
        _answers(chat, asked)


def test_a_figure_neither_reader_reads_is_declined_never_made_up(chat: Chat) -> None:
    """On a file with columns of its own the model is not to improvise a figure: what was not read
    is said, with what the data answers; "what can you do?" is said from the data."""
    tool, _, answer = chat.ask("how many points were redeemed?")
    assert tool is None and answer is not None
    assert answer.startswith("I can't answer that from this data: I don't know what 'points' or 'redeemed'")
    tool, _, answer = chat.ask("hello, what can you do?")
    assert tool is None and answer is not None and answer.startswith("Hello! I answer questions on the")


COFFEE = (
    "transaction_id,transaction_date,location,barista_id,customer_id,loyalty_points_earned,total_price\n"
    + "".join(
        f"{n},2025-0{1 + n % 3}-1{n % 9},{('Airport', 'Downtown', 'Mall', 'Campus')[n % 4]},EMP00{1 + n % 2},"
        f"{'NA' if n % 5 == 0 else f'C{n % 7}'},{n % 4},{4 + n % 6}.50\n"
        for n in range(1, 41)
    )
)


def test_a_till_export_is_read_by_the_parts_of_its_names_and_its_na_keys_are_walk_ins(tmp_path: Path) -> None:
    """ "barista" names *barista_id* and "points" the points earned; "NA" is no customer; a greeting
    is no morning; "our 4 locations" and "top 3" are how many, never a transaction's number."""
    with _chat_on(tmp_path, COFFEE) as chat:
        _, arguments, text = chat.ask("morning! which barista brought in the most revenue?")
        assert arguments is not None and arguments["group_by"] == [{"column": "barista_id"}]
        assert "filters" not in arguments
        _, _, text = chat.ask("how many loyalty points were earned in total?")
        assert text == f"Loyalty points earned, all time: {sum(n % 4 for n in range(1, 41))}."
        _, _, text = chat.ask("how many customers do we have?")
        assert text == "Customers, all time: 7."  # the walk-ins' NA is nobody
        _, arguments, _ = chat.ask("can you rank our 4 locations by revenue?")
        assert arguments == {"metrics": ["revenue"], "group_by": [{"column": "location"}]}
        _, arguments, _ = chat.ask("what are our top 3 locations by revenue?")
        assert arguments is not None and "filters" not in arguments and arguments["limit"] == 3


def test_a_till_exports_missing_keys_weekdays_and_its_staffs_verbs(tmp_path: Path) -> None:
    """ "ignore the NA ids" leaves out what no customer group holds anyway (never a value "NA" of
    another column); a customers' total is theirs alone; "the weakest day" after weekdays is one."""
    rows = "transaction_id,transaction_date,size,barista_id,customer_id,total_price\n" + "".join(
        f"{n},2025-01-{1 + n % 28:02},{('NA', 'Large')[n % 2]},EMP00{1 + n % 2},"
        f"{'NA' if n % 5 == 0 else f'C{n % 7}'},{4 + n % 6}.50\n"
        for n in range(1, 41)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, arguments, text = chat.ask("who's our top customer by total spend? ignore the NA ids")
        assert arguments is not None and "filters" not in arguments
        keyed = sum(4.5 + n % 6 for n in range(1, 41) if n % 5)
        assert text is not None and text.endswith(f"Total of the 7: {keyed:,.2f}")
        _, arguments, _ = chat.ask("how many transactions did EMP001 handle?")
        assert arguments == {
            "metrics": ["orders"],
            "filters": [{"column": "barista_id", "op": "in", "values": ["EMP001"]}],
        }
        chat.ask("which day of the week brings in the most revenue?")
        _, arguments, _ = chat.ask("and the weakest day?")
        assert arguments is not None and arguments["group_by"][0]["grain"] == "weekday"


def test_two_months_side_by_side_a_whose_average_and_a_range_said_alone(tmp_path: Path) -> None:
    """Growth from one month into the next is one figure each; "customer rating" is the rating, not
    a breakdown by customer; "how many were 9 or above?" after it counts the orders so rated."""
    rows = "Invoice ID,Date,Customer,Rating,Total\n" + "".join(
        f"INV{n},2019-0{1 + n % 3}-{1 + n % 27:02},C{n % 9},{4 + n % 7},{10 + n}.00\n" for n in range(1, 61)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, arguments, text = chat.ask("what was the month-over-month growth going from Feb into March?")
        assert arguments is not None and "group_by" not in arguments and "compare" in arguments
        assert text is not None and text.startswith(
            "Revenue, March 2019 (the latest month in the data) vs February 2019: Revenue "
        )
        _, arguments, text = chat.ask("whats the average customer rating overall?")
        assert arguments == {"metrics": ["rating"]}
        _, arguments, text = chat.ask("and how many were 9 or above?")
        assert arguments is not None and arguments["metrics"] == ["orders"]
        assert (
            text == f"Orders, Rating at least 9, all time: {sum(1 for n in range(1, 61) if 4 + n % 7 >= 9)}."
        )


@pytest.fixture(scope="module")
def generated_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = GeneratorConfig(seed=5, customers=200, transactions=3_000, products=100)
    return generate_dataset(tmp_path_factory.mktemp("generated") / "retail.sqlite", config)


def _answered(chat: Chat, question: str) -> str:
    tool, _, answer = chat.ask(question)
    assert tool is not None and answer, f"{question!r} was not answered from the data: {answer!r}"
    assert "can't" not in answer and "Error" not in answer, f"{question!r}: {answer}"
    return answer


def test_the_start_screen_says_what_is_loaded_and_each_suggestion_is_answered(
    chat: Chat, generated_db: Path
) -> None:
    screen = chat.guide.start_screen()
    assert screen is not None
    assert (screen.rows, screen.first_day, screen.last_day) == (7, date(2015, 10, 11), date(2017, 12, 30))
    assert {"revenue", "profit", "orders"} <= set(screen.measures)
    assert "first order date" not in screen.measures  # a date is no measure to ask for
    assert {"region", "category", "segment"} <= set(screen.dimensions)
    assert 4 <= len(screen.suggestions) <= 6
    assert screen.suggestions[0] == "What was revenue in December 2017?"  # its own latest month
    for question in screen.suggestions:
        _answered(Chat(chat.guide, chat.server), question)

    generated = Chat(DataGuide(lambda: generated_db), build_server(lambda: generated_db))
    other = generated.guide.start_screen()
    assert other is not None and other.suggestions != screen.suggestions
    assert {"country", "segment"} <= set(other.dimensions)
    for question in other.suggestions:
        _answered(Chat(generated.guide, generated.server), question)


@pytest.mark.parametrize(
    "greeting", ["hi", "Hello!", "hi, what can you do?", "What can I ask?", "what data do you have?", "help"]
)
def test_a_greeting_or_what_can_you_do_gets_the_start_screen_briefly(chat: Chat, greeting: str) -> None:
    tool, _, answer = chat.ask(greeting)
    assert tool is None and answer is not None
    assert "I answer questions on the store data: 7 rows from 11 October 2015 to 30 December 2017." in answer
    assert "profit" in answer and "region" in answer
    assert "For example: “What was revenue in December 2017?”" in answer
    assert answer.startswith("Hello! ") == greeting.lower().startswith(("hi", "hello"))
    assert len(answer) < 600


def test_a_greeting_before_a_question_is_no_question_about_the_assistant(chat: Chat) -> None:
    tool, _, _ = chat.ask("hi, what was our profit in the South region?")
    assert tool == "query_data"


SHOPS = (
    "Order ID,Order Date,City,State,Sales\n"
    "1,2024-01-05,Portland,Oregon,100\n2,2024-01-06,Portland,Maine,40\n3,2024-01-07,Salem,Oregon,10\n"
    "4,2024-01-08,Bangor,Maine,20\n5,2024-01-09,Boston,Massachusetts,30\n6,2024-01-10,Eugene,Oregon,5\n"
    "7,2024-01-11,Lowell,Massachusetts,7\n8,2024-01-12,Augusta,Maine,8\n9,2024-01-13,Bend,Oregon,9\n"
)
"""Nine orders in eight cities of three states, one city name in two of them."""


def test_a_name_in_two_places_is_asked_about_and_the_choice_typed_answers(tmp_path: Path) -> None:
    """ "Portland" is a city of Oregon and one of Maine: which one is asked, never both summed; the
    state typed next answers the question asked; a city named with its state is answered at once."""
    with _chat_on(tmp_path, SHOPS) as chat:
        tool, _, answer = chat.ask("what were sales in Portland?")
        assert (
            tool == "query_data"
            and answer == "There is more than one Portland: which state do you mean, Maine or Oregon?"
        )
        tool, _, answer = chat.ask("Oregon")
        assert tool == "query_data" and answer == "Revenue, City Portland, State Oregon, all time: 100.00."
        tool, _, answer = chat.ask("what were sales in Portland, Maine?")
        assert tool == "query_data" and answer == "Revenue, City Portland, State Maine, all time: 40.00."
        tool, _, answer = chat.ask("what were sales in Salem?")
        assert answer == "Revenue, City Salem, all time: 10.00."


DEALERS = (
    "Car_id,Date,Customer Name,Model,Company,Dealer_Region,Price ($)\n"
    "C1,2023-01-05,Aurora,Civic,Honda,Austin,20000\nC2,2023-01-06,Sam,Aurora,Oldsmobile,Pasco,15000\n"
    "C3,2023-01-07,Lee,Accord,Honda,Aurora,25000\nC4,2023-01-08,Kim,Civic,Honda,Aurora,21000\n"
    "C5,2023-01-09,Ana,Aurora,Oldsmobile,Austin,16000\nC6,2023-01-10,Bo,Camry,Toyota,Pasco,22000\n"
    "C7,2023-01-11,Aurora,Camry,Toyota,Pasco,23000\n"
)
"""A dealer's sales where "Aurora" is a customer, a model (an Oldsmobile) and a region."""


def test_a_name_of_several_columns_is_asked_about_and_the_meaning_chosen_answers(tmp_path: Path) -> None:
    with _chat_on(tmp_path, DEALERS) as chat:
        tool, _, answer = chat.ask("What's the revenue for Aurora?")
        assert tool is None and answer == (
            "'Aurora' is more than one thing here: which do you mean, the customer name Aurora, the model "
            "Aurora (Oldsmobile) or the dealer region Aurora?"
        )
        tool, _, answer = chat.ask("the region")
        assert tool == "query_data" and answer == "Revenue, Dealer region Aurora, all time: 46,000.00."
        chat.ask("What's the revenue for Aurora?")
        tool, _, answer = chat.ask("I meant the Oldsmobile one")
        assert tool == "query_data" and answer == "Revenue, Model Aurora, all time: 31,000.00."


def test_a_correction_after_a_question_declined_asks_it_again_with_what_was_meant(tmp_path: Path) -> None:
    """ "our capital city branch" is declined for 'capital'; "sorry, I meant Naypyitaw" asks the same
    question of Naypyitaw; a day span of one month ("feb 1-10") is its days."""
    till = (
        "Invoice ID,Branch,City,Total,Date\n"
        "1,A,Yangon,10.00,1/25/2019\n2,C,Naypyitaw,20.00,1/26/2019\n3,C,Naypyitaw,40.00,2/6/2019\n"
        "4,B,Mandalay,5.00,2/12/2019\n"
    )
    with _chat_on(tmp_path, till) as chat:
        tool, _, answer = chat.ask("how much revenue did our capital city branch bring in during january?")
        assert tool is None and answer is not None and "'capital'" in answer
        tool, _, answer = chat.ask("sorry, I meant Naypyitaw")
        assert tool == "query_data" and answer is not None  # the branch there, in January
        assert "City Naypyitaw, January 2019" in answer and "20.00" in answer
        tool, _, answer = chat.ask("what were sales over feb 1-10?")
        assert tool == "query_data" and answer == "Revenue, February 1, 2019 to February 10, 2019: 40.00."


def test_a_name_said_short_for_two_values_is_asked_and_the_choice_answered(tmp_path: Path) -> None:
    """ "how did Metro do in 2022?" with two malls beginning so: which one, as a question naming both;
    "Metropol AVM" answers it, and the question is read with that mall, 2022 kept; "split that by
    gender" after one category is that category's split."""
    rows = (
        "invoice_no,customer_id,gender,category,quantity,price,invoice_date,shopping_mall\n"
        "I1,C1,Female,Clothing,2,600.16,5/1/2022,Metrocity\nI2,C2,Male,Shoes,1,600.17,6/1/2022,Metropol AVM\n"
        "I3,C3,Female,Shoes,1,600.17,15/2/2021,Metropol AVM\nI4,C4,Male,Clothing,1,300.08,20/3/2022,Kanyon\n"
    )
    with _chat_on(tmp_path, rows) as chat:
        _, _, asked = chat.ask("how did Metro do in 2022?")
        assert asked == (
            "'metro' is more than one thing here: which do you mean, the shopping mall Metrocity or "
            "the shopping mall Metropol AVM?"
        )
        _, arguments, answer = chat.ask("Metropol AVM")
        assert answer == "Revenue, Shopping mall Metropol AVM, 2022 (the latest year in the data): 600.17."
    (tmp_path / "again").mkdir()
    with _chat_on(tmp_path / "again", rows) as chat:
        chat.ask("Which category brings in the most money?")
        _, arguments, _ = chat.ask("split that by gender")
        assert arguments is not None and arguments["filters"] == [
            {"column": "category", "op": "in", "values": ["Clothing"]}
        ]
        assert arguments["group_by"] == [{"column": "gender"}]


def test_the_largest_and_smallest_value_of_one_line_and_the_line_that_holds_it(tmp_path: Path) -> None:
    """A measure's extremes are metrics of their own ("the youngest and oldest customer", "the
    most expensive unit price", "the biggest single sale", where every line is a sale); the one line
    holding an extreme is said, and a summed measure's "highest" still ranks its sums."""
    till = (
        "Date,Sales Person,Region,Age,Unit Price,Quantity,Amount,Profit\n"
        "2022-01-04,Ches Bonnell,West,18,25,2,50,10\n"
        "2022-01-27,Ches Bonnell,West,64,500,4,2000,-30\n"
        "2022-02-03,Van Tuxwell,East,30,300,1,300,120\n"
        "2022-02-10,Van Tuxwell,East,41,30,3,90,40\n"
    )
    with _chat_on(tmp_path, till) as chat:
        asked = {
            "youngest and oldest customer age?": ": Highest age 64; Lowest age 18.",
            "what was the biggest single sale?": ": 2,000.00, on January 27, 2022 (Sales person Ches",
            "smallest single transaction?": ": 50.00, on January 4, 2022 (Sales person Ches Bonnell;",
            "most expensive unit price?": ": 500.00, on January 27, 2022",
            "max quantity?": "Max quantity, all time: 4, on January 27, 2022",
            "which region has the youngest age?": "(bottom 1 of 2):\n1. West: 18",
            "which region has the highest profit?": "Profit by region, all time (top 1 of 2):\n1. East: 160",
        }
        _answers(chat, asked)


def test_an_erp_export_of_list_prices_discounts_and_unit_costs(tmp_path: Path) -> None:
    """Unit price x quantity less each line's discount is the revenue (its list-price total and what
    the discounts took are figures too); the units' unit costs make a cost, so a profit and a
    margin; a value said before its measure is kept exactly ("the 40% discount", "the 10 price
    point"); "31/5/18" is May 31, 2018; a product's "ID" is its column's word, never a product."""
    till = (
        "OrderNumber,Sales Channel,OrderDate,_ProductID,Order Quantity,Discount Applied,Unit Cost,"
        "Unit Price\n"
        "SO-1,Online,31/5/18,12,2,0.4,3,10\nSO-2,In-Store,1/6/18,27,1,0.1,50,100\n"
        "SO-3,Online,30/12/20,12,5,0,4,10\n"
    )
    with _chat_on(tmp_path, till) as chat:
        asked = {
            "net revenue in 2018?": "Revenue, 2018: 102.00",  # 2 x 10 x 0.6 + 100 x 0.9
            "gross revenue in 2018?": "Revenue at list price, 2018: 120.00",
            "how much did we give away in discounts?": "Amount discounted, all time: 18.00",
            "total profit?": "Profit, all time: 76.00",  # 152 - (6 + 50 + 20)
            "which channel has the best profit margin?": "1. Online: 58.06%",  # (62 - 26) / 62
            "how many orders got the 40% discount?": "Orders, Discount applied 40%, all time: 1.",
            "units at the 10 price point": "Units, Unit price 10, all time: 7.",
            "which product ID sold the most units?": "1. 12: 7",
        }
        _answers(chat, asked)


def test_follow_ups_and_wordings_of_an_orders_export(tmp_path: Path) -> None:
    """A hyphenated value left out ("except In-Store"), a span of months with a dash, "xmas", a bare
    "fewest?" after a ranking, "that team" after the top team, "as a margin %?" keeping the year,
    "ships fastest" as the fewest days to ship, and one order's own line."""
    till = (
        "OrderNumber,Sales Channel,_SalesTeamID,OrderDate,ShipDate,Order Quantity,Unit Cost,Unit Price\n"
        "SO-1,In-Store,6,25/12/19,30/12/19,2,3,10\nSO-2,Online,14,1/3/19,11/3/19,1,50,100\n"
        "SO-3,Online,14,30/5/19,2/6/19,5,4,10\nSO-4,Wholesale,6,25/12/20,26/12/20,1,1,20\n"
    )
    with _chat_on(tmp_path, till) as chat:
        asked = {
            "what was order SO-4?": ": 20.00, on December 25, 2020 and December 26, 2020 (Order number SO-4;",
            "revenue for everything except In-Store?": "Revenue, Sales channel not In-Store, all time: 170",
            "revenue for Mar-May 2019": "Revenue, March 1, 2019 to May 31, 2019: 150.00.",
            "and xmas 2020?": "Revenue, December 25, 2020 (the latest day in the data): 20.00",
            "which sales team sold the most units?": "1. Sales team ID 14: 6",
            "how many orders did that team take in 2019?": "Orders, Sales team ID 14, 2019: 2.",
            "which channel ships fastest?": "Days from order date to ship date by sales channel, all time (b",
            "profit in 2019": "Profit, 2019: 94.00.",
            "as a margin %?": "Profit margin, 2019: 55.29%.",
        }
        _answers(chat, asked)
        chat.ask("which channel sold the most units?")
        tool, _, answer = chat.ask("fewest?")
        assert tool == "query_data" and answer is not None and "(bottom 1 of 3):\n1. Wholesale: 1" in answer


def test_a_shops_own_words_for_what_it_sold_and_what_the_user_looks_after(tmp_path: Path) -> None:
    """ "the K-Elite" picks one of the names offered; "take out" and "removing" leave values out;
    "the priciest ... by unit price" and "the biggest single transaction by units" are a line's
    extremes of the measure named, with the line; the transaction a ranking names is described;
    "my range" is what the user said they look after."""
    till = (
        "Transaction ID,Date,Product Category,Product Name,Units Sold,Unit Price,Total Revenue\n"
        "1,2024-01-01,Home Appliances,Keurig K-Elite Coffee Maker,1,189.99,189.99\n"
        "2,2024-01-02,Home Appliances,Keurig K-Mini Coffee Maker,2,79.99,159.98\n"
        "3,2024-01-03,Books,The Hobbit,10,12.5,125.00\n"
        "4,2024-01-04,Beauty Products,Dyson Supersonic Hair Dryer,1,399.99,399.99\n"
    )
    with _chat_on(tmp_path, till) as chat:
        chat.ask("How many units of the Keurig did we sell?")
        asked = {
            "the K-Elite": "Units, Product name Keurig K-Elite Coffee Maker, all time: 1.",
            "revenue if I take out Books and Beauty Products": "than Books and Beauty Products, all time: 34",
            "revenue removing Books": "Revenue, Product category not Books, all time: 749.96.",
            "priciest product by unit price?": "(top 1 of 4):\n1. Dyson Supersonic Hair Dryer: 399.99",
            "biggest single transaction by units?": "Max units sold, all time: 10, on January 3, 2024",
            "which single transaction had the highest revenue?": "1. 4: 399.99, on January 4, 2024 (",
            "top product in Home Appliances": "(top 1 of 2):\n1. Keurig K-Elite Coffee Maker: 189.99",
        }
        _answers(chat, asked)
        chat.ask("I'm Lena, I look after Home Appliances. revenue for it in 2024?")
        tool, _, answer = chat.ask("how many units in my range?")
        assert (tool, answer) == ("query_data", "Units, Product category Home Appliances, all time: 3.")
        assert "Home Appliances" not in str(chat.ask("when is my deadline?")[2])  # no thing one looks after
        tool, _, answer = chat.ask("what is our total revenue?")  # "our revenue": the data's own word
        assert (tool, answer) == ("query_data", "Revenue, all time: 874.96.")


def test_a_share_of_one_value_and_of_everything_after_a_filtered_breakdown(tmp_path: Path) -> None:
    """ "what share is beauty?" is Beauty's figure and its share of all, so "split that by gender"
    splits Beauty; "their share of total revenue" after the over-50s by category is of everyone's
    revenue, with the share of the over-50s together."""
    till = (
        "Date,Gender,Age,Product Category,Total Amount\n"
        "2023-01-01,Female,55,Beauty,100\n2023-01-02,Male,30,Beauty,50\n"
        "2023-01-03,Female,60,Clothing,200\n2023-01-04,Male,20,Clothing,650\n"
    )
    with _chat_on(tmp_path, till) as chat:
        chat.ask("revenue by product category")
        asked = {
            "what share is beauty?": "Revenue, Product category Beauty, all time: 150.00 (15.00% of 1,000.00",
            "split that by gender": "Revenue by gender, Product category Beauty, all time:\n1. Female: 100",
            "revenue by category for customers aged 50 and over": "1. Clothing: 200.00",
            "what's their share of total revenue?": "Total of the 2: 300.00 (30.00% of 1,000.00",
        }
        _answers(chat, asked)


def test_a_ranking_after_one_rows_figure_a_years_month_and_a_place_the_file_lacks(tmp_path: Path) -> None:
    """ "bottom 2?" after the first customer's share ranks the customers; "and 2019?" after May 2020
    is May 2019; "revenue in Germany" of a file without Germany is declined, never all revenue."""
    till = (
        "Order ID,Customer ID,Order Date,Amount\n"
        "1,A,2019-05-03,10\n2,B,2020-05-04,30\n3,C,2020-06-01,60\n4,A,2019-07-01,5\n"
    )
    with _chat_on(tmp_path, till) as chat:
        chat.ask("who is the top customer by revenue?")
        chat.ask("what share of total revenue does the #1 account for?")
        tool, _, answer = chat.ask("bottom 2?")
        assert (
            tool == "query_data"
            and answer is not None
            and "(bottom 2 of 3):\n1. A: 15.00\n2. B: 30" in answer
        )
        chat.ask("revenue in May 2020")
        tool, _, answer = chat.ask("and 2019?")
        assert (tool, answer) == ("query_data", "Revenue, May 2019: 10.00.")
        tool, _, answer = chat.ask("revenue in Germany")
        assert answer is not None and answer.startswith(
            "I can't answer that from this data: I don't know what"
        )


def test_a_product_named_with_a_comma_is_the_whole_name_not_its_first_part(tmp_path: Path) -> None:
    """ "Hon Deluxe Fabric Upholstered Stacking Chairs, Rounded Back": the reading that found the whole
    name answers, not a look-up of the words before its comma (another product)."""
    till = (
        "Order ID,Order Date,Customer ID,Product ID,Product Name,Quantity,Sales\n"
        'CA-1,2017-01-03,C1,P1,"Hon Deluxe Fabric Upholstered Stacking Chairs, Rounded Back",3,300\n'
        "CA-2,2017-01-04,C2,P2,Hon Deluxe Fabric Upholstered Stacking Chairs,2,150\n"
    )
    with _chat_on(tmp_path, till) as chat:
        tool, _, answer = chat.ask(
            "how many units of Hon Deluxe Fabric Upholstered Stacking Chairs, Rounded Back did we sell?"
        )
        assert tool == "query_data" and answer is not None and answer.endswith("Rounded Back, all time: 3.")


def test_a_value_also_left_out_and_sales_counted(tmp_path: Path) -> None:
    """ "and if I also leave out Canada?" after "outside the US" leaves out both; "how many sales
    were over 15k?" counts the sales."""
    till = (
        "Sales Person,Country,Date,Amount,Boxes Shipped\n"
        "Ches,USA,2022-01-04,16000,10\nVan,Canada,2022-01-05,500,2\nVan,India,2022-02-01,20000,30\n"
    )
    with _chat_on(tmp_path, till) as chat:
        chat.ask("total revenue outside the US?")
        tool, _, answer = chat.ask("and if I also leave out Canada?")
        assert answer == "Revenue, Country other than USA and Canada, all time: 20,000.00."
        tool, _, answer = chat.ask("how many sales were over 15k?")
        assert (tool, answer) == ("query_data", "Orders, Amount over 15000, all time: 2.")


def test_the_most_common_value_of_a_measure_and_of_a_column(tmp_path: Path) -> None:
    """ "the most common quantity per transaction" is the quantity most lines have, with how many;
    "the most common payment method" ranks the methods by how many orders used them."""
    till = (
        "Transaction ID,Date,Payment Method,Quantity,Price per Unit\n"
        "1,2023-01-01,Card,4,50\n2,2023-01-02,Cash,4,25\n3,2023-01-03,Card,1,500\n4,2023-01-04,Card,2,50\n"
    )
    with _chat_on(tmp_path, till) as chat:
        for question, said in {
            "the most common quantity per transaction?": "Order lines by quantity, all time (top 1 of 3)",
            "most common payment method?": "Orders by payment method, all time (top 1 of 2):\n1. Card: 3",
        }.items():
            tool, _, answer = chat.ask(question)
            assert tool == "query_data" and answer is not None and answer.startswith(said), (question, answer)


def test_a_fashion_shops_export_with_blank_amounts_imports_and_counts_every_sale(tmp_path: Path) -> None:
    """ "Purchase Amount (USD)" is the line's amount, "Item Purchased" (names, not a count) what was
    bought, "Customer Reference ID" the customer; a sale whose amount is blank is a sale of an
    unknown amount: counted among the sales, adding nothing to revenue."""
    till = (
        "Customer Reference ID,Item Purchased,Purchase Amount (USD),Date Purchase,Review Rating\n"
        "4018,Handbag,4619,05-02-2023,\n4115,Tunic,2456,11-07-2023,2\n4115,Tunic,,25-07-2023,4\n"
    )
    preview = inspect_csv(_written(tmp_path, till))
    assert (preview.mapping["line_total"], preview.mapping["quantity"]) == ("Purchase Amount (USD)", None)
    assert (preview.mapping["description"], preview.mapping["customer_id"]) == (
        "Item Purchased",
        "Customer Reference ID",
    )
    with _chat_on(tmp_path, till) as chat:
        assert chat.ask("total revenue?")[2] == "Revenue, all time: 7,075.00."
        assert chat.ask("how many transactions?")[2] == "Orders, all time: 3."


def _written(home: Path, rows: str) -> Path:
    path = home / "export.csv"
    path.write_text(rows)
    return path


def test_blanks_of_a_measure_the_most_expensive_purchase_and_the_best_period_listed(tmp_path: Path) -> None:
    """ "no rating" of a score is none given, "missing a purchase amount" none written, and an average
    order value is of the orders whose amount is written (a blank is unknown, not 0); "overall" is
    never the item "Overalls"; "the most expensive purchase" names its line; "the most recent date"
    is the last day sold on; "a 4-star review", "rated 2 or higher" are of the rating; "which one
    was best" after the quarters ranks them."""
    till = (
        "Customer Reference ID,Item Purchased,Purchase Amount (USD),Date Purchase,Review Rating\n"
        "4018,Overalls,4619,05-02-2023,\n4115,Tunic,2456,11-07-2023,2\n4115,Tunic,,25-07-2023,4\n"
    )
    with _chat_on(tmp_path, till) as chat:
        asked = {
            "how many purchases have no rating at all?": "Orders, no Review rating, all time: 1.",
            "how many rows are missing a purchase amount?": "all time: 1.",
            "whats the AOV overall": "Average order value, all time: 3,537.50",  # of the amounts written
            "what was the most expensive purchase?": ": 4,619.00, on February 5, 2023 (Customer",
            "what's the most recent date in the data?": ": July 25, 2023.",
            "how many purchases got a 4-star review?": "Orders, Review rating 4, all time: 1.",
            "revenue from purchases rated 2 or higher?": "Review rating at least 2, all time: 2,456.00.",
        }
        _answers(chat, asked)
        chat.ask("revenue by quarter for 2023?")
        _answers(chat, {"which one was best": "(top 1 of 2):\n1. Q1 2023: 4,619.00"})


def _answers(chat: Chat, asked: dict[str, str]) -> None:
    """Each question is read by the query tool, and its answer holds the text given."""
    for question, said in asked.items():
        tool, _, answer = chat.ask(question)
        assert tool == "query_data" and answer is not None and said in answer, (question, answer)


PIPELINE = (
    "opportunity_id,sales_agent,product,account,deal_stage,engage_date,close_date,close_value\n"
    "A1,Moses Frase,GTXPro,Cancity,Won,2016-10-20,2017-03-01,1000\n"
    "A2,Moses Frase,GTX Plus Pro,Isdom,Won,2016-10-25,2017-03-11,4500\n"
    "A3,Darcel Schlecht,MG Special,Cancity,Won,2017-01-05,2017-03-07,50\n"
    "A4,Darcel Schlecht,GTXPro,Codehow,Lost,2017-02-01,2017-04-09,0\n"
    "A5,Darcel Schlecht,GTX Plus Pro,Codehow,Won,2017-02-11,2017-04-12,5000\n"
    "A6,Vicki Laflamme,MG Special,,Engaging,2017-03-01,,\n"
)


def test_a_sales_pipeline_imports_as_exported_and_is_read_in_its_words(tmp_path: Path) -> None:
    """A CRM's deals: "close_value" is what each came to, the close date its day of sale, an
    opportunity a deal; "engaged in 2016" is of the other date; "GTX Pro" is GTXPro spaced."""
    with _chat_on(tmp_path, PIPELINE) as chat:
        assert chat.ask("how many deals?")[2] == "Orders, all time: 6."
        assert chat.ask("how many opps were engaged back in 2016?")[2] == "Orders, 2016 (engage date): 2."
        text = chat.ask("revenue excluding the GTX Pro and GTX Plus Pro?")[2]
        assert text == "Revenue, Product other than GTXPro and GTX Plus Pro, all time: 50.00."
        text = chat.ask("leaving MG Special aside, what's the smallest deal we've won?")[2]
        assert text is not None and text.startswith("Min close value, Product not MG Special, Deal stage Won")
        assert ": 1,000.00, on" in text
        text = chat.ask("top 2 reps by won revenue")[2]
        assert text is not None and text.startswith("Revenue by sales agent, Deal stage Won, all time:\n")
        assert "1. Moses Frase: 5,500.00\n2. Darcel Schlecht: 5,050.00" in text
        assert chat.ask("how many deals did we lose?")[2] == "Orders, Deal stage Lost, all time: 1."
        text = chat.ask("which product takes longest to close? avg days")[2]  # engaged to closed
        assert text is not None and "close date by product, all time (top 1 of 3):\n1. GTXPro: 99.5\n" in text
        tool, _, text = chat.ask("which rep has the best win rate?")  # a rate: never the deals won
        assert tool is None and text is not None and text.startswith("I can't answer that from this data")


VENDING = (
    "Status,Location,Machine,Product,Category,Transaction,TransDate,Type,MQty,LineTotal\n"
    'Processed,Brunswick Sq Mall,BSQ Mall x1366 - ATT,Red Bull,Carbonated,101,"Saturday, January 1, 2022",'
    "Credit,1,3.50\n"
    "Processed,Brunswick Sq Mall,BSQ Mall x1364 - Zales,Coca Cola - Regular,Carbonated,102,"
    '"Friday, July 1, 2022",Cash,2,3.00\n'
    "Processed,GuttenPlans,GuttenPlans x1367,Coca Cola - Zero Sugar,Carbonated,103,"
    '"Monday, February 14, 2022",Cash,1,1.50\n'
    'Processed,Earle Asphalt,EB Public Library x1380,Poland Springs Water,Water,104,"Friday, July 8, 2022",'
    "Credit,1,2.00\n"
)


def test_a_word_of_several_names_is_asked_about_and_chosen_by_a_word_of_one(tmp_path: Path) -> None:
    """ "the mall machine": two machines have "mall" in their names; "the zales one" picks one, and
    the question asked is answered for it (July kept). Dates with their weekday import as written."""
    with _chat_on(tmp_path, VENDING) as chat:
        tool, _, text = chat.ask("how did the mall machine do in july?")
        assert tool is None and text is not None and text.startswith("'mall' is more than one thing here")
        assert "BSQ Mall x1364 - Zales" in text and "BSQ Mall x1366 - ATT" in text
        assert chat.ask("the zales one")[2] == (
            "Revenue, Machine BSQ Mall x1364 - Zales, July 2022 (the latest month in the data): 3.00."
        )
        # "the mall" alone is the location, whose lines hold both machines': no question which
        assert chat.ask("what's revenue outside the mall?")[2] == (
            "Revenue, Location not Brunswick Sq Mall, all time: 3.50."
        )


def test_a_question_before_another_is_never_chatter_and_money_made_is_asked_anew(tmp_path: Path) -> None:
    with _chat_on(tmp_path, VENDING) as chat:
        tool, _, text = chat.ask("how's the fizz doing? units sold?")  # "fizz" is no word of the data
        assert tool is None and text is not None and "'fizz'" in text
        assert chat.ask("how many units did we sell?")[2] == "Units, all time: 5."
        text = chat.ask("what did we make on valentines day")[2]  # the money, not the units before
        assert text is not None and text.startswith("Revenue, February 14, 2022: 1.50, on February 14, 2022")


SHOP_EXPORT = (
    "Name,Email,Financial Status,Created at,Lineitem quantity,Lineitem name,Lineitem price,Total,"
    "Discount Code,Billing Country,Shipping Country,Shipping Province Name,Cancelled at\n"
    "#1,a@x.com,paid,2025-03-01 10:00:00 -0500,2,Jeans - 32,100,190.00,SALE10,US,US,California,\n"
    "#1,a@x.com,,2025-03-01 10:00:00 -0500,1,Belt,20,,,,,,\n"
    "#2,b@x.com,refunded,2025-03-02 10:00:00 -0500,1,Belt,20,25.00,,US,CA,Ontario,2025-03-03 09:00:00 -0500\n"
    "#3,c@x.com,paid,2025-03-03 10:00:00 -0500,3,Jeans - 30,100,300.00,,CA,US,New York,\n"
)


def test_a_shops_export_its_order_fields_on_each_line_and_its_codes_as_written(tmp_path: Path) -> None:
    """A Shopify-style export: an order's fields written on its first line only are the order's on
    each line ("units shipped to California": both of #1's lines); a code written in capitals is read
    as written, and of two columns holding it the one the question's word names ("shipped": the
    shipping country); "used a discount code" keeps the orders with one; "Cancelled at" cancels."""
    with _chat_on(tmp_path, SHOP_EXPORT) as chat:
        tool, _, answer = chat.ask("units shipped to California")
        assert tool == "query_data" and answer == "Units, Shipping province name California, all time: 3."
        tool, _, answer = chat.ask("how many orders shipped outside the US?")
        assert tool == "query_data" and answer == "Orders, Shipping country not US, all time: 1."
        tool, _, answer = chat.ask("how many orders used a discount code")
        assert tool == "query_data" and answer == "Orders, with a Discount code, all time: 1."
        tool, _, answer = chat.ask("how many orders were cancelled?")
        assert tool == "query_data" and answer == "Cancelled orders, all time: 1."
        _, _, answer = chat.ask("how many orders outside the US?")  # billed or shipped: asked, never guessed
        assert answer is not None and "billing country" in answer and "shipping country" in answer
        _, arguments, _ = chat.ask("top ship-to state by order $")  # an order's "$" is its total
        states = [{"column": "shipping_province_name"}]
        assert arguments == {"metrics": ["total"], "group_by": states, "limit": 1}
        _, arguments, _ = chat.ask("and units by state?")  # "state": the one the answer before was by
        assert arguments is not None and arguments["group_by"] == states
        _, arguments, _ = chat.ask("biggest single order by total?")
        assert arguments == {"metrics": ["total"], "group_by": [{"column": "name"}], "limit": 1}


def test_a_dealer_export_asked_about_its_dealers_levels_and_priciest_model(tmp_path: Path) -> None:
    """Dates written "…T00:00:00Z" import as they are; the dealers are the shops; a numbered level
    is asked by its plain name; "the priciest model" is the model with the highest price, ties
    named; "top cities" groups by the City column though a kind of bike is called "City"."""
    rows = (
        "order_id,order_date,model,category_1,category_2,price,quantity,total_price,bikeshop,City\n"
        + "".join(
            f"{n},2019-0{1 + n % 9}-1{n % 10}T00:00:00Z,Model {n % 4},{('Road', 'E-Bikes')[n % 2]},"
            f"{('City', 'Race', 'Triathlon Bike')[n % 3]},{100 * (1 + n % 4)},{1 + n % 2},"
            f"{100 * (1 + n % 4) * (1 + n % 2)},{('WITT-RAD', 'Lucky Bike')[n % 2]},"
            f"{('Hamburg', 'Bremen', 'Essen')[n % 3]}\n"
            for n in range(40)
        )
    )
    with _chat_on(tmp_path, rows) as chat:
        for question, group in [
            ("top 5 dealers by revenue", "bikeshop"),
            ("which sub-category moved the most units?", "category_2"),
            ("whats the priciest model we've sold, by unit price?", "model"),
            ("top 3 cities by revenue", "city"),
        ]:
            tool, arguments, answer = chat.ask(question)
            assert tool == "query_data" and arguments is not None, (question, answer)
            assert arguments["group_by"] == [{"column": group}], (question, arguments)
        _, priciest, answer = chat.ask("whats the priciest model we've sold, by unit price?")
        assert priciest is not None and priciest["metrics"] == ["max_price"] and priciest["limit"] == 1
        assert "Model 3: 400.00" in str(answer)


def test_what_the_things_asked_about_never_did_and_which_of_them_stopped(tmp_path: Path) -> None:
    """ "Which dealers have never ordered a Race bike?" is each dealer with no such line (not the
    customers, which the file has none of); "and which ones haven't ordered in the last 3 months?"
    asks about the dealers again, not about those two only."""
    rows = "order_id,order_date,model,category_2,price,quantity,bikeshop\n" + "".join(
        f"{n},2019-{1 + n % 12:02}-1{n % 10},Model {n % 4},{('City', 'Race', 'Triathlon Bike')[n % 3]},"
        f"{100 * (1 + n % 4)},1,{('WITT-RAD', 'Lucky Bike', 'Radmaxx', 'Fahrradkontor')[n % 4]}\n"
        for n in range(48)
    )
    with _chat_on(tmp_path, rows) as chat:
        tool, never, answer = chat.ask("which dealers have never ordered a Race bike?")
        assert tool == "query_data" and never is not None, answer
        assert never["group_by"] == [{"column": "bikeshop"}]
        assert {"column": "category_2", "op": "in", "values": ["Race"], "never_by": "bikeshop"} in never[
            "filters"
        ]
        _, stopped, answer = chat.ask("and which ones haven't placed any order in the last 3 months?")
        assert stopped is not None and stopped["group_by"] == [{"column": "bikeshop"}], answer
        assert not any("never_by" in f for f in stopped["filters"])
        assert {"metric": "last_order_date", "op": "lt", "values": ["2019-10-01"]} in stopped["filters"]


def test_the_things_that_never_had_the_row_just_named(tmp_path: Path) -> None:
    """ "Which states never bought it?" after the best-selling model is each state with no line of
    that model, ever (not the states that bought it); "and which dealers?" asks the same of the
    dealers."""
    rows = "order_id,order_date,model,quantity,price,bikeshop,State\n" + "".join(
        f"{n},2019-{1 + n % 12:02}-1{n % 10},{('Aeroad', 'Grail', 'Grail', 'Neuron')[n % 4]},{1 + n % 3},"
        f"1000,{('WITT-RAD', 'Lucky Bike', 'Radmaxx')[n % 3]},{('Bavaria', 'Hesse', 'Saxony')[n % 3]}\n"
        for n in range(36)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, best, answer = chat.ask("which model sold the most units in 2019?")
        assert best is not None and best["limit"] == 1, answer
        _, never, answer = chat.ask("which states never bought it?")
        assert never is not None and "window" not in never, answer
        assert {"column": "model", "op": "in", "values": ["Grail"], "never_by": "state"} in never["filters"]
        _, dealers, answer = chat.ask("and which dealers?")
        assert dealers is not None and dealers["group_by"] == [{"column": "bikeshop"}], answer
        assert {"column": "model", "op": "in", "values": ["Grail"], "never_by": "bikeshop"} in dealers[
            "filters"
        ]


def test_money_made_is_no_cars_make(tmp_path: Path) -> None:
    """ "How much did they make?" asks for revenue; "revenue by make" groups by the car's make."""
    rows = "Date,Dealer_Name,Company,Model,Price ($)\n" + "".join(
        f"2023-0{1 + n % 9}-1{n % 10},{('Rabun Used Car Sales', 'Classic Chevy')[n % 2]},"
        f"{('Ford', 'Dodge', 'Toyota')[n % 3]},{('Neon', 'Focus', 'Camry')[n % 3]},{20000 + 1000 * (n % 5)}\n"
        for n in range(30)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, made, answer = chat.ask("how much did Classic Chevy make?")
        assert made is not None and made["metrics"] == ["revenue"] and "group_by" not in made, answer
        _, by_make, answer = chat.ask("revenue by make")
        assert by_make is not None and by_make["group_by"] == [{"column": "company"}], answer
        tool, _, answer = chat.ask("did we make money on Classic Chevy?")  # money made is its own figure
        assert tool == "query_data" or "'money'" not in str(answer), answer


def test_one_place_two_columns_examples_in_brackets_and_a_span_a_year_back(tmp_path: Path) -> None:
    """A city-state (the city Bremen, the state Bremen: the same lines) is left out without asking
    which, and "City" before a city is the column, not a kind of bike; values in brackets as
    examples ("(road, mountain etc)") filter nothing; "the same 3 months a yr earlier" is the
    span answered, a year back."""
    rows = (
        "order_id,order_date,category_1,category_2,total_price,City,State\n"
        + "".join(
            f"{n},2019-{1 + n % 12:02}-1{n % 10},{('Road', 'Mountain', 'E-Bikes')[n % 3]},"
            f"{('City', 'Race')[n % 2]},{100 * (1 + n % 4)},{('Bremen', 'Essen', 'Hamburg')[n % 3]},"
            f"{('Bremen', 'North Rhine-Westphalia', 'Hamburg')[n % 3]}\n"
            for n in range(48)
        )
        + "".join(
            f"{100 + n},2018-{1 + n % 12:02}-1{n % 10},Road,Race,50,Essen,North Rhine-Westphalia\n"
            for n in range(24)
        )
    )
    with _chat_on(tmp_path, rows) as chat:
        _, left_out, answer = chat.ask("revenue excluding Bremen")
        assert left_out is not None, answer
        assert left_out["filters"] in (
            [{"column": "city", "op": "not_in", "values": ["Bremen"]}],
            [{"column": "state", "op": "not_in", "values": ["Bremen"]}],
        )
        _, split, answer = chat.ask("revenue split by category (road, mountain, e-bikes etc)")
        assert (
            split is not None and "filters" not in split and split["group_by"] == [{"column": "category_1"}]
        )
        chat.ask("which year brought in the most revenue?")
        _, grew, answer = chat.ask("how much did it grow vs the year before?")  # that year's change
        assert grew is not None and "each_against_previous" not in grew, answer
        assert grew["compare"] == {"start": "2018-01-01", "end": "2018-12-31"}
        chat.ask("how did the last 3 months go, revenue?")
        _, back, answer = chat.ask("vs the same 3 months a yr earlier?")
        assert back is not None and back["compare"]["start"] == "2018-10-01", answer


def test_a_place_that_holds_the_others_and_lines_counted_per_transaction(tmp_path: Path) -> None:
    """ "Outside the mall": the location Brunswick Sq Mall, whose lines hold those of the machines
    named for it, never a question which; "transactions with more than one product line" counts
    each transaction's lines, never a product column."""
    rows = "Location,Machine,Product,Transaction,TransDate,LineTotal\n" + "".join(
        f"{('Brunswick Sq Mall', 'GuttenPlans')[n % 2]},"
        f"{('BSQ Mall x1366 - ATT', 'GP x1367', 'BSQ Mall x1364 - Zales', 'GP x1368')[n % 4]},"
        f"{('Red Bull', 'Coca Cola', 'Water')[n % 3]},{1000 + n // 2},"
        f"2022-0{1 + n % 9}-1{n % 10},{1 + n % 3}\n"
        for n in range(40)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, lines, answer = chat.ask("how many transactions had more than one product line on them?")
        assert lines is not None and lines["group_by"] == [{"column": "transaction"}], answer
        assert lines["filters"] == [{"metric": "lines", "op": "gt", "values": [1.0]}] and lines["count"]
        _, outside, answer = chat.ask("what's revenue outside the mall?")
        assert outside is not None, answer
        assert {"column": "location", "op": "not_in", "values": ["Brunswick Sq Mall"]} in outside["filters"]
    (tmp_path / "shares").mkdir()
    with _chat_on(tmp_path / "shares", rows) as chat:
        _, within, answer = chat.ask("what % of transactions were Water, by location?")
        assert within is not None and within["share_of"] == {"each_group": True}, answer
        assert "of that location" in str(answer)
        _, across, answer = chat.ask("share of Water transactions by location")  # of all Water's
        assert across is not None and across.get("share") and "share_of" not in across, answer


def test_a_file_of_one_column_per_item_is_read_as_its_lines(tmp_path: Path) -> None:
    """A till's export of one row per receipt and one column per item (pieces sold, blank for none;
    ``;``-delimited, days first, an empty row, a row with a date only) imports as its lines: the
    receipts are counted and ranked by their totals, items by their pieces (an item no receipt
    sold is none of them); a total is never split among items, and receipts without an item are
    whole receipts."""
    items = ("angbutter", "plain bread", "jam", "americano", "croque monsieur")
    rows = ["datetime;day of week;total;place;" + ";".join(items)]
    for n in range(40):
        sold = [str(1 + n % 3) if n % 4 else "", "1" if n % 2 else "", "", "2" if n % 5 == 0 else "", ""]
        if not any(sold):
            sold[2] = "1"
        day, place = f"{1 + n % 28}/0{1 + n % 3}/2020 1{n % 8}:05", ("동면", "", "교동")[n % 3]
        rows.append(f"{day};Mon;{1000 * (1 + n % 7) + n};{place};" + ";".join(sold))
    rows += [";;;;;;;;", "18/06/2020 14:52;;;;;;;;"]
    with _chat_on(tmp_path, "\n".join(rows) + "\n") as chat:
        _, _, answer = chat.ask("how many receipts are there?")
        assert answer == "Orders, all time: 40.", answer
        _, _, answer = chat.ask("total revenue?")
        assert answer == f"Revenue, all time: {sum(1000 * (1 + n % 7) + n for n in range(40)):,}.00.", answer
        _, top, answer = chat.ask("top 3 items by units sold")
        assert top is not None and top["group_by"] == [{"column": "item"}], answer
        assert "1. angbutter: 60" in str(answer), answer
        _, _, answer = chat.ask("bottom 1?")
        assert "1. jam: 8" in str(answer) and "croque" not in str(answer), answer
        _, biggest, answer = chat.ask("biggest single receipt ever - how much and when?")
        assert biggest is not None and biggest["metrics"] == ["revenue", "first_datetime"], answer
        assert "(top 1 of 40" in str(answer), answer
        _, held, answer = chat.ask("what was on it?")  # its items, not its total again
        assert held is not None and held["metrics"] == ["units"], answer
        assert held["group_by"] == [{"column": "item"}] and held["filters"][0]["op"] == "in", answer
        _, rest, answer = chat.ask("leaving that one receipt out, which day had the most revenue?")
        assert rest is not None and rest["filters"][0]["op"] == "not_in", answer
        _, placed, answer = chat.ask("top 2 places by number of receipts (ignore blank place)")
        assert placed is not None and placed["filters"] == [{"column": "place", "op": "present"}], answer
        chat.ask("revenue not counting the 동면 orders?")
        _, both, answer = chat.ask("now also drop the ones with no place")
        assert both is not None and len(both["filters"]) == 2, answer
        _, _, answer = chat.ask("avg number of items per receipt?")
        assert answer == "Units per order, all time: 2.6.", answer
        tool, _, answer = chat.ask("revenue by item")
        assert tool == "query_data" and "whole order's" in str(answer), answer
        _, none, answer = chat.ask("how many receipts had no angbutter?")
        assert none is not None and none["filters"][0]["never_by"] == "order_number", answer
        assert answer == "Orders, never Item angbutter (by order), all time: 10.", answer
        _, both, answer = chat.ask("how many receipts had both angbutter and plain bread?")
        assert both is not None and [f.get("ever_by") for f in both["filters"]] == ["order_number"] * 2, (
            answer
        )
        assert answer is not None and answer.endswith("all time: 20."), answer
        _, held, answer = chat.ask("revenue of receipts with angbutter")  # each whole receipt, never refused
        with_it = sum(1000 * (1 + n % 7) + n for n in range(40) if n % 4)
        assert held is not None and answer is not None and answer.endswith(f"all time: {with_it:,}.00."), (
            answer
        )
        _, place, answer = chat.ask("revenue in 동면?")
        assert place is not None and place["filters"] == [{"column": "place", "op": "in", "values": ["동면"]}]


def test_an_average_per_period_and_the_first_and_last_day(tmp_path: Path) -> None:
    """ "Avg revenue per trading day" is each day's revenue averaged over the days with sales (one
    figure, how many days said); "average monthly revenue" likewise by month, kept by a follow-up
    and left for a breakdown; "when's the first sale, and the last?" is both days."""
    rows = "order_id,order_date,store,amount\n" + "".join(
        f"{n},2024-0{1 + n % 3}-{1 + n % 5:02},{('North', 'South')[n % 2]},{10 * (1 + n % 4)}\n"
        for n in range(30)
    )
    days = {(1 + n % 3, 1 + n % 5) for n in range(30)}
    revenue = sum(10 * (1 + n % 4) for n in range(30))
    with _chat_on(tmp_path, rows) as chat:
        _, per, answer = chat.ask("avg revenue per trading day?")
        assert per is not None and per["per"] == "day" and "group_by" not in per, answer
        said = f"{revenue / len(days):,.2f} (the average of {len(days)} days with sales)"
        assert answer == f"Revenue per day, on average, all time: {said}.", answer
        _, monthly, answer = chat.ask("average monthly revenue")
        assert monthly is not None and monthly["per"] == "month", answer
        _, north, answer = chat.ask("and for North?")
        assert north is not None and north.get("per") == "month", answer
        _, split, answer = chat.ask("by store?")
        assert split is not None and "per" not in split and split["group_by"] == [{"column": "store"}], answer
        _, ends, answer = chat.ask("when's the first sale in the file, and the last?")
        assert ends is not None and ends["metrics"] == ["first_order_date", "last_order_date"], answer


def test_a_file_of_monthly_figures_counts_no_orders_and_ends_with_its_last_month(tmp_path: Path) -> None:
    """A monthly summary (a row per state, product and month, dated on the 1st, month first): its
    rows are no orders and no units, so counting them is declined with why; its last month is
    whole, so "the last 3 months" are October to December."""
    rows = "Date,State,Product,Sales\n" + "".join(
        f"{m}/1/2011 0:00,{state},{product},{10 * m + len(state)}\n"
        for m in range(1, 13)
        for state in ("Ohio", "Utah")
        for product in ("Mint", "Lemon")
    )
    with _chat_on(tmp_path, rows) as chat:
        _, _, answer = chat.ask("how many orders?")
        assert answer is not None and answer.startswith(
            "I can't answer that from this data: it holds no figures on orders (each row is a month's figures"
        ), answer
        _, _, answer = chat.ask("how many rows are there?")
        assert answer == "Rows, all time: 48.", answer
        _, _, answer = chat.ask("are there negative sales numbers? how many rows")
        assert answer == "Rows, Sales under 0, all time: 0.", answer
        _, _, answer = chat.ask("sales for the last 3 months?")
        q4 = sum(10 * m + len(state) for m in (10, 11, 12) for state in ("Ohio", "Utah") for _ in range(2))
        assert answer == f"Revenue, Q4 2011 (the latest quarter in the data): {q4:,}.00.", answer


def test_what_a_place_never_sold_and_what_things_are_listed(tmp_path: Path) -> None:
    """ "Which markets never sold Latte?" lists the markets without a line of it (a store's verbs:
    sold, stocked, carried), not those with one; "what products do we never sell in the South?" lists
    the products, as "which" does, and "had no sales of" is a never too. A name spelt with one vowel
    for another ("colombian") is the file's ("Columbian")."""
    sold = {"South": ("Latte", "Columbian"), "West": ("Latte", "Lemon"), "East": ("Columbian", "Lemon")}
    rows = "Date,Market,Product,Sales\n" + "".join(
        f"2024-0{m}-01,{market},{product},{10 * m}\n"
        for m in range(1, 5)
        for market, products in sold.items()
        for product in products
    )
    with _chat_on(tmp_path, rows) as chat:
        _, never, answer = chat.ask("which markets never sold latte?")
        assert never is not None and never["filters"][0]["never_by"] == "market", answer
        assert answer is not None and "1. East" in answer and "South" not in answer, answer
        _, _, answer = chat.ask("which markets had no sales of lemon?")
        assert answer is not None and "1. South" in answer and "West" not in answer, answer
        _, listed, answer = chat.ask("what products do we never sell in the south?")
        assert listed is not None and listed["group_by"] == [{"column": "product"}], answer
        assert answer is not None and "1. Lemon" in answer and "Columbian" not in answer, answer
        _, spelt, answer = chat.ask("which market sells the most colombian?")  # a vowel for another
        assert spelt is not None and spelt["filters"][0]["values"] == ["Columbian"], answer
        _, _, answer = chat.ask("which market sells the most iemon?")  # no vowel: no name
        assert answer is not None and "I don't know what 'iemon'" in answer, answer


def test_a_figure_against_its_budget(tmp_path: Path) -> None:
    """A file with "BudgetSales" beside "Sales" plans the sales: held against it ("did we beat the
    sales budget?") the answer is the actual, the budget and the difference; "furthest under its
    budget" ranks the lowest difference first; "did any market not hit its budget?" counts those
    under it, never reading "not … in 2024" as a period left out."""
    plan = {("North", "Mint"): (100, 90), ("North", "Lemon"): (80, 95), ("South", "Mint"): (70, 60)}
    rows = "Date,Market,Product,Sales,BudgetSales\n" + "".join(
        f"2024-0{m}-01,{market},{product},{sales + m},{budget}\n"
        for m in range(1, 5)
        for (market, product), (sales, budget) in plan.items()
    )
    sales = sum(sales + m for m in range(1, 5) for sales, _ in plan.values())
    budget = sum(4 * budget for _, budget in plan.values())
    with _chat_on(tmp_path, rows) as chat:
        _, beat, answer = chat.ask("did we beat the sales budget? actual vs budget")
        assert beat is not None and beat["metrics"] == ["revenue_vs_budgetsales", "revenue", "budgetsales"]
        assert answer is not None and f"Revenue {sales:,}.00; Budget sales {budget:,}.00" in answer, answer
        _, under, answer = chat.ask("which product came in furthest under its sales budget?")
        assert under is not None and under["order"] == "asc" and under["limit"] == 1, answer
        assert answer is not None and "1. Lemon: Revenue vs budget -50.00" in answer, answer
        _, missed, answer = chat.ask("did any market not hit its sales budget in 2024? how many")
        assert missed is not None and missed["count"] and missed["window"]["start"] == "2024-01-01", answer
        assert missed["filters"] == [{"metric": "revenue_vs_budgetsales", "op": "lt", "values": [0]}], answer


def test_a_claim_that_one_is_the_top_is_checked_against_the_ranking(tmp_path: Path) -> None:
    """ "My boss says Utah is our most profitable state. true?" reads the claim, and a claim that
    one value is the first of its column ranks the column (the first three) rather than giving that
    value's figure alone; a question that only names a value keeps it as a filter."""
    profits = {"Utah": 50, "Ohio": 70, "Iowa": 20, "Maine": 10}
    rows = "Date,State,Sales,Profit\n" + "".join(
        f"2024-0{m}-0{m},{state},{4 * profit},{profit}\n"
        for m in range(1, 4)
        for state, profit in profits.items()
    )
    with _chat_on(tmp_path, rows) as chat:
        _, claim, answer = chat.ask("my boss says utah is our most profitable state. true?")
        assert claim is not None and claim["group_by"] == [{"column": "state"}] and claim["limit"] == 3, (
            answer
        )
        assert answer is not None and "1. Ohio: 210.00" in answer and "2. Utah: 150.00" in answer, answer
        _, least, answer = chat.ask("is maine the least profitable state?")
        assert least is not None and least["order"] == "asc" and "1. Maine" in str(answer), answer
        _, plain, answer = chat.ask("what is the profit in utah?")
        assert plain is not None and plain["filters"] == [{"column": "state", "op": "in", "values": ["Utah"]}]


def test_grew_fastest_ranks_by_the_rate_and_grew_most_by_the_amount(tmp_path: Path) -> None:
    """ "Which product grew fastest 2023 to 2024?" ranks by the change as a share of 2023's figure (a
    small line that doubled first); "grew most" by the amount."""
    sales = {"Big": (1000, 1300), "Small": (10, 20)}
    rows = "Date,Product,Sales\n" + "".join(
        f"{year}-03-01,{product},{amounts[year - 2023]}\n"
        for year in (2023, 2024)
        for product, amounts in sales.items()
    )
    with _chat_on(tmp_path, rows) as chat:
        _, fastest, answer = chat.ask("which product grew fastest 2023 to 2024?")
        assert fastest is not None and fastest["by_growth"] and "ranked by the % change" in str(answer), (
            answer
        )
        assert "1. Small: Revenue 20.00 vs 10.00, up 10.00 (100.00%)" in str(answer), answer
        _, most, answer = chat.ask("which product grew most 2023 to 2024?")
        assert most is not None and "by_growth" not in most and "1. Big" in str(answer), answer


def test_a_split_in_percent_and_the_best_of_the_months_just_listed(tmp_path: Path) -> None:
    """ "The decaf vs regular split of sales in %" is each type's share; "best month?" after the
    months of 2024 is the best of those, and "in the whole file" the best of every month."""
    rows = "Date,Type,Sales\n" + "".join(
        f"{year}-0{m}-01,{kind},{amount * m + (500 if year == 2023 and m == 2 else 0)}\n"
        for year in (2023, 2024)
        for m in range(1, 5)
        for kind, amount in (("Decaf", 10), ("Regular", 30))
    )
    with _chat_on(tmp_path, rows) as chat:
        _, split, answer = chat.ask("whats the decaf vs regular split of sales in %")
        assert (
            split is not None and split["share"] and "2. Decaf: 700.00 (38.89% of the total)" in str(answer)
        ), answer
        chat.ask("monthly sales for 2024 pls")
        _, best, answer = chat.ask("best month?")
        assert best is not None and best["window"]["start"] == "2024-01-01", answer
        assert "1. April 2024: 160.00" in str(answer), answer
        _, whole, answer = chat.ask("whats the single best month in the whole file tho?")
        assert whole is not None and "window" not in whole and "1. February 2023" in str(answer), answer


def test_one_figure_as_a_share_of_another_or_for_each_of_another(tmp_path: Path) -> None:
    """Any two totals make a ratio no file declares: "marketing as % of sales", "the profit to sales
    ratio", "what % of sales was marketing?", "profit per order" and, after a figure, "as a % of
    sales?" (its period kept). The two figures are shown beside it, and a ranking is by the ratio."""
    figures = {"West": (1000, 150, 300), "East": (500, 100, 50)}  # sales, marketing, profit
    rows = "Date,Order,Market,Sales,Marketing,Profit\n" + "".join(
        f"2024-0{m}-0{m},{market}-{m}-{n},{market},{sales / 4},{marketing / 4},{profit / 4}\n"
        for m in range(1, 3)
        for market, (sales, marketing, profit) in figures.items()
        for n in (1, 2)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, share, answer = chat.ask("total marketing as % of sales in 2024")
        assert share is not None and share["metrics"] == [
            "marketing__percent_of__revenue",
            "marketing",
            "revenue",
        ]
        assert answer is not None and "Marketing as % of revenue 16.67%" in answer, answer
        _, ranked, answer = chat.ask("which market has the highest marketing to sales ratio?")
        assert ranked is not None and ranked["group_by"] == [{"column": "market"}], answer
        assert answer is not None and "1. East: Marketing as % of revenue 20.00%" in answer, answer
        _, _, answer = chat.ask("what % of sales was profit?")
        assert answer is not None and "Profit as % of revenue 23.33%" in answer, answer
        _, each, answer = chat.ask("profit per order by market")
        assert each is not None and each["metrics"][0] == "profit__per__orders", answer
        assert answer is not None and "West: Profit per order 75.00" in answer, answer
        _, spent, answer = chat.ask("how much did we spend on marketing in total?")
        assert spent is not None and spent["metrics"] == ["marketing"], answer
        chat.ask("marketing in the west")
        _, patched, answer = chat.ask("as a % of sales?")
        assert patched is not None and patched["filters"][0]["values"] == ["West"], answer
        assert answer is not None and "Marketing as % of revenue 15.00%" in answer, answer


def test_a_condition_on_every_period_of_each_group(tmp_path: Path) -> None:
    """ "Which products made a profit every month?" tests each month's profit, not the year's; "no
    loss-making month" lets a month at 0 or without lines pass; "how many … every month" counts them;
    "sales every month" stays the monthly series and "sold the most each year" a ranking per year."""
    profits = {"Mint": (5, -1, 3), "Lemon": (1, 1, 2), "Chai": (4, 0, 1)}
    rows = "Date,Product,Sales,Profit\n" + "".join(
        f"2024-0{m}-01,{product},{10 + m},{profit}\n"
        for product, monthly in profits.items()
        for m, profit in enumerate(monthly, 1)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, every, answer = chat.ask("which products made a profit every month?")
        assert every is not None and every["filters"] == [
            {"metric": "profit", "op": "gt", "values": [0], "each": "month"}
        ], answer
        assert answer is not None and "every month" in answer and "1. Lemon" in answer, answer
        assert "Mint" not in answer and "Chai" not in answer, answer
        _, _, answer = chat.ask("which products didn't have a single loss-making month?")
        assert answer is not None and "Chai" in answer and "Lemon" in answer and "Mint" not in answer, answer
        _, counted, answer = chat.ask("how many products were profitable every month")
        assert counted is not None and counted["count"] and "1 product" in str(answer), answer
        _, series, _ = chat.ask("sales every month")
        assert series is not None and series["group_by"][0].get("grain") == "month"
        assert not any("each" in f for f in series.get("filters", []))
        _, ranked, _ = chat.ask("which product sold the most each month")
        assert ranked is not None and not any("each" in f for f in ranked.get("filters", []))


def test_a_file_of_each_stores_weeks(tmp_path: Path) -> None:
    """Walmart's layout: a row per store and week, dated each Friday, the store a number, a 0/1
    holiday flag, a temperature. Its rows are no orders; "Store 2" is a store, "the holiday weeks" the
    flagged ones (no breakdown by week), a temperature is averaged, "all stores combined" is no
    breakdown by store, and a week is the file's own date."""
    fridays = [date(2024, 1, 5) + timedelta(weeks=w) for w in range(9)]
    rows = "Store,Date,Weekly_Sales,Holiday_Flag,Temperature\n" + "".join(
        f"{store},{day:%d-%m-%Y},{1000 * store + w},{int(w == 3)},{40 + store}\n"
        for store in (1, 2, 3)
        for w, day in enumerate(fridays)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, top, answer = chat.ask("top 2 stores by total sales")
        assert top is not None and top["group_by"] == [{"column": "store"}], answer
        assert answer is not None and "1. Store 3: 27,036.00" in answer, answer
        _, one, answer = chat.ask("store 2 sales?")
        assert one is not None and one["filters"] == [{"column": "store", "op": "in", "values": ["2"]}], (
            answer
        )
        _, held, answer = chat.ask("total sales excluding the holiday weeks")
        assert held is not None and "group_by" not in held, answer
        assert held["filters"] == [{"column": "holiday_flag", "op": "not_in", "values": ["Holiday"]}], answer
        _, _, answer = chat.ask("which store has the highest average temperature?")
        assert answer is not None and "1. Store 3: 43" in answer, answer
        _, week, answer = chat.ask("which week had the biggest total sales, all stores combined?")
        assert week is not None and week["group_by"] == [{"column": "date", "grain": "week"}], answer
        assert answer is not None and f"week of {fridays[8]:%B} {fridays[8].day}, 2024" in answer, answer
        _, _, answer = chat.ask("how many orders?")
        assert answer is not None and "each row is a week's figures" in answer, answer
        _, swing, answer = chat.ask("which store has the most volatile weekly sales? by std dev")
        assert swing is not None and swing["metrics"][0] == "deviation_weekly_sales", answer
        assert answer is not None and "1. Store 1: Standard deviation of weekly sales 2.74" in answer, answer
        _, goes, answer = chat.ask("does temperature have any relationship with sales?")
        assert goes is not None and goes["metrics"] == ["correlation_temperature"], answer
        assert answer is not None and "Correlation of temperature with weekly sales, all time: 1.00" in answer
        _, under, answer = chat.ask("were there any weeks where the whole chain did under 6010?")
        assert under is not None and under["group_by"] == [{"column": "date", "grain": "week"}], answer
        assert answer is not None and "1. week of January 5, 2024: 6,000.00" in answer, answer
        _, never, answer = chat.ask("how many stores never had a single week over $3005?")
        assert never is not None and never["count"], answer
        assert never["filters"] == [{"metric": "revenue", "op": "le", "values": [3005.0], "each": "week"}]
        assert answer is not None and ": 2 stores" in answer, answer
        _, span, answer = chat.ask("alright, total sales for stores 2 to 3")
        assert span is not None and span["filters"] == [{"column": "store", "op": "in", "values": ["2", "3"]}]
        assert answer is not None and "Total of the 2: 45,072.00" in answer, answer
        _, typical, answer = chat.ask("so whats a typical week for a store?")
        assert typical is not None and typical["metrics"] == ["average_weekly_sales"], answer
        chat.ask("how did the latest week do?")
        _, _, answer = chat.ask("vs the same week last year?")  # 52 weeks back: Friday to Friday
        assert answer is not None and "February 25, 2023 to March 3, 2023" in answer, answer
        _, never_hot, answer = chat.ask("which stores never had a temperature above 42?")
        assert never_hot is not None and never_hot["filters"][0]["never_by"] == "store", answer
        assert answer is not None and "Store 1" in answer and "Store 2" in answer and "Store 3" not in answer


def test_another_figure_said_growing_after_a_comparison_keeps_its_periods(tmp_path: Path) -> None:
    """ "How did 2024 sales compare to 2023?", then "profit grew a lot more i think - by how much %?":
    the same two years, of profit."""
    rows = "Date,Sales,Profit\n2023-03-01,100,10\n2024-03-01,110,20\n"
    with _chat_on(tmp_path, rows) as chat:
        chat.ask("how did 2024 sales compare to 2023? need the growth %")
        _, grew, answer = chat.ask("profit grew a lot more i think - by how much %?")
        assert grew is not None and grew["metrics"] == ["profit"] and "compare" in grew, answer
        assert answer is not None and "up 10.00 (100.00%)" in answer, answer


def test_a_value_said_plain_is_itself_and_a_plain_average_an_average(tmp_path: Path) -> None:
    """ "Plain lattes" of a menu with *Latte* and *Chai Latte* are the *Latte* lines; "the plain
    average" is the average; "the Sales column" names the column."""
    rows = "Date,Product,Quantity,Unit Price\n2024-01-02,Latte,2,4.0\n2024-01-03,Chai Latte,3,5.0\n"
    with _chat_on(tmp_path, rows) as chat:
        _, plain, answer = chat.ask("how many plain lattes did we sell?")
        assert plain is not None and plain["filters"] == [
            {"column": "product", "op": "in", "values": ["Latte"]}
        ]
        assert answer is not None and ": 2." in answer, answer
        _, average, answer = chat.ask("what's the plain average unit price?")
        assert average is not None and average["metrics"] == ["average_price"], answer
        _, column, answer = chat.ask("grand total of the quantity column?")
        assert column is not None and column["metrics"] == ["units"] and "5" in str(answer), answer


def test_groups_that_went_up_or_down_between_two_periods(tmp_path: Path) -> None:
    """After "which region grew the most in 2024 vs 2023?": "how many regions went backwards?" counts
    those whose change is below 0, "who dropped the most?" ranks the fall; "which regions grew in 2024
    vs 2023?" lists those whose change is above 0."""
    sales = {"North": (100, 150), "South": (100, 80), "East": (100, 90)}
    rows = "Date,Region,Sales\n" + "".join(
        f"{2023 + i}-05-01,{region},{amount}\n"
        for region, amounts in sales.items()
        for i, amount in enumerate(amounts)
    )
    with _chat_on(tmp_path, rows) as chat:
        chat.ask("which region grew the most in 2024 vs 2023?")
        _, counted, answer = chat.ask("how many regions went backwards?")
        assert counted is not None and counted["count"], answer
        assert counted["filters"] == [{"metric": "revenue", "op": "lt", "values": [0], "change": True}], (
            answer
        )
        assert answer is not None and "revenue down" in answer and ": 2 regions" in answer, answer
        _, fell, answer = chat.ask("who dropped the most?")
        assert fell is not None and fell["order"] == "asc" and fell["limit"] == 1, answer
        assert answer is not None and "1. South" in answer, answer
        _, _, answer = chat.ask("which regions grew in 2024 vs 2023?")
        assert answer is not None and "1. North" in answer and "South" not in answer, answer


def test_a_third_of_a_month_and_two_spans_side_by_side(tmp_path: Path) -> None:
    """ "Late October 2023" is its 21st to 31st, "early March" its 1st to 10th, and "jan to late oct"
    runs to the month's end; two spans joined by "vs" are set side by side, each with its year."""
    rows = "Date,Sales\n" + "".join(
        f"{year}-{month:02}-{day:02},{day}\n"
        for year in (2023, 2024)
        for month in (2, 3, 10)
        for day in (5, 15, 25)
    )
    with _chat_on(tmp_path, rows) as chat:
        _, late, answer = chat.ask("sales in late october 2023")
        assert late is not None and late["window"] == {"start": "2023-10-21", "end": "2023-10-31"}, answer
        _, early, _ = chat.ask("sales in early march")
        assert early is not None and early["window"] == {"start": "2024-03-01", "end": "2024-03-10"}
        _, run, _ = chat.ask("sales from jan to late oct 2024")
        assert run is not None and run["window"] == {"start": "2024-01-01", "end": "2024-10-31"}
        _, two, answer = chat.ask("sales feb 11-20 2024 vs feb 11-20 2023")
        assert two is not None and two["compare"] == {"start": "2023-02-11", "end": "2023-02-20"}, answer
        assert two["window"] == {"start": "2024-02-11", "end": "2024-02-20"}, answer
