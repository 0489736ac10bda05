package io.rubix.core.metadata.journal;

import static java.util.Objects.requireNonNull;

import io.rubix.spi.ObjectVersion;
import io.rubix.spi.metadata.DataFileLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cache metadata persisted as one small append-only journal per data file ({@code <name>.meta} beside
 * {@code <name>.blocks}). A journal starts with a header naming the object version and block size,
 * protected by a CRC32C, followed by fixed 16-byte records (kind, block, block CRC32C, record
 * CRC32C). Publishing a block appends one record: nothing is rewritten, so a commit costs one small
 * append whatever the object's size. Recovery replays each journal; a torn last record (crash during
 * an append) is cut off, and a journal whose header does not validate is deleted with its data file,
 * alone.
 */
public final class FileMetadataJournal implements MetadataJournal {
  private static final Logger LOG = LoggerFactory.getLogger(FileMetadataJournal.class);
  static final String META_SUFFIX = ".meta";
  private static final int MAGIC = 0x52425831;
  private static final int RECORD = 16;
  private static final int PUBLISHED = 1;
  private static final int UNPUBLISHED = 2;
  private static final int CHARGED = 3;

  private final int blockSize;
  private final RecoveryFiles files;

  public FileMetadataJournal(int blockSize) {
    this(blockSize, RecoveryFiles.DEFAULT);
  }

  /** A journal whose recovery lists, deletes and sizes files through {@code files} (tests inject faults with it). */
  public FileMetadataJournal(int blockSize, RecoveryFiles files) {
    this.blockSize = blockSize;
    this.files = requireNonNull(files, "files is null");
  }

  /** The journal file beside {@code dataFile}. */
  public static Path metaFile(Path dataFile) {
    String name = dataFile.getFileName().toString();
    return dataFile.resolveSibling(name.substring(0, name.length() - DataFileLayout.DATA_SUFFIX.length()) + META_SUFFIX);
  }

