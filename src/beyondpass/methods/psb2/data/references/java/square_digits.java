public class Solution {
    public static String squareDigits(int n) {
        StringBuilder out = new StringBuilder();
        for (char c : Integer.toString(n).toCharArray()) {
            out.append((c - '0') * (c - '0'));
        }
        return out.toString();
    }
}
