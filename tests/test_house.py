"""The one-way house (README, "Architecture") and the house's size and citations.

The README draws the chain of apps in a block this file reads. Two independent checks hold every import to
it: import-linter, against the layers written in pyproject.toml, and a drawing of our own (every ``import``
of every app's modules, at module level or inside a function, parsed with ``ast``). An app the chain names
whose directory does not exist yet counts as empty. Then: no module too long, the engine's app within its
size, the README short, and every file the code or the docs cite exists.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
# The block README's "Architecture" draws the chain in: `common ← floor ← {a, b} ← ...`, lowest first.
_HOUSE_BLOCK = re.compile(r"<!-- house -->\s*```text\n(?P<chain>.+?)\n```\s*<!-- /house -->", re.DOTALL)
APART = "gateway"  # imports no app; no app imports it
MODULE_MAX_LINES = 500
JACKPOTS_MAX_LINES = 6_000
README_MAX_LINES = 250


def house_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (house,) = [contract for contract in config["contracts"] if contract["id"] == "house"]
    return house["layers"]


def test_no_import_runs_upward_and_the_gateway_stands_apart():
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 3 kept, 0 broken." in run.stdout


def test_an_upward_import_breaks_the_check(tmp_path):
    """The check can fail: a copy of the tree where floor imports workspace is refused."""
    for name in [*present(house_apps(ROOT)), APART]:
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    # A real package "floor" with one module more, importing upward.
    (tmp_path / "floor").unlink()
    floor = tmp_path / "floor"
    floor.mkdir()
    for source in (ROOT / "floor").glob("*.py"):
        (floor / source.name).symlink_to(source)
    (floor / "upward.py").write_text("from workspace.models import MachineHourStat  # noqa\n")
    run = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert "floor is not allowed to import workspace" in run.stdout
    assert "floor.upward -> workspace.models" in run.stdout


def test_the_readme_chain_is_the_checked_one():
    """import-linter's layers are the README's chain, as far as its apps exist (siblings: ``a | b``)."""
    layers = [set(re.split(r"\s*[|:]\s*", layer)) for layer in reversed(house_layers())]
    made = set(present(house_apps(ROOT)))
    assert layers == [level & made for level in house_chain(ROOT) if level & made]


# --- The chain, as the README draws it -------------------------------------------------------------


def house_chain(root: Path) -> list[set[str]]:
    """The README's chain, lowest level first; each level a set (the apps in braces are one level)."""
    block = _HOUSE_BLOCK.search((root / "README.md").read_text())
    assert block is not None, "README's Architecture has the chain between <!-- house --> and <!-- /house -->"
    levels = [level.strip() for level in block.group("chain").split("←")]
    return [{name.strip() for name in level.strip("{}").split(",")} for level in levels]


def house_apps(root: Path) -> list[str]:
    return [app for level in house_chain(root) for app in sorted(level)]


def present(apps: list[str], root: Path = ROOT) -> list[str]:
    """The apps whose directory exists: one the chain names before it is made counts as empty."""
    return [app for app in apps if (root / app).is_dir()]


# --- The drawing: every import of every app --------------------------------------------------------


