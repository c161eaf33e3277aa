public class Solution {
    public static int basement(int[] vector) {
        int total = 0;
        for (int i = 0; i < vector.length; i++) {
            total += vector[i];
            if (total < 0) {
                return i;
            }
        }
        return -1;
    }
}
