"""Imports inside ``sessions`` point one way: no module and no subpackage imports one that imports it
back, and the runtime imports nothing of ``sessions`` (docs/architecture.md#who-may-call-whom).

The graph is read from the source with ``ast``: every import, also those only for type checking or
inside a function, and importing ``a.b.c`` counts as importing the packages ``a`` and ``a.b`` too (their
``__init__`` runs first). The top-level ``__init__`` imports nothing at run time (its names are lazy),
so it is left out.
"""

import ast
from collections.abc import Iterator
from pathlib import Path

import agent_orchestrator

SRC = Path(agent_orchestrator.__file__).parent.parent
SESSIONS = "agent_orchestrator.sessions"


def _modules(package: str) -> dict[str, Path]:
    root = SRC / package.replace(".", "/")
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imported(module: str, path: Path) -> Iterator[str]:
    """Every dotted name ``module`` imports (``from m import n`` gives both ``m`` and ``m.n``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def _graph() -> dict[str, set[str]]:
    modules = _modules(SESSIONS)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        own = {module.rsplit(".", k)[0] for k in range(1, module.count(".") + 1)}
        targets: set[str] = set()
        for name in _imported(module, path):
            parts = name.split(".")
            for end in range(SESSIONS.count(".") + 2, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix in modules and prefix not in own and prefix != module:
                    targets.add(prefix)
        graph[module] = targets
    del graph[SESSIONS]
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = [stack.pop()]
            while component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def _room(module: str) -> str:
    """The subpackage (or top-level module) of ``sessions`` a module belongs to."""
    return module.removeprefix(f"{SESSIONS}.").split(".")[0]


def test_no_module_of_sessions_imports_one_that_imports_it_back() -> None:
    assert _cycles(_graph()) == []


def test_no_subpackage_of_sessions_imports_one_that_imports_it_back() -> None:
    rooms: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        rooms.setdefault(_room(module), set()).update(
            _room(target) for target in targets if _room(target) != _room(module)
        )
    assert _cycles(rooms) == []


def test_the_runtime_imports_nothing_of_sessions() -> None:
    imports = {
        name
        for module, path in _modules("agent_orchestrator.runtime").items()
        for name in _imported(module, path)
    }
    assert not {name for name in imports if name == SESSIONS or name.startswith(f"{SESSIONS}.")}
