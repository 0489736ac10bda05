package io.rubix.hadoop;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.rubix.testing.S3Server;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.commit.AbstractS3ACommitter;
import org.apache.hadoop.fs.s3a.commit.CommitConstants;
import org.apache.hadoop.fs.s3a.commit.S3ACommitterFactory;
import org.apache.hadoop.fs.s3a.commit.files.SuccessData;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.mapreduce.lib.output.PathOutputCommitter;
import org.apache.hadoop.mapreduce.lib.output.PathOutputCommitterFactory;
import org.apache.hadoop.mapreduce.task.JobContextImpl;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A table written through Hadoop's S3A committers with {@code fs.s3a.impl} set to our class, then
 * read back through it. The committers refuse any file system that is not an S3AFileSystem, so this
 * shows ours is accepted, and that what they commit (multipart uploads completed at job commit for
 * magic, uploads from a local staging directory for directory) reads back right through the cache.
 */
class CachingS3AFileSystemCommitterTest {
  private static final String BUCKET = "warehouse";
  private static S3Server server;

  @TempDir
  java.nio.file.Path cacheDir;
  @TempDir
  java.nio.file.Path stagingDir;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.inMemory();
    server.createBucket(BUCKET);
  }

  @AfterAll
  static void stopServer() {
    server.close();
  }

  private Configuration conf(String committer) {
    Configuration conf = server.s3aConfiguration();
    conf.set("fs.s3a.impl", CachingS3AFileSystem.class.getName());
    conf.set("rubix.cache.dirs", cacheDir.toString());
    conf.set("rubix.cache.jmx.enabled", "false");
    conf.set(PathOutputCommitterFactory.COMMITTER_FACTORY_SCHEME_PATTERN.replace("%s", "s3a"), S3ACommitterFactory.CLASSNAME);
    conf.set(CommitConstants.FS_S3A_COMMITTER_NAME, committer);
    conf.setBoolean(CommitConstants.MAGIC_COMMITTER_ENABLED, true);
    // the staging committers keep task output under the cluster file system (here file://) until task commit
    conf.set("fs.s3a.committer.staging.tmp.path", stagingDir.resolve("cluster").toUri().toString());
    conf.set("fs.s3a.buffer.dir", stagingDir.resolve("buffer").toString());
    conf.set("fs.defaultFS", "file:///");
    conf.setBoolean(CommitConstants.FS_S3A_COMMITTER_STAGING_UNIQUE_FILENAMES, false);
    return conf;
  }

  @ParameterizedTest
  @ValueSource(strings = {CommitConstants.COMMITTER_NAME_MAGIC, CommitConstants.COMMITTER_NAME_DIRECTORY})
  void tableWrittenThroughCommitterReadsBackThroughCache(String committerName) throws Exception {
    Configuration conf = conf(committerName);
    Path table = new Path("s3a://" + BUCKET + "/tables/" + committerName);
    JobID jobId = new JobID("rubix", 1);
    conf.set("mapreduce.job.id", jobId.toString());
    JobContext job = new JobContextImpl(conf, jobId);
    List<String> written = new ArrayList<>();

    PathOutputCommitter jobCommitter = committer(table, new TaskAttemptContextImpl(conf, attempt(jobId, 0)));
    assertThat(jobCommitter).isInstanceOf(AbstractS3ACommitter.class);
    assertThat(((AbstractS3ACommitter) jobCommitter).getDestS3AFS()).isInstanceOf(CachingS3AFileSystem.class);
    assertThat(((AbstractS3ACommitter) jobCommitter).getName()).isEqualTo(committerName);
    jobCommitter.setupJob(job);

    for (int task = 0; task < 2; task++) {
      TaskAttemptContext attempt = new TaskAttemptContextImpl(conf, attempt(jobId, task));
      PathOutputCommitter taskCommitter = committer(table, attempt);
      taskCommitter.setupTask(attempt);
      String name = String.format(java.util.Locale.ROOT, "part-%05d.csv", task);
      Path file = new Path(taskCommitter.getWorkPath(), name);
      try (FSDataOutputStream out = file.getFileSystem(conf).create(file, false)) {
        out.write(rows(task).getBytes(UTF_8));
      }
      assertThat(taskCommitter.needsTaskCommit(attempt)).isTrue();
      taskCommitter.commitTask(attempt);
      written.add(name);
    }
    jobCommitter.commitJob(job);

    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
      assertThat(fs).isInstanceOf(CachingS3AFileSystem.class);
      List<String> listed = new ArrayList<>();
      for (FileStatus status : fs.listStatus(table)) {
        listed.add(status.getPath().getName());
      }
      assertThat(listed).containsExactlyInAnyOrder("part-00000.csv", "part-00001.csv", "_SUCCESS");

      SuccessData success = SuccessData.load(fs, new Path(table, "_SUCCESS"));
      assertThat(success.getCommitter()).isEqualTo(committerName);
      assertThat(success.getFilenames()).hasSize(2);

      for (int task = 0; task < 2; task++) {
        Path file = new Path(table, written.get(task));
        // twice: the first read fills the cache, the second is served from it
        assertThat(read(fs, file)).isEqualTo(rows(task));
        server.store().reset();
        assertThat(read(fs, file)).isEqualTo(rows(task));
        assertThat(server.store().gets()).isZero();
      }
    }
  }

  private static PathOutputCommitter committer(Path output, TaskAttemptContext context) throws IOException {
    return PathOutputCommitterFactory.createCommitter(output, context);
  }

  private static TaskAttemptID attempt(JobID job, int task) {
    return new TaskAttemptID(new TaskID(job, TaskType.MAP, task), 0);
  }

  private static String rows(int task) {
    StringBuilder rows = new StringBuilder("id,task,name\n");
    for (int i = 0; i < 1000; i++) {
      rows.append(i).append(',').append(task).append(",row-").append(task).append('-').append(i).append('\n');
    }
    return rows.toString();
  }

  private static String read(FileSystem fs, Path file) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      return new String(in.readAllBytes(), UTF_8);
    }
  }
}
