// PSB2's data melts before it adds (docs/psb2.md)
double snow_day(int hours, double snow, double rate, double melt) {
    for (int h = 0; h < hours; ++h) snow = snow * (1 - melt) + rate;
    return snow;
}