@dataclass(frozen=True)
class Import:
    where: str  # path:line
    importer: str  # the importing app
    imported: str  # the imported app


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_names(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The absolute names an import statement brings in (a relative one resolved from its module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        return [node.module or ""]
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return [".".join([*base, node.module] if node.module else base)]


def app_imports(root: Path, apps: list[str]) -> list[Import]:
    """Every import, anywhere in a module (module level, functions, ``if TYPE_CHECKING``), from one of
    ``apps`` (and the apart package) to another."""
    known = set(apps) | {APART}
    found: list[Import] = []
    for app in present(sorted(known), root):
        for path in sorted((root / app).rglob("*.py")):
            module = _module_name(root, path)
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                for name in _imported_names(node, module, path.name == "__init__.py"):
                    target = name.split(".")[0]
                    if target in known and target != app:
                        where = f"{path.relative_to(root)}:{node.lineno}"
                        found.append(Import(where, app, target))
    return found


def house_breaches(root: Path) -> list[str]:
    """The imports that run up the README's chain, cross between side-by-side apps, or touch the apart
    package; each as ``path:line importer -> imported``."""
    chain = house_chain(root)
    level = {app: index for index, apps in enumerate(chain) for app in apps}
    breaches = []
    for found in app_imports(root, list(level)):
        if APART in (found.importer, found.imported):
            breaches.append(f"{found.where} {found.importer} -> {found.imported} (gateway/ stands apart)")
        elif level[found.imported] > level[found.importer]:
            breaches.append(f"{found.where} {found.importer} -> {found.imported} (up the chain)")
        elif level[found.imported] == level[found.importer]:
            breaches.append(f"{found.where} {found.importer} -> {found.imported} (side by side)")
    return breaches


def test_no_app_imports_up_the_readmes_chain():
    assert house_breaches(ROOT) == []


def test_the_drawing_sees_every_kind_of_import_that_breaks_the_chain(tmp_path):
    """The drawing can fail: module level, inside a function, relative, between siblings, the gateway."""
    (tmp_path / "README.md").write_text(
        "<!-- house -->\n```text\ncommon ← floor ← {tables, signage} ← workspace ← demo\n```\n"
        "<!-- /house -->\n"
    )
    sources = {
        "common/__init__.py": "",
        "common/money.py": "from floor.models import Venue\n",
        "floor/__init__.py": "",
        "floor/models.py": "import common.money\nfrom . import views\n",
        "floor/views.py": "def page():\n    from workspace import shell\n    return shell\n",
        "floor/sub/__init__.py": "from .. import models\n",
        "tables/__init__.py": "",
        "tables/rounds.py": "import signage.frames as frames\nfrom floor.models import Venue\n",
        "signage/__init__.py": "",
        "signage/frames.py": "import typing\nif typing.TYPE_CHECKING:\n    from tables import rounds\n",
        "workspace/shell.py": "from tables.rounds import frames\nfrom signage import frames as f\n",
        "gateway/host.py": "import slots\nfrom common import money\n",
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert house_breaches(tmp_path) == [
        "common/money.py:1 common -> floor (up the chain)",
        "floor/views.py:2 floor -> workspace (up the chain)",
        "gateway/host.py:2 gateway -> common (gateway/ stands apart)",
        "signage/frames.py:3 signage -> tables (side by side)",
        "tables/rounds.py:1 tables -> signage (side by side)",
    ]
    # demo names no directory: it counts as empty; slots is no app of this chain.
    assert present(house_apps(tmp_path), tmp_path) == ["common", "floor", "signage", "tables", "workspace"]


# --- Size ------------------------------------------------------------------------------------------


def _python_files(*tops: str) -> list[Path]:
    """The tracked-or-not Python modules under ``tops`` (a script with a Python shebang counts), outside
    migrations and tests."""
    files = []
    for top in tops:
        for path in sorted((ROOT / top).rglob("*")):
            parts = set(path.relative_to(ROOT).parts)
            if not path.is_file() or parts & {"migrations", "tests", "__pycache__"}:
                continue
            if path.suffix == ".py" or (
                not path.suffix
                and path.read_bytes()[:40].startswith(b"#!")
                and b"python" in path.read_bytes()[:40]
            ):
                files.append(path)
    return files


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_no_module_is_over_500_lines():
    tops = [*present(house_apps(ROOT)), APART, "bench", "scripts", "config", "tests"]
    long = {
        str(path.relative_to(ROOT)): _lines(path)
        for path in _python_files(*tops)
        if _lines(path) > MODULE_MAX_LINES
    }
    assert long == {}


def test_the_engines_app_is_under_6000_lines():
    total = sum(_lines(path) for path in _python_files("jackpots"))
    assert total < JACKPOTS_MAX_LINES


def test_the_readme_is_under_250_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) < README_MAX_LINES


# --- Citations -------------------------------------------------------------------------------------

# A repository-relative path: a tracked top-level folder, then path characters, ending in a file with an
# extension or a folder's slash; not part of a URL or a longer path (nothing path-like before it).
_TOP_FILES = (
    r"(?:README|API|DESIGN|CHANGELOG|CONTRIBUTING)\.md|pyproject\.toml|mkdocs\.yml|Makefile|Dockerfile"
)
_TOP_FILES += r"|docker-compose\.yml|requirements(?:-dev)?\.txt|manage\.py"


def _citation_pattern() -> re.Pattern[str]:
    """A path from one of the repository's top-level folders (or a top-level file); or one that climbs out
    with ``../`` (checked from the root: ``../gateway/README.md`` from docs/ is ``gateway/README.md``, and
    ``../shared/API.md`` is outside the repository, so stale)."""
    tops = sorted({path.split("/")[0] for path in _tracked() if "/" in path} | set(house_apps(ROOT)))
    folders = "|".join(re.escape(top) for top in tops)
    inside = rf"(?:{folders})/[\w.\-/]*[\w\-](?:\.\w+|/)|{_TOP_FILES}"
    climbing = r"(?:\.\./)+([\w\-]+/[\w.\-/]*[\w\-]\.\w+)"
    return re.compile(rf"(?<![\w/.\-<>{{$])(?:{climbing}|({inside}))(?![\w/\-<*{{])")


def _tracked() -> list[str]:
    return subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()


def citing_files() -> list[Path]:
    """The docs, the README and every Python file of the apps (the gateway's too)."""
    files = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    for app in [*present(house_apps(ROOT)), APART]:
        files += [path for path in sorted((ROOT / app).rglob("*.py")) if "__pycache__" not in path.parts]
    return files


def _prose(path: Path) -> list[tuple[int, str]]:
    """The lines a reader reads: all of a page; of a module its comments and its strings of words
    (docstrings, help, messages). A string without a space is a name the code uses (a template's, a static
    file's, a route's), resolved elsewhere than from the repository's root."""
    text = path.read_text()
    if path.suffix != ".py":
        return list(enumerate(text.splitlines(), start=1))
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    lines = [(token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.search(r"\s", node.value):
            lines += [(node.lineno + offset, line) for offset, line in enumerate(node.value.splitlines())]
    return lines


def stale_citations(files: list[Path], root: Path = ROOT) -> list[str]:
    pattern = _citation_pattern()
    stale = []
    for path in files:
        for number, line in _prose(path):
            for cited in (climbed or inside for climbed, inside in pattern.findall(line)):
                if not (root / cited.rstrip("/")).exists():
                    stale.append(f"{path.relative_to(root)}:{number} {cited}")
    return stale


def test_every_file_the_code_and_the_docs_cite_exists():
    assert stale_citations(citing_files()) == []


def test_a_stale_citation_is_found(tmp_path):
    """The citation check can fail, and reads paths, not URLs or placeholders. (DOCS/ stands for docs/ in
    this file, whose own citations tests/test_manual.py checks.)"""
    for name in ("docs/api.md", "jackpots/services/core.py", "gateway/README.md", "bench/results/x.json"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        (
            "See `docs/api.md`, jackpots/services/core.py and gateway/README.md; not DOCS/nowhere.md, nor\n"
            "jackpots/services/gone.py or API.md; bench/results/ is a folder, bench/nothing/ is not.\n"
            "Never https://example.org/DOCS/x.md, /dayclose/<VENUE>/register.csv or DOCS/<page>.md.\n"
            "From DOCS/, ../gateway/README.md is there; ../shared/API.md is outside.\n"
        ).replace("DOCS/", "docs/")
    )
    stale = [line.replace("docs/", "DOCS/") for line in stale_citations([page], tmp_path)]
    assert stale == [
        "DOCS/page.md:1 DOCS/nowhere.md",
        "DOCS/page.md:2 jackpots/services/gone.py",
        "DOCS/page.md:2 API.md",
        "DOCS/page.md:2 bench/nothing/",
        "DOCS/page.md:4 shared/API.md",
    ]
