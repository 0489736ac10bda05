package io.rubix.core.insight;

/**
 * The table a path belongs to: its first {@code depth} components, counting the authority (bucket,
 * name node) as the first and never the last component, the object's own name. So at depth 3
 * {@code s3a://lake/db/orders/dt=1/part-0} belongs to {@code s3a://lake/db/orders} and
 * {@code s3a://lake/a/file} to {@code s3a://lake/a}, its directory. A path without an authority
 * ({@code file:/tmp/t/f}, {@code /tmp/t/f}) counts its first directory as the first component; a file
 * at its root belongs to the root ({@code file:/}, {@code /}).
 */
record TablePrefix(int depth) {
  TablePrefix {
    if (depth < 1) {
      throw new IllegalArgumentException("depth must be positive: " + depth);
    }
  }

  /** The prefix of {@code path}, a substring of it without a trailing slash (but for a root). */
  String of(String path) {
    int start = componentsStart(path);
    int kept = 0;
    int end = start;
    int i = start;
    while (kept < depth) {
      while (i < path.length() && path.charAt(i) == '/') {
        i++;
      }
      int next = path.indexOf('/', i);
      if (next < 0) {
        break; // the remaining component is the object's name
      }
      end = next;
      kept++;
      i = next;
    }
    if (kept == 0) {
      return path.substring(0, start);
    }
    return path.substring(0, end);
  }

  /** Where the first component starts: after {@code scheme://} (the authority is a component), or after {@code scheme:/} or a leading slash. */
  private static int componentsStart(String path) {
    int colon = path.indexOf(':');
    int slash = path.indexOf('/');
    int at = colon >= 0 && (slash < 0 || colon < slash) ? colon + 1 : 0;
    if (path.startsWith("//", at)) {
      return at + 2;
    }
    while (at < path.length() && path.charAt(at) == '/') {
      at++;
    }
    return at;
  }
}
