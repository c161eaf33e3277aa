"""C++ and Java quality of the PSB2 method: the four metrics on hand-counted snippets
(lizard and tree-sitter), smells by rule and severity from the real analysers (cppcheck,
clang-tidy, checkstyle from Debian), a missing analyser's error, and Table 3's renderers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from beyondpass.errors import ConfigError
from beyondpass.methods.psb2.quality_clike import clike_quality

# LLOC: 23 lines hold code (the 2 comment lines and the blank line do not)
# NOS: sum: int s, for-range, if, s += x, else-if, continue, while, x += 10, return = 9;
#      main: int n, cin, vector v, for, cin >> v[i], cout, return = 7 (the for's
#      initialiser `int i = 0` is part of the for) -> 16
# McCabe: sum 1 + for + if + && + if (else if) + while = 6; main 1 + for + ?: = 3 -> 9
# NLE: for (1) > if / else-if chain (2) > while in the last else (3) -> 3
CPP = """\
#include <iostream>
#include <vector>

// sums the positive numbers
int sum(const std::vector<int>& v) {
    int s = 0;
    for (int x : v) {
        if (x > 0 && x < 100) {
            s += x;
        } else if (x == 0) {
            continue;
        } else {
            /* negative */
            while (x < 0) x += 10;
        }
    }
    return s;
}
int main() {
    int n;
    std::cin >> n;
    std::vector<int> v(n);
    for (int i = 0; i < n; i++) std::cin >> v[i];
    std::cout << (n ? sum(v) : 0) << "\\n";
    return 0;
}
"""

# LLOC: 33 lines, minus 2 blank lines and 1 comment line -> 30
# NOS: largest: int best, for, if, best = xs[i], switch, return 0, break, try,
#      best = addExact, return -1, return best = 11; main: Scanner, int n, int[] xs, for,
#      xs[i] = ..., println = 6 -> 17 (case labels and the for initialiser are no statements)
# McCabe: largest 1 + for + if + || + case + catch = 6 (default is no decision);
#         main 1 + for = 2 -> 8
# NLE: for (1) > if (2); switch and try are each one level -> 2
JAVA = """\
import java.util.Scanner;

