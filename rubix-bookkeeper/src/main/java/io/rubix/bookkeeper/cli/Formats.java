package io.rubix.bookkeeper.cli;

import java.time.Duration;
import java.util.Locale;

/** Human-readable sizes, rates, percentages and durations for the command line. */
final class Formats {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};

  private Formats() {}

  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    int unit = 0;
    double value = bytes;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }

  static String percent(long part, long whole) {
    return whole <= 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
  }

  static String duration(Duration duration) {
    long seconds = Math.max(0, duration.getSeconds());
    long days = seconds / 86_400;
    return String.format(Locale.ROOT, "%s%02d:%02d:%02d", days > 0 ? days + "d " : "", (seconds % 86_400) / 3600, (seconds % 3600) / 60,
        seconds % 60);
  }
}
