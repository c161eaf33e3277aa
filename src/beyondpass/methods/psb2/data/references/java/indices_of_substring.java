import java.util.ArrayList;
import java.util.List;

public class Solution {
    public static int[] indicesOfSubstring(String text, String target) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i + target.length() <= text.length(); i++) {
            if (text.startsWith(target, i)) {
                out.add(i);
            }
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }
}
