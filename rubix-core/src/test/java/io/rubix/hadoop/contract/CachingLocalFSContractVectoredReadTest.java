package io.rubix.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.junit.experimental.categories.Category;

/** Run once per buffer type of {@link AbstractContractVectoredReadTest#params()} (heap and direct). */
@Category(HadoopContractSuite.class)
public class CachingLocalFSContractVectoredReadTest extends AbstractContractVectoredReadTest {
  public CachingLocalFSContractVectoredReadTest(String bufferType) {
    super(bufferType);
  }

  @Override
  protected AbstractFSContract createContract(Configuration conf) {
    return new CachingLocalFSContract(conf);
  }
}
