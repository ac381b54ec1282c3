"""An import-linter contract of the project's own: an allow-list.

``allowed``: what the source packages may import from outside themselves, the standard
library (``stdlib``) and the packages named. Unlike a ``forbidden`` contract it needs no
update when a new dependency is installed: anything not on the list breaks it.
"""

from __future__ import annotations

import sys
from typing import Any

from importlinter import Contract, ContractCheck, fields, output


class AllowListContract(Contract):
    """The source packages import only the standard library and the allowed packages."""

    type_name = "allow_list"

    source_modules = fields.ListField(subfield=fields.ModuleField())
    allowed = fields.ListField(subfield=fields.StringField())

    def check(self, graph: Any, verbose: bool) -> ContractCheck:
        sources = [module.name for module in self.source_modules]  # type: ignore[attr-defined]
        allowed = set(self.allowed)  # type: ignore[call-overload]
        stdlib = "stdlib" in allowed
        found: list[str] = []
        for source in sources:
            for module in sorted(graph.find_descendants(source) | {source}):
                for imported in sorted(graph.find_modules_directly_imported_by(module)):
                    top = imported.split(".")[0]
                    inside = any(imported == s or imported.startswith(s + ".") for s in sources)
                    if inside or top in allowed or (stdlib and top in sys.stdlib_module_names):
                        continue
                    found.append(f"{module} imports {imported}")
        return ContractCheck(kept=not found, metadata={"found": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["found"]:
            output.print_error(line)
            output.new_line()
