public class Solution {
    public static String camelCase(String text) {
        StringBuilder out = new StringBuilder();
        String[] groups = text.split(" ", -1);
        for (int g = 0; g < groups.length; g++) {
            if (g > 0) {
                out.append(' ');
            }
            String[] parts = groups[g].split("-", -1);
            out.append(parts[0]);
            for (int i = 1; i < parts.length; i++) {
                if (!parts[i].isEmpty()) {
                    out.append(Character.toUpperCase(parts[i].charAt(0))).append(parts[i].substring(1));
                }
            }
        }
        return out.toString();
    }
}