public class Main {
    // the largest of the values, or -1
    static int largest(int[] xs) {
        int best = -1;
        for (int i = 0; i < xs.length; i++) {
            if (xs[i] > best || best < 0) {
                best = xs[i];
            }
        }
        switch (best) {
            case 0:
                return 0;
            default:
                break;
        }
        try {
            best = Math.addExact(best, 1);
        } catch (ArithmeticException e) {
            return -1;
        }
        return best;
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        int[] xs = new int[n];
        for (int i = 0; i < n; i++) xs[i] = in.nextInt();
        System.out.println(largest(xs));
    }
}
"""


def test_cpp_metrics_match_the_hand_counts() -> None:
    assert clike_quality(CPP, "cpp") == {"lloc": 23, "nos": 16, "mccabe": 9, "nesting": 3}


def test_java_metrics_match_the_hand_counts() -> None:
    assert clike_quality(JAVA, "java") == {"lloc": 30, "nos": 17, "mccabe": 8, "nesting": 2}


@pytest.mark.parametrize(
    ("language", "wrap"),
    [
        ("cpp", "void f(int a, int b, int c, int d) {{ {} }}"),
        ("java", "class A {{ void f() {{ {} }} }}"),
    ],
)
def test_an_else_if_chain_is_one_level_an_if_inside_an_else_block_is_not(
    language: str, wrap: str
) -> None:
    def nle(body: str) -> int:
        return clike_quality(wrap.format(body), language)["nesting"]

    # if / else if / else if: one level; the if inside the last branch: level 2
    assert nle("if (a) { a++; } else if (b) { b++; } else if (c) { if (d) { d++; } }") == 2
    # else { if } is a block holding an if, not an else-if: level 2
    assert nle("if (a) { a++; } else { if (b) { b++; } }") == 2
    # three loops inside each other: 3
    assert nle("while (a) { while (b) { while (c) { c--; } } }") == 3
    # an empty statement is no statement; the loop is one
    assert clike_quality(wrap.format("; for (;;) { ; }"), language)["nos"] == 1


def test_a_lambda_body_starts_again_at_level_zero() -> None:
    # for (1) { lambda { if (1) { if (2) } } }: 2, not 3
    cpp = "void f(int n) { for (;;) { auto g = [](int a) { if (a) { if (a > 1) { a++; } } }; } }"
    assert clike_quality(cpp, "cpp")["nesting"] == 2
    java = (
        "class A { void f() { for (;;) { java.util.function.IntConsumer g = a -> "
        "{ if (a > 0) { if (a > 1) { a++; } } }; } } }"
    )
    assert clike_quality(java, "java")["nesting"] == 2


def test_code_that_does_not_parse_gets_no_numbers() -> None:
    with pytest.raises(SyntaxError):
        clike_quality("int main( { return 0; }", "cpp")
    with pytest.raises(SyntaxError):
        clike_quality("class A { void f( { } }", "java")


SMELLY_CPP = """\
#include <iostream>
int main() {
    int a[3] = {0, 0, 0};
    a[5] = 1;
    int x = 0;
    std::cin >> x;
    if (x > 0) std::cout << x * 42 << "\\n";
    if (x < 0) std::cout << -x << "\\n";
    return a[0];
}
"""

SMELLY_JAVA = """\
public class Main {
    public static void main(String[] args) {
        java.util.Scanner in = new java.util.Scanner(System.in);
        String s = in.next();
        int a = 1, b = 2;
        if (s == "x") System.out.println(a * 42);
        System.out.println(b);
    }
}
"""


def _write(folder: Path, files: dict[str, str]) -> list[Path]:
    out = []
    for name, code in files.items():
        (folder / name).write_text(code, encoding="utf-8")
        out.append(folder / name)
    return out


def test_cpp_smells_by_rule_and_severity(tmp_path: Path) -> None:
    from beyondpass.methods.psb2.smells import tally
    from beyondpass.methods.psb2.smells_cpp import cpp_findings

    paths = _write(tmp_path, {"a.cpp": SMELLY_CPP, "b.cpp": "int main( { return 0; }\n"})
    found = cpp_findings(paths, 120)
    metrics, rules = tally(found["a.cpp"])
    # by hand: a[5] on an int[3] (cppcheck, an error); two unbraced ifs; magic numbers 5
    # and 42 (0-4 are clang-tidy's default exceptions)
    assert rules == {
        "cppcheck:arrayIndexOutOfBounds": 1,
        "clang-tidy:readability-braces-around-statements": 2,
        "clang-tidy:readability-magic-numbers": 2,
    }
    assert (metrics["smells"], metrics["smells_error"], metrics["smells_convention"]) == (5, 1, 4)
    # code that does not compile is fatal for both analysers, never zero smells
    # (clang reports each compile error it recovers from: one or more)
    broken_metrics, broken = tally(found["b.cpp"])
    assert set(broken) == {"cppcheck:syntaxError", "clang-tidy:clang-diagnostic-error"}
    assert broken_metrics["smells_fatal"] == broken_metrics["smells"] > 0


def test_java_smells_by_rule_and_severity_and_an_unparsable_file(tmp_path: Path) -> None:
    from beyondpass.methods.psb2.smells import tally
    from beyondpass.methods.psb2.smells_java import java_findings

    paths = _write(tmp_path, {"A.java": SMELLY_JAVA, "B.java": "class B { void f( { } }\n"})
    found = java_findings(paths, 120)
    metrics, rules = tally(found["A.java"])
    # by hand: == on a string literal (a likely bug: warning); `int a = 1, b = 2`; the
    # unbraced if; 42 (checkstyle ignores -1, 0, 1, 2 by default)
    assert rules == {
        "checkstyle:StringLiteralEquality": 1,
        "checkstyle:MultipleVariableDeclarations": 1,
        "checkstyle:NeedBraces": 1,
        "checkstyle:MagicNumber": 1,
    }
    assert (metrics["smells_warning"], metrics["smells_convention"]) == (1, 3)
    assert tally(found["B.java"])[1] == {"checkstyle:ParseError": 1}
    assert tally(found["B.java"])[0]["smells_fatal"] == 1


@pytest.mark.parametrize(("language", "package"), [("cpp", "cppcheck"), ("java", "checkstyle")])
def test_a_missing_analyser_is_one_line_naming_its_debian_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str, package: str
) -> None:
    from beyondpass.methods.psb2.smells import SmellEvaluator

    monkeypatch.setenv("PATH", str(tmp_path))  # an empty PATH: no analyser is installed
    path = _write(tmp_path, {f"a.{language}": "x\n"})
    with pytest.raises(ConfigError) as exc:
        SmellEvaluator().findings(language, path)
    message = str(exc.value)
    assert "\n" not in message and f"apt-get install {package}" in message


def test_clang_tidy_missing_beside_cppcheck_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from beyondpass.methods.psb2.smells import SmellEvaluator

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cppcheck").symlink_to(shutil.which("cppcheck"))
    monkeypatch.setenv("PATH", str(bin_dir))  # cppcheck only
    path = _write(tmp_path, {"a.cpp": "int main() { return 0; }\n"})
    with pytest.raises(ConfigError, match="apt-get install clang-tidy$"):
        SmellEvaluator().findings("cpp", path)


def test_table3_renders_every_language_with_marks_and_averages() -> None:
    from beyondpass.methods.psb2.quality_table import (
        language_averages,
        quality_rows,
        quality_table,
    )
    from beyondpass.report.table import to_html, to_latex

    cpp = {
        "gcd": {"G": {"lloc": 10.0, "nesting": 1.0}, "P": {"lloc": 15.0, "nesting": 1.0}},
        "luhn": {"G": {"lloc": 20.0, "nesting": 3.0}, "P": {"lloc": 12.0, "nesting": 2.0}},
    }
    java = {"gcd": {"G": {"lloc": 8.0}, "P": {"lloc": 7.0}}}
    head, rows = quality_rows(cpp, ["G", "P"])
    # 15 >= 1.5 x 10 is marked; 20 / 12 = 1.67 is marked; 3 / 2 = 1.5 is marked
    assert rows[0] == ["gcd", "10", "15 ▲", "1", "1"]
    assert rows[1] == ["luhn", "20 ▲", "12", "3 ▲", "2"]
    tex = to_latex(quality_table("t", "n", head, rows))
    assert r"gcd & 10 & \textbf{15} & 1 & 1 \\" in tex
    assert r"\multicolumn{2}{c}{lloc}" in tex
    assert '<td class="num worse"><b>15</b> ▲</td>' in to_html(quality_table("t", "n", head, rows))
    avg_head, avg_rows = language_averages({"psb2-cpp": cpp, "psb2-java": java}, ["G", "P"])
    assert avg_head == ["Language", "lloc · G", "lloc · P", "nesting · G", "nesting · P"]
    assert avg_rows == [
        ["psb2-cpp", "15.00", "13.50", "2.00", "1.50"],
        ["psb2-java", "8.00", "7.00", "—", "—"],
    ]


def test_python_smells_keep_their_pylint_levels(tmp_path: Path) -> None:
    from beyondpass.methods.psb2.smells import SmellEvaluator, tally

    code = textwrap.dedent('"""Doc."""\nimport os\n')
    (path,) = _write(tmp_path, {"a.py": code})
    metrics, rules = tally(SmellEvaluator().findings("python", [path])["a.py"])
    assert rules == {"unused-import (W0611)": 1} and metrics["smells_warning"] == 1
