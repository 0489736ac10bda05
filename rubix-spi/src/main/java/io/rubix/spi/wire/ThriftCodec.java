package io.rubix.spi.wire;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.BlockRange;
import io.rubix.spi.metadata.CacheInsightReport;
import io.rubix.spi.metadata.CachedFile;
import io.rubix.spi.metadata.CacheUsage;
import io.rubix.spi.metadata.TableStats;
import io.rubix.spi.metadata.WorkingSetEstimate;
import io.rubix.spi.thrift.TBlockRange;
import io.rubix.spi.thrift.TCacheInsight;
import io.rubix.spi.thrift.TCacheUsage;
import io.rubix.spi.thrift.TCachedFile;
import io.rubix.spi.thrift.TDiskUsage;
import io.rubix.spi.thrift.TObjectVersion;
import io.rubix.spi.thrift.TTableStats;
import io.rubix.spi.thrift.TWorkingSet;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Converts between the SPI's types and their Thrift wire forms. */
public final class ThriftCodec {
  /** Bumped when the meaning of a call changes; client and daemon must agree. */
  public static final int PROTOCOL_VERSION = 1;

  private ThriftCodec() {}

  public static TObjectVersion toThrift(ObjectVersion version) {
    return new TObjectVersion(version.path(), version.length(), version.modificationTime(), version.etag());
  }

  public static ObjectVersion fromThrift(TObjectVersion version) {
    if (version == null || version.getPath() == null || version.getEtag() == null) {
      throw new IllegalArgumentException("Incomplete object version: " + version);
    }
    return new ObjectVersion(version.getPath(), version.getLength(), version.getModificationTime(), version.getEtag());
  }

  public static TBlockRange toThrift(BlockRange range) {
    ByteBuffer crcs = ByteBuffer.allocate(4 * range.crc32c().length);
    for (int crc : range.crc32c()) {
      crcs.putInt(crc);
    }
    return new TBlockRange(range.dataFile(), range.firstBlock(), ByteBuffer.wrap(range.states()), crcs.flip(), range.leaseId());
  }

  public static BlockRange fromThrift(ObjectVersion version, TBlockRange range) {
    byte[] states = bytes(range.bufferForStates());
    ByteBuffer crcBytes = range.bufferForCrc32c().duplicate();
    if (crcBytes.remaining() != 4 * states.length) {
      throw new IllegalArgumentException("Block range with " + states.length + " states but " + crcBytes.remaining() + " checksum bytes");
    }
    int[] crcs = new int[states.length];
    for (int i = 0; i < crcs.length; i++) {
      crcs[i] = crcBytes.getInt();
    }
    return new BlockRange(version, range.getDataFile(), range.getFirstBlock(), states, crcs, range.getLeaseId());
  }

  public static TCacheUsage toThrift(CacheUsage usage) {
    List<TDiskUsage> disks = new ArrayList<>();
    for (CacheUsage.Disk disk : usage.disks()) {
      disks.add(new TDiskUsage(disk.directory(), disk.capacityBytes(), disk.usedBytes(), disk.reservedBytes(), disk.objects()));
    }
    return new TCacheUsage(disks, usage.evictions()).setAdmissionRejections(usage.admissionRejections());
  }

  public static CacheUsage fromThrift(TCacheUsage usage) {
    List<CacheUsage.Disk> disks = new ArrayList<>();
    for (TDiskUsage disk : usage.getDisks()) {
      disks.add(new CacheUsage.Disk(disk.getDirectory(), disk.getCapacityBytes(), disk.getUsedBytes(), disk.getReservedBytes(), disk.getObjects()));
    }
    return new CacheUsage(disks, usage.getEvictions(), usage.isSetAdmissionRejections() ? usage.getAdmissionRejections() : 0);
  }

  public static List<TCachedFile> toThrift(List<CachedFile> files) {
    List<TCachedFile> result = new ArrayList<>(files.size());
    for (CachedFile file : files) {
      result.add(new TCachedFile(toThrift(file.version()), file.dataFile(), file.chargedBytes(), file.cachedBlocks(), file.blocks()));
    }
    return result;
  }

  public static List<CachedFile> fromThriftFiles(List<TCachedFile> files) {
    List<CachedFile> result = new ArrayList<>(files.size());
    for (TCachedFile file : files) {
      result.add(new CachedFile(fromThrift(file.getVersion()), file.getDataFile(), file.getChargedBytes(), file.getCachedBlocks(),
          file.getBlocks()));
    }
    return result;
  }

  public static List<Integer> toList(int[] values) {
    List<Integer> list = new ArrayList<>(values.length);
    for (int value : values) {
      list.add(value);
    }
    return list;
  }

  public static int[] toArray(List<Integer> values) {
    if (values == null) {
      throw new IllegalArgumentException("missing list");
    }
    int[] array = new int[values.size()];
    for (int i = 0; i < array.length; i++) {
      array[i] = values.get(i);
    }
    return array;
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return bytes;
  }

  public static TCacheInsight toThrift(CacheInsightReport report) {
    List<TTableStats> tables = new ArrayList<>(report.tables().size());
    for (TableStats table : report.tables()) {
      tables.add(toThrift(table));
    }
    WorkingSetEstimate w = report.workingSet();
    return new TCacheInsight(tables, toThrift(report.other()), new TWorkingSet(w.windowMillis(), w.distinctBytes(), w.capacityBytes(),
        w.sampleRate(), w.accessedBytes(), w.observedHitRatio(), w.shadowHitRatioHalf(), w.shadowHitRatioOne(), w.shadowHitRatioDouble(),
        w.sampledAccesses()));
  }

  public static CacheInsightReport fromThrift(TCacheInsight insight) {
    List<TableStats> tables = new ArrayList<>(insight.getTablesSize());
    for (TTableStats table : insight.getTables()) {
      tables.add(fromThrift(table));
    }
    TWorkingSet w = insight.getWorkingSet();
    return new CacheInsightReport(tables, fromThrift(insight.getOther()), new WorkingSetEstimate(w.getWindowMillis(), w.getDistinctBytes(),
        w.getCapacityBytes(), w.getSampleRate(), w.getAccessedBytes(), w.getObservedHitRatio(), w.getShadowHitRatioHalf(), w.getShadowHitRatioOne(),
        w.getShadowHitRatioDouble(), w.getSampledAccesses()));
  }

  private static TTableStats toThrift(TableStats t) {
    return new TTableStats(t.prefix(), t.hitBlocks(), t.missBlocks(), t.cachedBytes(), t.grantedBytes(), t.filledBytes(), t.evictions(),
        t.weightError());
  }

  private static TableStats fromThrift(TTableStats t) {
    return new TableStats(t.getPrefix(), t.getHitBlocks(), t.getMissBlocks(), t.getCachedBytes(), t.getGrantedBytes(), t.getFilledBytes(),
        t.getEvictions(), t.getWeightError());
  }
}
