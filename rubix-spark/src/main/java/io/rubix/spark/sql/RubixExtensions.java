package io.rubix.spark.sql;

import java.util.Arrays;
import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * RubiX's Spark SQL extensions ({@code spark.sql.extensions=io.rubix.spark.sql.RubixExtensions}; the
 * driver side of {@code RubixPlugin} adds it): file scans packed into tasks by the owner of their
 * pieces, so that a task scheduled on its preferred host reads its bytes from that host's cache.
 */
public final class RubixExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
  private static final Logger LOG = LoggerFactory.getLogger(RubixExtensions.class);

  @Override
  public BoxedUnit apply(SparkSessionExtensions extensions) {
    boolean supported = supported();
    extensions.injectColumnar(session -> new OwnerPackingRule(session, supported));
    return BoxedUnit.UNIT;
  }

  /** Whether this Spark's file scan node has the constructor {@link OwnerPackedScanExec} extends (Spark 4.0's). */
  public static boolean supported() {
    boolean same;
    try {
      same = Arrays.stream(FileSourceScanExec.class.getConstructors())
          .anyMatch(c -> Arrays.equals(c.getParameterTypes(), OwnerPackedScanExec.class.getConstructors()[0].getParameterTypes()));
    } catch (LinkageError e) {
      same = false; // a parameter type this Spark or Scala does not have
    }
    if (!same) {
      LOG.warn("RubiX cannot pack file scans by owner on this Spark version (its FileSourceScanExec differs from 4.0's); "
          + "scans keep Spark's packing, and tasks of several small files read part of their bytes from peers");
    }
    return same;
  }
}
