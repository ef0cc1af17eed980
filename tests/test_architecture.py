"""The package imports only downward: no circle of imports between packages or between files (imports inside
functions count too)."""

from __future__ import annotations

import ast
import inspect
import re
from collections import defaultdict
from pathlib import Path

import dsminer

SRC = Path(dsminer.__file__).resolve().parent


def module_imports() -> dict[str, set[str]]:
    """Each dsminer module (dotted name) and the dsminer modules it imports, anywhere in its code."""
    modules = {".".join(path.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__"): path
               for path in SRC.rglob("*.py")}
    imports: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            imports[name] |= {target for target in targets if target in modules and target != name}
    return {name: imports[name] for name in modules}


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(group)

    for node in graph:
        if node not in index:
            visit(node)
    return found


def package_of(module: str) -> str:
    """"dsminer.run.harness" and "dsminer.run" are in package "run"; a top-level module is its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else module


def test_no_circle_of_imports_between_files():
    assert circles(module_imports()) == []


def test_no_circle_of_imports_between_packages():
    packages: dict[str, set[str]] = defaultdict(set)
    for module, imported in module_imports().items():
        packages[package_of(module)] |= {package_of(other) for other in imported} - {package_of(module)}
    assert circles(dict(packages)) == []


def test_the_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_a_programs_forward_takes_only_what_the_model_reads():
    from dsminer.programs.agent.controller import ReflectiveAgent
    from dsminer.programs.s2.episode import OptimisedAgent
    from dsminer.programs.workflow import WorkflowExtractor

    for program in (WorkflowExtractor, ReflectiveAgent, OptimisedAgent):
        assert list(inspect.signature(program.forward).parameters) == ["self", "paper", "supplied"], program


def package_graph() -> dict[str, set[str]]:
    """Package (or top-level module) to the packages it imports."""
    packages: dict[str, set[str]] = defaultdict(set)
    for module, imported in module_imports().items():
        packages[package_of(module)] |= {package_of(other) for other in imported} - {package_of(module)}
    root = {"dsminer", "__main__"}  # the version and `python -m dsminer`
    return {name: edges - root for name, edges in packages.items() if name not in root}


def reduced(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The fewest edges that keep who reaches whom (the graph has no circle)."""
    def reach(node: str, seen: set[str]) -> set[str]:
        for other in graph.get(node, ()):
            if other not in seen:
                seen.add(other)
                reach(other, seen)
        return seen

    return {node: {other for other in edges
                   if not any(other in reach(middle, set()) for middle in edges - {other})}
            for node, edges in graph.items()}


def mermaid() -> str:
    """The package picture of docs/architecture.md: each package imports those below it along the arrows."""
    lines = ["```mermaid", "flowchart TD"]
    for node, edges in sorted(reduced(package_graph()).items()):
        lines += [f"    {node} --> {other}" for other in sorted(edges)] or [f"    {node}"]
    return "\n".join([*lines, "```"])


DOC = SRC.parents[1] / "docs" / "architecture.md"


def test_the_architecture_picture_is_drawn_from_the_code():
    assert mermaid() in DOC.read_text(encoding="utf-8"), \
        f"docs/architecture.md is out of date; its picture is now:\n{mermaid()}"


def test_every_module_the_architecture_page_names_exists():
    named = re.findall(r"`(dsminer/[\w/]+\.py)`", DOC.read_text(encoding="utf-8"))
    assert named and [path for path in named if not (SRC.parent / path).is_file()] == []


def test_the_reduction_keeps_who_reaches_whom():
    assert reduced({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == {"a": {"b"}, "b": {"c"}, "c": set()}


if __name__ == "__main__":
    print(mermaid())
