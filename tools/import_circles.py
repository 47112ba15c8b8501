#!/usr/bin/env python3
"""Import circles between the modules of a Rust source folder.

    python3 tools/import_circles.py engine/phone/src engine/ui/src python/src engine/reconstruct/src/generate

For each folder, the modules directly inside it are the nodes; module A depends on B when A's
code (tests left out) names B through `crate::B` (the folder is a crate's `src`) or `super::B`
(the folder is a module's own, without nested folders; its `mod.rs` counts as the module
`mod`, which depends on the children it names). Prints every circle and exits 1 when there is one.
"""

import re
import sys
from pathlib import Path


def modules(folder: Path) -> dict[str, str]:
    """Top-level module name -> its code without comments and test modules; a module
    folder's own `mod.rs` is the module `mod`."""
    code: dict[str, str] = {}
    for path in sorted(folder.rglob("*.rs")):
        rel = path.relative_to(folder).with_suffix("")
        top = rel.parts[0]
        if top in ("lib", "main"):
            continue
        text = re.sub(r"//[^\n]*", "", path.read_text())
        text = text.split("#[cfg(test)]")[0]
        code[top] = code.get(top, "") + text
    return code


def dependencies(folder: Path) -> dict[str, set[str]]:
    code = modules(folder)
    prefix = "crate" if folder.name == "src" else "super"
    deps: dict[str, set[str]] = {m: set() for m in code}
    for module, text in code.items():
        if module == "mod":
            # The folder's own module uses its children by name (`use widgets::build;`).
            deps[module] |= {name for name in re.findall(r"\b([a-z_][a-z0-9_]*)::", text) if name in code and name != "mod"}
            continue
        for name in re.findall(rf"\b{prefix}::([a-zA-Z_][a-zA-Z0-9_]*)", text):
            if name in code and name != module:
                deps[module].add(name)
            elif prefix == "super" and name not in code:
                # An item of the folder's own module (`super::ScreenModel`).
                deps[module].add("mod")
    return deps


def circles(deps: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    any_found = False
    for arg in sys.argv[1:]:
        found = circles(dependencies(Path(arg)))
        any_found |= bool(found)
        print(f"{arg}: " + ("; ".join(" <-> ".join(c) for c in found) if found else "no import circles"))
    return 1 if any_found else 0


if __name__ == "__main__":
    sys.exit(main())
