"""Tests for code extraction: the answer shapes models really produce, plus recorded answers."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest

from beyondpass import registry
from beyondpass.benchmarks.task import Task
from beyondpass.errors import ConfigError
from beyondpass.extraction import Extraction, answer_format_of, extract

ADD_PROMPT = 'from typing import List\n\n\ndef add(xs: List[int]) -> int:\n    """Sum xs."""\n'
ADD_DEF = "def add(xs):\n    return sum(xs)"

# HumanEval/10 and HumanEval/38 shape: the prompt defines a helper the answer relies on.
HELPER_PROMPT = (
    "def encode(s: str) -> str:\n"
    '    """Shift every letter by one."""\n'
    '    return "".join(chr(ord(c) + 1) for c in s)\n'
    "\n\n"
    "def decode(s: str) -> str:\n"
    '    """Invert encode."""\n'
)


def completion(prompt: str = ADD_PROMPT, entry_point: str | None = "add") -> Task:
    return Task(
        "humaneval", "t/0", "python", prompt, entry_point, "", (), prompt_style="completion"
    )


def description(entry_point: str | None = "add") -> Task:
    prompt = "Write a function add(xs) that returns the sum of a list.\nassert add([1, 2]) == 3"
    return Task("mbpp", "t/1", "python", prompt, entry_point, "", (), prompt_style="description")


def top_names(program: str) -> list[str]:
    names = []
    for stmt in ast.parse(program).body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(stmt.name)
    return names


def assert_ok(result: Extraction, entry_point: str | None = "add") -> None:
    assert result.status == "ok", (result.error, result.notes)
    compile(result.program, "<program>", "exec")
    if entry_point:
        assert entry_point in top_names(result.program)


# --- reasoning ---------------------------------------------------------------------------


@pytest.mark.parametrize("tag", ["think", "thinking", "THINK"])
def test_reasoning_block_is_removed_and_its_code_never_used(tag: str) -> None:
    answer = (
        f"<{tag}>\nFirst draft:\n```python\ndef add(xs):\n    return 0\n```\n"
        f"That is wrong.\n</{tag}>\n\n```python\n{ADD_DEF}\n```"
    )
    result = extract(answer, description())
    assert_ok(result)
    assert "return sum(xs)" in result.program and "return 0" not in result.program
    assert any("<think>" in note for note in result.notes)


def test_orphan_closing_tag_drops_everything_before_it() -> None:
    answer = f"Okay, I'd write def add(xs): return 0 first.\n</think>\n\n{ADD_DEF}\n"
    result = extract(answer, description())
    assert_ok(result)
    assert "return 0" not in result.program
    assert "dropped reasoning before </think>" in result.notes


def test_unclosed_think_means_no_code_even_if_reasoning_has_code() -> None:
    answer = "<think>\nLet me try:\n```python\ndef add(xs):\n    return sum(xs)\n```\nbut"
    result = extract(answer, description())
    assert result.status == "no_code"
    assert result.code == result.program == ""
    assert result.kind == "none"


def test_code_only_after_leading_think_block() -> None:
    answer = f"<think>The user wants a sum; def add is easy.</think>{ADD_DEF}"
    assert_ok(extract(answer, description()))


def test_code_that_mentions_think_tags_is_kept() -> None:
    code = 'import re\n\n\ndef add(s):\n    return re.sub(r"<think>.*?</think>", "", s)'
    result = extract(f"```python\n{code}\n```", description())
    assert_ok(result)
    assert result.code == code
    assert not any("think" in note for note in result.notes)


# --- fences ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "opening", ["```python", "```py", "```Python3", "```", "~~~", "~~~python", "```{python}"]
)
def test_fence_tags(opening: str) -> None:
    closing = opening[:3]
    answer = f"Here you go:\n{opening}\n{ADD_DEF}\n{closing}\nHope this helps."
    result = extract(answer, description())
    assert_ok(result)
    assert result.code == ADD_DEF
    assert result.program == ADD_DEF + "\n"


def test_indented_fence_in_a_list() -> None:
    answer = "1. Define it:\n\n   ```python\n   def add(xs):\n       return sum(xs)\n   ```\n"
    result = extract(answer, description())
    assert_ok(result)
    assert result.code == ADD_DEF


def test_unterminated_final_fence_is_taken() -> None:
    answer = f"Sure:\n```python\n{ADD_DEF}\n"
    result = extract(answer, description())
    assert_ok(result)
    assert "fence not closed (answer cut off?)" in result.notes


def test_truncated_code_in_unterminated_fence_is_a_syntax_error() -> None:
    answer = "```python\ndef add(xs):\n    return sum(xs[:"
    result = extract(answer, description())
    assert result.status == "syntax_error"
    assert result.code == "def add(xs):\n    return sum(xs[:"
    assert result.error.endswith("(line 2)")


def test_non_python_blocks_are_not_preferred() -> None:
    answer = (
        "Install it:\n```bash\npip install numpy\n```\n"
        "```python\nimport numpy as np\n\ndef add(xs):\n    return int(np.sum(xs))\n```\n"
        "Output:\n```text\n3\n```"
    )
    result = extract(answer, description())
    assert_ok(result)
    assert "pip" not in result.program


def test_stray_closing_fence_after_unfenced_code() -> None:
    # recorded MBPP answers end like this: code, a lone closing fence, then junk
    answer = f"{ADD_DEF}\n```\n[Task End"
    result = extract(answer, description())
    assert_ok(result)
    assert result.code == ADD_DEF


# --- choosing among several blocks -------------------------------------------------------


def test_block_defining_entry_point_beats_larger_blocks() -> None:
    usage = "\n".join(f"print(add([{i}, {i}]))" for i in range(20))
    answer = f"```python\n{usage}\n```\n\n```python\n{ADD_DEF}\n```\n"
    result = extract(answer, description())
    assert_ok(result)
    assert result.code == ADD_DEF
    assert "picked fenced block 2 of 2 (defines entry point)" in result.notes


def test_a_later_definition_is_read_only_when_the_answer_names_it() -> None:
    wrong = "def add(xs):\n    return 0"
    loop = "def add(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total"
    offered = (
        f"Here it is:\n```python\n{loop}\n```\nIf you want it shorter:\n```python\n{ADD_DEF}\n```"
    )
    result = extract(offered, description())
    assert result.code == loop and result.candidates == 2
    assert result.alternative is not None and result.alternative.code == ADD_DEF
    note = "picked fenced block 1 of 2 (defines entry point, candidate 1 of 2 (first candidate; "
    assert note + "none named the answer))" in result.notes
    corrected = (
        f"First try:\n```python\n{wrong}\n```\nThe corrected version:\n```python\n{loop}\n```"
    )
    result = extract(corrected, description())
    assert result.code == loop
    assert result.alternative is not None and result.alternative.code == wrong
    note = "picked fenced block 2 of 2 (defines entry point, candidate 2 of 2 (named the answer))"
    assert note in result.notes


def test_helper_and_import_blocks_are_merged_but_usage_is_not() -> None:
    answer = (
        "We need math:\n```python\nimport math\n```\n"
        "and a helper:\n```python\ndef double(x):\n    return 2 * x\n```\n"
        "and something unrelated:\n```python\ndef unused():\n    return 1\n```\n"
        "The solution:\n```python\ndef add(xs):\n    return math.fsum(double(x) for x in xs)\n```\n"
        "Example usage:\n```python\nprint(add([1, 2]))\n```\n"
    )
    result = extract(answer, description())
    assert_ok(result)
    assert top_names(result.program) == ["double", "add"]
    assert result.program.startswith("import math\n")
    assert "print(" not in result.program and "unused" not in result.program
    assert "merged fenced block 1 of 5 (provides math)" in result.notes


def test_without_entry_point_the_largest_compiling_block_wins() -> None:
    small = "x = 1"
    big = "def helper(values):\n    return sorted(values)\n\nprint(helper([3, 1]))"
    broken = "def f(:\n" * 10
    answer = f"```python\n{small}\n```\n```python\n{big}\n```\n```python\n{broken}\n```"
    result = extract(answer, description(entry_point=None))
    assert result.status == "ok"
    assert result.code == big


def test_completion_body_beats_usage_block() -> None:
    answer = (
        "```python\nprint(add([1, 2, 3]))\nprint(add([]))\n```\n```python\n    return sum(xs)\n```"
    )
    result = extract(answer, completion())
    assert_ok(result)
    assert result.kind == "body"
    assert result.program == ADD_PROMPT + "    return sum(xs)\n"


def test_usage_block_importing_the_entry_point_is_not_a_definition() -> None:
    answer = (
        f"```python\n{ADD_DEF}\n```\n\nTest it:\n\n"
        "```python\nfrom solution import add\n\nprint(add([1, 2]))\n```"
    )
    result = extract(answer, description())
    assert result.code == ADD_DEF
    assert "picked fenced block 1 of 2 (defines entry point)" in result.notes


# --- unfenced answers --------------------------------------------------------------------


def test_plain_code_answer() -> None:
    code = "import math\n\n\ndef add(xs):\n    return math.fsum(xs)\n\n\nprint(add([1]))"
    result = extract(code, description())
    assert_ok(result)
    assert result.code == code
    assert result.notes == ("took the whole answer as code",)


def test_prose_around_unfenced_code() -> None:
    answer = (
        "Here is the function you asked for:\n\n"
        f"{ADD_DEF}\n\n"
        "This function uses the built-in sum.\nExample usage:\nprint(add([1, 2]))\n"
    )
    result = extract(answer, description())
    assert_ok(result)
    assert result.code == ADD_DEF
    assert "took unfenced code (lines 3-4) (defines entry point)" in result.notes


def test_markdown_indented_code_block_is_dedented() -> None:
    answer = "The function is:\n\n    def add(xs):\n        return sum(xs)\n\nIt returns the sum."
    result = extract(answer, description())
    assert_ok(result)
    assert result.program == ADD_DEF + "\n"
    assert "dedented code" in result.notes


def test_answer_repeating_the_prompt() -> None:
    answer = ADD_PROMPT + "    return sum(xs)\n"
    result = extract(answer, completion())
    assert_ok(result)
    assert result.kind == "full"
    assert result.code == answer.strip("\n")


# --- completion bodies and prompt context ------------------------------------------------


def test_indented_body_is_appended_to_prompt() -> None:
    result = extract("    return sum(xs)\n", completion())
    assert_ok(result)
    assert result.kind == "body"
    assert result.code == "    return sum(xs)"
    assert result.program == ADD_PROMPT + "    return sum(xs)\n"


def test_body_on_prompt_without_trailing_newline() -> None:
    task = completion(prompt=ADD_PROMPT.rstrip("\n"))
    result = extract("    return sum(xs)", task)
    assert_ok(result)
    assert result.program == ADD_PROMPT + "    return sum(xs)\n"


def test_body_followed_by_extra_top_level_functions() -> None:
    # recorded MBPP/45 shape: the body, then helpers at top level
    body = "    return sum(xs)\n\ndef add_all(lists):\n    return [add(x) for x in lists]"
    result = extract(body, completion())
    assert_ok(result)
    assert result.kind == "body"
    assert top_names(result.program) == ["add", "add_all"]


def test_body_whose_first_line_lost_its_indentation() -> None:
    body = "total = 0\n    for x in xs:\n        total += x\n    return total"
    result = extract(body, completion())
    assert_ok(result)
    assert result.kind == "body"
    assert "    total = 0\n    for x in xs:" in result.program
    assert "indented first line of body" in result.notes


def test_flush_left_single_line_body_is_reindented() -> None:
    result = extract("return sum(xs)", completion())
    assert_ok(result)
    assert result.program.endswith('"""Sum xs."""\n    return sum(xs)\n')
    assert "re-indented body" in result.notes


def test_tab_indented_body_with_crlf() -> None:
    body = "\ttotal = 0\r\n\tfor x in xs:\r\n\t\ttotal += x\r\n\treturn total\r\n"
    result = extract(body, completion())
    assert_ok(result)
    assert result.kind == "body"
    assert "\r" not in result.program
    assert "normalised CRLF line endings" in result.notes


def test_prose_then_unfenced_body() -> None:
    answer = "Sure, here is the completion:\n\n    return sum(xs)\n\nThis returns the total."
    result = extract(answer, completion())
    assert_ok(result)
    assert result.kind == "body"


def test_full_answer_gets_prompt_context() -> None:
    answer = "def decode(s: str) -> str:\n    return encode(encode(s))"
    result = extract(answer, completion(HELPER_PROMPT, "decode"))
    assert_ok(result, "decode")
    assert result.kind == "full"
    assert top_names(result.program) == ["encode", "decode"]
    assert result.code == answer
    assert "prepended prompt context (encode)" in result.notes


def test_answer_definitions_override_prompt_helpers() -> None:
    answer = "def encode(s):\n    return s\n\n\ndef decode(s):\n    return s"
    result = extract(answer, completion(HELPER_PROMPT, "decode"))
    assert_ok(result, "decode")
    assert top_names(result.program) == ["encode", "encode", "decode"]


def test_prompt_imports_are_prepended() -> None:
    result = extract("def add(xs: List[int]) -> int:\n    return sum(xs)", completion())
    assert_ok(result)
    assert result.program.startswith("from typing import List\n")


def test_prompt_import_repeated_by_the_answer_is_not_duplicated() -> None:
    answer = "from typing import List\n\ndef add(xs: List[int]) -> int:\n    return sum(xs)"
    result = extract(answer, completion())
    assert_ok(result)
    assert result.program == answer + "\n"
    assert not any("prompt context" in note for note in result.notes)


def test_description_task_program_is_the_answer_code() -> None:
    result = extract(f"```python\n{ADD_DEF}\n```", description())
    assert result.kind == "full"
    assert result.program == ADD_DEF + "\n"


def test_future_import_stays_first() -> None:
    answer = (
        "from __future__ import annotations\n\ndef add(xs: list[int]) -> int:\n    return sum(xs)"
    )
    result = extract(answer, completion())
    assert_ok(result)
    assert result.program.startswith("from __future__ import annotations\nfrom typing import List")


# --- no code -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "   \n\n\t\n",
        "Sorry",
        "yes",
        "None",
        "not possible",
        "See (below)",
        "Answer: 42",
        "I'm sorry, but I can't help with that.",
        "As an AI language model, I cannot write code for this request.",
        "To solve this you should iterate over the list and add each element to a running total.",
        "You can use the built-in sum function.\n\nFor example, sum of [1, 2] is 3.",
        "if the list is empty, we return zero.\nOtherwise we add the numbers.",
        "x = the sum of all numbers",
        "Here is the output:\n```\n[2, 5, 6]\n```",
        "```text\nThe function returns the total.\n```",
        "```python\n>>> add([1, 2])\n3\n```",
    ],
)
def test_no_code(answer: str) -> None:
    result = extract(answer, description())
    assert result.status == "no_code", result
    assert (result.code, result.program, result.kind, result.error) == ("", "", "none", "")


# --- syntax errors and whitespace --------------------------------------------------------


def test_python2_print_is_a_syntax_error() -> None:
    answer = "def add(xs):\n    print sum(xs)\n    return sum(xs)\n"
    result = extract(answer, description())
    assert result.status == "syntax_error"
    assert result.kind == "full"
    assert result.code == answer.rstrip("\n")
    assert result.program == answer
    assert result.error.startswith("SyntaxError: Missing parentheses in call to 'print'")
    assert result.error.endswith("(line 2)")


def test_lone_python2_print_statement_is_code() -> None:
    result = extract("print 'hello'", description(entry_point=None))
    assert result.status == "syntax_error"


def test_syntax_error_line_refers_to_the_assembled_program() -> None:
    result = extract("def add(xs):\n    return sum(xs", completion())
    assert result.status == "syntax_error"
    program_lines = result.program.split("\n")
    line = int(result.error.rsplit("line ", 1)[1].rstrip(")"))
    assert program_lines[line - 1] == "    return sum(xs"


def test_truncated_body_is_a_body_syntax_error() -> None:
    result = extract("    return sum(xs[", completion())
    assert result.status == "syntax_error"
    assert result.kind == "body"
    assert result.program == ADD_PROMPT + "    return sum(xs[\n"


def test_blank_lines_trailing_whitespace_and_crlf() -> None:
    answer = "\r\n\r\n\r\ndef add(xs):   \r\n    return sum(xs)   \r\n\r\n\r\n"
    result = extract(answer, description())
    assert_ok(result)
    assert result.code == "def add(xs):   \n    return sum(xs)   "


def test_extraction_never_executes_the_answer(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    answer = f"```python\nopen({str(marker)!r}, 'w').write('x')\n{ADD_DEF}\n```"
    result = extract(answer, description())
    assert_ok(result)
    assert not marker.exists()


# --- dispatch ----------------------------------------------------------------------------


def test_dispatch_by_answer_format() -> None:
    """The prompt plan's answer format decides, not the language: a Java task is read as a
    whole program unless the plan asked for RobustAPI's <<<code>>> blocks."""
    answer = "Here:\n```java\nclass Main {}\n```\n<<<code>>>: int x = 1;\n"
    java = Task("x", "t", "java", "class Main {}", None, "", (), prompt_style="description")
    whole = extract(answer, java)
    assert (whole.status, whole.code) == ("ok", "class Main {}")
    blocks = extract(answer, java, "robustapi-blocks")
    assert blocks.status == "ok" and "int x = 1;" in blocks.code and "Main" not in blocks.code
    cpp = Task("x", "t", "cpp", "int main() {}", None, "", (), prompt_style="description")
    assert extract("int main() { return 0; }", cpp).code == "int main() { return 0; }"
    assert extract("   \n", cpp).status == "no_code"
    upper = Task("x", "t", "Python", "", "add", "", (), prompt_style="description")
    assert extract(ADD_DEF, upper).status == "ok"
    with pytest.raises(ConfigError, match="unknown answer format 'nope'"):
        extract("x", upper, "nope")


