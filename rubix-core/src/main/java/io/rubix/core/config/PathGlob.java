package io.rubix.core.config;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * One path pattern of a rule: {@code *} matches within a path segment, {@code **} (a whole segment)
 * any number of segments, {@code ?} one character other than {@code /}; a pattern ending in {@code /}
 * is a prefix (everything below it). A pattern with a scheme ({@code s3a://bucket/dim_*}/**) is
 * matched against the fully qualified path, one starting with {@code /} against the path alone
 * (no scheme, no authority). Immutable and thread-safe.
 */
public record PathGlob(String pattern, boolean qualified, Pattern regex) {
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:.*");
  static final String SYNTAX = "a path glob starting with / or a scheme (s3a://bucket/...), with * (within a segment), ** (a whole segment: "
      + "any depth), ? (one character), or a prefix ending in /; no [ ] { } or \\";

  public PathGlob {
    requireNonNull(pattern, "pattern is null");
    requireNonNull(regex, "regex is null");
  }

  /** Parses {@code pattern}, the value of {@code key}; an {@link InvalidConfigException} naming both when it is not a glob this class reads. */
  public static PathGlob parse(String key, String pattern) {
    String glob = pattern.trim();
    boolean qualified = SCHEME.matcher(glob).matches();
    if (glob.isEmpty() || !(qualified || glob.startsWith("/"))) {
      throw new InvalidConfigException(key, pattern, SYNTAX);
    }
    if (glob.endsWith("/")) {
      glob = glob + "**";
    }
    StringBuilder regex = new StringBuilder();
    StringBuilder literal = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '[' || c == ']' || c == '{' || c == '}' || c == '\\') {
        throw new InvalidConfigException(key, pattern, SYNTAX);
      }
      if (c != '*' && c != '?') {
        literal.append(c);
        continue;
      }
      if (!literal.isEmpty()) {
        regex.append(Pattern.quote(literal.toString()));
        literal.setLength(0);
      }
      if (c == '?') {
        regex.append("[^/]");
      } else if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
        boolean segmentStart = i > 0 && glob.charAt(i - 1) == '/';
        boolean atEnd = i + 2 == glob.length();
        boolean segmentEnd = atEnd || glob.charAt(i + 2) == '/';
        if (!segmentStart || !segmentEnd) {
          throw new InvalidConfigException(key, pattern, SYNTAX + " (** must be a whole path segment)");
        }
        if (atEnd) {
          regex.append(".*");
          i++;
        } else {
          // "/**/" also matches "/": a/**/b matches a/b
          regex.append("(?:[^/]*/)*");
          i += 2;
        }
      } else {
        regex.append("[^/]*");
      }
    }
    if (!literal.isEmpty()) {
      regex.append(Pattern.quote(literal.toString()));
    }
    return new PathGlob(pattern.trim(), qualified, Pattern.compile(regex.toString()));
  }

  /** Whether this pattern matches an object whose fully qualified path is {@code qualifiedPath} and whose path alone is {@code pathOnly}. */
  public boolean matches(String qualifiedPath, String pathOnly) {
    return regex.matcher(qualified ? qualifiedPath : pathOnly).matches();
  }

  /** The path of {@code qualifiedPath} without scheme and authority: {@code /a/b} for {@code s3a://bucket/a/b} and {@code file:/a/b}. */
  static String pathOnly(String qualifiedPath) {
    int colon = qualifiedPath.indexOf(':');
    int slash = qualifiedPath.indexOf('/');
    if (colon <= 0 || (slash >= 0 && slash < colon)) {
      return qualifiedPath;
    }
    String rest = qualifiedPath.substring(colon + 1);
    if (rest.startsWith("//")) {
      int pathStart = rest.indexOf('/', 2);
      return pathStart < 0 ? "/" : rest.substring(pathStart);
    }
    return rest;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof PathGlob glob && glob.pattern.equals(pattern);
  }

  @Override
  public int hashCode() {
    return pattern.hashCode();
  }

  @Override
  public String toString() {
    return pattern;
  }
}
