package io.rubix.hadoop.contract;

import io.rubix.hadoop.CachingLocalFileSystem;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's file system contract for {@link CachingLocalFileSystem}: {@code file://} read through the
 * cache. Options are in {@code contract/rubix-localfs.xml}. Each contract (one per test method) gets
 * its own file system instance, closed in {@link #teardown()}.
 */
public class CachingLocalFSContract extends AbstractFSContract {
  static final String CONTRACT_XML = "contract/rubix-localfs.xml";

  private FileSystem fs;

  public CachingLocalFSContract(Configuration conf) {
    super(conf);
    addConfResource(CONTRACT_XML);
  }

  @Override
  public void init() throws IOException {
    super.init();
    // The caching class is configured on a copy: code under test that asks for FileSystem.getLocal(conf)
    // needs a LocalFileSystem, which a delegating file system is not.
    Configuration conf = new Configuration(getConf());
    conf.set("fs.file.impl", CachingLocalFileSystem.class.getName());
    ContractFixtures.configureCache(conf);
    fs = FileSystem.newInstance(URI.create("file:///"), conf);
    if (!(fs instanceof CachingLocalFileSystem)) {
      throw new AssertionError("Expected a CachingLocalFileSystem, got " + fs.getClass().getName());
    }
  }

  @Override
  public void teardown() throws IOException {
    if (fs != null) {
      fs.close();
      fs = null;
    }
    super.teardown();
  }

  @Override
  public FileSystem getTestFileSystem() {
    return fs;
  }

  @Override
  public String getScheme() {
    return "file";
  }

  @Override
  public Path getTestPath() {
    return fs.makeQualified(new Path(new File("target", "contract-data").getAbsolutePath()));
  }
}
