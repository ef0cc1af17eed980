"""The agents' corpus memory: the datasets earlier papers of the corpus were found to use, create or mention,
with their other names, roles and links, each with the paper (or catalogue) it comes from.

It fills as papers are committed, and can start from a catalogue folder (`dsminer catalog build`). A paper is
offered what was committed before it started (`offering` sets the snapshot its steps read), so a run is
reconstructed from the `corpus_offered` events, and a resume, which first reads the committed records back,
offers the papers left what a run without the interruption would have.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from dsminer.mentions.catalog import catalog_names_in, distinctive_name
from dsminer.schema import DatasetRecord, normalize_name


@dataclass(frozen=True)
class KnownDataset:
    """One dataset as earlier papers gave it: its name, other names, the papers with their roles, its links."""

    name: str
    aliases: tuple[str, ...] = ()
    papers: tuple[tuple[str, str], ...] = ()  # (paper, role)
    links: tuple[tuple[str, str], ...] = ()  # (url, source: the paper that gives it, or "catalogue")

    def describe(self) -> str:
        """One line for a prompt or an event: the name and the papers that used it."""
        papers = ", ".join(f"{paper} ({role})" for paper, role in self.papers[:3])
        return f"{self.name}: {papers or 'a known catalogue'}"


@dataclass(frozen=True)
class CorpusView:
    """A snapshot of the corpus memory, as one paper is offered it."""

    known: dict[str, KnownDataset] = field(default_factory=dict)  # by the key of every name and alias

    @property
    def names(self) -> frozenset[str]:
        """The distinctive names and aliases (a plain phrase such as "training data" would be found anywhere)."""
        names = (name for dataset in self.known.values() for name in (dataset.name, *dataset.aliases))
        return frozenset(cut for cut in map(distinctive_name, names) if cut)

    def lookup(self, name: str) -> KnownDataset | None:
        return self.known.get(normalize_name(name))

    def written_in(self, text: str) -> list[tuple[str, KnownDataset]]:
        """The known datasets a paper's text writes, each with the name as the memory spells it that the text
        writes (a distinctive name or alias), in order of first mention."""
        found: dict[int, tuple[str, KnownDataset]] = {}
        for name in catalog_names_in(text, self.names, limit=len(self.known) or 1):
            dataset = self.lookup(name)
            if dataset is not None:
                found.setdefault(id(dataset), (name, dataset))
        return list(found.values())

    def links(self, spells: Callable[[str, Sequence[str]], bool] | None = None) -> dict[str, str]:
        """A URL for each known name key, for the link search. With `spells` (whether a URL spells one of the
        names), a link one earlier paper gives is lent only when it spells a name of the dataset: a paper's link
        can be wrong, and a wrong one would spread to every later paper. A catalogue's link, and one that two
        papers give, are lent as they are."""
        lent: dict[int, str | None] = {}
        for dataset in self.known.values():
            if id(dataset) not in lent:
                lent[id(dataset)] = next((url for url, source in dataset.links if spells is None
                                          or _trusted(dataset, url, source, spells)), None)
        return {key: url for key, dataset in self.known.items() if (url := lent[id(dataset)]) is not None}

    def link_sources(self) -> dict[str, str]:
        """Where each known URL comes from: the paper that gives it, or the catalogue."""
        return {url: source for dataset in self.known.values() for url, source in reversed(dataset.links)}


def _trusted(dataset: KnownDataset, url: str, source: str, spells: Callable[[str, Sequence[str]], bool]) -> bool:
    givers = {giver for link, giver in dataset.links if link == url}
    return (source.startswith("catalogue") or len(givers) >= 2
            or spells(url, (dataset.name, *dataset.aliases)))


class CorpusMemory:
    """The datasets of the papers committed so far (and of a catalogue it started from), safe to fill from
    parallel papers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, KnownDataset] = {}

    def __len__(self) -> int:
        return len({id(dataset) for dataset in self._known.values()})

    def add(self, records: Iterable[DatasetRecord]) -> None:
        """Remember a committed paper's records: a record joins the dataset one of its names already names."""
        with self._lock:
            for record in records:
                link = ((record.dataset_link, record.evidence.source),) if record.dataset_link else ()
                self._merge(record.name, record.aliases, ((record.evidence.source, record.role or "used"),), link)

    def seed(self, directory: Path) -> None:
        """Start from a catalogue folder: every entry with its aliases and link."""
        from dsminer.catalog.tables import read_catalog

        catalog = read_catalog(directory)
        aliases: dict[str, list[str]] = {}
        for row in catalog.aliases.itertuples():
            aliases.setdefault(row.entry_id, []).append(row.alias)
        with self._lock:
            for row in catalog.entries.itertuples():
                link = ((row.link, f"catalogue {Path(directory).name}"),) if row.link else ()
                self._merge(row.name, aliases.get(row.entry_id, []), (), link)

    def _merge(self, name: str, aliases: Sequence[str], papers: tuple[tuple[str, str], ...],
               links: tuple[tuple[str, str], ...]) -> None:
        keys = [key for key in dict.fromkeys(normalize_name(n) for n in (name, *aliases)) if key]
        if not keys:
            return
        old = next((self._known[key] for key in keys if key in self._known), None)
        if old is None:
            merged = KnownDataset(name, tuple(a for a in aliases if a != name), papers, links)
        else:
            merged = KnownDataset(old.name, tuple(dict.fromkeys(
                a for a in (*old.aliases, name, *aliases) if a != old.name)),
                tuple(dict.fromkeys((*old.papers, *papers))), tuple(dict.fromkeys((*old.links, *links))))
        for key, dataset in list(self._known.items()):
            if dataset is old:
                self._known[key] = merged
        for key in keys:
            self._known[key] = merged

    def view(self) -> CorpusView:
        with self._lock:
            return CorpusView(dict(self._known))


_OFFERED: ContextVar[CorpusView | None] = ContextVar("dsminer_corpus_view", default=None)


@contextmanager
def offering(view: CorpusView | None) -> Iterator[None]:
    """Offer `view` to the steps of the paper processed inside."""
    token = _OFFERED.set(view)
    try:
        yield
    finally:
        _OFFERED.reset(token)


def current_corpus() -> CorpusView:
    """The snapshot the paper being processed is offered (empty outside a run or without corpus memory)."""
    return _OFFERED.get() or CorpusView()
