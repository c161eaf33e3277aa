import java.math.BigDecimal;
import java.math.RoundingMode;

public class Solution {
    public static double shoppingList(double[] prices, double[] discounts) {
        double total = 0.0;
        for (int i = 0; i < Math.min(prices.length, discounts.length); i++) {
            total += prices[i] * (1 - discounts[i] / 100);
        }
        return new BigDecimal(total).setScale(2, RoundingMode.HALF_EVEN).doubleValue();
    }
}
