package io.rubix.bookkeeper.cli;

import java.util.Locale;

/** Renders one line of progress: {@code [#####.....]  50.0%  10.0 MiB / 20.0 MiB  4.0 MiB/s}. */
final class ProgressBar {
  private static final int WIDTH = 30;

  private ProgressBar() {}

  static String render(long done, long total, long elapsedNanos) {
    int filled = total <= 0 ? WIDTH : (int) Math.min(WIDTH, WIDTH * done / total);
    double seconds = elapsedNanos / 1e9;
    long rate = seconds <= 0 ? 0 : (long) (done / seconds);
    return "[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] "
        + String.format(Locale.ROOT, "%6s", total <= 0 ? "100.0%" : Formats.percent(done, total)) + "  "
        + Formats.bytes(done) + " / " + Formats.bytes(total) + "  " + Formats.bytes(rate) + "/s";
  }
}
