"""The SDK's timestamps read through the ISO 8601 fast path: the same instants, fewer microseconds."""

import importlib
from datetime import UTC, datetime, timedelta

import dateutil.parser
import pytest

from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings, sdk_timestamps

ISO = [
    "2026-11-30T18:40:48.123Z",
    "2026-11-30T18:40:48Z",
    "2026-11-30T18:40:48.123456789Z",  # more digits than a datetime holds: cut to microseconds
    "2026-11-30T18:40:48.1+02:00",
    "2026-11-30T18:40:48",
]


@pytest.mark.parametrize("text", ISO)
def test_iso_timestamps_read_as_the_sdk_reads_them(text):
    fast = sdk_timestamps.fast_parser(dateutil.parser.parse)
    assert fast(text) == dateutil.parser.parse(text)
    assert fast(text).utcoffset() == dateutil.parser.parse(text).utcoffset()


def test_what_is_not_iso_goes_to_the_sdks_own_parser():
    calls = []

    def original(value):
        calls.append(value)
        return dateutil.parser.parse(value)

    fast = sdk_timestamps.fast_parser(original)
    assert fast("Mon, 30 Nov 2026 18:40:48 GMT") == datetime(2026, 11, 30, 18, 40, 48, tzinfo=UTC)
    with pytest.raises(TypeError):
        fast(None)  # the SDK's own error, as before
    assert calls == ["Mon, 30 Nov 2026 18:40:48 GMT", None]


def test_install_wraps_each_parser_once():
    sdk_timestamps.install()
    first = [importlib.import_module(name).from_datetime for name in sdk_timestamps.SDK_PARSERS]
    sdk_timestamps.install()
    assert [importlib.import_module(name).from_datetime for name in sdk_timestamps.SDK_PARSERS] == first


async def test_a_real_turns_events_carry_their_times_in_utc(tmp_path, scripted_model):
    settings = RuntimeSettings(
        data_dir=tmp_path, provider_base_url=scripted_model.base_url, model="scripted-model"
    )
    stamps: list[datetime] = []
    async with CopilotRuntime(settings) as runtime, await runtime.create_session("timestamps-1") as session:
        session.on(lambda event: stamps.append(event.timestamp))
        started = datetime.now(UTC)
        await runtime.ask(session, "hello")
    assert len(stamps) > 5
    assert all(stamp.tzinfo is UTC for stamp in stamps)
    assert all(abs(stamp - started) < timedelta(minutes=1) for stamp in stamps)
