"""The UI's ES modules import each other without cycles: a module that needs one above it (the sidebar
opening a chat, a rejected turn resetting it) goes through ``commands.js``, and a module that shows
shared state subscribes to ``state.js``, instead of importing the module that owns the change."""

import re

from agent_orchestrator.web.app import STATIC_DIR

MODULES = STATIC_DIR / "js"
# An import of a sibling module, also when its names span several lines; no module imports dynamically.
IMPORT = re.compile(r'^import\b[^;]*?\bfrom\s+"\./([\w-]+\.js)";', re.MULTILINE)


def import_graph() -> dict[str, list[str]]:
    return {path.name: IMPORT.findall(path.read_text()) for path in sorted(MODULES.glob("*.js"))}


def find_cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """A cycle of the graph as the modules along it (the first one repeated at the end), or ``None``."""
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        path.append(module)
        for imported in graph.get(module, []):
            if cycle := visit(imported):
                return cycle
        path.pop()
        done.add(module)
        return None

    for module in graph:
        if cycle := visit(module):
            return cycle
    return None


def test_the_ui_modules_import_each_other_without_cycles() -> None:
    graph = import_graph()
    assert {"main.js", "chat.js", "sidebar.js", "branching.js", "turns.js", "state.js"} <= graph.keys()
    assert all(imported in graph for imports in graph.values() for imported in imports), graph
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_chat_is_opened_through_commands_not_by_importing_it() -> None:
    graph = import_graph()
    for module in ("sidebar.js", "branching.js", "turns.js", "readings.js"):
        assert "chat.js" not in graph[module], module
    assert "commands.js" in graph["sidebar.js"] and "commands.js" in graph["turns.js"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    ring = {"a.js": ["b.js"], "b.js": ["c.js"], "c.js": ["a.js"]}
    assert find_cycle(ring) == ["a.js", "b.js", "c.js", "a.js"]
    assert find_cycle({"a.js": ["b.js", "c.js"], "b.js": ["c.js"], "c.js": []}) is None
    sample = 'import { a,\n  b } from "./x.js";\nimport { c } from "./y.js";\nconst z = "from \\"./w.js\\"";'
    assert IMPORT.findall(sample) == ["x.js", "y.js"]
