public class Solution {
    public static String spinWords(String text) {
        String[] words = text.split(" ", -1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < words.length; i++) {
            if (i > 0) {
                out.append(' ');
            }
            String w = words[i];
            out.append(w.length() >= 5 ? new StringBuilder(w).reverse().toString() : w);
        }
        return out.toString();
    }
}