def test_benchmark_default_answer_format() -> None:
    """Answers replayed without a plan are read in the benchmark's declared format."""
    rapi = Task("robustapi", "1", "java", "q", None, "", ())
    assert answer_format_of(rapi) == "robustapi-blocks"
    assert answer_format_of(rapi, "whole-program") == "whole-program"
    assert answer_format_of(Task("humaneval", "1", "python", "", None, "", ())) == "fenced-code"


def test_a_method_adds_an_answer_format(fresh_registry) -> None:
    def toy(answer: str, task: Task) -> Extraction:
        return Extraction("no_code", "", "", "none")

    task = Task("x", "t", "python", "", None, "", (), prompt_style="description")
    with pytest.raises(ConfigError, match="unknown answer format 'toy'"):
        extract(ADD_DEF, task, "toy")
    fresh_registry.register(
        registry.Method("toy", answer_formats=(registry.AnswerFormatSpec("toy", toy),))
    )
    assert extract(ADD_DEF, task, "Toy").status == "no_code"  # names are case-insensitive
    assert extract(ADD_DEF, task).status == "ok"  # the language's default is untouched


# --- recorded model answers --------------------------------------------------------------

# Recorded answers that legitimately do not give a program defining the entry point.
KNOWN_MISSES = {
    "MBPP/39": ("ok", "defines rearrange_string; the prompt's name is rearange_string"),
    "MBPP/152": ("ok", "defines only merge_sort, which calls the merge it never wrote"),
    "MBPP/190": ("ok", "defines count_Integral_Points; the prompt's name is count_Intgral_Points"),
    "MBPP/247": ("ok", "answers another task (similar_elements)"),
    "MBPP/260": ("ok", "only the is_prime helper; newman_prime itself is missing"),
    "MBPP/402": ("ok", "only the factorial_modp helper; ncr_modp itself is missing"),
    "MBPP/466": ("ok", "defines find_peak, which calls the find_peak_util it never wrote"),
    "MBPP/325": ("syntax_error", "cut off mid-expression: `return min_squares[n`"),
    "MBPP/408": ("syntax_error", "cut off mid-expression: `return pairs[:k`"),
}
RECORDED = ["humaneval-gpt-3.5-turbo-0613.jsonl", "mbpp-gpt-3.5-turbo-0613.jsonl"]


