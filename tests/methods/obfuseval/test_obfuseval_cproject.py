"""C project mode's splice and name mapping, against the seed's own published data: the
authors' extracted code (``v1code``) and de-obfuscated responses (``v1Response``) are the
oracles for the seed's text matcher and name mapping; libgit2 1.8.0's sources and the
published references are the oracle for finding a function with tree-sitter-c."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from beyondpass.methods.obfuseval.cproject import names, seed_splice, splice
from beyondpass.methods.obfuseval.published import answers, settings
from beyondpass.methods.obfuseval.published import tasks as published_tasks
from beyondpass.methods.obfuseval.published.workbook import sheets
from shared_data import require


@pytest.fixture(scope="module")
def original_tasks(published_root):
    return published_tasks.load(
        published_root, settings.project("libgit2"), settings.setting("generation/original")
    )


@pytest.fixture(scope="module")
def libgit2(data_dir: Path, original_tasks, tmp_path_factory) -> Path:
    """The source files the tasks name, from the libgit2 1.8.0 tarball the seed names."""
    archive = data_dir / "obfuseval-c" / "libgit2-1.8.0.tar.gz"
    require(archive, "libgit2 1.8.0's source archive")
    wanted = {f"libgit2-1.8.0/{t.source_file}" for t in original_tasks}
    target = tmp_path_factory.mktemp("libgit2")
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name in wanted]
        tar.extractall(target, members=members, filter="data")
    assert len(members) == len(wanted)
    return target / "libgit2-1.8.0"


def _norm(text: str) -> str:
    return " ".join(text.split())


def test_tree_sitter_finds_every_original_function_as_published(libgit2, original_tasks):
    """All 78 definitions are found; each equals the published reference but one, where
    the authors' libgit2 was not quite tag v1.8.0 (``*port`` is initialised there)."""
    differing = []
    for task in original_tasks:
        found = splice.locate((libgit2 / task.source_file).read_text(), task.function)
        assert found is not None, task.function
        if _norm(found.text) != _norm(task.reference):
            differing.append(task.function)
    assert differing == ["git_net_url_parse_scp"]
    source = (libgit2 / "src/util/net.c").read_text()
    assert "*port = NULL, *path = NULL;" in splice.locate(source, "git_net_url_parse_scp").text


def test_the_seeds_matcher_takes_another_function_where_a_name_is_a_prefix(libgit2, original_tasks):
    """``find_c_functionByDefine`` matches the name as a substring at column 0: for
    ``write_line`` it takes ``write_line_to``; tree-sitter takes the definition."""
    by_name = {t.function: t for t in original_tasks}
    task = by_name["write_line"]
    lines = (libgit2 / task.source_file).read_text().splitlines(keepends=True)
    first, last = seed_splice.span_in_file(lines, "write_line")
    assert lines[first].startswith("static int write_line_to(")
    ours = splice.locate("".join(lines), "write_line")
    assert ours.text.startswith("static int write_line(") and _norm(ours.text) == _norm(
        task.reference
    )


def test_the_seeds_extraction_reproduces_the_authors_code(published_root):
    """Over every libgit2 answer whose file keeps both the response and the code the
    harness extracted, ``function_in_answer`` gives that code; the one exception is a
    file whose ``v1code`` is not cut from its ``v1Response``."""
    project = settings.project("libgit2")
    checked, differing = 0, []
    for setting in settings.SETTINGS:
        listed = published_tasks.load(published_root, project, setting)
        for path, model in answers.answer_files(published_root, project, setting):
            for answer in answers.read(path, model, project, setting, listed):
                if answer.schema != "rounds" or not (answer.response and answer.code):
                    continue
                checked += 1
                found = seed_splice.function_in_answer(answer.response, answer.function)
                if found.strip() != answer.code.strip():
                    differing.append((path.name, answer.function))
    assert checked > 600
    assert differing == [
        ("gpt-4-0125-preview_grammarAsemanticInput_libgits.xlsx", "canonicalize_url")
    ]


