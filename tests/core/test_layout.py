"""The layout says what is where (issue 22 item 4): each _core/*.pxi opens with
a header naming its side (the rule core or the reference AD's engine), and no
rule module under chainrules/rulesets/ grows past about 600 lines (split by
topic)."""

import fnmatch
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT = 620

# Modules allowed over the limit, each with its reason: none
ALLOWED: dict[str, str] = {}


def test_every_pxi_opens_with_its_side():
    pxis = sorted((ROOT / "_core").glob("*.pxi"))
    assert len(pxis) > 20
    bad = [p.name for p in pxis
           if not p.read_text(encoding="utf-8").split("\n", 1)[0].startswith(("# RULE CORE: ", "# AD ENGINE: "))]
    assert not bad, f"first line must be '# RULE CORE: …' or '# AD ENGINE: …': {bad}"


def test_the_ad_engine_files_are_the_ad_ones():
    for p in (ROOT / "_core").glob("ad_*.pxi"):
        assert p.read_text(encoding="utf-8").startswith("# AD ENGINE: "), p.name


def test_no_rule_module_is_over_the_limit():
    rulesets = ROOT / "chainrules" / "rulesets"
    sizes = {p.relative_to(rulesets).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in rulesets.rglob("*.py")}
    over = {rel: n for rel, n in sizes.items()
            if n > LIMIT and not any(fnmatch.fnmatch(rel, pat) for pat in ALLOWED)}
    assert len(sizes) > 40
    assert not over, f"split by topic: {over}"
