"""Check the built documentation site offline: internal links and math.

Usage: python .ci/check_links.py docs/_build/html

- every relative `href` and `src` of every page resolves to a file of the
  build, and every `#anchor` (on the same page or another) to an `id` or
  `name` on that page;
- no page loads a script or a stylesheet from the network (`http(s)://`,
  `//host`): the site, MathJax included, reads offline;
- the bundled MathJax (`_static/mathjax/tex-chtml.js`) is there when a page
  loads it.

Exits 1 listing what is broken.  External links (`https://…` in `<a>`) are
not followed: that needs the network (sphinx's linkcheck builder does it).
"""

import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

MATHJAX = os.path.join("_static", "mathjax", "tex-chtml.js")


class _Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.remote = set(), [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key):
                self.ids.add(a[key])
        for key in ("href", "src"):
            url = a.get(key)
            if url is None:
                continue
            remote = url.startswith(("http://", "https://", "//"))
            loads = tag == "script" or (tag == "link" and "stylesheet" in (a.get("rel") or ""))
            if remote and loads:
                self.remote.append(url)
            elif not remote:
                self.links.append(url)


def _parse(path):
    page = _Page()
    with open(path, encoding="utf-8") as fh:
        page.feed(fh.read())
    return page


def html_pages(root):
    """The built pages: every .html file but the theme's assets and templates
    (_static/webpack-macros.html is Jinja, not a page)."""
    for folder, dirs, files in os.walk(root):
        if os.path.normpath(folder) == os.path.normpath(root):
            dirs[:] = [d for d in dirs if d not in ("_static", "_sources", "_images")]
        for name in files:
            if name.endswith(".html"):
                yield os.path.normpath(os.path.join(folder, name))


def check(root):
    """The list of problems of the site built in root (empty: all good)."""
    pages = {path: _parse(path) for path in html_pages(root)}
    problems = []
    if not pages:
        return [f"{root}: no html page"]
    for path, page in sorted(pages.items()):
        where = os.path.relpath(path, root)
        for url in page.remote:
            problems.append(f"{where}: loads {url} from the network")
        for url in page.links:
            parts = urlsplit(url)
            if parts.scheme or url.startswith("#") and len(url) == 1:
                continue                 # mailto:, javascript:, data:, a bare "#"
            target = path if not parts.path else os.path.normpath(
                os.path.join(os.path.dirname(path), unquote(parts.path)))
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if not os.path.exists(target):
                problems.append(f"{where}: {url}: no file {os.path.relpath(target, root)}")
                continue
            if parts.fragment and target.endswith(".html"):
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where}: {url}: no anchor #{parts.fragment} "
                                    f"in {os.path.relpath(target, root)}")
        if any("mathjax" in url for url in page.links) and not os.path.exists(
                os.path.join(root, MATHJAX)):
            problems.append(f"{where}: loads MathJax but {MATHJAX} is not in the build")
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else "docs/_build/html"
    problems = check(root)
    for p in problems:
        print(p)
    print(f"links: {len(list(html_pages(root)))} pages checked, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