def test_the_seeds_name_mapping_reproduces_the_authors_responses(published_root):
    """``map_back_compat`` of each model's own (obfuscated) text gives the published
    de-obfuscated response, for every answer of the generation symbol setting."""
    project = settings.project("libgit2")
    setting = settings.setting("generation/symbol")
    dictionary = published_tasks.dictionary(published_root, project, setting)
    listed = published_tasks.load(published_root, project, setting)
    checked = 0
    for path, _ in answers.answer_files(published_root, project, setting):
        for sheet in sheets(path):
            raw, mapped = sheet.column("v1confused_response"), sheet.column("v1Response")
            if raw is None or mapped is None:
                continue
            for row in sheet.rows:
                if row[raw] and row[mapped]:
                    checked += 1
                    assert names.map_back_compat(str(row[raw]), dictionary) == str(row[mapped])
    assert checked >= 100 and len(listed) == 78


def test_our_mapping_renames_code_only():
    dictionary = names.Dictionary(
        (("FuncName", "git_net_url_dup", "duplicate_url"),
         ("Used_Structs", "git_net_url", "net_url"),
         ("Used_Macros", "GIT_ERROR_CHECK_ALLOC", "CHECK_ALLOC"))
    )  # fmt: skip
    code = (
        "#define ENSURE(x) CHECK_ALLOC(x)\n"
        "int duplicate_url(net_url *out, net_url *in) {\n"
        '    /* duplicate_url copies */ log("duplicate_url");\n'
        "    CHECK_ALLOC(out); return 0;\n}\n"
    )
    ours = names.map_back(code, dictionary)
    assert "int git_net_url_dup(git_net_url *out, git_net_url *in)" in ours
    assert "GIT_ERROR_CHECK_ALLOC(out)" in ours and "ENSURE(x) GIT_ERROR_CHECK_ALLOC(x)" in ours
    assert '/* duplicate_url copies */ log("duplicate_url")' in ours  # the model's text
    seed = names.map_back_compat(code, dictionary)
    assert 'log("git_net_url_dup")' in seed  # the seed rewrites strings and comments too


def test_the_splice_keeps_the_projects_own_and_reports_what_the_answer_adds():
    source = (
        '#include <stdio.h>\n#include "util.h"\n\n#define MAX 10\n\n'
        "/* adds */\nstatic int add(int a, int b)\n{\n\treturn a + b;\n}\n\n"
        "int twice(int x) { return add(x, x); }\n"
    )
    answer = (
        "#include <stdlib.h>\n#include <stdio.h>\n#define MAX 12\n#define NEW 3\n"
        "int helper(int q);\nstatic int helper(int q) { return q * NEW; }\n"
        "static int add(int a, int b) { return helper(a) + b - helper(a); }\n"
        "int twice(int x) { return 0; }\n"
    )
    done = splice.splice(source, "add", answer)
    assert done.added == {
        "include": ["#include <stdlib.h>"], "macro": ["NEW"], "function": ["helper"]
    }  # fmt: skip
    assert done.dropped == {
        "include": ["#include <stdio.h>"], "macro": ["MAX"],
        "declaration": ["int helper(int q);"], "function": ["twice"],
    }  # fmt: skip
    text = done.text
    assert text.index("#include <stdlib.h>") < text.index("#define MAX 10")
    assert "#define MAX 12" not in text and "return 0;" not in text  # the project's own stay
    assert text.index("/* adds */") < text.index("#define NEW 3") < text.index("helper(int q) {")
    assert text.index("helper(int q) {") < text.index("static int add(int a, int b) { return")
    assert "int twice(int x) { return add(x, x); }" in text
    assert splice.locate(text, "add").text.endswith("helper(a); }")
    with pytest.raises(splice.SpliceError, match="the answer defines no function add"):
        splice.splice(source, "add", "int other(void) { return 1; }")
    with pytest.raises(splice.SpliceError, match="the file defines no function nothere"):
        splice.splice(source, "nothere", answer)


