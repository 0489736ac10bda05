package io.rubix.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.s3a.impl.InternalConstants;
import org.junit.jupiter.api.Test;

class OpenFileKeysTest {
  @Test
  void keysAreThoseOfTheHadoopWeBuildWith() {
    assertThat(OpenFileKeys.STANDARD).isEqualTo(Options.OpenFileOptions.FS_OPTION_OPENFILE_STANDARD_OPTIONS);
    assertThat(OpenFileKeys.S3A).isEqualTo(InternalConstants.S3A_OPENFILE_KEYS);
  }
}
