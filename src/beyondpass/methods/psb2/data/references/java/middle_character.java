public class Solution {
    public static String middleCharacter(String text) {
        int mid = text.length() / 2;
        return text.length() % 2 == 1 ? text.substring(mid, mid + 1) : text.substring(mid - 1, mid + 1);
    }
}
