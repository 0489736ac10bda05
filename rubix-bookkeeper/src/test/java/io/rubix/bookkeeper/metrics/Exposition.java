package io.rubix.bookkeeper.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of {@code /metrics}, checked line by line against the Prometheus text format 0.0.4 or
 * OpenMetrics 1.0 (whichever the response's content type says) and parsed: each family's type, help
 * and unit, each series' value. A line that breaks the format fails the parse with the line. The checks
 * are the formats' rules as written in their specifications, stricter than Prometheus' own parser where
 * it is lenient: every family declares its type and help before its samples, no family twice, no series
 * twice, counter samples are {@code <family>_total} (OpenMetrics) or the family itself ending in
 * {@code _total} (text), label values escaped, OpenMetrics ends with {@code # EOF}.
 */
public final class Exposition {
  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String LABEL = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
  private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(?:" + LABEL + ")(?:," + LABEL + ")*\\})? (\\S+)");
  private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (\\S+)");
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") (.*)");
  private static final Pattern UNIT = Pattern.compile("# UNIT (" + NAME + ") (\\S+)");
  private static final Pattern NUMBER = Pattern.compile("[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|NaN|[-+]?Inf");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** A family: its name as declared on its TYPE line, its type, help and unit (null without one). */
  public record Family(String name, String type, String help, String unit) {}

  private final String contentType;
  private final boolean openMetrics;
  private final String body;
  private final Map<String, Family> families = new LinkedHashMap<>();
  /** Every series, {@code name{labels}} as written, to its value. */
  private final Map<String, Double> series = new TreeMap<>();

  private Exposition(String contentType, String body) {
    this.contentType = contentType;
    this.openMetrics = contentType.startsWith("application/openmetrics-text");
    this.body = body;
    parse();
  }

  /** Scrapes {@code http://127.0.0.1:<port>/metrics}, with {@code accept} as Accept header unless null, and parses the answer. */
  public static Exposition scrape(int port, String accept) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"));
    if (accept != null) {
      request.header("Accept", accept);
    }
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new AssertionError("/metrics answered " + response.statusCode());
    }
    return new Exposition(response.headers().firstValue("Content-Type").orElseThrow(), response.body());
  }

  /** Scrapes in the Prometheus text format (no Accept header). */
  public static Exposition scrape(int port) throws IOException, InterruptedException {
    return scrape(port, null);
  }

  private void parse() {
    if (!body.endsWith("\n")) {
      throw new AssertionError("the exposition does not end with a newline");
    }
    String[] lines = body.split("\n", -1);
    int end = lines.length - 1;
    if (openMetrics) {
      if (end < 1 || !lines[end - 1].equals("# EOF")) {
        throw new AssertionError("OpenMetrics without # EOF as its last line");
      }
      end--;
    }
    Map<String, String> helps = new LinkedHashMap<>();
    Map<String, String> units = new LinkedHashMap<>();
    String current = null;
    for (int i = 0; i < end; i++) {
      String line = lines[i];
      Matcher m;
      if ((m = TYPE.matcher(line)).matches()) {
        current = m.group(1);
        if (families.containsKey(current)) {
          throw new AssertionError("family declared twice: " + line);
        }
        if (!Set.of("counter", "gauge", "histogram", "summary", "info", "stateset", "gaugehistogram", "unknown", "untyped").contains(m.group(2))) {
          throw new AssertionError("unknown type: " + line);
        }
        families.put(current, new Family(current, m.group(2), null, null));
      } else if ((m = HELP.matcher(line)).matches()) {
        if (!openMetrics && families.containsKey(m.group(1))) {
          throw new AssertionError("text format: HELP after TYPE or samples: " + line);
        }
        if (openMetrics && !m.group(1).equals(current)) {
          throw new AssertionError("OpenMetrics: HELP outside its family: " + line);
        }
        if (helps.put(m.group(1), m.group(2)) != null) {
          throw new AssertionError("HELP twice: " + line);
        }
      } else if ((m = UNIT.matcher(line)).matches()) {
        if (!openMetrics || !m.group(1).equals(current) || !m.group(1).endsWith("_" + m.group(2))) {
          throw new AssertionError("UNIT not allowed here, or not the name's suffix: " + line);
        }
        units.put(m.group(1), m.group(2));
      } else if (line.startsWith("#")) {
        throw new AssertionError("unknown comment line: " + line);
      } else if ((m = SAMPLE.matcher(line)).matches()) {
        String name = m.group(1);
        Family family = current == null ? null : families.get(current);
        if (family == null) {
          throw new AssertionError("sample before any TYPE: " + line);
        }
        String expected = openMetrics && family.type().equals("counter") ? current + "_total" : current;
        if (!name.equals(expected)) {
          throw new AssertionError("sample " + name + " in family " + current + " (" + family.type() + ")");
        }
        if (!NUMBER.matcher(m.group(3)).matches()) {
          throw new AssertionError("not a number: " + line);
        }
        String key = name + (m.group(2) == null ? "" : m.group(2));
        if (series.put(key, parseValue(m.group(3))) != null) {
          throw new AssertionError("series twice: " + line);
        }
      } else {
        throw new AssertionError("not a line of the format: '" + line + "'");
      }
    }
    families.replaceAll((name, family) -> new Family(name, family.type(), helps.get(name), units.get(name)));
    for (String help : helps.keySet()) {
      if (!families.containsKey(help)) {
        throw new AssertionError("HELP for a family without TYPE: " + help);
      }
    }
  }

  private static double parseValue(String text) {
    return switch (text) {
      case "NaN" -> Double.NaN;
      case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      default -> Double.parseDouble(text);
    };
  }

  public String contentType() {
    return contentType;
  }

  public String body() {
    return body;
  }

  /** The families by the name on their TYPE line. */
  public Map<String, Family> families() {
    return families;
  }

  /** Every series ({@code name} or {@code name{k="v",...}} as written) and its value. */
  public Map<String, Double> series() {
    return series;
  }

  /** The value of one series, e.g. {@code rubix_cache_used_bytes} or {@code rubix_rule_used_bytes{rule="dims"}}. */
  public double value(String series) {
    Double value = this.series.get(series);
    if (value == null) {
      throw new AssertionError(series + " not in the exposition:\n" + body);
    }
    return value;
  }

  /** The sum of a metric's values over all its labels; 0 when absent. */
  public double sum(String name) {
    return series.entrySet().stream().filter(e -> e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
        .mapToDouble(Map.Entry::getValue).sum();
  }
}
