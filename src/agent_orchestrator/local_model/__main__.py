"""``python -m agent_orchestrator.local_model serve|fetch`` — run the local model server, or get its weights.

    serve [--model 0.5b|1.5b] [--model-path P] [--host 127.0.0.1] [--port 8765] [--ctx N] [--threads N]
          [--token T]
    fetch [--model 0.5b|1.5b] [--cache-dir D]   # assemble/verify the weights, print the path

Unless a flag says otherwise, the cache directory (``$AGENT_ORCHESTRATOR_HOME/models``), the model file
(``$AGENT_MODEL_PATH``), the server's token (``$AGENT_LOCAL_MODEL_TOKEN``) and the hub (``HF_*``) come
from ``agent_orchestrator.settings``. Clients send the token as their API key (``access``); without one,
``serve`` makes one up and prints it on stderr (no client could use the server otherwise). Errors are one
line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent_orchestrator.settings import SettingsError, load_settings


def _parser() -> argparse.ArgumentParser:
    from .weights import DEFAULT_MODEL, MODELS

    models = ", ".join(
        f"{c.key} ({c.model_id}: download {c.download_mb} MB, disk {c.disk_mb} MB, RAM ~{c.ram_mb} MB)"
        for c in MODELS.values()
    )
    parser = argparse.ArgumentParser(
        prog="python -m agent_orchestrator.local_model", description=f"Embedded model. Models: {models}."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in (("serve", "run the OpenAI-compatible server"), ("fetch", "assemble/verify weights")):
        p = sub.add_parser(name, help=help_)
        p.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_MODEL)
        p.add_argument(
            "--cache-dir", type=Path, default=None, help="default: $AGENT_ORCHESTRATOR_HOME/models"
        )
        p.add_argument("--model-path", type=Path, default=None, help="use this GGUF file as is")
        if name == "serve":
            p.add_argument("--host", default="127.0.0.1")
            p.add_argument("--port", type=int, default=8765)
            p.add_argument("--ctx", type=int, default=8192, help="context length in tokens (max 32768)")
            p.add_argument(
                "--threads", type=int, default=None, help="default: the cores this process may use"
            )
            p.add_argument(
                "--max-waiting", type=int, default=4, help="requests queued behind the running one"
            )
            p.add_argument(
                "--token",
                default=None,
                help="the API key clients must send (default: $AGENT_LOCAL_MODEL_TOKEN, else a new one)",
            )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .engine import EngineError, LocalEngine
    from .weights import WeightsError, get_choice, resolve_weights

    try:
        settings = load_settings().runtime
        choice = get_choice(args.model)
        path = resolve_weights(
            choice,
            cache_dir=args.cache_dir or settings.models_dir,
            explicit_path=args.model_path or settings.local_model_path,
            hub=settings.hub,
        )
        if args.command == "fetch":
            print(path)
            return 0
        import uvicorn

        from .access import new_token
        from .app import create_app

        token = args.token or settings.local_model_token
        engine = LocalEngine(path, n_ctx=args.ctx, n_threads=args.threads)
        print(
            f"local model {choice.model_id} loaded in {engine.load_seconds:.1f}s; "
            f"serving http://{args.host}:{args.port}/v1",
            file=sys.stderr,
        )
        if token is None:
            token = new_token()
            print(f"API key (send as 'Authorization: Bearer ...'): {token}", file=sys.stderr)
        app = create_app(
            engine, token=token, bind_host=args.host, model_id=choice.model_id, max_waiting=args.max_waiting
        )
        uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
        return 0
    except (SettingsError, WeightsError, EngineError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. the port is taken, the cache dir is not writable
        print(f"error: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
