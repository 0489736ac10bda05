package io.rubix.hadoop.contract;

/**
 * JUnit 4 category of the Hadoop contract suites run against our file systems. Surefire runs them in
 * their own execution ({@code hadoop-contract} in rubix-core's pom), whose classpath has the AssertJ
 * that Hadoop's test-jar was compiled against; the default execution excludes them.
 */
public interface HadoopContractSuite {}
