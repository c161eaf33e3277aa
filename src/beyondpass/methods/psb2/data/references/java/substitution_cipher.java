import java.util.HashMap;
import java.util.Map;

public class Solution {
    public static String substitutionCipher(String source, String target, String message) {
        Map<Character, Character> table = new HashMap<>();
        for (int i = 0; i < Math.min(source.length(), target.length()); i++) {
            table.put(source.charAt(i), target.charAt(i));
        }
        StringBuilder out = new StringBuilder();
        for (char c : message.toCharArray()) {
            out.append(table.getOrDefault(c, c));
        }
        return out.toString();
    }
}
