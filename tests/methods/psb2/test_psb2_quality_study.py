"""A PSB2 study over two real HTTP model servers on 127.0.0.1 answering in C++ and Java
(the edge-case benchmarks: Table 3 measures the programs, whatever cases they ran on):
Table 3 (smells, LLOC, NOS, McCabe, NLE per task and model, the >= 1.5x marks, the
per-language averages) in Markdown, HTML and LaTeX holds the numbers counted by hand below
for the programs the servers return."""

from __future__ import annotations

import textwrap
from pathlib import Path

from beyondpass.study.config import load_study
from beyondpass.study.runner import StudyRunner
from fake_endpoints import FakeEndpoint

# model G, C++: LLOC 12 (every line); NOS 8 (long a, b / cin / while / long t / a = b /
# b = t / cout / return); McCabe 1 + while = 2; NLE 1 (the while);
# smells: `long a, b;` declares two variables at once (readability-isolate-declaration) = 1
G_CPP = """\
#include <iostream>
int main() {
    long a, b;
    std::cin >> a >> b;
    while (b != 0) {
        long t = a % b;
        a = b;
        b = t;
    }
    std::cout << a << "\\n";
    return 0;
}
"""
# model P, C++: LLOC 19 lines - 2 blank = 17; NOS gcd 3 (if, return, return) + main 6 (int a,
# int b, cin, cin, cout, return) = 9; McCabe gcd 1 + if = 2, main 1 -> 3; NLE 1;
# smells: gcd calls itself (misc-no-recursion), an else after a return
# (readability-else-after-return) = 2
P_CPP = """\
#include <iostream>
using namespace std;

int gcd(int a, int b) {
    if (b == 0) {
        return a;
    } else {
        return gcd(b, a % b);
    }
}

int main() {
    int a;
    int b;
    cin >> a;
    cin >> b;
    cout << gcd(a, b) << endl;
    return 0;
}
"""
# model G, Java: LLOC 15 lines - 1 blank = 14; NOS 8 (Scanner, a, b, while, t, a = b, b = t,
# println); McCabe 1 + while = 2; NLE 1; smells: none of the shipped rules applies = 0
G_JAVA = """\
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong();
        long b = in.nextLong();
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        System.out.println(a);
    }
}
"""
# model P, Java: LLOC 14 - 2 blank = 12; NOS gcd 3 (if, return a, return gcd) + main 3
# (Scanner, int a/b, println) = 6; McCabe gcd 2 + main 1 = 3; NLE 1; smells: import
# java.util.* (AvoidStarImport), the unbraced if (NeedBraces), `int a = ..., b = ...`
# (MultipleVariableDeclarations) = 3
P_JAVA = """\
import java.util.*;

public class Main {
    static int gcd(int a, int b) {
        if (b == 0) return a;
        return gcd(b, a % b);
    }

    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int a = sc.nextInt(), b = sc.nextInt();
        System.out.println(gcd(a, b));
    }
}
"""


def _model(cpp: str, java: str):
    def answer(prompt: str) -> str:
        if prompt.startswith("Generate a C++ code"):
            return f"```cpp\n{cpp}```\n"
        assert prompt.startswith("Generate a Java code"), prompt[:60]
        return f"```java\n{java}```\n"

    return answer


def test_table3_of_a_cpp_and_java_study_holds_the_hand_counted_numbers(tmp_path: Path) -> None:
    with (
        FakeEndpoint(responder=_model(G_CPP, G_JAVA)) as g,
        FakeEndpoint(responder=_model(P_CPP, P_JAVA)) as p,
    ):
        (tmp_path / "s.toml").write_text(
            textwrap.dedent(
                f"""
                name = "q"
                seed = 0
                [[benchmarks]]
                name = "psb2-cpp-edge"
                tasks = ["gcd"]
                [[benchmarks]]
                name = "psb2-java-edge"
                tasks = ["gcd"]
                [[models]]
                spec = "openai:g@{g.openai_base_url}"
                label = "G"
                [[models]]
                spec = "openai:p@{p.openai_base_url}"
                label = "P"
                [prompts]
                plan = "psb2-program"
                [execution]
                timeout_s = 3
                [evaluation]
                evaluators = ["psb2-quality", "psb2-smells"]
                """
            )
        )
        outcome = StudyRunner(load_study(tmp_path / "s.toml"), tmp_path / "run").run()
        assert outcome.complete
    from beyondpass.report import render_report

    render_report(tmp_path / "run")
    report = (tmp_path / "run" / "report.md").read_text()

    def row(title: str, first: str) -> list[str]:
        table = report.split(title)[1]
        line = next(ln for ln in table.splitlines() if ln.startswith(f"| {first} "))
        return [c.strip() for c in line.split("|")[1:-1]]

    #        smells G/P   LLOC G/P      NOS G/P     McCabe G/P   NLE G/P
    cpp = ["1", "2 ▲", "12", "17", "8", "9", "2", "3 ▲", "1", "1"]
    java = ["0", "3", "14", "12", "8", "6", "2", "3 ▲", "1", "1"]  # 3 vs 0: no ratio
    assert row("psb2-cpp-edge · program: technical quality", "gcd") == ["gcd", *cpp]
    assert row("psb2-java-edge · program: technical quality", "gcd") == ["gcd", *java]
    averages = "technical quality, average per language"
    assert row(averages, "psb2-cpp-edge")[1:] == [f"{float(c.split()[0]):.2f}" for c in cpp]
    assert row(averages, "psb2-java-edge")[1:] == [f"{float(c.split()[0]):.2f}" for c in java]
    tex = (tmp_path / "run" / "psb2_tables.tex").read_text()
    assert r"gcd & 1 & \textbf{2} & 12 & 17 & 8 & 9 & 2 & \textbf{3} & 1 & 1 \\" in tex
    page = (tmp_path / "run" / "report.html").read_text()
    assert '<td class="num worse"><b>3</b> ▲</td>' in page
