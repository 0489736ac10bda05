package io.rubix.benchmarks.tpcds;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.function.ToLongFunction;

/** The timed runs of one query in one configuration, in the order they ran (iteration 1 first). */
record QueryResult(String query, BenchmarkConfiguration configuration, List<Iteration> iterations) {
  QueryResult {
    requireNonNull(query, "query is null");
    requireNonNull(configuration, "configuration is null");
    iterations = List.copyOf(iterations);
    if (iterations.isEmpty()) {
      throw new IllegalArgumentException("no iterations of " + query + " in " + configuration.label());
    }
  }

  Spread millis() {
    return spread(Iteration::millis);
  }

  /** The spread of one counter over the iterations ({@code -1} values when it was not measured). */
  Spread spread(ToLongFunction<Iteration> counter) {
    return Spread.of(iterations.stream().map(counter::applyAsLong).toList());
  }

  @Override
  public String toString() {
    return query + "/" + configuration.label() + " " + iterations.stream().map(Iteration::millis).toList();
  }
}
