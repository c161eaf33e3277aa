"""``beyondpass prompts generate`` against a real local OpenAI-compatible server, the files it
writes, and ``prompts list`` / ``studies list|show``."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from beyondpass.errors import DataError
from beyondpass.methods.robunfr.variants import DEFAULT_INSTRUCTION, parse_variants
from beyondpass.study.config import builtin_study_path, load_study
from fake_endpoints import FakeEndpoint, ok
from robunfr_runs import invoke

TEN = [
    "Make the code easy to read",
    "Write code that is simple to follow",
    "Keep the code clear for readers",
    "Favor clarity in the code",
    "Aim for code that reads well",
    "Produce easily understandable code",
    "Write the code with clarity in mind",
    "Ensure others can read the code easily",
    "Prioritize clear, readable code",
    "Craft code that is straightforward to read",
]


def numbered(items: list[str]) -> str:
    return "Here you go:\n" + "\n".join(f"{i}. {v}" for i, v in enumerate(items, 1)) + "\n"


def test_parse_variants_accepts_common_shapes():
    assert parse_variants(numbered(TEN), 10) == TEN
    bullets = "\n".join(f"- **{v}.**" for v in TEN[:3])
    assert parse_variants(bullets, 3) == TEN[:3]
    echoed = '1) "Focus on clarity and complete the following code."\n2. Be clear\n'
    assert parse_variants(echoed, 2) == ["Focus on clarity", "Be clear"]
    with pytest.raises(DataError, match="no variant numbered 3"):
        parse_variants("1. a\n2. b\n4. d\n", 4)
    with pytest.raises(DataError, match="repeats 'a'"):
        parse_variants("1. a\n2. a\n", 2)
    with pytest.raises(DataError, match=re.escape("has 2 line(s), expected 3")):
        parse_variants("a\nb\n", 3)


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_generate_writes_a_usable_template_file_with_provenance(tmp_path, capsys):
    out = tmp_path / "variants.toml"
    with FakeEndpoint(
        ok(numbered(TEN), model="gpt-4o-mini-2024-07-18"),
        ok(numbered([v.upper() for v in TEN[:4]]), model="gpt-4o-mini-2024-07-18"),
    ) as server:
        spec = f"openai:gpt-4o-mini@{server.openai_base_url}"
        code, stdout, err = invoke(
            [
                "prompts",
                "generate",
                "--nfr",
                "readability",
                "--model",
                spec,
                "--out",
                out,
                "--cache-dir",
                tmp_path / "cache",
            ],
            capsys,
        )
        assert code == 0, err
        assert "10 variants of 'Consider readability' for readability" in stdout
        sent = server.requests[0].body
        assert sent["temperature"] == 0
        instruction = sent["messages"][-1]["content"]
        assert instruction == DEFAULT_INSTRUCTION.replace("{n}", "10").replace(
            "{seed}", "Consider readability"
        )
        # a second NFR goes into the same file, the first stays
        code, _, err = invoke(
            [
                "prompts",
                "generate",
                "--nfr",
                "security",
                "--seed-prompt",
                "Consider security",
                "--n",
                "4",
                "--model",
                spec,
                "--out",
                out,
                "--no-cache",
            ],
            capsys,
        )
        assert code == 0, err
    data = tomllib.loads(out.read_text(encoding="utf-8"))
    rd = data["nfrs"]["readability"]
    assert rd["variants"] == TEN
    assert (rd["label"], rd["metric"], rd["seed_prompt"]) == (
        "Readability",
        "unreadability_density",
        "Consider readability",
    )
    prov = rd["provenance"]
    assert prov["model"] == spec and prov["model_version"] == "gpt-4o-mini-2024-07-18"
    assert prov["instruction"] == instruction and prov["temperature"] == 0.0
    assert prov["raw_answer"] == numbered(TEN) and prov["created_at"].startswith("20")
    assert data["nfrs"]["security"]["variants"] == [v.upper() for v in TEN[:4]]

    # the file is a plan: a study uses it as its templates
    study = tmp_path / "study.toml"
    study.write_text(
        '[[benchmarks]]\nname = "demo"\n[[models]]\nspec = "replay:a.jsonl"\n'
        f'[prompts]\nplan = "robunfr"\ntemplates = "{out.name}"\nworkflows = ["integrated"]\n',
        encoding="utf-8",
    )
    cfg = load_study(study)
    texts = [c.metadata.get("variant_text") for c in cfg.plan.conditions[1:]]
    assert texts == TEN + [v.upper() for v in TEN[:4]]
    assert cfg.plan.conditions[1].metadata["variant_provenance"]["model_version"] == (
        "gpt-4o-mini-2024-07-18"
    )


def test_generate_refuses_to_overwrite_and_bad_answers_leave_no_file(tmp_path, capsys):
    out = tmp_path / "v.toml"
    with FakeEndpoint(
        ok(numbered(TEN[:3])), ok(numbered(TEN[:3])), ok("Sorry, I cannot help.")
    ) as server:
        spec = f"openai:m@{server.openai_base_url}"
        base = [
            "prompts",
            "generate",
            "--nfr",
            "design",
            "--n",
            "3",
            "--model",
            spec,
            "--out",
            out,
            "--no-cache",
        ]
        assert invoke(base, capsys)[0] == 0
        before = out.read_text(encoding="utf-8")
        code, _, err = invoke(base, capsys)
        assert code == 2 and "already has variants for 'design' — pass --force" in err
        assert out.read_text(encoding="utf-8") == before
        code, _, err = invoke([*base, "--force"], capsys)
        assert code == 2 and "has 1 line(s), expected 3 variants" in err
        assert out.read_text(encoding="utf-8") == before
    code, _, err = invoke(
        ["prompts", "generate", "--nfr", "security", "--model", spec, "--out", out], capsys
    )
    assert code == 2 and "give its --seed-prompt" in err


def test_prompts_list_and_studies(capsys):
    code, out, _ = invoke(["prompts", "list", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["source"] == "built-in"
    assert {k: len(v["variants"]) for k, v in data["nfrs"].items()} == {
        "design": 10,
        "readability": 10,
        "reliability": 10,
        "performance": 10,
    }
    code, out, _ = invoke(["studies", "list", "--json"], capsys)
    listed = {row["name"]: row for row in json.loads(out)}
    assert code == 0
    assert {"name": "robunfr", "run_as": "studies/robunfr.toml"}.items() <= listed[
        "robunfr"
    ].items()
    code, out, _ = invoke(["studies", "show", "robunfr"], capsys)
    assert code == 0 and out == Path(builtin_study_path("robunfr")).read_text(encoding="utf-8")
    code, _, err = invoke(["studies", "show", "nope"], capsys)
    assert code == 2 and "no built-in study 'nope' — built-in studies: " in err
    assert "robunfr" in err.split("built-in studies: ")[1]
