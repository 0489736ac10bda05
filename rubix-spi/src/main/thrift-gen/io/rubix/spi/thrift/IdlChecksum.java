package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "929586d952bf9699562c559f799a0d5a0b1301b3a72db57e2fd300f86e97ca2b";

  private IdlChecksum() {}
}
