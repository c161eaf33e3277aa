double bouncing_balls(double start_height, double first_bounce, int bounces) {
    double index = first_bounce / start_height;
    double total = 0.0, height = start_height;
    for (int i = 0; i < bounces; ++i) {
        total += height + height * index;
        height *= index;
    }
    return total;
}
