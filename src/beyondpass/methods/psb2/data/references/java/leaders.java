import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Solution {
    public static int[] leaders(int[] vector) {
        List<Integer> out = new ArrayList<>();
        Integer best = null;
        for (int i = vector.length - 1; i >= 0; i--) {
            if (best == null || vector[i] >= best) {
                out.add(vector[i]);
                best = vector[i];
            }
        }
        Collections.reverse(out);
        return out.stream().mapToInt(Integer::intValue).toArray();
    }
}
