package io.rubix.spark.sql;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import scala.runtime.AbstractPartialFunction;

/**
 * Replaces each file scan of a physical plan by an {@link OwnerPackedScanExec}, before Spark adds its
 * row/columnar transitions (in every adaptive stage too). Off with
 * {@value #ENABLED}{@code =false}; on a Spark whose scan node has another constructor it changes nothing.
 */
final class OwnerPackingRule extends ColumnarRule {
  /** Spark key switching the packing by owner on (the default) or off, per session. */
  static final String ENABLED = "spark.rubix.locality.packing";

  private final SparkSession session;
  private final boolean supported;

  OwnerPackingRule(SparkSession session, boolean supported) {
    this.session = session;
    this.supported = supported;
  }

  @Override
  public Rule<SparkPlan> preColumnarTransitions() {
    return new Rule<>() {
      @Override
      public SparkPlan apply(SparkPlan plan) {
        if (!supported || !Boolean.parseBoolean(session.conf().get(ENABLED, "true"))) {
          return plan;
        }
        return plan.transformUp(new AbstractPartialFunction<SparkPlan, SparkPlan>() {
          @Override
          public boolean isDefinedAt(SparkPlan node) {
            return node instanceof FileSourceScanExec && !(node instanceof OwnerPackedScanExec);
          }

          @Override
          public <A1 extends SparkPlan, B1> B1 applyOrElse(A1 node, scala.Function1<A1, B1> otherwise) {
            if (!isDefinedAt(node)) {
              return otherwise.apply(node);
            }
            @SuppressWarnings("unchecked") // B1 is SparkPlan here: transformUp's function maps plans to plans
            B1 packed = (B1) OwnerPackedScanExec.of((FileSourceScanExec) node);
            return packed;
          }
        });
      }
    };
  }
}