  @Override
  public void created(ObjectVersion version, Path dataFile) throws IOException {
    byte[] path = version.path().getBytes(StandardCharsets.UTF_8);
    byte[] etag = version.etag().getBytes(StandardCharsets.UTF_8);
    ByteBuffer header = ByteBuffer.allocate(4 + 4 + 8 + 8 + 4 + path.length + 4 + etag.length + 4);
    header.putInt(MAGIC).putInt(blockSize).putLong(version.length()).putLong(version.modificationTime());
    header.putInt(path.length).put(path).putInt(etag.length).put(etag);
    header.putInt(crc(header.array(), 0, header.position()));
    header.flip();
    Path meta = metaFile(dataFile);
    Files.createDirectories(meta.getParent());
    try (FileChannel channel = FileChannel.open(meta, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      writeFully(channel, header);
    }
  }

  @Override
  public void published(Path dataFile, int[] blocks, int[] crc32c) throws IOException {
    ByteBuffer records = ByteBuffer.allocate(RECORD * blocks.length);
    for (int i = 0; i < blocks.length; i++) {
      record(records, PUBLISHED, blocks[i], crc32c[i]);
    }
    append(dataFile, records.flip());
  }

  @Override
  public void unpublished(Path dataFile, int block) throws IOException {
    append(dataFile, record(ByteBuffer.allocate(RECORD), UNPUBLISHED, block, 0).flip());
  }

  @Override
  public void charged(Path dataFile, int block) throws IOException {
    append(dataFile, record(ByteBuffer.allocate(RECORD), CHARGED, block, 0).flip());
  }

  @Override
  public void charged(Path dataFile, int[] blocks) throws IOException {
    ByteBuffer records = ByteBuffer.allocate(RECORD * blocks.length);
    for (int block : blocks) {
      record(records, CHARGED, block, 0);
    }
    append(dataFile, records.flip());
  }

  /** Kept as the journal's modification time, which every append also moves: no record, no growth. */
  @Override
  public void used(Path dataFile, long millis) throws IOException {
    Files.setLastModifiedTime(metaFile(dataFile), FileTime.fromMillis(millis));
  }

  @Override
  public void dropped(Path dataFile) throws IOException {
    Files.deleteIfExists(metaFile(dataFile));
  }

  @Override
  public Recovery recover(List<Path> roots, int expectedBlockSize) {
    Scan scan = new Scan();
    for (int disk = 0; disk < roots.size(); disk++) {
      Path root = roots.get(disk);
      if (!Files.isDirectory(root)) {
        continue;
      }
      for (Path prefix : scan.list(root)) {
        if (prefix.getFileName().toString().length() == 2 && Files.isDirectory(prefix)) {
          for (Path file : scan.list(prefix)) {
            recoverEntry(file, disk, scan);
          }
        }
      }
    }
    return new Recovery(scan.objects, scan.leftovers, scan.problems);
  }

  private void recoverEntry(Path file, int disk, Scan scan) {
    String name = file.getFileName().toString();
    if (name.endsWith(META_SUFFIX)) {
      Recovered object = recoverOne(file, disk, scan);
      if (object != null) {
        scan.objects.add(object);
      }
    } else if (name.endsWith(DataFileLayout.DATA_SUFFIX) && !Files.exists(metaFile(file))) {
      LOG.info("Deleting cache data file without metadata: {}", file);
      scan.problems++;
      scan.delete(file, disk);
    }
  }

  /** The state of one recovery: what it found, and the file operations it performs. */
  private final class Scan {
    final List<Recovered> objects = new ArrayList<>();
    final List<Leftover> leftovers = new ArrayList<>();
    int problems;

    /** The entries of {@code dir}, as many as can be read: an unreadable directory is skipped alone. */
    List<Path> list(Path dir) {
      List<Path> entries = new ArrayList<>();
      try (DirectoryStream<Path> stream = files.list(dir)) {
        for (Path entry : stream) {
          entries.add(entry);
        }
      } catch (IOException | DirectoryIteratorException e) {
        problems++;
        LOG.warn("Cannot read cache directory {} ({} entries read); the rest of it is neither recovered nor counted against the cap",
            dir, entries.size(), e);
      }
      return entries;
    }

    /** Deletes {@code file}; a file that stays is a leftover whose bytes count against its disk's cap. */
    void delete(Path file, int disk) {
      try {
        files.delete(file);
      } catch (IOException e) {
        long bytes = 0;
        try {
          bytes = files.size(file);
        } catch (IOException sizeUnknown) {
          LOG.debug("Cannot read the size of {}", file, sizeUnknown);
        }
        LOG.warn("Cannot delete cache file {}; its {} bytes stay on disk and count against the cap", file, bytes, e);
        leftovers.add(new Leftover(file, disk, bytes));
      }
    }
  }

  private Recovered recoverOne(Path meta, int disk, Scan scan) {
    String name = meta.getFileName().toString();
    Path dataFile = meta.resolveSibling(name.substring(0, name.length() - META_SUFFIX.length()) + DataFileLayout.DATA_SUFFIX);
    try {
      // before a torn record is cut off, which moves it
      long lastUsed = Files.getLastModifiedTime(meta).toMillis();
      byte[] bytes = Files.readAllBytes(meta);
      ByteBuffer in = ByteBuffer.wrap(bytes);
      ObjectVersion version = readHeader(in, bytes);
      if (version == null) {
        return discard(meta, dataFile, disk, scan, "header does not validate");
      }
      int dash = name.lastIndexOf('-');
      String hex = name.substring(0, dash);
      if (!hex.equals(DataFileLayout.sha256Hex(version.canonicalKey()))) {
        return discard(meta, dataFile, disk, scan, "name does not match the version it holds");
      }
      long generation = Long.parseLong(name.substring(dash + 1, name.length() - META_SUFFIX.length()));
      if (!Files.exists(dataFile)) {
        return discard(meta, dataFile, disk, scan, "data file is missing");
      }
      long dataSize = Files.size(dataFile);
      int blocks = version.blockCount(blockSize);
      BitSet published = new BitSet();
      BitSet charged = new BitSet();
      int[] crcs = new int[blocks];
      int good = in.position();
      while (in.remaining() >= RECORD) {
        int kind = in.getInt();
        int block = in.getInt();
        int crc = in.getInt();
        int check = in.getInt();
        if (check != crc(bytes, good, 12) || block < 0 || block >= blocks) {
          break;
        }
        good = in.position();
        switch (kind) {
          case PUBLISHED -> {
            long end = (long) block * blockSize + version.blockLength(block, blockSize);
            if (end <= dataSize) {
              published.set(block);
              charged.set(block);
              crcs[block] = crc;
            }
          }
          case UNPUBLISHED -> published.clear(block);
          case CHARGED -> charged.set(block);
          default -> {
            return discard(meta, dataFile, disk, scan, "unknown record kind " + kind);
          }
        }
      }
      if (good < bytes.length) {
        LOG.info("Cutting a torn record off {} ({} of {} bytes valid)", meta, good, bytes.length);
        try (FileChannel channel = FileChannel.open(meta, StandardOpenOption.WRITE)) {
          channel.truncate(good);
        }
        Files.setLastModifiedTime(meta, FileTime.fromMillis(lastUsed));
      }
      return new Recovered(version, dataFile, disk, generation, published, crcs, charged, lastUsed);
    } catch (IOException | RuntimeException e) {
      return discard(meta, dataFile, disk, scan, e.toString());
    }
  }

  private ObjectVersion readHeader(ByteBuffer in, byte[] bytes) {
    if (in.remaining() < 32 || in.getInt() != MAGIC) {
      return null;
    }
    int storedBlockSize = in.getInt();
    long length = in.getLong();
    long mtime = in.getLong();
    int pathLength = in.getInt();
    if (storedBlockSize != blockSize || pathLength < 1 || pathLength > in.remaining() - 8) {
      return null;
    }
    String path = new String(bytes, in.position(), pathLength, StandardCharsets.UTF_8);
    in.position(in.position() + pathLength);
    int etagLength = in.getInt();
    if (etagLength < 0 || etagLength > in.remaining() - 4) {
      return null;
    }
    String etag = new String(bytes, in.position(), etagLength, StandardCharsets.UTF_8);
    in.position(in.position() + etagLength);
    int headerEnd = in.position();
    if (in.getInt() != crc(bytes, 0, headerEnd) || length < 0) {
      return null;
    }
    return new ObjectVersion(path, length, mtime, etag);
  }

  private static Recovered discard(Path meta, Path dataFile, int disk, Scan scan, String reason) {
    LOG.warn("Dropping cached object {}: {}", dataFile, reason);
    scan.problems++;
    scan.delete(dataFile, disk);
    scan.delete(meta, disk);
    return null;
  }

  private static ByteBuffer record(ByteBuffer buffer, int kind, int block, int crc) {
    int start = buffer.position();
    buffer.putInt(kind).putInt(block).putInt(crc);
    buffer.putInt(crc(buffer.array(), start, 12));
    return buffer;
  }

  private static void append(Path dataFile, ByteBuffer bytes) throws IOException {
    try (FileChannel channel = FileChannel.open(metaFile(dataFile), StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      writeFully(channel, bytes);
    }
  }

  private static void writeFully(FileChannel channel, ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      channel.write(bytes);
    }
  }

  private static int crc(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  @Override
  public void close() {}
}
