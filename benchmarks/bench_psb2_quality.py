"""PSB2 technical-quality analysis speed per language: metrics and smells for 25 answers.

One model's answers to the 25 PSB2 problems, per language: the four metrics
(``psb2-quality``: radon for Python, lizard + tree-sitter for C++ and Java) and the smells
(``psb2-smells``: pylint; cppcheck + clang-tidy; checkstyle) through the evaluators, as a
study runs them. The answers are PSB2-style programs (below; a few dozen lines each), each
problem getting one of them, so the batch is 25 distinct files. Best of ``--repeat``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from _common import argument_parser

from beyondpass.benchmarks.task import Task
from beyondpass.evaluators.base import Candidate
from beyondpass.extraction.result import Extraction
from beyondpass.methods.psb2.benchmark.loader import load
from beyondpass.methods.psb2.quality import QualityEvaluator
from beyondpass.methods.psb2.smells import SmellEvaluator

GCD_PY = """\
a = int(input())
b = int(input())
while b:
    a, b = b, a % b
print(a)
"""
FIZZ_PY = """\
n = int(input())
for i in range(1, n + 1):
    if i % 15 == 0:
        print("FizzBuzz")
    elif i % 3 == 0:
        print("Fizz")
    elif i % 5 == 0:
        print("Buzz")
    else:
        print(i)
"""
GCD_CPP = """\
#include <iostream>
#include <numeric>
int main() {
    long first = 0;
    long second = 0;
    std::cin >> first >> second;
    std::cout << std::gcd(first, second) << std::endl;
}
"""
FIZZ_CPP = """\
#include <iostream>
#include <string>
#include <vector>
using namespace std;
int main() {
    int n;
    cin >> n;
    vector<string> out;
    for (int i = 1; i <= n; i++) {
        if (i % 15 == 0) out.push_back("FizzBuzz");
        else if (i % 3 == 0) out.push_back("Fizz");
        else if (i % 5 == 0) out.push_back("Buzz");
        else out.push_back(to_string(i));
    }
    for (const auto& s : out) cout << s << endl;
    return 0;
}
"""
GCD_JAVA = """\
import java.util.Scanner;

public class Main {
    static long gcd(long x, long y) {
        return y == 0 ? x : gcd(y, x % y);
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long first = in.nextLong();
        long second = in.nextLong();
        System.out.println(gcd(Math.abs(first), Math.abs(second)));
    }
}
"""
FIZZ_JAVA = """\
import java.util.*;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            if (i % 15 == 0) out.add("FizzBuzz");
            else if (i % 3 == 0) out.add("Fizz");
            else if (i % 5 == 0) out.add("Buzz");
            else out.add(String.valueOf(i));
        }
        for (String s : out) System.out.println(s);
    }
}
"""
PROGRAMS = {"python": [GCD_PY, FIZZ_PY], "cpp": [GCD_CPP, FIZZ_CPP], "java": [GCD_JAVA, FIZZ_JAVA]}


def answers(tasks: Iterable[Task], programs: list[str]) -> list[tuple[Task, str]]:
    """Each task with its answer: the language's programs in turn."""
    return [(task, programs[i % len(programs)]) for i, task in enumerate(tasks)]


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    names = {"python": "psb2-edge", "cpp": "psb2-cpp", "java": "psb2-java"}
    for language, programs in PROGRAMS.items():
        bench = load(args.data_dir, n_random=0, name=names[language], language=language)
        candidates = [
            Candidate(task, Extraction("ok", code, code, "full"))
            for task, code in answers(bench.tasks.values(), programs)
        ]
        for evaluator in (QualityEvaluator(), SmellEvaluator()):
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                results = evaluator.evaluate(candidates)
                best = min(best, time.perf_counter() - start)
            assert all(r.metrics for r in results), f"{language}: an answer got no numbers"
            print(
                f"{language:6} {evaluator.name:13} {len(candidates)} answers: {best:6.2f} s "
                f"({best / len(candidates):.3f} s per answer), best of {args.repeat}"
            )


if __name__ == "__main__":
    main()
