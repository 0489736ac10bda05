package io.rubix.benchmarks;

import static java.util.Objects.requireNonNull;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Seeded table layouts for the scale benchmarks: object paths as Spark writes Parquet to a lake
 * ({@code <root>/<db>/<table>/<column>=<value>/part-00017-<write uuid>.c000.snappy.parquet}) and object
 * sizes drawn from realistic ranges. The same seed gives the same files.
 */
final class TableSets {
  static final long MIB = 1L << 20;
  static final long GIB = 1L << 30;

  private TableSets() {}

  /** One object of a table. */
  record DataFile(String path, long length) {
    DataFile {
      requireNonNull(path, "path is null");
      if (length <= 0) {
        throw new IllegalArgumentException("Length of " + path + " must be positive: " + length);
      }
    }
  }

  /** The files of one or more tables, under one name. */
  record TableSet(String name, List<DataFile> files) {
    TableSet {
      requireNonNull(name, "name is null");
      files = List.copyOf(files);
    }

    long bytes() {
      return files.stream().mapToLong(DataFile::length).sum();
    }
  }

  /**
   * One fact table of 10,000 files, partitioned by day over a year, with skewed sizes: log-normal
   * around a median of 64 MiB (sigma 1.2, so a tenth of the files are above 300 MiB), cut to
   * 8 MiB - 1 GiB. Most files are one split; the large ones are two to four.
   */
  static TableSet skewedTable(String root, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    String table = root + "/retail.db/sales";
    UUID write = uuid(random);
    LocalDate first = LocalDate.of(2025, 1, 1);
    List<DataFile> files = new ArrayList<>(10_000);
    for (int i = 0; i < 10_000; i++) {
      LocalDate day = first.plusDays(i * 365L / 10_000);
      double size = Math.exp(Math.log(64.0 * MIB) + 1.2 * random.nextGaussian());
      long length = Math.max(8 * MIB, Math.min(GIB, (long) size));
      files.add(new DataFile(table + "/sale_date=" + day + "/" + partName(i, write), length));
    }
    return new TableSet("skewed 10,000-file table", files);
  }

  /**
   * A TPC-DS-like warehouse (18,374 files, 4.3 TiB of Parquet): three huge fact tables partitioned by sold
   * date in files of 50 MiB - 1 GiB; inventory by week; three returns tables with one small file per
   * date (2-64 MiB); seventeen dimension tables of one to forty files, most of them one small file.
   * Sizes are log-uniform in each table's range.
   */
  static TableSet tpcdsLike(String root, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    String db = root + "/tpcds_sf10000.db";
    List<DataFile> files = new ArrayList<>();
    facts(files, random, db, "store_sales", "ss_sold_date_sk", 1823, 1, 3, 100 * MIB, GIB);
    facts(files, random, db, "catalog_sales", "cs_sold_date_sk", 1837, 1, 2, 100 * MIB, GIB);
    facts(files, random, db, "web_sales", "ws_sold_date_sk", 1823, 1, 1, 50 * MIB, GIB);
    facts(files, random, db, "inventory", "inv_date_sk", 261, 7, 4, 64 * MIB, 512 * MIB);
    facts(files, random, db, "store_returns", "sr_returned_date_sk", 2004, 1, 1, 8 * MIB, 64 * MIB);
    facts(files, random, db, "catalog_returns", "cr_returned_date_sk", 2100, 1, 1, 4 * MIB, 48 * MIB);
    facts(files, random, db, "web_returns", "wr_returned_date_sk", 2185, 1, 1, 2 * MIB, 24 * MIB);
    dimension(files, random, db, "customer", 40, 32 * MIB, 128 * MIB);
    dimension(files, random, db, "customer_address", 10, 16 * MIB, 64 * MIB);
    dimension(files, random, db, "customer_demographics", 8, 8 * MIB, 32 * MIB);
    dimension(files, random, db, "item", 4, 16 * MIB, 64 * MIB);
    dimension(files, random, db, "catalog_page", 1, 2 * MIB, 4 * MIB);
    dimension(files, random, db, "date_dim", 1, 2 * MIB, 3 * MIB);
    dimension(files, random, db, "time_dim", 1, 1 * MIB, 2 * MIB);
    dimension(files, random, db, "household_demographics", 1, MIB / 8, MIB / 4);
    dimension(files, random, db, "promotion", 1, MIB / 8, MIB / 4);
    for (String tiny : List.of("store", "warehouse", "web_site", "web_page", "call_center", "income_band", "reason", "ship_mode")) {
      dimension(files, random, db, tiny, 1, 8 << 10, 64 << 10);
    }
    return new TableSet("TPC-DS-like warehouse", files);
  }

  /** A table of {@code partitions} partitions ({@code step} apart from date key 2450816) of {@code perPartition} files each. */
  private static void facts(List<DataFile> files, SplittableRandom random, String db, String table, String column, int partitions, int step,
      int perPartition, long min, long max) {
    UUID write = uuid(random);
    int part = 0;
    for (int p = 0; p < partitions; p++) {
      String dir = db + "/" + table + "/" + column + "=" + (2450816 + p * step);
      for (int f = 0; f < perPartition; f++) {
        files.add(new DataFile(dir + "/" + partName(part++, write), logUniform(random, min, max)));
      }
    }
  }

  private static void dimension(List<DataFile> files, SplittableRandom random, String db, String table, int count, long min, long max) {
    UUID write = uuid(random);
    for (int f = 0; f < count; f++) {
      files.add(new DataFile(db + "/" + table + "/" + partName(f, write), logUniform(random, min, max)));
    }
  }

  private static String partName(int part, UUID write) {
    return String.format(Locale.ROOT, "part-%05d-%s.c000.snappy.parquet", part, write);
  }

  private static long logUniform(SplittableRandom random, long min, long max) {
    return (long) Math.exp(Math.log(min) + random.nextDouble() * (Math.log(max) - Math.log(min)));
  }

  private static UUID uuid(SplittableRandom random) {
    return new UUID(random.nextLong(), random.nextLong());
  }
}