@pytest.mark.parametrize(
    "log, category",
    [
        ("a.c: In function ‘f’:\na.c:3:5: warning: implicit declaration of function ‘g’ "
         "[-Wimplicit-function-declaration]\n/usr/bin/ld: a.o: in function `f':\n"
         "a.c:(.text+0x9): undefined reference to `g'\ncollect2: error: ld returned 1 exit status",
         "implicit declaration of function"),
        ("/usr/bin/ld: a.o: undefined reference to `h'\ncollect2: error: ld returned 1 exit status",
         "undefined function"),
        ("src/util/net.c:12:5: error: C++ style comments are not allowed in ISO C90",
         "C++ style comment in ISO C90"),
        ("t.c:9:7: error: too few arguments to function ‘f’", "API parameter count mismatch"),
        ("t.c:9:7: error: ‘client’ has no member named ‘flagz’", "non-existent structure member"),
        ("t.c:9:7: error: ‘c’ is a pointer; did you mean to use ‘->’?",
         "misuse of structure pointer"),
        ("t.c:9:7: error: assignment to ‘char *’ from ‘int’ makes pointer from integer without "
         "a cast [-Wint-conversion]", "making a pointer from an integer without a cast"),
        ("t.c:9:7: error: passing argument 1 of ‘f’ from incompatible pointer type",
         "incompatible pointer type"),
        ("t.c:9:7: error: redefinition of ‘sdslen’", "redefinition"),
        ("t.c:9:7: error: static declaration of ‘f’ follows non-static declaration",
         "conflict between static and non-static declarations"),
        ("t.c:9:7: error: lvalue required as left operand of assignment",
         "lvalue required as the left operand of assignment"),
        ("t.c:1:1: warning: unused variable ‘x’\nt.c:9:7: error: expected ‘;’ before ‘int’",
         "expected token (parse error)"),
        ("/bin/sh: 1: pkg-config: not found\nt.c:9:7: error: redefinition of ‘x’",
         "the build machine"),
        ("t.c:9:7: error: something gcc says rarely", "others"),
    ],
)  # fmt: skip
def test_a_build_log_gets_the_seeds_category(log, category):
    from beyondpass.methods.obfuseval.cproject import taxonomy

    found = taxonomy.classify(log)
    assert found.category == category
    assert found.major in {major for major, _, _ in taxonomy.RULES} | {taxonomy.OTHER}


def test_libgit2s_most_frequent_build_failure_is_the_iso_c90_comment(published_root):
    """The issue's observation, from the recorded logs: libgit2 builds as C90, and a
    ``//`` comment in an answer fails its build."""
    from collections import Counter

    project = settings.project("libgit2")
    found: Counter = Counter()
    for setting in settings.SETTINGS:
        listed = published_tasks.load(published_root, project, setting)
        for path, model in answers.answer_files(published_root, project, setting):
            for answer in answers.read(path, model, project, setting, listed):
                if answer.build.status == "compile_failed":
                    found[answer.build.detail] += 1
    (top, count), *_ = found.most_common()
    assert top == "language standard violations / C++ style comment in ISO C90"
    assert count > sum(found.values()) / 2


def test_a_markdown_answers_code_is_the_block_that_defines_the_function():
    answer = (
        "You need this header:\n```c\n#include <string.h>\n```\n"
        "Here is the function:\n```c\nint gcd(int a, int b) { return b ? gcd(b, a % b) : a; }\n"
        "```\n"
        'Usage:\n```c\nprintf("%d", gcd(4, 6));\n```\n'
    )
    assert splice.code_of(answer, "gcd").startswith("int gcd(int a, int b)")
    assert splice.code_of("```c\nint other(void);\n```", "gcd") == "int other(void);\n"
    assert splice.code_of("int gcd(int a, int b) { return a; }", "gcd").startswith("int gcd")


def test_a_macro_the_file_only_tests_is_not_one_it_defines():
    source = "#ifdef FAST\nstatic int f(void) { return 1; }\n#endif\nint g(void) { return 0; }\n"
    done = splice.splice(source, "g", "#define FAST 1\nint g(void) { return FAST; }\n")
    assert done.added == {"macro": ["FAST"]} and "#define FAST 1" in done.text