def data_dir() -> Path:
    """The shared data directory; a missing one fails on CI rather than silently skipping."""
    default = Path(__file__).resolve().parents[3] / "shared" / "data"
    path = Path(os.environ.get("BEYONDPASS_DATA") or default)
    if not (path / "recorded").is_dir():
        message = f"recorded model answers not found under {path} (set BEYONDPASS_DATA)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def recorded_rows(name: str) -> list[dict]:
    with open(data_dir() / "recorded" / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def recorded_task(row: dict) -> Task:
    return Task(
        benchmark="humaneval",
        task_id=row["task_id"],
        language="python",
        prompt=row["prompt"],
        entry_point=row["entry_point"],
        reference_solution="",
        tests=(),
        prompt_style="completion",
    )


@pytest.mark.parametrize("name", RECORDED)
def test_recorded_solutions_extract(name: str) -> None:
    rows = recorded_rows(name)
    assert len(rows) == {"humaneval": 164, "mbpp": 500}[name.split("-")[0]]
    misses = {}
    for row in rows:
        result = extract(row["solution"], recorded_task(row))
        if result.status == "ok":
            compile(result.program, row["task_id"], "exec")
            if row["entry_point"] in top_names(result.program):
                continue
        misses[row["task_id"]] = result.status
    expected = {k: v[0] for k, v in KNOWN_MISSES.items() if k.split("/")[0].lower() in name}
    assert misses == expected


def test_recorded_special_cases() -> None:
    rows = {row["task_id"]: row for name in RECORDED for row in recorded_rows(name)}
    # HumanEval/38: the answer omits the prompt's encode_cyclic helper
    result = extract(rows["HumanEval/38"]["solution"], recorded_task(rows["HumanEval/38"]))
    assert top_names(result.program) == ["encode_cyclic", "decode_cyclic"]
    # MBPP/45: a completion body followed by a new top-level function
    result = extract(rows["MBPP/45"]["solution"], recorded_task(rows["MBPP/45"]))
    assert (result.status, result.kind) == ("ok", "body")
    # MBPP/148: code, then a stray closing fence
    result = extract(rows["MBPP/148"]["solution"], recorded_task(rows["MBPP/148"]))
    assert result.status == "ok" and "```" not in result.program


def usage_call(row: dict) -> str:
    given = row.get("given_tests") or []
    if given and given[0].startswith("assert "):
        call = given[0].removeprefix("assert ").split(" == ")[0]
        if call.startswith(row["entry_point"] + "("):
            return f"print({call})"
    return f"print({row['entry_point']}())"


WRAPPERS = {
    "chat": (
        "Sure! Here's an implementation:\n\n```python\n{code}\n```\n\n"
        "Example usage:\n\n```python\n{usage}\n```\n\n"
        "The function works by walking over the input once.\n"
    ),
    "think": (
        "<think>\nThe user wants {entry}. A first draft:\n```python\n"
        "def {entry}(*args):\n    return None\n```\nNo, handle the real cases.\n</think>\n\n"
        "```py\n{code}\n```"
    ),
    "list_crlf": "1. Write the function:\r\n\r\n   ```Python3\r\n{indented}\r\n   ```\r\n",
    "tilde_unclosed": "Final answer:\n~~~\n{code}\n",
}


@pytest.mark.parametrize("name", RECORDED)
@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
def test_recorded_solutions_survive_chat_wrapping(name: str, wrapper: str) -> None:
    checked = 0
    for row in recorded_rows(name):
        if "```" in row["solution"]:
            continue  # already carries a stray fence; covered by test_recorded_special_cases
        task = recorded_task(row)
        direct = extract(row["solution"], task)
        code = row["solution"].strip("\n")
        answer = WRAPPERS[wrapper].format(
            code=code,
            indented="\r\n".join("   " + line if line else "" for line in code.split("\n")),
            usage=usage_call(row),
            entry=row["entry_point"],
        )
        wrapped = extract(answer, task)
        assert (wrapped.status, wrapped.kind) == (direct.status, direct.kind), row["task_id"]
        assert wrapped.program == direct.program, row["task_id"]
        checked += 1
    assert checked > 150
