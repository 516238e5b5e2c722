"""The offline check of the built site (.ci/check_links.py, run by .ci/docs):
broken relative links and anchors, and scripts loaded from the network, are
reported; a site without them passes."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "check_links.py"


def _checker():
    spec = importlib.util.spec_from_file_location("check_links", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site(tmp_path, pages):
    for name, body in pages.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    return str(tmp_path)


def test_a_good_site_passes(tmp_path):
    root = _site(tmp_path, {
        "index.html": '<a href="guide/a.html#sec">a</a><a href="#top">top</a><p id="top"></p>'
                      '<a href="https://example.org/x.html">out</a><img src="_static/f.png">'
                      '<a href="guide/">dir</a>',
        "guide/a.html": '<h2 id="sec">s</h2><a href="../index.html">up</a>',
        "guide/index.html": "",
        "_static/f.png": "",
    })
    assert _checker().check(root) == []


def test_broken_links_anchors_and_remote_scripts_are_listed(tmp_path):
    root = _site(tmp_path, {
        "index.html": '<a href="missing.html">m</a><a href="a.html#nowhere">n</a>'
                      '<a href="#gone">g</a>'
                      '<script src="https://cdn.example.org/mathjax/tex-chtml.js"></script>'
                      '<link rel="stylesheet" href="//fonts.example.org/f.css">',
        "a.html": '<p id="here"></p><script src="_static/mathjax/tex-chtml.js"></script>',
    })
    problems = _checker().check(root)
    text = "\n".join(problems)
    assert len(problems) == 7, text
    assert "missing.html: no file missing.html" in text
    assert "a.html#nowhere: no anchor #nowhere in a.html" in text
    assert "#gone: no anchor #gone in index.html" in text
    assert "loads https://cdn.example.org/mathjax/tex-chtml.js from the network" in text
    assert "loads //fonts.example.org/f.css from the network" in text
    # a.html loads MathJax that the build does not have: the script itself is
    # a broken link, and the bundle check names it
    assert "a.html: loads MathJax but" in text
    assert _checker().main(["check_links.py", root]) == 1
