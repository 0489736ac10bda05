package io.rubix.spark.tables;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What the S3 server served in one pass, object by object ({@code "GET bucket/key" -> n}, as
 * {@code S3ServerControl.requests()} answers), summed per class of objects (a table's data files, its
 * log or metadata).
 */
record ServedRequests(Map<String, Long> perObject) {
  ServedRequests {
    perObject = Map.copyOf(requireNonNull(perObject, "perObject is null"));
  }

  /** GETs of the objects {@code objects} accepts ({@code bucket/key}). */
  long gets(Predicate<String> objects) {
    return count("GET", objects);
  }

  /** HEADs of the objects {@code objects} accepts, including HEADs of keys that are not there. */
  long heads(Predicate<String> objects) {
    return count("HEAD", objects);
  }

  /** LISTs whose prefix {@code objects} accepts. */
  long lists(Predicate<String> objects) {
    return count("LIST", objects);
  }

  long count(String method, Predicate<String> objects) {
    String prefix = method + " ";
    return perObject.entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix) && objects.test(e.getKey().substring(prefix.length())))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /** The requests of the objects {@code objects} accepts, object by object, for a failure message or the report. */
  Map<String, Long> of(Predicate<String> objects) {
    Map<String, Long> selected = new LinkedHashMap<>();
    perObject.entrySet().stream()
        .filter(e -> objects.test(e.getKey().substring(e.getKey().indexOf(' ') + 1)))
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> selected.put(e.getKey(), e.getValue()));
    return selected;
  }

  /** {@code "name: G GETs, H HEADs, L LISTs"} for each class. */
  String describe(Map<String, Predicate<String>> classes) {
    StringBuilder out = new StringBuilder();
    classes.forEach((name, objects) -> {
      if (!out.isEmpty()) {
        out.append("; ");
      }
      out.append(name).append(": ").append(gets(objects)).append(" GETs, ").append(heads(objects)).append(" HEADs, ")
          .append(lists(objects)).append(" LISTs");
    });
    return out.toString();
  }
}
