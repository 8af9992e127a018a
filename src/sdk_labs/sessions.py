"""Lab 05 — sessions: give a conversation a stable id so it survives closing the session and the process.

Turn 1 runs in a new session created with an explicit id; leaving ``async with`` closes it, so turn 2 is
a real resume of a closed session (the id is positional on resume, a keyword on create). ``--resume ID``
runs only turn 2, in a second process: the cross-process proof. The route line and progress go to
stderr, so stdout is exactly the lab's verified output shape.
"""

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from agent_orchestrator.errors import AgentOrchestratorError, SessionNotFoundError
from agent_orchestrator.mcp_server.profile import analyst_profile
from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.sessions.ids import new_session_id, validate_session_id
from agent_orchestrator.settings import load_settings

TURN_1 = "Remember this: my favourite retail segment is 'At Risk'. Reply with just OK."
TURN_2 = "Which retail segment did I say was my favourite?"
TURN_3 = "In that same earlier message, what short reply did I ask you to give?"


@dataclass(frozen=True)
class LabOptions:
    """Parsed command line: which path through the lab to take."""

    model: str | None
    resume: str | None
    session_id: str | None
    list_only: bool
    latest: bool
    third_turn: bool
    delete: str | None
    verbose: bool


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sdk_labs sessions",
        description="Lab 05: create a session with an explicit id, close it, resume it.",
    )
    parser.add_argument("--model", help="model id (default: the route's default)")
    paths = parser.add_mutually_exclusive_group()
    paths.add_argument("--resume", metavar="ID", help="skip turn 1 and resume this session id")
    paths.add_argument(
        "--session-id", metavar="ID", help="use a stable id such as analyst-demo; reruns continue it"
    )
    paths.add_argument("--list", action="store_true", help="list stored sessions, newest first")
    paths.add_argument("--latest", action="store_true", help="resume the most recently used session")
    paths.add_argument("--delete", metavar="ID", help="delete a stored session")
    parser.add_argument(
        "--third-turn", action="store_true", help="stretch challenge: resume once more after the metadata"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="show the SDK's own log messages")
    return parser


def parse_options(argv: Sequence[str]) -> LabOptions:
    args = build_parser().parse_args(argv)
    return LabOptions(
        model=args.model,
        resume=args.resume,
        session_id=args.session_id,
        list_only=args.list,
        latest=args.latest,
        third_turn=args.third_turn,
        delete=args.delete,
        verbose=args.verbose,
    )


async def _turn(runtime: CopilotRuntime, session_id: str, prompt: str, *, create: bool) -> None:
    """Open (create or resume) the session, ask one question, and close it again."""
    opened = await runtime.create_session(session_id) if create else await runtime.resume_session(session_id)
    async with opened as session:
        print(f"You: {prompt}")
        print(f"Assistant: {await runtime.ask(session, prompt)}", flush=True)


async def _print_metadata(runtime: CopilotRuntime, session_id: str) -> None:
    print("\n--- Session metadata ---")
    metadata = await runtime.get_metadata(session_id)
    if metadata is None:
        print("  (no metadata returned)")
    else:
        print(f"  id={metadata.session_id} metadata retrieved")


async def _list_sessions(runtime: CopilotRuntime) -> None:
    sessions = await runtime.list_sessions()
    if not sessions:
        print("No stored sessions.")
    for meta in sessions:
        summary = (meta.summary or "").replace("\n", " ")[:60]
        print(f"{meta.session_id}  {meta.modified_time:%Y-%m-%d %H:%M:%S}  {summary}")


async def _latest_session_id(runtime: CopilotRuntime) -> str:
    sessions = await runtime.list_sessions()
    if not sessions:
        raise SessionNotFoundError("There is no stored session to resume yet; run the lab once first.")
    return sessions[0].session_id


async def run_lab(options: LabOptions, settings: RuntimeSettings) -> None:
    """The lab itself; raises :class:`AgentOrchestratorError` for anything a user should read."""
    for given in (options.resume, options.session_id, options.delete):
        if given is not None:
            validate_session_id(given)
    async with CopilotRuntime(settings, profile=analyst_profile()) as runtime:
        route = runtime.route
        assert route is not None
        print(route.describe(), file=sys.stderr, flush=True)
        if options.list_only:
            await _list_sessions(runtime)
            return
        if options.delete:
            await runtime.delete_session(options.delete)
            print(f"Deleted session {options.delete}.")
            return

        resume_id = await _latest_session_id(runtime) if options.latest else options.resume
        if resume_id is not None and await runtime.get_metadata(resume_id) is None:
            raise SessionNotFoundError(f"No stored session has the id {resume_id}.")
        session_id = resume_id or options.session_id or new_session_id()
        existing = options.session_id is not None and await runtime.get_metadata(session_id) is not None

        print("== Lab 05: sessions ==\n")
        print(f"Model: {route.model}")
        print(f"Session id: {session_id}" + (" (existing session: continuing it)" if existing else ""))
        if resume_id is None:
            print(f"\n--- Turn 1 ({'resumed existing' if existing else 'new'} session) ---")
            await _turn(runtime, session_id, TURN_1, create=not existing)
            print("\nSession closed.", flush=True)
        print("\n--- Turn 2 (resumed session) ---")
        await _turn(runtime, session_id, TURN_2, create=False)
        await _print_metadata(runtime, session_id)
        if options.third_turn:
            print("\n--- Turn 3 (resumed again) ---")
            await _turn(runtime, session_id, TURN_3, create=False)


def main(argv: Sequence[str]) -> int:
    """Entry point for ``python -m sdk_labs sessions``; returns the exit code."""
    options = parse_options(argv)
    # The SDK logs every failed request with a traceback; the lab reports failures in one line instead.
    logging.basicConfig(level=logging.INFO if options.verbose else logging.CRITICAL + 1)
    try:
        settings = load_settings().runtime.with_overrides(model=options.model)
        asyncio.run(run_lab(options, settings))
    except AgentOrchestratorError as error:
        print("error: " + " ".join(str(error).split()), file=sys.stderr)
        return 1
    except ValueError as error:  # bad configuration values (settings)
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    return 0
