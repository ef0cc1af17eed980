"""A known-dataset catalogue from TensorFlow Datasets: one row per dataset builder with its name and homepage.

The `tensorflow-datasets` package describes about 300 datasets from every field (images, text, audio, medicine,
remote sensing, robotics, ...) in its builders' source: the homepage passed to `DatasetInfo` and a description
(`README.md` beside a builder, or the module's description text). This module reads them statically from the wheel
or an unpacked package, never importing the builders (which would need TensorFlow and each dataset's libraries).
A dataset's display name comes from its description's first sentence ("The Describable Textures Dataset (DTD) is
..."); the builder id ("dtd") is kept too.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from dsminer.document.text import collapse_whitespace
from dsminer.errors import ConfigError
from dsminer.mentions.catalog import distinctive_name
from dsminer.schema import normalize_name

PACKAGE = "tensorflow-datasets"
CATALOG_PAGE = "https://www.tensorflow.org/datasets/catalog/{}"
# A builder written as datasets/<id>/<id>_dataset_builder.py with its description in README.md beside it.
_FOLDER_BUILDER = re.compile(r"(?:^|/)datasets/([^/]+)/\1_dataset_builder\.py$")
_SKIPPED_FOLDERS = re.compile(r"(?:^|/)(?:core|testing|scripts)/")
_WEB_ADDRESS = re.compile(r"^https?://[\w-]+(?:\.[\w-]+)+\S*$")
_HEADING = re.compile(r"^#+\s*(.+?)\s*$", re.M)
# The subject of a description's first sentence: "[The] Name [dataset] [(SHORT)] is/consists/... " or "Name: ..."
# or "Name, a ...".
_SUBJECT = re.compile(
    r"^(?:the\s+)?\**(?P<name>[^\s,:(*.][^,:(*\n]{0,70}?)\**"
    r"(?:\s+(?:data ?set|corpus|database|benchmark)s?)?\s*(?:\((?P<short>[^)]{2,60})\))?"
    r"\s*(?:,|:|\s+(?:is|are|was|were|consists|contains|comprises|includes|provides|has)\b)", re.I)
_NOT_NAMES = frozenset({"this", "these", "that", "it", "its", "the", "a", "an", "our", "we", "here", "each", "there",
                        "in", "for", "from", "with", "to", "as"})
_DATA_END = re.compile(r"\s+(?:data ?set|corpus|database|benchmark)s?$", re.I)


def read_package(source: Path) -> dict[str, str]:
    """The builder sources and descriptions of a `tensorflow-datasets` wheel (`.whl`) or unpacked package folder,
    by path inside the package."""
    wanted = re.compile(r"(?:\.py|/README\.md)$")
    if source.is_file():
        try:
            with zipfile.ZipFile(source) as wheel:
                return {name: wheel.read(name).decode("utf-8", "replace") for name in wheel.namelist()
                        if wanted.search(name) and not name.endswith("_test.py")}
        except zipfile.BadZipFile as exc:
            raise ConfigError(f"{source} is not a wheel (zip) of {PACKAGE}") from exc
    if source.is_dir():
        return {path.relative_to(source).as_posix(): path.read_text(encoding="utf-8", errors="replace")
                for path in sorted(source.rglob("*")) if path.is_file() and wanted.search(path.as_posix())
                and not path.name.endswith("_test.py")}
    raise ConfigError(f"{source}: not found")


def download_wheel(folder: Path, version: str | None = None) -> Path:
    """Fetch the `tensorflow-datasets` wheel (no dependencies) from the package index into `folder`."""
    spec = f"{PACKAGE}=={version}" if version else PACKAGE
    done = subprocess.run([sys.executable, "-m", "pip", "download", spec, "--no-deps", "--only-binary", ":all:",
                           "-d", str(folder), "-q"], capture_output=True, text=True)
    wheels = sorted(folder.glob("tensorflow_datasets-*.whl"))
    if done.returncode != 0 or not wheels:
        detail = (done.stderr.strip().splitlines() or ["no wheel downloaded"])[-1]
        raise ConfigError(f"could not download {spec}: {detail}")
    return wheels[-1]


def builder_rows(files: Mapping[str, str], source: str = PACKAGE) -> list[dict]:
    """One catalogue row per dataset builder that names a homepage, ordered by id; a folder builder (with its
    README) wins over a module builder of the same id."""
    rows: dict[str, dict] = {}
    for path in sorted(files, key=lambda path: (_FOLDER_BUILDER.search(path) is None, path)):
        if path.endswith(".py") and not _SKIPPED_FOLDERS.search(path) and "homepage" in files[path]:
            for row in _rows_of_module(path, files, source):
                rows.setdefault(row["tfds_id"], row)
    return [rows[key] for key in sorted(rows)]


def write_catalog(rows: list[dict], out: Path) -> Path:
    """Write the rows as `tfds.jsonl` in the folder `out` (a known-dataset catalogue folder)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "tfds.jsonl"
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def import_tfds(out: Path, wheel: Path | None = None, version: str | None = None) -> tuple[Path, list[dict]]:
    """Build `tfds.jsonl` in `out` from the given wheel or package folder, or from a freshly downloaded wheel."""
    if wheel is not None:
        return _write_from(wheel, out)
    with tempfile.TemporaryDirectory() as folder:
        return _write_from(download_wheel(Path(folder), version), out)


