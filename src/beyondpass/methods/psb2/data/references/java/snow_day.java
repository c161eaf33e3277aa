public class Solution {
    public static double snowDay(int hours, double snow, double rate, double melt) {
        for (int i = 0; i < hours; i++) {
            snow = snow * (1 - melt) + rate;
        }
        return snow;
    }
}
