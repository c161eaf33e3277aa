"""Our reference solutions to the 25 PSB2 problems, one plain function each.

They compute the expected outputs of the random cases and are checked against every PSB2
edge case (tests/methods/psb2/test_psb2_benchmark.py, through the sandboxed
executor). Each function is self-contained (standard library only, imports inside the
body) because its source is also shipped as a program: ``drivers.python_program``
prepends it to a generated driver.

Two functions follow PSB2's data rather than its text, as docs/psb2.md explains:
``snow_day`` melts before it adds, ``luhn`` doubles the 1st, 3rd, ... digit and
``shopping_list`` rounds to whole cents. One PSB2 bouncing-balls edge case was computed
with less precision than a double gives; it stays a documented miss (data.QUIRKS).
"""

from __future__ import annotations


def basement(vector):
    total = 0
    for i, value in enumerate(vector):
        total += value
        if total < 0:
            return i
    return -1


def bouncing_balls(start, first_bounce, bounces):
    index = first_bounce / start
    total, height = 0.0, start
    for _ in range(bounces):
        total += height + height * index
        height *= index
    return total


def bowling(rolls):
    values = []
    for i, ch in enumerate(rolls):
        if ch == "X":
            values.append(10)
        elif ch == "/":
            values.append(10 - values[i - 1])
        elif ch == "-":
            values.append(0)
        else:
            values.append(int(ch))
    score, roll = 0, 0
    for _ in range(10):
        if rolls[roll] == "X":
            score += 10 + values[roll + 1] + values[roll + 2]
            roll += 1
        elif rolls[roll + 1] == "/":
            score += 10 + values[roll + 2]
            roll += 2
        else:
            score += values[roll] + values[roll + 1]
            roll += 2
    return score


def camel_case(text):
    words = []
    for group in text.split(" "):
        parts = group.split("-")
        words.append(parts[0] + "".join(p[:1].upper() + p[1:] for p in parts[1:]))
    return " ".join(words)


def coin_sums(cents):
    quarters, rest = divmod(cents, 25)
    dimes, rest = divmod(rest, 10)
    nickels, pennies = divmod(rest, 5)
    return pennies, nickels, dimes, quarters


def cut_vector(vector):
    total, left = sum(vector), 0
    best, best_cut = None, 0
    for cut in range(len(vector)):
        left += vector[cut]
        diff = abs(total - 2 * left)
        if best is None or diff < best:
            best, best_cut = diff, cut + 1
    cut = best_cut
    return vector[:cut], vector[cut:]


def dice_game(n, m):
    wins = sum(min(face - 1, m) for face in range(1, n + 1))
    return wins / (n * m)


def find_pair(vector, target):
    for i in range(len(vector)):
        for j in range(i + 1, len(vector)):
            if vector[i] + vector[j] == target:
                return vector[i], vector[j]
    return None


def fizz_buzz(x):
    if x % 15 == 0:
        return "FizzBuzz"
    if x % 3 == 0:
        return "Fizz"
    if x % 5 == 0:
        return "Buzz"
    return str(x)


def fuel_cost(vector):
    return sum(v // 3 - 2 for v in vector)


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def indices_of_substring(text, target):
    return [i for i in range(len(text) - len(target) + 1) if text[i : i + len(target)] == target]


def leaders(vector):
    out, best = [], None
    for value in reversed(vector):
        if best is None or value >= best:
            out.append(value)
            best = value
    return out[::-1]


def luhn(digits):
    total = 0
    for i, d in enumerate(digits):
        if i % 2 == 0:  # PSB2's data doubles the 1st, 3rd, ... of the 16 digits
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total


def mastermind(code, guess):
    black = sum(c == g for c, g in zip(code, guess, strict=False))
    common = sum(min(code.count(c), guess.count(c)) for c in set(code))
    return common - black, black


def middle_character(text):
    mid = len(text) // 2
    return text[mid] if len(text) % 2 else text[mid - 1 : mid + 1]


def paired_digits(digits):
    return sum(int(a) for a, b in zip(digits, digits[1:], strict=False) if a == b)


def shopping_list(prices, discounts):
    total = sum(p * (1 - d / 100) for p, d in zip(prices, discounts, strict=False))
    return round(total, 2)  # PSB2's outputs are whole cents


def snow_day(hours, snow, rate, melt):
    for _ in range(hours):
        snow = snow * (1 - melt) + rate
    return snow


def solve_boolean(expression):
    value = expression[0] == "t"
    for i in range(1, len(expression), 2):
        right = expression[i + 1] == "t"
        value = (value and right) if expression[i] == "&" else (value or right)
    return value


def spin_words(text):
    return " ".join(w[::-1] if len(w) >= 5 else w for w in text.split(" "))


def square_digits(n):
    return "".join(str(int(d) ** 2) for d in str(n))


def substitution_cipher(source, target, message):
    table = dict(zip(source, target, strict=False))
    return "".join(table.get(c, c) for c in message)


def twitter(tweet):
    if not tweet:
        return "You didn't type anything"
    if len(tweet) > 140:
        return "Too many characters"
    return f"Your tweet has {len(tweet)} characters"


def vector_distance(a, b):
    import math

    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=False)))
