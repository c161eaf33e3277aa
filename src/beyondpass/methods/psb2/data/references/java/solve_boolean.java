public class Solution {
    public static boolean solveBoolean(String expression) {
        boolean value = expression.charAt(0) == 't';
        for (int i = 1; i + 1 < expression.length(); i += 2) {
            boolean right = expression.charAt(i + 1) == 't';
            value = expression.charAt(i) == '&' ? value && right : value || right;
        }
        return value;
    }
}
