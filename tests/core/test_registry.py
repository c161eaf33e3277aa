"""The method registry: discovery, evaluator options in study files, the benchmark
transform seam, and the one-line error when a method's extra is missing."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from beyondpass import registry
from beyondpass.benchmarks import load_benchmark
from beyondpass.errors import ConfigError
from beyondpass.store.run_store import RunStore
from beyondpass.study.builtin import study_files
from beyondpass.study.config import load_study
from beyondpass.study.runner import StudyRunner
from hidden_modules import hiding

BASE = """
name = "registry"
seed = 7
[[benchmarks]]
name = "demo"
{bench_extra}
[[models]]
spec = "replay:answers.jsonl"
[evaluation]
{evaluation}
"""


def study(tmp_path: Path, evaluation: str = "", bench_extra: str = "") -> Path:
    path = tmp_path / "study.toml"
    path.write_text(BASE.format(evaluation=evaluation, bench_extra=bench_extra), "utf-8")
    return path


def test_builtin_methods_and_their_components() -> None:
    assert list(registry.methods())[:3] == ["core", "robunfr", "robustapi"]
    assert registry.lookup("evaluators", "nfr")[1].name == "robunfr"
    assert registry.lookup("evaluators", "robustapi")[0].decides_verdict
    assert registry.find("plans", "robustapi")[0].answer_format == "robustapi-blocks"
    assert set(study_files()) >= {"robunfr", "robustapi"}
    assert [f for f, _ in registry.specs("task_id_fields")] == ["id"]
    with pytest.raises(ConfigError, match=r"unknown evaluator 'nope' — known: functional, "):
        registry.lookup("evaluators", "nope")
    with pytest.raises(ConfigError, match=r"unknown executor 'x' — available: sandbox, "):
        registry.lookup("executors", "x")
    assert registry.find("plans", "nope") is None
    with pytest.raises(ValueError, match="not a kind of component"):
        registry.specs("plan")  # a typo of a kind is a programming error, said at once


def test_an_evaluator_is_found_by_its_former_name() -> None:
    spec, owner = registry.lookup("evaluators", "psb2_quality")
    assert (spec.name, owner.name) == ("psb2-quality", "psb2")
    assert "psb2_quality" in registry.names("evaluators", former=True)
    assert "psb2_quality" not in registry.names("evaluators")


@pytest.mark.parametrize(
    "evaluation",
    [
        "nfr = true",
        'evaluators = ["nfr"]',
        "[evaluation.nfr]",
        'evaluators = [{name = "nfr"}]',
    ],
)
def test_evaluators_are_named_in_any_of_the_documented_forms(tmp_path, evaluation) -> None:
    config = load_study(study(tmp_path, evaluation))
    assert [e.name for e in config.evaluators] == ["nfr"]
    assert config.evaluators[0].options == {"file_timeout_s": 60.0, "memory_mb": 4096}
    assert config.timing_repeats == 5  # what nfr asks of the functional verdict


def test_functional_options_and_legacy_spelling_agree(tmp_path) -> None:
    old = load_study(study(tmp_path, "nfr = true\ntiming_repeats = 3"))
    new = load_study(
        study(tmp_path, 'evaluators = ["nfr"]\n[evaluation.functional]\ntiming_repeats = 3')
    )
    assert old.timing_repeats == new.timing_repeats == 3
    assert old.verdict_options == new.verdict_options == {"functional": {"timing_repeats": 3}}
    assert load_study(study(tmp_path)).timing_repeats == 0


@pytest.mark.parametrize(
    ("evaluation", "message"),
    [
        (
            "[evaluation.nfr]\nmemory = 5",
            "evaluation.nfr: unknown key 'memory' — valid: file_timeout_s, memory_mb",
        ),
        (
            "[evaluation.nfr]\nmemory_mb = 1",
            "evaluation.nfr.memory_mb: Input should be greater than or equal to 256",
        ),
        ("[evaluation.functional]\ntiming_repeats = -2", "evaluation.functional.timing_repeats"),
        ('evaluators = ["pylint"]', "unknown evaluator 'pylint'"),
        ("evaluators = [3]", "evaluation.evaluators[1]: expected an evaluator name"),
    ],
)
def test_bad_evaluator_options_name_the_key(tmp_path, evaluation, message) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_study(study(tmp_path, evaluation))


def test_missing_extra_is_one_line_naming_it() -> None:
    method = registry.Method("needy", extra="needy", requires=("no_such_module_xyz",))
    with pytest.raises(registry.MissingExtra) as err:
        registry.resolve("json:dumps", method)
    assert str(err.value) == (
        "method needy needs its optional dependencies (module no_such_module_xyz is missing) "
        "— pip install 'beyondpass[needy]'"
    )
    assert registry.resolve("json:dumps", method, needs_extra=False) is json.dumps


def test_missing_java_extra_stops_a_robustapi_study_with_one_line(run_cli, tmp_path) -> None:
    """tree-sitter hidden from the interpreter (a meta-path finder that refuses it)."""
    hide = hiding(tmp_path / "hide", "tree_sitter", "tree_sitter_java")
    (tmp_path / "answers.jsonl").write_text(
        json.dumps({"id": "0", "condition": "zero-shot", "response": "<<<code>>>: x();"}) + "\n",
        encoding="utf-8",
    )
    study_file = tmp_path / "s.toml"
    study_file.write_text(
        '[[benchmarks]]\nname = "robustapi"\ntasks = ["0"]\n[[models]]\n'
        'spec = "replay:answers.jsonl"\n[prompts]\nplan = "robustapi"\n',
        encoding="utf-8",
    )
    proc = run_cli(
        ["run", study_file, "--out", tmp_path / "run"], cwd=tmp_path, pythonpath_first=[hide]
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: method robustapi needs its optional dependencies")
    assert line.endswith("pip install 'beyondpass[java]'")


# -- benchmark transforms -----------------------------------------------------------------------
def test_subset_transform_is_seeded_and_recorded(tmp_path) -> None:
    demo = load_benchmark("demo")
    rows = [
        {"task_id": tid, "completion": f"```python\n{t.reference_solution}```"}
        for tid, t in demo.tasks.items()
    ]
    (tmp_path / "answers.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    plain = load_study(study(tmp_path))
    config = load_study(study(tmp_path, bench_extra='transform = {name = "subset", size = 3}'))
    again = load_study(study(tmp_path, bench_extra='transform = {name = "subset", size = 3}'))
    other = load_study(
        study(tmp_path, bench_extra='transform = {name = "subset", size = 3, seed = 8}')
    )
    assert config.benchmarks[0].transform.seed == 7  # the study's seed unless given
    hashes = {plain.config_hash(), config.config_hash(), other.config_hash()}
    assert len(hashes) == 3 and config.config_hash() == again.config_hash()

    outcome = StudyRunner(config, tmp_path / "run").run()
    assert outcome.complete and outcome.expected == 3
    with RunStore(tmp_path / "run", create=False) as store:
        meta = store.get_meta("benchmarks")["demo"]
        tasks = sorted({r.sample.task_id for r in store.rows()})
    assert meta["transform"] == {
        "name": "subset",
        "version": "1",
        "options": {"size": 3},
        "seed": 7,
        "input_version": demo.version,
    }
    assert meta["n_tasks"] == 3 and meta["version"] != demo.version
    import random

    expected = sorted(random.Random(7).sample(list(demo.tasks), 3))
    assert tasks == expected  # the seeded draw, independent of the transform's code path


def test_unknown_transform_or_option_is_a_config_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="unknown benchmark transform 'shuffle'"):
        load_study(study(tmp_path, bench_extra='transform = {name = "shuffle"}'))
    with pytest.raises(ConfigError, match=re.escape("transform: unknown key 'sise'")):
        load_study(study(tmp_path, bench_extra='transform = {name = "subset", size = 2, sise = 2}'))


# -- answer formats stated by the plan --------------------------------------------------------
def test_plan_answer_format_decides_how_answers_are_read(tmp_path) -> None:
    """The same answers read as whole programs: extraction takes the fenced block as is."""
    demo = load_benchmark("demo")
    tid, task = next(iter(demo.tasks.items()))
    answer = f"Here it is:\n```python\n{task.reference_solution}```\nDone."
    (tmp_path / "answers.jsonl").write_text(
        json.dumps({"task_id": tid, "completion": answer}) + "\n", encoding="utf-8"
    )
    body = BASE.format(evaluation="", bench_extra=f'tasks = ["{tid}"]')
    runs = {}
    for fmt in (None, "whole-program"):
        path = tmp_path / f"{fmt}.toml"
        extra = f'[prompts]\nanswer_format = "{fmt}"\n' if fmt else ""
        path.write_text(body + extra, encoding="utf-8")
        config = load_study(path)
        assert config.plan.answer_format == fmt
        StudyRunner(config, tmp_path / f"run-{fmt}").run()
        with RunStore(tmp_path / f"run-{fmt}", create=False) as store:
            (runs[fmt],) = [r.sample for r in store.rows()]
    assert runs["whole-program"].extraction["notes"] == ["first fenced block"]
    assert runs["whole-program"].code == task.reference_solution.strip("\n")
    assert runs[None].extraction["notes"] != ["first fenced block"]


def test_unknown_answer_format_in_a_study_is_a_config_error(tmp_path) -> None:
    path = study(tmp_path)
    path.write_text(path.read_text() + '[prompts]\nanswer_format = "xml"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="prompts.answer_format must be one of fenced-code"):
        load_study(path)


# -- one registry: the core is a method like any other -----------------------------------------
#: every kind of spec, with the fields that name its components
REFS = {
    "benchmarks": ("loader",),
    "plans": ("factory",),
    "answer_formats": ("extractor",),
    "answer_files": ("factory",),
    "evaluators": ("factory", "options", "summary"),
    "transforms": ("factory", "options"),
    "providers": ("factory",),
    "executors": ("factory",),
    "headlines": ("values",),
}


def test_core_is_registered_first_exactly_like_a_method() -> None:
    from beyondpass.core import CORE

    assert next(iter(registry.methods().values())) is CORE
    benchmarks = list(registry.named("benchmarks"))
    assert benchmarks[:5] == ["humaneval", "humaneval-et", "mbpp", "mbpp-et", "demo"]
    assert registry.names("plans")[:2] == ["function-only", "neutral"]
    assert registry.names("providers") == ["openai", "anthropic", "replay"]
    assert registry.names("executors") == ["sandbox", "subprocess", "ray"]
    commands = [registry.resolve(ref, m) for ref, m in registry.specs("commands")]
    assert [c.name for c in commands][:3] == ["benchmarks", "evaluate", "run"]
    with pytest.raises(ConfigError, match="method name 'core' is reserved"):
        registry.register(registry.Method("core"))


def test_every_core_component_resolves() -> None:
    """Each ``module:attribute`` the core names is real: a typo fails here, not in a run."""
    core = registry.method("core")
    refs = [
        getattr(spec, name)
        for kind, names in REFS.items()
        for spec in getattr(core, kind)
        for name in names
        if getattr(spec, name) is not None
    ]
    refs += [*core.commands, *core.report_sections]
    # the earlier 28, the answers file kind, the review command and its report section, the
    # pass@1 headline, the profile section, the functional verdict's summary of multi-block
    # answers and their report section, the demo's RobuNFR tasks
    assert len(refs) == 28 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1  # none skipped
    for ref in refs:
        assert callable(registry.resolve(ref, core)), ref


def test_listing_every_component_imports_none_of_them() -> None:
    """Names come from declarations: nothing a component needs is imported to list it."""
    code = (
        "import sys\n"
        "from beyondpass import registry\n"
        "from beyondpass.cli.app import build_cli\n"
        "build_cli()\n"
        f"specs = [s for kind in {list(REFS)!r} for s, _ in registry.specs(kind)]\n"
        "assert len(specs) > 20, specs\n"
        "heavy = ('openai', 'anthropic', 'ray', 'tree_sitter', 'beyondpass.demo',\n"
        "         'beyondpass.execution.sandbox_executor', 'beyondpass.benchmarks.humaneval',\n"
        "         'beyondpass.models.replay', 'beyondpass.extraction.program')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


class Echo:
    """A provider class as the factory sees one: ``(model, base_url, **options)``."""

    def __init__(
        self, model: str, base_url: str | None = None, request_timeout: float = 1, shout=False
    ):
        self.model, self.base_url, self.shout = model, base_url, shout


class Recorder:
    """An executor factory that keeps what it was given."""

    def __init__(self, **options: object) -> None:
        self.options = options


def test_a_method_brings_a_provider_and_an_executor(fresh_registry) -> None:
    from beyondpass.execution import create_executor
    from beyondpass.models.factory import create_provider, parse_spec

    fresh_registry.register(
        registry.Method(
            "toy",
            providers=(registry.ProviderSpec("echo", Echo),),
            executors=(registry.ExecutorSpec("toy", Recorder, defaults={"flavour": "plain"}),),
        )
    )
    made = create_provider("echo:m@http://127.0.0.1:9/v1#shout=on")
    assert (made.model, made.base_url, made.shout) == ("m", "http://127.0.0.1:9/v1", True)
    with pytest.raises(ConfigError, match="use one of: anthropic, echo, openai, replay$"):
        parse_spec("nope:m")
    assert create_executor("toy", workers=3).options == {"flavour": "plain", "workers": 3}
    assert create_executor("toy", flavour="salt").options == {"flavour": "salt"}


def test_executors_by_name() -> None:
    from beyondpass.execution import create_executor

    made = {
        name: create_executor(name, workers=1, isolation="process", process_budget="none")
        for name in ("sandbox", "subprocess")
    }
    try:
        assert {n: e.metadata()["executor"] for n, e in made.items()} == {
            "sandbox": "sandbox",
            "subprocess": "subprocess",  # a fresh worker per sample
        }
    finally:
        for executor in made.values():
            executor.close()
    with pytest.raises(ConfigError) as err:
        create_executor("docker")
    assert str(err.value) == "unknown executor 'docker' — available: sandbox, subprocess, ray"
