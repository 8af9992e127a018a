"""Country names as analysts type them, matched to the spelling of the loaded dataset."""

import pytest

from agent_orchestrator.retail.countries import match_country

GENERATED = ("United Kingdom", "United States", "Ireland", "Germany", "Czech Republic")
ONLINE_RETAIL = ("United Kingdom", "USA", "EIRE", "RSA", "Germany", "Channel Islands")


@pytest.mark.parametrize(
    ("typed", "known", "expected"),
    [
        ("germany", GENERATED, "Germany"),
        ("  GERMANY ", GENERATED, "Germany"),
        ("UK", GENERATED, "United Kingdom"),
        ("Great Britain", GENERATED, "United Kingdom"),
        ("U.S.", GENERATED, "United States"),
        ("USA", GENERATED, "United States"),
        ("Eire", GENERATED, "Ireland"),
        ("Czechia", GENERATED, "Czech Republic"),
        ("United States", ONLINE_RETAIL, "USA"),
        ("us", ONLINE_RETAIL, "USA"),
        ("Ireland", ONLINE_RETAIL, "EIRE"),
        ("South Africa", ONLINE_RETAIL, "RSA"),
        ("channel islands", ONLINE_RETAIL, "Channel Islands"),
    ],
)
def test_names_and_aliases_resolve_to_the_datasets_spelling(typed: str, known: tuple, expected: str) -> None:
    assert match_country(typed, known) == expected


@pytest.mark.parametrize("typed", ["Narnia", "", "!!", "South Africa"])
def test_unknown_names_and_aliases_missing_from_the_data_do_not_match(typed: str) -> None:
    assert match_country(typed, GENERATED) is None
