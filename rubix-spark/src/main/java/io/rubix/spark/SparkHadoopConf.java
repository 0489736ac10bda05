package io.rubix.spark;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.SparkConf;
import scala.Tuple2;

/** The Hadoop configuration Spark gives tasks: {@code *-site.xml} plus every {@code spark.hadoop.*} entry. */
final class SparkHadoopConf {
  static final String PREFIX = "spark.hadoop.";

  private SparkHadoopConf() {}

  static Configuration from(SparkConf sparkConf) {
    Configuration conf = new Configuration();
    for (Tuple2<String, String> entry : sparkConf.getAll()) {
      if (entry._1().startsWith(PREFIX)) {
        conf.set(entry._1().substring(PREFIX.length()), entry._2());
      }
    }
    return conf;
  }

  static Configuration from(Map<String, String> entries) {
    Configuration conf = new Configuration();
    entries.forEach((key, value) -> {
      if (key.startsWith(PREFIX)) {
        conf.set(key.substring(PREFIX.length()), value);
      }
    });
    return conf;
  }
}
