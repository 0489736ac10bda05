package io.rubix.spi.thrift;

/** SHA-256 of the bookkeeper.thrift this code was generated from; a test compares it with the IDL. */
public final class IdlChecksum {
  public static final String SHA256 = "bacac075e766d24c93cd0c4f6e3acd4f5f4ec45a14d4649effbdd997980fe7e1";

  private IdlChecksum() {}
}
