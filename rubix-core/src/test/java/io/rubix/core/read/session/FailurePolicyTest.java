package io.rubix.core.read.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rubix.core.client.BookKeeperUnavailableException;
import io.rubix.core.stats.CacheCounter;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailurePolicyTest {
  @TempDir
  Path root;

  @Test
  void strictModeIsTheOnlySwitch() {
    assertThat(FailurePolicy.of(ReadFixture.config(root, false, 1))).isEqualTo(FailurePolicy.FALL_BACK);
    assertThat(FailurePolicy.of(ReadFixture.config(root, true, 1))).isEqualTo(FailurePolicy.FAIL);
    assertThat(FailurePolicy.FALL_BACK.writesBeforeReturning()).isFalse();
    assertThat(FailurePolicy.FAIL.writesBeforeReturning()).isTrue();
  }

  @Test
  void fallBackReturnsAndFailRethrowsTheSameIoExceptionOrWrapsOthers() throws IOException {
    IOException disk = new IOException("disk gone");
    FailurePolicy.FALL_BACK.handle(disk, "ignored");
    FailurePolicy.FALL_BACK.handle(new IllegalStateException("bug"), "ignored");

    assertThatThrownBy(() -> FailurePolicy.FAIL.handle(disk, "ignored")).isSameAs(disk);
    IllegalStateException bug = new IllegalStateException("bug");
    assertThatThrownBy(() -> FailurePolicy.FAIL.handle(bug, "Reading block 3 of s3a://bucket/key failed"))
        .isInstanceOf(IOException.class)
        .hasMessage("Reading block 3 of s3a://bucket/key failed")
        .hasCause(bug);
  }

  @Test
  void metadataFailureIsCountedAndFailsOnlyInStrictMode() throws IOException {
    try (ReadFixture fixture = new ReadFixture(root, 4096)) {
      ReadSession s = fixture.session();
      FailurePolicy.FALL_BACK.metadataFailure(s, new IOException("service down"));
      FailurePolicy.FALL_BACK.metadataFailure(s, new BookKeeperUnavailableException("backing off", new IOException("refused")));
      assertThat(fixture.count(CacheCounter.FALLBACK_METADATA)).isEqualTo(2);

      RuntimeException bug = new IllegalStateException("bug");
      assertThatThrownBy(() -> FailurePolicy.FAIL.metadataFailure(s, bug))
          .isInstanceOf(IOException.class)
          .hasMessage("Cache metadata service failed for s3a://bucket/key")
          .hasCause(bug);
      assertThat(fixture.count(CacheCounter.FALLBACK_METADATA)).isEqualTo(3);
    }
  }
}
