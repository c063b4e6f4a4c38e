"""The documentation site (``docs/mkdocs.yml``): it builds with warnings as errors, as CI builds it, has the pages
and the API reference, links only to what it holds, and fetches nothing from the internet.

The build runs once for the module (about 7 s), into ``tmp_path``; CI also runs the same command in its own stage.
"""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "docs" / "mkdocs.yml"


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    """``mkdocs build --strict`` of ``config`` into ``site``, as CI runs it (the Material notice silenced).

    The config file is named relative to the folder above it, as CI names ``docs/mkdocs.yml`` from the repository:
    MkDocs 1.6 refuses ``docs_dir: .`` when the config file is named by its absolute path (it compares the config's
    folder, as given, with the absolute ``docs_dir``).
    """
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"]
        + ["--config-file", f"{config.parent.name}/{config.name}", "--site-dir", str(site)],
        cwd=config.parent.parent,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    done = build(CONFIG, folder)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return folder


class PageLinks(HTMLParser):
    """The ids of a page's elements, its links (``<a href>``) and the addresses it loads (scripts, styles,
    images, fonts)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.loads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.links.append(values["href"])
        elif tag in ("script", "img", "iframe", "source") and "src" in values:
            self.loads.append(values["src"])
        elif tag == "link" and "href" in values and values.get("rel") != "canonical":
            self.loads.append(values["href"])


def parsed(page: Path) -> PageLinks:
    links = PageLinks()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def test_the_site_has_the_pages_and_the_api_reference(site: Path) -> None:
    for page in ["index.html", "install.html", "contract.html", "rules/omweso.html", "baselines.html", "replay.html"]:
        assert (site / page).is_file(), page
    ids = {page: parsed(site / "api" / page).ids for page in ["package.html", "envs.html", "wrappers.html"]}
    assert {"mancala_envs.make", "mancala_envs.list_envs", "mancala_envs.warm_up"} <= ids["package.html"]
    assert {
        "mancala_envs.envs.aec_env.MancalaEnv",
        "mancala_envs.envs.aec_env.MancalaEnv.reset",
        "mancala_envs.envs.batch.BatchedGames",
    } <= ids["envs.html"]
    # the folder wrappers/, installed as mancala_envs.wrappers, documented under that name
    assert {"mancala_envs.wrappers.apply_wrappers", "mancala_envs.wrappers.flatten.FlattenObservation"} <= ids[
        "wrappers.html"
    ]
    # the options: no private names, no member without a docstring
    assert not any("._" in anchor for anchor in ids["envs.html"] if anchor.startswith("mancala_envs."))
    # the singular "Example:" of the docstrings is read as griffe's Examples section (code, not a paragraph)
    make = (site / "api" / "package.html").read_text(encoding="utf-8")
    assert "Examples:" in make and "&gt;&gt;&gt;" in make
    # a constant documented by a "#:" comment has its entry; a Sphinx role naming it is a link to that entry
    games = parsed(site / "api" / "games.html")
    assert "mancala_envs.games.GAME_MODULES" in games.ids
    assert "#mancala_envs.games.GAME_MODULES" in games.links
    for page in (site / "api").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert ":class:`" not in text and ":func:`" not in text and ":meth:`" not in text, page.name


def test_every_internal_link_resolves(site: Path) -> None:
    """Every link of every page (the nav, the pages' own, the API reference's) reaches a file of the site and, with a
    fragment, an element of that page. The 404 page is left out: a server shows it at any address, so its links
    start from the site's root (``/index.html``)."""
    pages = {page.resolve(): parsed(page) for page in site.rglob("*.html")}
    broken = []
    for page, links in pages.items():
        if page.name == "404.html":
            continue
        for link in links.links:
            address = urlsplit(link)
            if address.scheme or address.netloc:
                continue
            target = (page.parent / unquote(address.path)).resolve() if address.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.name}: {link}")
            elif address.fragment and target.suffix == ".html" and unquote(address.fragment) not in pages[target].ids:
                broken.append(f"{page.name}: {link} (no such anchor)")
    assert broken == []
    assert len(pages) >= 35


def test_the_site_fetches_nothing_from_the_internet(site: Path) -> None:
    external = [
        f"{page.relative_to(site)}: {address}"
        for page in site.rglob("*.html")
        for address in parsed(page).loads
        if urlsplit(address).scheme in ("http", "https") or address.startswith("//")
    ]
    assert external == []
    for stylesheet in (site / "assets").rglob("*.css"):
        assert "fonts.googleapis" not in stylesheet.read_text(encoding="utf-8"), stylesheet


def test_a_broken_link_or_anchor_fails_the_strict_build(tmp_path: Path) -> None:
    """The site's ``validation`` settings make links that the site cannot follow warnings, which ``--strict``
    turns into a failed build: a missing anchor, a link out of ``docs/``, a page missing from the nav."""
    settings = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "index.md").write_text(
        "# Home\n\n[rules](rules.md#no-such-heading), [the README](../README.md)\n", encoding="utf-8"
    )
    (pages / "rules.md").write_text("# Rules\n\n## A heading\n", encoding="utf-8")
    (pages / "stray.md").write_text("# Not in the nav\n", encoding="utf-8")
    config = pages / "mkdocs.yml"
    config.write_text(
        yaml.safe_dump(
            {
                "site_name": "validation",
                "docs_dir": ".",
                "exclude_docs": "mkdocs.yml\n",
                "validation": settings["validation"],
                "nav": ["index.md", "rules.md"],
            }
        ),
        encoding="utf-8",
    )
    done = build(config, tmp_path / "site")
    assert done.returncode == 1
    assert "does not contain an anchor '#no-such-heading'" in done.stderr
    assert "contains a link '../README.md', but the target is not found" in done.stderr
    assert "stray.md" in done.stderr and 'not included in the "nav" configuration' in done.stderr
    # the pages themselves hold nothing wrong: the same pages without those links build
    (pages / "index.md").write_text("# Home\n\n[rules](rules.md#a-heading)\n", encoding="utf-8")
    (pages / "stray.md").unlink()
    fixed = build(config, tmp_path / "site")
    assert fixed.returncode == 0, fixed.stderr