def _write_from(source: Path, out: Path) -> tuple[Path, list[dict]]:
    match = re.match(r"tensorflow_datasets-([^-]+)-", source.name)
    rows = builder_rows(read_package(source), f"{PACKAGE} {match[1]}" if match else PACKAGE)
    if not rows:
        raise ConfigError(f"{source} holds no {PACKAGE} builder with a homepage")
    return write_catalog(rows, out), rows


def _rows_of_module(path: str, files: Mapping[str, str], source: str) -> Iterator[dict]:
    try:
        tree = ast.parse(files[path])
    except SyntaxError:
        return
    constants = _module_strings(tree)
    folder = _FOLDER_BUILDER.search(path)
    for cls in (node for node in tree.body if isinstance(node, ast.ClassDef)):
        homepage, description = _info_strings(cls, constants)
        if homepage is None:
            continue
        if folder is not None and cls.name == "Builder":
            builder_id = folder[1]
            description = files.get(path.rsplit("/", 1)[0] + "/README.md", description)
        else:
            builder_id = _snake_case(cls.name)
        yield _row(builder_id, homepage, description or "", source)


def _row(builder_id: str, homepage: str, description: str, source: str) -> dict:
    names = [name for name in _names_from(description)
             if distinctive_name(name) == name or normalize_name(name) == normalize_name(builder_id)]
    return {"tfds_id": builder_id, "pretty_name": names[0] if names else None, "aliases": names[1:],
            "homepage": homepage, "tfds_url": CATALOG_PAGE.format(builder_id),
            "summary": collapse_whitespace(_HEADING.sub("", description))[:300], "source": source}


def _module_strings(tree: ast.Module) -> dict[str, str]:
    """The module's top-level names bound to string constants (`_HOMEPAGE = "..."`)."""
    strings: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _string(node.value, strings)
            if value is not None:
                strings[node.targets[0].id] = value
    return strings


def _string(node: ast.expr, strings: Mapping[str, str]) -> str | None:
    """A string the expression always evaluates to: a literal, a module constant, a sum or a dedent of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return strings.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left, strings), _string(node.right, strings)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "dedent" \
            and node.args:
        return _string(node.args[0], strings)
    return None


def _info_strings(cls: ast.ClassDef, strings: Mapping[str, str]) -> tuple[str | None, str | None]:
    """A builder class's homepage and description as its methods give them (`_info`); where the homepage is its
    configs' (`self.builder_config.url`), the one `url` every config of the class gives, else none (configs
    with their own pages are datasets of their own)."""
    methods = [node for node in cls.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    found = _keyword_strings(methods, ("homepage", "description"), strings)
    homepage = found.get("homepage", [None])[0]
    if homepage is None:
        configs = _keyword_strings([node for node in cls.body if node not in methods], ("url", "homepage"), strings)
        pages = set(configs.get("url", []) + configs.get("homepage", []))
        homepage = pages.pop() if len(pages) == 1 else None
    if homepage is None or not _WEB_ADDRESS.match(homepage):
        return None, None
    return homepage, found.get("description", [None])[0]


def _keyword_strings(nodes: list[ast.AST], names: tuple[str, ...], strings: Mapping[str, str]) -> dict[str, list[str]]:
    """The string values the calls within `nodes` pass for the keywords `names`, in order."""
    found: dict[str, list[str]] = {}
    for call in (inner for node in nodes for inner in ast.walk(node) if isinstance(inner, ast.Call)):
        for keyword in call.keywords:
            value = _string(keyword.value, strings) if keyword.arg in names else None
            if value is not None and value.strip():
                found.setdefault(keyword.arg, []).append(value.strip())
    return found


def _names_from(description: str) -> list[str]:
    """The names the description opens with: a heading (its part before a colon), and the first
    sentence's subject with the name in brackets after it ("SAVEE (Surrey Audio-Visual Expressed Emotion) is")."""
    heading = _HEADING.match(description.strip())
    found = [heading[1].split(":")[0]] if heading else []
    match = _SUBJECT.match(collapse_whitespace(_HEADING.sub("", description)).replace("`", "").strip())
    if match is not None:
        found += [part for part in (match["name"], match["short"]) if part]
    names = [_DATA_END.sub("", collapse_whitespace(name)).strip(" .-*") for name in found]
    return [name for name in dict.fromkeys(names) if _name_like(name)]


def _name_like(text: str) -> bool:
    """A subject that names something: it opens with a capital or a digit, is not a pronoun or an article, and
    holds no sentence break, citation or footnote mark."""
    words = text.split()
    return (bool(words) and len(words) <= 8 and re.match(r"[A-Z0-9]", text) is not None and re.search(r"[A-Za-z]", text)
            and words[0].casefold() not in _NOT_NAMES and not re.search(r"\.\s|[\[\"]|\bet al\b|^\S+\.$", text))


def _snake_case(name: str) -> str:
    """TFDS's builder id for a class name ("Wmt15Translate": "wmt15_translate")."""
    spaced = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", spaced).lower()
