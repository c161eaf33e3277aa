public class Solution {
    public static String fizzBuzz(int x) {
        if (x % 15 == 0) {
            return "FizzBuzz";
        }
        if (x % 3 == 0) {
            return "Fizz";
        }
        if (x % 5 == 0) {
            return "Buzz";
        }
        return Integer.toString(x);
    }
}
