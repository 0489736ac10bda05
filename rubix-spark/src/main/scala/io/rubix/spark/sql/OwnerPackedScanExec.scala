package io.rubix.spark.sql

import java.lang.invoke.{MethodHandle, MethodHandles, MethodType}

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.{InternalRow, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.connector.read.streaming.SparkDataStream
import org.apache.spark.sql.execution.FileSourceScanExec
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.types.StructType
import org.apache.spark.util.collection.BitSet

/**
 * Spark's file scan with its pieces packed into tasks by owner host (see ScanPacking) instead of by
 * size alone. Everything else (the node's fields, metrics, columnar output, code generation, canonical
 * form) is FileSourceScanExec's: only the input RDD is replaced, and Spark's tree copies keep this
 * class because its constructor is the same. Scala, because javac refuses to extend this Scala class.
 */
class OwnerPackedScanExec(
    relation: HadoopFsRelation,
    stream: Option[SparkDataStream],
    output: Seq[Attribute],
    requiredSchema: StructType,
    partitionFilters: Seq[Expression],
    optionalBucketSet: Option[BitSet],
    optionalNumCoalescedBuckets: Option[Int],
    dataFilters: Seq[Expression],
    tableIdentifier: Option[TableIdentifier],
    disableBucketedScan: Boolean)
  extends FileSourceScanExec(relation, stream, output, requiredSchema, partitionFilters, optionalBucketSet,
    optionalNumCoalescedBuckets, dataFilters, tableIdentifier, disableBucketedScan) {

  // Scala has no super call on a lazy val; the handle calls FileSourceScanExec's own (Spark's RDD)
  @transient override lazy val inputRDD: RDD[InternalRow] =
    ScanPacking.pack(this, OwnerPackedScanExec.sparkInput.invokeWithArguments(this).asInstanceOf[RDD[InternalRow]])

  // Spark's tree transforms keep the old node when the new one equals it: a packed scan must not
  // equal the plain one it replaces (canonical forms, which exchange reuse compares, still do)
  override def canEqual(other: Any): Boolean = other.isInstanceOf[OwnerPackedScanExec]

  override def equals(other: Any): Boolean = other.isInstanceOf[OwnerPackedScanExec] && super.equals(other)

  override def hashCode(): Int = super.hashCode()
}

object OwnerPackedScanExec {
  private val sparkInput: MethodHandle = MethodHandles
    .privateLookupIn(classOf[OwnerPackedScanExec], MethodHandles.lookup())
    .findSpecial(classOf[FileSourceScanExec], "inputRDD", MethodType.methodType(classOf[RDD[_]]),
      classOf[OwnerPackedScanExec])

  /** `scan` with the same fields. */
  def of(scan: FileSourceScanExec): OwnerPackedScanExec = new OwnerPackedScanExec(scan.relation, scan.stream,
    scan.output, scan.requiredSchema, scan.partitionFilters, scan.optionalBucketSet, scan.optionalNumCoalescedBuckets,
    scan.dataFilters, scan.tableIdentifier, scan.disableBucketedScan)
}
